// The CUDA runtime interface in a build without --config=cuda: no devices.
#include "tensor/cuda/cuda_runtime.h"
#include "tensor/cuda/stream.h"

#include "tensor/error.h"

namespace torchlet::cuda {
namespace {

[[noreturn]] void not_built(const char* what) {
  torchlet::detail::throw_error(torchlet::detail::str_cat(
      what, ": torchlet was built without CUDA support; rebuild with --config=cuda"));
}

}  // namespace

int device_count() { return 0; }
DeviceProperties device_properties(int) { not_built("cuda::device_properties"); }
void* allocate(size_t, int) { not_built("CUDA allocator"); }
void deallocate(void*, int) {}
void record_stream(void*, int, int, void*) { not_built("record_stream"); }
size_t memory_allocated(int) { not_built("cuda::memory_allocated"); }
size_t max_memory_allocated(int) { not_built("cuda::max_memory_allocated"); }
size_t memory_reserved(int) { not_built("cuda::memory_reserved"); }
size_t max_memory_reserved(int) { not_built("cuda::max_memory_reserved"); }
void reset_peak_memory_stats(int) { not_built("cuda::reset_peak_memory_stats"); }
void empty_cache() {}  // nothing is cached without CUDA, as in PyTorch
void synchronize(int) { not_built("cuda::synchronize"); }
void copy(void*, const void*, size_t, CopyKind, int, int) { not_built("CUDA copy"); }
void copy_async(void*, const void*, size_t, CopyKind, int, int) { not_built("CUDA copy"); }
void* host_allocate(size_t) { not_built("pin_memory"); }
void host_deallocate(void*) {}
void fill(void*, size_t, size_t, const void*, int) { not_built("CUDA fill"); }

Stream Stream::create(int) { not_built("cuda::Stream::create"); }
bool Stream::query() const { not_built("cuda::Stream::query"); }
void Stream::synchronize() const { not_built("cuda::Stream::synchronize"); }
void Stream::wait_stream(const Stream&) const { not_built("cuda::Stream::wait_stream"); }
Stream default_stream(int) { not_built("cuda::default_stream"); }
Stream current_stream(int) { not_built("cuda::current_stream"); }
StreamGuard::StreamGuard(const Stream&) { not_built("cuda::StreamGuard"); }
StreamGuard::~StreamGuard() = default;
Event::~Event() = default;
Event::Event(Event&& other) noexcept : timing_(other.timing_) {}
Event& Event::operator=(Event&& other) noexcept {
  timing_ = other.timing_;
  return *this;
}
void Event::record(const Stream&) { not_built("cuda::Event::record"); }
void Event::wait(const Stream&) const {}  // never recorded: waits for nothing
bool Event::query() const { return true; }
void Event::synchronize() const {}
float Event::elapsed_time(const Event&) const { not_built("cuda::Event::elapsed_time"); }
void sleep_cycles(int, int64_t) { not_built("cuda::sleep_cycles"); }
namespace detail {
Stream create_executor_stream(int) { not_built("device_executor"); }
}  // namespace detail

}  // namespace torchlet::cuda
