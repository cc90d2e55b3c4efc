// The libFuzzer entry point of the safetensors loader. tools/fuzz_safetensors.sh
// links it with libFuzzer (clang, ASan, UBSan); //nn/serialize:safetensors_fuzz_test
// runs it over the checked-in corpus in every build.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "nn/serialize/safetensors.h"

/// Loads `data` as a safetensors file: it must load or throw torchlet::Error.
/// Anything else (a crash, a sanitizer report, another exception) is a bug.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const torchlet::StateDict tensors =
        torchlet::load_buffer(std::string_view(reinterpret_cast<const char*>(data), size));
    for (const auto& item : tensors) {
      const torchlet::Tensor& t = item.second;
      const auto* bytes = static_cast<const volatile unsigned char*>(t.data_ptr());
      const size_t n = static_cast<size_t>(t.numel()) * t.element_size();
      if (n > 0) (void)(bytes[0] + bytes[n - 1]);  // in bounds, or ASan says so
    }
  } catch (const torchlet::Error&) {
  }
  return 0;
}
