// The CUDA runtime interface under --config=cuda.
#include "tensor/cuda/cuda_runtime.h"

#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

#include "tensor/cuda/caching_allocator.h"
#include "tensor/cuda/fill_kernel.h"
#include "tensor/cuda/launch.h"
#include "tensor/cuda/stream.h"
#include "tensor/cuda/stream_state.h"
#include "tensor/error.h"

namespace torchlet::cuda {
namespace {

void check(cudaError_t status, const char* what) {
  TORCHLET_CHECK(status == cudaSuccess, what, ": CUDA error: ", cudaGetErrorString(status));
}

class DeviceSwitch {
 public:
  explicit DeviceSwitch(int index) {
    check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != index) check(cudaSetDevice(index), "cudaSetDevice");
  }
  ~DeviceSwitch() { cudaSetDevice(previous_); }

 private:
  int previous_ = 0;
};

}  // namespace


int device_count() {
  // Probed once: no driver, no GPU or a driver too old for this runtime all
  // mean zero devices rather than an error.
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return n;
  }();
  return count;
}

DeviceProperties device_properties(int index) {
  TORCHLET_CHECK(index >= 0 && index < device_count(), "cuda::device_properties: device cuda:",
                 index, " does not exist (", device_count(), " CUDA devices available)");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, index), "cudaGetDeviceProperties");
  DeviceProperties out;
  out.name = prop.name;
  out.total_memory = prop.totalGlobalMem;
  out.major = prop.major;
  out.minor = prop.minor;
  out.multiprocessor_count = prop.multiProcessorCount;
  return out;
}

namespace {

// A query's answer: done (cudaSuccess) or not yet (cudaErrorNotReady, which
// is cleared); any other status is an error.
bool finished(cudaError_t status, const char* what) {
  if (status == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  check(status, what);
  return true;
}

// cudaMalloc and cudaFree on one GPU, behind its caching allocator.
class CudaDeviceMemory : public DeviceMemory {
 public:
  explicit CudaDeviceMemory(int index) : index_(index) {}
  void* allocate(size_t nbytes) override {
    DeviceSwitch guard(index_);
    void* p = nullptr;
    const cudaError_t status = cudaMalloc(&p, nbytes);
    if (status == cudaSuccess) return p;
    cudaGetLastError();  // clears the error, so the next call does not see it
    if (status == cudaErrorMemoryAllocation) return nullptr;
    check(status, "cudaMalloc");
    return nullptr;
  }
  void free(void* ptr) override {
    DeviceSwitch guard(index_);
    check(cudaFree(ptr), "cudaFree");
  }
  void info(size_t* free_bytes, size_t* total_bytes) override {
    DeviceSwitch guard(index_);
    check(cudaMemGetInfo(free_bytes, total_bytes), "cudaMemGetInfo");
  }
  void* record_event(int device, uint64_t stream) override {
    DeviceSwitch guard(device);
    cudaEvent_t event = nullptr;
    check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "record_stream");
    check(cudaEventRecord(event, reinterpret_cast<cudaStream_t>(stream)), "record_stream");
    return event;
  }
  bool event_done(void* event) override {
    return finished(cudaEventQuery(static_cast<cudaEvent_t>(event)), "CUDA allocator: cudaEventQuery");
  }
  void synchronize_event(void* event) override {
    check(cudaEventSynchronize(static_cast<cudaEvent_t>(event)), "CUDA allocator: cudaEventSynchronize");
  }
  void destroy_event(void* event) override { cudaEventDestroy(static_cast<cudaEvent_t>(event)); }

 private:
  int index_;
};

// GPU `index`'s caching allocator. The allocators are made on first use and
// never destroyed: tensors freed during static destruction still find
// theirs, and the driver reclaims the memory at exit.
CachingAllocator& caching_allocator(int index, const char* op) {
  TORCHLET_CHECK(index >= 0 && index < device_count(), op, ": device cuda:", index,
                 " does not exist (", device_count(), " CUDA devices available)");
  static auto* allocators = [] {
    auto* all = new std::vector<std::unique_ptr<CachingAllocator>>();
    for (int i = 0; i < device_count(); ++i) {
      all->push_back(std::make_unique<CachingAllocator>(std::make_unique<CudaDeviceMemory>(i), i));
    }
    return all;
  }();
  return *(*allocators)[index];
}

}  // namespace

void* allocate(size_t nbytes, int index) {
  // Blocks are kept apart by the stream that asked for them (Note [Streams]).
  return caching_allocator(index, "CUDA allocator")
      .allocate(nbytes, reinterpret_cast<StreamId>(current_stream_handle(index)));
}

void deallocate(void* ptr, int index) {
  caching_allocator(index, "CUDA allocator").free(ptr);
}

size_t memory_allocated(int index) {
  return caching_allocator(index, "cuda::memory_allocated").stats().allocated;
}

size_t max_memory_allocated(int index) {
  return caching_allocator(index, "cuda::max_memory_allocated").stats().max_allocated;
}

size_t memory_reserved(int index) {
  return caching_allocator(index, "cuda::memory_reserved").stats().reserved;
}

size_t max_memory_reserved(int index) {
  return caching_allocator(index, "cuda::max_memory_reserved").stats().max_reserved;
}

void reset_peak_memory_stats(int index) {
  caching_allocator(index, "cuda::reset_peak_memory_stats").reset_peak_stats();
}

void empty_cache() {
  for (int i = 0; i < device_count(); ++i) caching_allocator(i, "cuda::empty_cache").empty_cache();
}

void synchronize(int index) {
  TORCHLET_CHECK(index >= 0 && index < device_count(), "cuda::synchronize: device cuda:", index,
                 " does not exist (", device_count(), " CUDA devices available)");
  DeviceSwitch guard(index);
  check(cudaDeviceSynchronize(), "cuda::synchronize");
}

namespace {
cudaMemcpyKind memcpy_kind(CopyKind kind) {
  return kind == CopyKind::kHostToDevice   ? cudaMemcpyHostToDevice
         : kind == CopyKind::kDeviceToHost ? cudaMemcpyDeviceToHost
                                           : cudaMemcpyDeviceToDevice;
}
}  // namespace

namespace {

// A copy from another GPU runs after the work queued there on this thread's
// current stream, which may still be writing the source.
void wait_for_source(CopyKind kind, int device_index, int src_device) {
  if (kind != CopyKind::kDeviceToDevice || src_device < 0 || src_device == device_index) return;
  Event ready;
  ready.record(current_stream(src_device));
  ready.wait(current_stream(device_index));
}

}  // namespace

void copy(void* dst, const void* src, size_t nbytes, CopyKind kind, int device_index,
          int src_device) {
  if (nbytes == 0) return;
  DeviceSwitch guard(device_index);
  const cudaStream_t stream = current_stream_handle(device_index);
  wait_for_source(kind, device_index, src_device);
  check(cudaMemcpyAsync(dst, src, nbytes, memcpy_kind(kind), stream), "cudaMemcpy");
  check(cudaStreamSynchronize(stream), "cudaMemcpy");
}

void copy_async(void* dst, const void* src, size_t nbytes, CopyKind kind, int index,
                int src_device) {
  if (nbytes == 0) return;
  DeviceSwitch guard(index);
  wait_for_source(kind, index, src_device);
  check(cudaMemcpyAsync(dst, src, nbytes, memcpy_kind(kind), current_stream_handle(index)),
        "cudaMemcpyAsync");
}

void* host_allocate(size_t nbytes) {
  TORCHLET_CHECK(device_count() > 0, "pin_memory: no CUDA GPU is available to pin host memory "
                 "for");
  void* p = nullptr;
  check(cudaHostAlloc(&p, nbytes == 0 ? 1 : nbytes, cudaHostAllocPortable), "pin_memory");
  return p;
}

void host_deallocate(void* ptr) {
  // cudaFreeHost waits for the device's queued work, copies from ptr included.
  (void)cudaFreeHost(ptr);
}

void fill(void* dst, size_t count, size_t element_size, const void* value, int index) {
  if (count == 0) return;
  DeviceSwitch guard(index);
  check(launch_fill(dst, count, element_size, value), "CUDA fill");
}

// ---- streams and events (Note [Streams] in tensor/cuda/stream.h) ----------------------

namespace {

void check_stream_device(int device, const char* op) {
  TORCHLET_CHECK(device >= 0 && device < device_count(), op, ": device cuda:", device,
                 " does not exist (", device_count(), " CUDA devices available)");
}

cudaStream_t raw(const Stream& s) { return static_cast<cudaStream_t>(s.handle()); }

}  // namespace

void record_stream(void* ptr, int index, int stream_device, void* stream_handle) {
  check_stream_device(stream_device, "record_stream");
  caching_allocator(index, "record_stream")
      .record_stream(ptr, stream_device, reinterpret_cast<StreamId>(stream_handle));
}

Stream Stream::create(int device) {
  check_stream_device(device, "cuda::Stream::create");
  TORCHLET_CHECK(device < detail::kMaxStreamDevices, "cuda::Stream::create: streams are kept for "
                 "the first ", detail::kMaxStreamDevices, " GPUs only, not cuda:", device);
  DeviceSwitch guard(device);
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cuda::Stream::create");
  return Stream::from_handle(device, s);
}

bool Stream::query() const {
  return finished(cudaStreamQuery(raw(*this)), "cuda::Stream::query");
}

void Stream::synchronize() const {
  DeviceSwitch guard(device_);
  check(cudaStreamSynchronize(raw(*this)), "cuda::Stream::synchronize");
}

void Stream::wait_stream(const Stream& other) const {
  if (other == *this) return;
  Event e;
  e.record(other);
  e.wait(*this);
}

Stream default_stream(int device) {
  check_stream_device(device, "cuda::default_stream");
  return Stream::from_handle(device, nullptr);
}

Stream current_stream(int device) {
  check_stream_device(device, "cuda::current_stream");
  return Stream::from_handle(device, current_stream_handle(device));
}

// Past kMaxStreamDevices a GPU's current stream is always its default one,
// so a guard of the default stream there has nothing to do.
StreamGuard::StreamGuard(const Stream& stream) : previous_(current_stream(stream.device_index())) {
  if (stream.device_index() >= detail::kMaxStreamDevices && stream.is_default()) return;
  TORCHLET_CHECK(stream.device_index() < detail::kMaxStreamDevices,
                 "cuda::StreamGuard: streams are kept for the first ", detail::kMaxStreamDevices,
                 " GPUs only, not cuda:", stream.device_index());
  detail::tls_current_streams[stream.device_index()] = raw(stream);
}

StreamGuard::~StreamGuard() {
  if (previous_.device_index() >= detail::kMaxStreamDevices) return;
  detail::tls_current_streams[previous_.device_index()] = raw(previous_);
}

Event::~Event() {
  if (handle_ != nullptr) (void)cudaEventDestroy(static_cast<cudaEvent_t>(handle_));
}

Event::Event(Event&& other) noexcept
    : timing_(other.timing_), device_(other.device_), handle_(other.handle_) {
  other.handle_ = nullptr;
  other.device_ = -1;
}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) (void)cudaEventDestroy(static_cast<cudaEvent_t>(handle_));
    timing_ = other.timing_;
    device_ = other.device_;
    handle_ = other.handle_;
    other.handle_ = nullptr;
    other.device_ = -1;
  }
  return *this;
}

void Event::record(const Stream& stream) {
  DeviceSwitch guard(stream.device_index());
  if (handle_ == nullptr) {
    cudaEvent_t e = nullptr;
    check(cudaEventCreateWithFlags(&e, timing_ ? cudaEventDefault : cudaEventDisableTiming),
          "cuda::Event::record");
    handle_ = e;
    device_ = stream.device_index();
  }
  TORCHLET_CHECK(device_ == stream.device_index(), "cuda::Event::record: the event was recorded "
                 "on cuda:", device_, " and cannot be recorded on a stream of cuda:",
                 stream.device_index());
  check(cudaEventRecord(static_cast<cudaEvent_t>(handle_), raw(stream)), "cuda::Event::record");
}

void Event::wait(const Stream& stream) const {
  if (handle_ == nullptr) return;
  DeviceSwitch guard(stream.device_index());
  check(cudaStreamWaitEvent(raw(stream), static_cast<cudaEvent_t>(handle_), 0),
        "cuda::Event::wait");
}

bool Event::query() const {
  if (handle_ == nullptr) return true;
  return finished(cudaEventQuery(static_cast<cudaEvent_t>(handle_)), "cuda::Event::query");
}

void Event::synchronize() const {
  if (handle_ == nullptr) return;
  check(cudaEventSynchronize(static_cast<cudaEvent_t>(handle_)), "cuda::Event::synchronize");
}

float Event::elapsed_time(const Event& end) const {
  TORCHLET_CHECK(timing_ && end.timing_, "cuda::Event::elapsed_time: both events must be made "
                 "with enable_timing=true");
  TORCHLET_CHECK(handle_ != nullptr && end.handle_ != nullptr,
                 "cuda::Event::elapsed_time: both events must be recorded before");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(handle_),
                             static_cast<cudaEvent_t>(end.handle_)),
        "cuda::Event::elapsed_time");
  return ms;
}

void sleep_cycles(int device, int64_t cycles) {
  check_stream_device(device, "cuda::sleep_cycles");
  DeviceSwitch guard(device);
  check(launch_sleep(cycles), "cuda::sleep_cycles");
}

namespace detail {

Stream create_executor_stream(int device) {
  check_stream_device(device, "device_executor");
  // Past kMaxStreamDevices, the executor queues on the default stream.
  if (device >= detail::kMaxStreamDevices) return default_stream(device);
  DeviceSwitch guard(device);
  cudaStream_t s = nullptr;
  // Blocking (cudaStreamDefault): besides the events at every hand-off, it
  // stays ordered with the legacy default stream the caller uses.
  check(cudaStreamCreateWithFlags(&s, cudaStreamDefault), "device_executor: cudaStreamCreate");
  return Stream::from_handle(device, s);
}

}  // namespace detail

}  // namespace torchlet::cuda
