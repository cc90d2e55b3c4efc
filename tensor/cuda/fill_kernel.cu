#include <cstdint>
#include <cstring>

#include "tensor/cuda/fill_kernel.h"
#include "tensor/cuda/stream_state.h"

namespace torchlet::cuda {
namespace {

template <typename T>
__global__ void fill_kernel(T* dst, size_t count, T value) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    dst[i] = value;
  }
}

template <typename T>
cudaError_t launch(void* dst, size_t count, const void* value) {
  T v;
  std::memcpy(&v, value, sizeof(T));
  constexpr int kThreads = 256;
  const size_t wanted = (count + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(wanted < 65535 ? wanted : 65535);
  fill_kernel<T><<<blocks, kThreads, 0, launch_stream()>>>(static_cast<T*>(dst), count, v);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_fill(void* dst, size_t count, size_t element_size, const void* value) {
  switch (element_size) {
    case 1: return launch<uint8_t>(dst, count, value);
    case 2: return launch<uint16_t>(dst, count, value);
    case 4: return launch<uint32_t>(dst, count, value);
    case 8: return launch<uint64_t>(dst, count, value);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace torchlet::cuda
