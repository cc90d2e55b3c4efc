// Fused cross-entropy forward and backward, one block per row, with the CPU
// loops' arithmetic (tensor/cpu/nn_kernels.cc): double where they use
// double, the row's softmax kept for the backward.
#include <cmath>
#include <cstdint>
#include <limits>

#include "tensor/cuda/grid.h"
#include "tensor/cuda/launch.h"
#include "tensor/cuda/stream_state.h"

namespace torchlet::cuda {
namespace {

template <typename A, typename Combine>
__device__ A block_reduce(A value, Combine combine) {
  __shared__ A shared[kThreads];
  shared[threadIdx.x] = value;
  __syncthreads();
  for (int width = kThreads / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) {
      shared[threadIdx.x] = combine(shared[threadIdx.x], shared[threadIdx.x + width]);
    }
    __syncthreads();
  }
  const A result = shared[0];
  __syncthreads();  // the array may be reused by the next reduction
  return result;
}

struct Max {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a != a ? a : (b > a || b != b ? b : a); }
};
struct Add {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a + b; }
};

template <typename T>
__global__ void cross_entropy_kernel(T* loss, T* probs, const T* input, const int64_t* target,
                                     const T* weight, int64_t classes, int64_t ignore_index,
                                     double smoothing) {
  const int64_t r = blockIdx.x;
  const T* x = input + r * classes;
  T* p = probs + r * classes;
  T max = -std::numeric_limits<T>::infinity();
  for (int64_t c = threadIdx.x; c < classes; c += kThreads) max = Max{}(max, x[c]);
  max = block_reduce(max, Max{});
  T sum = 0;
  for (int64_t c = threadIdx.x; c < classes; c += kThreads) {
    const T e = std::exp(x[c] - max);
    p[c] = e;
    sum += e;
  }
  sum = block_reduce(sum, Add{});
  const T inv = T(1) / sum;
  for (int64_t c = threadIdx.x; c < classes; c += kThreads) p[c] *= inv;
  const int64_t t = target[r];
  // Label smoothing's sum over the classes of (weighted) -log_softmax.
  double smooth = 0;
  if (smoothing > 0) {
    for (int64_t c = threadIdx.x; c < classes; c += kThreads) {
      smooth += weight ? static_cast<double>(weight[c]) * -static_cast<double>(x[c])
                       : -static_cast<double>(x[c]);
    }
    smooth = block_reduce(smooth, Add{});
  }
  if (threadIdx.x != 0) return;
  if (t == ignore_index) {
    loss[r] = 0;
    return;
  }
  const double lse = static_cast<double>(max) + std::log(static_cast<double>(sum));
  const double wt = weight ? static_cast<double>(weight[t]) : 1.0;
  double value = wt * (lse - x[t]);
  if (smoothing > 0) {
    double w_sum = classes;
    if (weight) {
      w_sum = 0;
      for (int64_t c = 0; c < classes; ++c) w_sum += weight[c];
    }
    value = (1 - smoothing) * value + smoothing / classes * (lse * w_sum + smooth);
  }
  loss[r] = static_cast<T>(value);
}

template <typename T>
__global__ void cross_entropy_backward_kernel(T* out, const T* grad_loss, bool broadcast,
                                              double scale, const T* probs,
                                              const int64_t* target, const T* weight,
                                              double w_sum, int64_t classes,
                                              int64_t ignore_index, double smoothing) {
  const int64_t r = blockIdx.x;
  T* o = out + r * classes;
  const T* p = probs + r * classes;
  const int64_t t = target[r];
  if (t == ignore_index) {
    for (int64_t c = threadIdx.x; c < classes; c += kThreads) o[c] = 0;
    return;
  }
  const T g = static_cast<T>((broadcast ? grad_loss[0] : grad_loss[r]) * scale);
  const double wt = weight ? static_cast<double>(weight[t]) : 1.0;
  const double uniform = smoothing / classes;
  const T k = static_cast<T>(g * ((1 - smoothing) * wt + uniform * w_sum));
  const T u = static_cast<T>(g * uniform);
  const T hit = static_cast<T>(g * (1 - smoothing) * wt);
  for (int64_t c = threadIdx.x; c < classes; c += kThreads) {
    T v = p[c] * k;
    if (uniform > 0) v -= weight ? weight[c] * u : u;
    if (c == t) v -= hit;
    o[c] = v;
  }
}

}  // namespace

cudaError_t launch_cross_entropy(DType dtype, void* loss, void* probs, const void* input,
                                 const int64_t* target, const void* weight, int64_t rows,
                                 int64_t classes, int64_t ignore_index, double smoothing) {
  if (rows == 0) return cudaSuccess;
  auto go = [&](auto tag) {
    using T = decltype(tag);
    cross_entropy_kernel<T><<<static_cast<unsigned>(rows), kThreads, 0, launch_stream()>>>(
        static_cast<T*>(loss), static_cast<T*>(probs), static_cast<const T*>(input), target,
        static_cast<const T*>(weight), classes, ignore_index, smoothing);
    return cudaGetLastError();
  };
  if (dtype == DType::kFloat32) return go(float{});
  if (dtype == DType::kFloat64) return go(double{});
  return cudaErrorInvalidValue;
}

cudaError_t launch_cross_entropy_backward(DType dtype, void* grad_input, const void* grad_loss,
                                          bool broadcast, double scale, const void* probs,
                                          const int64_t* target, const void* weight,
                                          double weight_sum, int64_t rows, int64_t classes,
                                          int64_t ignore_index, double smoothing) {
  if (rows == 0) return cudaSuccess;
  auto go = [&](auto tag) {
    using T = decltype(tag);
    cross_entropy_backward_kernel<T><<<static_cast<unsigned>(rows), kThreads, 0, launch_stream()>>>(
        static_cast<T*>(grad_input), static_cast<const T*>(grad_loss), broadcast, scale,
        static_cast<const T*>(probs), target, static_cast<const T*>(weight), weight_sum, classes,
        ignore_index, smoothing);
    return cudaGetLastError();
  };
  if (dtype == DType::kFloat32) return go(float{});
  if (dtype == DType::kFloat64) return go(double{});
  return cudaErrorInvalidValue;
}

}  // namespace torchlet::cuda
