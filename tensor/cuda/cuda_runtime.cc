// The CUDA runtime interface under --config=cuda.
#include "tensor/cuda/cuda_runtime.h"

#include <cuda_runtime_api.h>

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

void* allocate(size_t nbytes, int index) {
  DeviceSwitch guard(index);
  void* p = nullptr;
  const cudaError_t status = cudaMalloc(&p, nbytes == 0 ? 1 : nbytes);
  if (status != cudaSuccess) cudaGetLastError();
  TORCHLET_CHECK(status == cudaSuccess, "CUDA allocator: could not allocate ", nbytes,
                 " bytes on cuda:", index, ": ", cudaGetErrorString(status));
  return p;
}

void deallocate(void* ptr, int index) {
  DeviceSwitch guard(index);
  cudaFree(ptr);
}

void copy(void* dst, const void* src, size_t nbytes, CopyKind kind, int device_index) {
  if (nbytes == 0) return;
  DeviceSwitch guard(device_index);
  const cudaMemcpyKind k = kind == CopyKind::kHostToDevice   ? cudaMemcpyHostToDevice
                           : kind == CopyKind::kDeviceToHost ? cudaMemcpyDeviceToHost
                                                             : cudaMemcpyDeviceToDevice;
  check(cudaMemcpy(dst, src, nbytes, k), "cudaMemcpy");
}

void fill(void* dst, size_t count, size_t element_size, const void* value, int index) {
  if (count == 0) return;
  DeviceSwitch guard(index);
  check(launch_fill(dst, count, element_size, value), "CUDA fill");
  check(cudaDeviceSynchronize(), "CUDA fill");
}

}  // namespace torchlet::cuda
