#pragma once

// Launch helpers shared by the CUDA kernels (.cu files only).

#include <cuda_runtime_api.h>

#include <cstdint>

#include "tensor/dtype.h"

namespace torchlet::cuda {

constexpr int kThreads = 256;

/// Blocks of kThreads for n work items, capped (the loops stride over the
/// rest).
inline unsigned blocks_for(int64_t n) {
  const int64_t wanted = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(wanted < (1 << 20) ? wanted : (1 << 20));
}

/// Calls fn(T{}) with T the C++ type of one of the dtypes kernels compute
/// in (float16 and bfloat16 compute in float32, see tensor/cuda/kernels.cc).
template <typename F>
cudaError_t dispatch(DType dtype, F&& fn) {
  switch (dtype) {
    case DType::kFloat32: return fn(float{});
    case DType::kFloat64: return fn(double{});
    case DType::kInt64: return fn(int64_t{});
    case DType::kInt32: return fn(int32_t{});
    case DType::kUInt8: return fn(uint8_t{});
    case DType::kBool: return fn(bool{});
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace torchlet::cuda

/// A grid-stride loop over [0, n) with 64-bit indices.
#define TORCHLET_GRID_LOOP(i, n)                                                              \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
