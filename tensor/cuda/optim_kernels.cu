// The fused optimizer updates: a grid-stride loop applying one element
// function of tensor/cuda/optim_ops.h to each parameter element.
#include <cstdint>

#include "tensor/cuda/grid.h"
#include "tensor/cuda/launch.h"
#include "tensor/cuda/optim_ops.h"
#include "tensor/cuda/stream_state.h"

namespace torchlet::cuda {
namespace {

template <typename T>
__global__ void sgd_kernel(int64_t n, T* p, const T* g, T* buf, ops::SgdStep<T> o) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    T unused = 0;
    ops::sgd_element(o, p[i], g[i], buf ? buf[i] : unused);
  }
}

template <typename T>
__global__ void adam_kernel(int64_t n, T* p, const T* g, T* m, T* v, T* v_max,
                            ops::AdamStep<T> o) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    T unused = 0;
    ops::adam_element(o, p[i], g[i], m[i], v[i], v_max ? v_max[i] : unused);
  }
}

template <typename T>
__global__ void rmsprop_kernel(int64_t n, T* p, const T* g, T* sq, T* avg, T* buf,
                               ops::RmspropStep<T> o) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    T unused_avg = 0, unused_buf = 0;
    ops::rmsprop_element(o, p[i], g[i], sq[i], avg ? avg[i] : unused_avg,
                         buf ? buf[i] : unused_buf);
  }
}

template <typename T>
__global__ void adagrad_kernel(int64_t n, T* p, const T* g, T* sum, ops::AdagradStep<T> o) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    ops::adagrad_element(o, p[i], g[i], sum[i]);
  }
}

template <typename T>
cudaError_t run(OptimizerKind kind, int64_t n, void* param, const void* grad, void* s0, void* s1,
                void* s2, const void* step) {
  const int64_t wanted = (n + kThreads - 1) / kThreads;
  const unsigned blocks = static_cast<unsigned>(wanted < (1 << 16) ? wanted : (1 << 16));
  T* p = static_cast<T*>(param);
  const T* g = static_cast<const T*>(grad);
  switch (kind) {
    case OptimizerKind::kSgd:
      sgd_kernel<T><<<blocks, kThreads, 0, launch_stream()>>>(n, p, g, static_cast<T*>(s0),
                                          *static_cast<const ops::SgdStep<T>*>(step));
      break;
    case OptimizerKind::kAdam:
      adam_kernel<T><<<blocks, kThreads, 0, launch_stream()>>>(n, p, g, static_cast<T*>(s0), static_cast<T*>(s1),
                                           static_cast<T*>(s2),
                                           *static_cast<const ops::AdamStep<T>*>(step));
      break;
    case OptimizerKind::kRmsprop:
      rmsprop_kernel<T><<<blocks, kThreads, 0, launch_stream()>>>(n, p, g, static_cast<T*>(s0), static_cast<T*>(s1),
                                              static_cast<T*>(s2),
                                              *static_cast<const ops::RmspropStep<T>*>(step));
      break;
    case OptimizerKind::kAdagrad:
      adagrad_kernel<T><<<blocks, kThreads, 0, launch_stream()>>>(n, p, g, static_cast<T*>(s0),
                                              *static_cast<const ops::AdagradStep<T>*>(step));
      break;
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_optimizer(OptimizerKind kind, DType dtype, int64_t n, void* param,
                             const void* grad, void* state0, void* state1, void* state2,
                             const void* step) {
  if (n == 0) return cudaSuccess;
  if (dtype == DType::kFloat32) return run<float>(kind, n, param, grad, state0, state1, state2, step);
  if (dtype == DType::kFloat64) {
    return run<double>(kind, n, param, grad, state0, state1, state2, step);
  }
  return cudaErrorInvalidValue;
}

}  // namespace torchlet::cuda
