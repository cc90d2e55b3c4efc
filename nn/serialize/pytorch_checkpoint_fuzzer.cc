// The libFuzzer entry point of the PyTorch checkpoint loader.
// tools/fuzz_pytorch_checkpoint.sh links it with libFuzzer (clang, ASan,
// UBSan); //nn/serialize:pytorch_checkpoint_fuzz_test runs it over the
// checked-in corpus in every build.
//
// An input beginning with "PK" is a whole .pt file (the zip container and
// everything in it). Any other input is a data.pkl alone, given an archive
// around it whose storages "0" to "7" are 64 bytes each: mutations then reach
// the unpickler without having to fix up the zip's CRCs.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nn/serialize/pytorch_checkpoint.h"
#include "nn/serialize/pytorch_checkpoint_testing.h"

namespace {

torchlet::StateDict load_input(std::string_view bytes) {
  if (bytes.substr(0, 2) == "PK") return torchlet::load_pytorch_buffer(bytes);
  std::vector<std::pair<std::string, std::string>> records = {
      {"archive/data.pkl", std::string(bytes)}, {"archive/version", "3\n"}};
  for (char key = '0'; key <= '7'; ++key) {
    records.emplace_back(std::string("archive/data/") + key, std::string(64, '\x01'));
  }
  return torchlet::detail::load_pytorch_records(records);
}

}  // namespace

/// Loads `data`: it must load or throw torchlet::Error. Anything else (a
/// crash, a sanitizer report, another exception) is a bug.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const torchlet::StateDict tensors =
        load_input(std::string_view(reinterpret_cast<const char*>(data), size));
    for (const auto& item : tensors) {
      const torchlet::Tensor& t = item.second;
      if (t.numel() == 0) continue;
      // The first and the last element the view reaches: in bounds, or ASan says so.
      int64_t last = 0;
      for (int64_t d = 0; d < t.dim(); ++d) last += (t.sizes()[d] - 1) * t.strides()[d];
      const auto* bytes = static_cast<const volatile unsigned char*>(t.data_ptr());
      const size_t end = static_cast<size_t>(last + 1) * t.element_size();
      (void)(bytes[0] + bytes[end - 1]);
    }
  } catch (const torchlet::Error&) {
  }
  return 0;
}
