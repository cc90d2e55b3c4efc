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
size_t memory_allocated(int) { not_built("cuda::memory_allocated"); }
size_t max_memory_allocated(int) { not_built("cuda::max_memory_allocated"); }
size_t memory_reserved(int) { not_built("cuda::memory_reserved"); }
size_t max_memory_reserved(int) { not_built("cuda::max_memory_reserved"); }
void reset_peak_memory_stats(int) { not_built("cuda::reset_peak_memory_stats"); }
void empty_cache() {}  // nothing is cached without CUDA, as in PyTorch
void synchronize(int) { not_built("cuda::synchronize"); }
void copy(void*, const void*, size_t, CopyKind, int) { not_built("CUDA copy"); }
void copy_async(void*, const void*, size_t, CopyKind, int) { not_built("CUDA copy"); }
void* host_allocate(size_t) { not_built("pin_memory"); }
void host_deallocate(void*) {}
void fill(void*, size_t, size_t, const void*, int) { not_built("CUDA fill"); }

}  // namespace torchlet::cuda
