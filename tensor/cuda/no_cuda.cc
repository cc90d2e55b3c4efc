// The CUDA runtime interface in a build without --config=cuda: no devices.
#include "tensor/cuda/cuda_runtime.h"
#include "tensor/error.h"

namespace torchlet::cuda {
namespace {

[[noreturn]] void not_built(const char* what) {
  detail::throw_error(detail::str_cat(
      what, ": torchlet was built without CUDA support; rebuild with --config=cuda"));
}

}  // namespace

int device_count() { return 0; }
DeviceProperties device_properties(int) { not_built("cuda::device_properties"); }
void* allocate(size_t, int) { not_built("CUDA allocator"); }
void deallocate(void*, int) {}
void copy(void*, const void*, size_t, CopyKind, int) { not_built("CUDA copy"); }
void fill(void*, size_t, size_t, const void*, int) { not_built("CUDA fill"); }

}  // namespace torchlet::cuda
