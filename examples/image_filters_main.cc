// The picture from the nn tutorial: reads a PNG, sharpens it with a 3x3
// convolution, and shrinks it with 2x2 average and max pooling, writing each
// result as a PNG next to --output.
//
//   bazel run //examples:image_filters -- --input=photo.png --output=out/photo
//   (writes out/photo_sharpened.png, out/photo_avg_pooled.png, out/photo_max_pooled.png)
#include <cstdio>
#include <exception>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "examples/image_filters.h"
#include "examples/image_io.h"
#include "examples/training.h"
#include "tensor/error.h"

ABSL_FLAG(std::string, input, "", "the PNG to filter");
ABSL_FLAG(std::string, output, "",
          "prefix of the written PNGs (default: --input without its .png)");

using namespace torchlet;  // NOLINT: example brevity

namespace {

void run() {
  const std::string input = examples::resolve(absl::GetFlag(FLAGS_input));
  TORCHLET_CHECK(!input.empty(), "--input is required (a PNG file)");
  std::string prefix = absl::GetFlag(FLAGS_output);
  if (prefix.empty()) {
    prefix = input.size() > 4 && input.compare(input.size() - 4, 4, ".png") == 0
                 ? input.substr(0, input.size() - 4)
                 : input;
  }
  prefix = examples::resolve(prefix);
  const Tensor image = examples::read_png(input);
  std::printf("%s: %lld channels, %lld x %lld\n", input.c_str(),
              static_cast<long long>(image.size(1)), static_cast<long long>(image.size(3)),
              static_cast<long long>(image.size(2)));
  const std::pair<const char*, Tensor> results[] = {
      {"_sharpened.png", examples::sharpen(image)},
      {"_avg_pooled.png", examples::average_pool(image)},
      {"_max_pooled.png", examples::max_pool(image)},
  };
  for (const auto& [suffix, result] : results) {
    examples::write_png(result, prefix + suffix);
    std::printf("wrote %s%s (%lld x %lld)\n", prefix.c_str(), suffix,
                static_cast<long long>(result.size(3)), static_cast<long long>(result.size(2)));
  }
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  try {
    run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "image_filters: %s\n", e.what());
    return 1;
  }
  return 0;
}
