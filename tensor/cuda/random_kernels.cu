// Random fills from Philox (tensor/cuda/philox.h): thread work item b takes
// block offset + b and writes the elements that block's four words make
// (four floats, two doubles or two integers), so the values depend on the
// seed and the generator's offset only.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "tensor/cuda/grid.h"
#include "tensor/cuda/launch.h"
#include "tensor/cuda/philox.h"
#include "tensor/cuda/stream_state.h"

namespace torchlet::cuda {
namespace {

template <typename T>
__device__ __forceinline__ T store_as(float v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(v);
  } else {
    return static_cast<T>(v);
  }
}

// Box-Muller on (u1, u2) in [0, 1): two standard normals.
template <typename A>
__device__ __forceinline__ void box_muller(A u1, A u2, A& z0, A& z1) {
  const A radius = std::sqrt(A(-2) * std::log(A(1) - u1));
  const A angle = A(6.283185307179586476925286766559) * u2;
  z0 = radius * std::cos(angle);
  z1 = radius * std::sin(angle);
}

template <typename T>
__global__ void random_kernel(T* out, int64_t n, uint64_t seed, uint64_t offset, RandomArgs args) {
  constexpr bool kDouble = std::is_same_v<T, double>;
  const bool integral = args.kind == RandomKind::kInteger;
  const int64_t per_block = integral || kDouble ? 2 : 4;
  const int64_t blocks = (n + per_block - 1) / per_block;
  for (int64_t b = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; b < blocks;
       b += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const philox::Block w = philox::draw(seed, offset + static_cast<uint64_t>(b));
    const int64_t first = b * per_block;
    if (integral) {
      if constexpr (std::is_integral_v<T> || std::is_floating_point_v<T>) {
        for (int k = 0; k < 2 && first + k < n; ++k) {
          const uint64_t bits = static_cast<uint64_t>(w.x[2 * k]) << 32 | w.x[2 * k + 1];
          out[first + k] = static_cast<T>(args.low + static_cast<int64_t>(bits % args.range));
        }
      }
    } else if constexpr (kDouble) {
      const double u1 = philox::uniform_double(w.x[0], w.x[1]);
      const double u2 = philox::uniform_double(w.x[2], w.x[3]);
      double v[2] = {u1, u2};
      if (args.kind == RandomKind::kNormal) box_muller(u1, u2, v[0], v[1]);
      for (int k = 0; k < 2 && first + k < n; ++k) {
        out[first + k] = args.kind == RandomKind::kNormal ? args.a + args.b * v[k]
                                                          : args.a + (args.b - args.a) * v[k];
      }
    } else if constexpr (!std::is_integral_v<T>) {
      float v[4];
      for (int k = 0; k < 4; ++k) v[k] = philox::uniform_float(w.x[k]);
      if (args.kind == RandomKind::kNormal) {
        box_muller(v[0], v[1], v[0], v[1]);
        box_muller(v[2], v[3], v[2], v[3]);
      }
      const float a = static_cast<float>(args.a), b_ = static_cast<float>(args.b);
      for (int k = 0; k < 4 && first + k < n; ++k) {
        out[first + k] = store_as<T>(args.kind == RandomKind::kNormal ? a + b_ * v[k]
                                                                       : a + (b_ - a) * v[k]);
      }
    }
  }
}

template <typename T>
cudaError_t run(void* out, int64_t n, uint64_t seed, uint64_t offset, const RandomArgs& args,
                uint64_t blocks) {
  const uint64_t wanted = (blocks + kThreads - 1) / kThreads;
  random_kernel<T><<<static_cast<unsigned>(wanted < (1u << 20) ? wanted : (1u << 20)), kThreads, 0, launch_stream()>>>(
      static_cast<T*>(out), n, seed, offset, args);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_random(DType dtype, void* out, int64_t n, uint64_t seed, uint64_t offset,
                          const RandomArgs& args) {
  if (n == 0) return cudaSuccess;
  const uint64_t blocks = philox_blocks(n, dtype, args.kind == RandomKind::kInteger);
  switch (dtype) {
    case DType::kFloat32: return run<float>(out, n, seed, offset, args, blocks);
    case DType::kFloat64: return run<double>(out, n, seed, offset, args, blocks);
    case DType::kFloat16: return run<__half>(out, n, seed, offset, args, blocks);
    case DType::kBFloat16: return run<__nv_bfloat16>(out, n, seed, offset, args, blocks);
    case DType::kInt64: return run<int64_t>(out, n, seed, offset, args, blocks);
    case DType::kInt32: return run<int32_t>(out, n, seed, offset, args, blocks);
    case DType::kUInt8: return run<uint8_t>(out, n, seed, offset, args, blocks);
    case DType::kBool: return run<bool>(out, n, seed, offset, args, blocks);
  }
  return cudaErrorInvalidValue;
}

}  // namespace torchlet::cuda
