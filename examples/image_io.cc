#include "examples/image_io.h"

#include <png.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "tensor/error.h"

namespace torchlet::examples {
namespace {

// The simplified libpng API's pixel formats by channel count.
png_uint_32 format_for(int64_t channels) {
  switch (channels) {
    case 1: return PNG_FORMAT_GRAY;
    case 2: return PNG_FORMAT_GA;
    case 3: return PNG_FORMAT_RGB;
    default: return PNG_FORMAT_RGBA;
  }
}

}  // namespace

Tensor read_png(const std::string& path) {
  png_image image;
  std::memset(&image, 0, sizeof(image));
  image.version = PNG_IMAGE_VERSION;
  TORCHLET_CHECK(png_image_begin_read_from_file(&image, path.c_str()) != 0, "read_png: cannot read ",
                 path, ": ", image.message);
  // Keep the file's channels (colour or gray, with or without alpha), 8-bit.
  image.format &= PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA;
  const int64_t channels = PNG_IMAGE_SAMPLE_CHANNELS(image.format);
  const int64_t height = image.height, width = image.width;
  std::vector<uint8_t> pixels(PNG_IMAGE_SIZE(image));
  const bool ok = png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr) != 0;
  const std::string message = image.message;
  png_image_free(&image);
  TORCHLET_CHECK(ok, "read_png: cannot decode ", path, ": ", message);
  const Tensor hwc = from_blob(pixels.data(), {height, width, channels}, kUInt8);
  return hwc.permute({2, 0, 1}).unsqueeze(0).to(kFloat).div_(255).contiguous();
}

void write_png(const Tensor& image, const std::string& path) {
  const Tensor chw = image.dim() == 4 && image.size(0) == 1 ? image.squeeze(0) : image;
  TORCHLET_CHECK(chw.dim() == 3 && chw.size(0) >= 1 && chw.size(0) <= 4,
                 "write_png: expected a [1, C, H, W] or [C, H, W] image with 1 to 4 channels, "
                 "got shape ", shape_str(image.sizes()));
  const Tensor hwc = chw.to(kFloat)
                         .clamp(0, 1)
                         .mul(255)
                         .round()
                         .to(kUInt8)
                         .permute({1, 2, 0})
                         .contiguous();
  png_image png;
  std::memset(&png, 0, sizeof(png));
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(chw.size(2));
  png.height = static_cast<png_uint_32>(chw.size(1));
  png.format = format_for(chw.size(0));
  const bool ok =
      png_image_write_to_file(&png, path.c_str(), 0, hwc.data_ptr(), 0, nullptr) != 0;
  const std::string message = png.message;
  png_image_free(&png);
  TORCHLET_CHECK(ok, "write_png: cannot write ", path, ": ", message);
}

}  // namespace torchlet::examples
