// The CUDA runtime interface under --config=cuda.
#include "tensor/cuda/cuda_runtime.h"

#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

#include "tensor/cuda/caching_allocator.h"
#include "tensor/cuda/fill_kernel.h"
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
  return caching_allocator(index, "CUDA allocator").allocate(nbytes);
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

void copy(void* dst, const void* src, size_t nbytes, CopyKind kind, int device_index) {
  if (nbytes == 0) return;
  DeviceSwitch guard(device_index);
  check(cudaMemcpy(dst, src, nbytes, memcpy_kind(kind)), "cudaMemcpy");
}

void copy_async(void* dst, const void* src, size_t nbytes, CopyKind kind, int index) {
  if (nbytes == 0) return;
  DeviceSwitch guard(index);
  check(cudaMemcpyAsync(dst, src, nbytes, memcpy_kind(kind), nullptr), "cudaMemcpyAsync");
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
  check(cudaDeviceSynchronize(), "CUDA fill");
}

}  // namespace torchlet::cuda
