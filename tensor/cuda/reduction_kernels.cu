// Reductions and softmax. A block reduces one output (or, when there are
// few outputs over many elements, one chunk of an output whose partial
// results a second launch combines); its threads take the elements in turn
// and combine their partials through shared memory. Sums of floating types
// accumulate in double, of integers in int64, as the CPU kernels do.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tensor/cuda/elementwise_ops.h"
#include "tensor/cuda/grid.h"
#include "tensor/cuda/launch.h"
#include "tensor/cuda/stream_state.h"

namespace torchlet::cuda {
namespace {

template <typename T>
using Wide = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
template <typename T>
using SumOut = std::conditional_t<std::is_floating_point_v<T>, T, int64_t>;

template <typename T>
struct SumOp {
  using Acc = Wide<T>;
  __device__ Acc init() const { return 0; }
  __device__ void step(Acc& acc, T x, int64_t) const { acc += x; }
  __device__ Acc combine(Acc a, Acc b) const { return a + b; }
  __device__ void write(const ReduceArgs& r, int64_t o, Acc acc) const {
    reinterpret_cast<SumOut<T>*>(r.out)[o] = static_cast<SumOut<T>>(acc);
  }
};

template <typename T>
struct ProdOp {
  using Acc = Wide<T>;
  __device__ Acc init() const { return 1; }
  __device__ void step(Acc& acc, T x, int64_t) const { acc *= x; }
  __device__ Acc combine(Acc a, Acc b) const { return a * b; }
  __device__ void write(const ReduceArgs& r, int64_t o, Acc acc) const {
    reinterpret_cast<SumOut<T>*>(r.out)[o] = static_cast<SumOut<T>>(acc);
  }
};

// amax or amin; NaN wins.
template <typename T, bool kLargest>
struct ExtremeOp {
  using Acc = T;
  __device__ static bool better(T x, T acc) {
    return ops::is_nan(x) || (kLargest ? x > acc : x < acc);
  }
  __device__ Acc init() const {
    using L = std::numeric_limits<T>;
    if constexpr (std::is_floating_point_v<T>) {
      return kLargest ? -L::infinity() : L::infinity();
    } else {
      return kLargest ? L::lowest() : L::max();
    }
  }
  __device__ void step(Acc& acc, T x, int64_t) const {
    if (better(x, acc)) acc = x;
  }
  __device__ Acc combine(Acc a, Acc b) const { return ops::is_nan(a) ? a : better(b, a) ? b : a; }
  __device__ void write(const ReduceArgs& r, int64_t o, Acc acc) const {
    reinterpret_cast<T*>(r.out)[o] = acc;
  }
};

// The value and position of the first maximum or minimum; the first NaN
// wins. Combining compares positions, so the order partials meet in does
// not matter.
template <typename T, bool kLargest>
struct ArgOp {
  struct Acc {
    T value;
    int64_t index;
  };
  __device__ static bool before(const Acc& a, const Acc& b) {  // a wins over b
    if (a.index < 0) return false;
    if (b.index < 0) return true;
    const bool an = ops::is_nan(a.value), bn = ops::is_nan(b.value);
    if (an || bn) return an && (!bn || a.index < b.index);
    if (a.value == b.value) return a.index < b.index;
    return kLargest ? a.value > b.value : a.value < b.value;
  }
  __device__ Acc init() const { return Acc{T(0), -1}; }
  __device__ void step(Acc& acc, T x, int64_t pos) const {
    const Acc candidate{x, pos};
    if (before(candidate, acc)) acc = candidate;
  }
  __device__ Acc combine(Acc a, Acc b) const { return before(b, a) ? b : a; }
  __device__ void write(const ReduceArgs& r, int64_t o, Acc acc) const {
    if (r.out) reinterpret_cast<T*>(r.out)[o] = acc.value;
    r.index[o] = acc.index < 0 ? 0 : acc.index;
  }
};

// Mean and sum of squared deviations (Welford's update per element, Chan et
// al.'s merge of partials), as the CPU's VarOp.
struct Moments {
  double mean, m2;
  int64_t n;
};

template <typename T>
struct VarOp {
  using Acc = Moments;
  int64_t correction;
  bool take_sqrt;
  __device__ Acc init() const { return {0, 0, 0}; }
  __device__ void step(Acc& acc, T x, int64_t) const {
    acc.n += 1;
    const double delta = static_cast<double>(x) - acc.mean;
    acc.mean += delta / static_cast<double>(acc.n);
    acc.m2 += delta * (static_cast<double>(x) - acc.mean);
  }
  __device__ Acc combine(Acc a, Acc b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const int64_t n = a.n + b.n;
    const double delta = b.mean - a.mean;
    return {a.mean + delta * b.n / n, a.m2 + b.m2 + delta * delta * a.n * b.n / n, n};
  }
  __device__ void write(const ReduceArgs& r, int64_t o, Acc acc) const {
    const int64_t dof = acc.n - correction;
    const double var = acc.m2 / static_cast<double>(dof > 0 ? dof : 0);
    reinterpret_cast<T*>(r.out)[o] = static_cast<T>(take_sqrt ? std::sqrt(var) : var);
  }
};

// The p-norm in double, as the CPU's NormOp: 0 counts nonzeros, +-inf take
// the largest or smallest magnitude (NaN wins).
template <typename T>
struct NormOp {
  using Acc = double;
  double p;
  __device__ static double nan_max(double a, double b) { return b != b || b > a ? b : a; }
  __device__ static double nan_min(double a, double b) { return b != b || b < a ? b : a; }
  __device__ Acc init() const { return p == -INFINITY ? INFINITY : 0.0; }
  __device__ void step(Acc& acc, T x, int64_t) const {
    const double a = std::abs(static_cast<double>(x));
    if (p == 0) {
      acc += a != 0;
    } else if (p == 1) {
      acc += a;
    } else if (p == 2) {
      acc += a * a;
    } else if (p == INFINITY) {
      acc = nan_max(acc, a);
    } else if (p == -INFINITY) {
      acc = nan_min(acc, a);
    } else {
      acc += std::pow(a, p);
    }
  }
  __device__ Acc combine(Acc a, Acc b) const {
    if (p == INFINITY) return nan_max(a, b);
    if (p == -INFINITY) return nan_min(a, b);
    return a + b;
  }
  __device__ void write(const ReduceArgs& r, int64_t o, Acc acc) const {
    double v = acc;
    if (p == 2) {
      v = std::sqrt(acc);
    } else if (p != 0 && p != 1 && p != INFINITY && p != -INFINITY) {
      v = std::pow(acc, 1.0 / p);
    }
    reinterpret_cast<T*>(r.out)[o] = static_cast<T>(v);
  }
};

__device__ int64_t offset_of(const LoopArgs& g, int64_t index) {
  if (g.ndim == 1) return index * g.strides[0][0];
  int64_t offsets[kMaxLoopOperands];
  loop_offsets(g, index, offsets);
  return offsets[0];
}

template <typename Acc, typename Op>
__device__ Acc block_combine(const Op& op, Acc acc) {
  __shared__ Acc shared[kThreads];
  shared[threadIdx.x] = acc;
  __syncthreads();
  for (int width = kThreads / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) {
      shared[threadIdx.x] = op.combine(shared[threadIdx.x], shared[threadIdx.x + width]);
    }
    __syncthreads();
  }
  return shared[0];
}

// Block (o, s) reduces chunk s of output o: into the output when there is
// one chunk, else into workspace[o * splits + s].
template <typename T, typename Op>
__global__ void reduce_kernel(ReduceArgs r, Op op, int64_t chunk, typename Op::Acc* partial) {
  using Acc = typename Op::Acc;
  const int64_t o = blockIdx.x;
  const int64_t begin = blockIdx.y * chunk;
  int64_t end = begin + chunk;
  if (end > r.reduced.numel) end = r.reduced.numel;
  const char* base = r.in + offset_of(r.kept, o);
  Acc acc = op.init();
  for (int64_t i = begin + threadIdx.x; i < end; i += kThreads) {
    op.step(acc, *reinterpret_cast<const T*>(base + offset_of(r.reduced, i)), i);
  }
  acc = block_combine(op, acc);
  if (threadIdx.x != 0) return;
  if (partial == nullptr) {
    op.write(r, o, acc);
  } else {
    partial[o * gridDim.y + blockIdx.y] = acc;
  }
}

template <typename T, typename Op>
__global__ void combine_kernel(ReduceArgs r, Op op, const typename Op::Acc* partial, int splits) {
  using Acc = typename Op::Acc;
  const int64_t o = blockIdx.x;
  Acc acc = op.init();
  for (int s = threadIdx.x; s < splits; s += kThreads) acc = op.combine(acc, partial[o * splits + s]);
  acc = block_combine(op, acc);
  if (threadIdx.x == 0) op.write(r, o, acc);
}

template <typename T, typename Op>
cudaError_t run(const ReduceArgs& r, Op op, int splits, void* workspace) {
  using Acc = typename Op::Acc;
  static_assert(sizeof(Acc) <= 32, "reduce_workspace_bytes allows 32 bytes per partial");
  const int64_t outputs = r.kept.numel;
  if (outputs == 0) return cudaSuccess;
  const int64_t n = r.reduced.numel;
  const int64_t chunk = splits > 1 ? (n + splits - 1) / splits : (n > 0 ? n : 1);
  Acc* partial = splits > 1 ? static_cast<Acc*>(workspace) : nullptr;
  // Outputs beyond the grid's 2^31 - 1 blocks do not occur: a tensor that
  // large would not fit in any GPU's memory.
  reduce_kernel<T, Op><<<dim3(static_cast<unsigned>(outputs), splits), kThreads, 0, launch_stream()>>>(r, op, chunk,
                                                                                   partial);
  if (splits > 1) {
    const cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess) return status;
    combine_kernel<T, Op><<<static_cast<unsigned>(outputs), kThreads, 0, launch_stream()>>>(r, op, partial, splits);
  }
  return cudaGetLastError();
}


// ---- Scans ---------------------------------------------------------------------

template <typename T>
__global__ void cumulative_kernel(SumOut<T>* out, const T* in, int64_t rows, int64_t n,
                                  bool prod) {
  for (int64_t r = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; r < rows;
       r += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Wide<T> acc = prod ? 1 : 0;
    for (int64_t i = 0; i < n; ++i) {
      acc = prod ? acc * in[r * n + i] : acc + in[r * n + i];
      out[r * n + i] = static_cast<SumOut<T>>(acc);
    }
  }
}

// ---- Softmax -------------------------------------------------------------------

template <typename T>
__device__ double block_sum(double x) {
  return block_combine(SumOp<double>{}, x);
}

template <typename T>
__global__ void softmax_kernel(T* out, const T* in, int64_t n, bool log) {
  const T* x = in + blockIdx.x * n;
  T* y = out + blockIdx.x * n;
  T max = -std::numeric_limits<T>::infinity();
  for (int64_t i = threadIdx.x; i < n; i += kThreads) max = ExtremeOp<T, true>{}.combine(max, x[i]);
  max = block_combine(ExtremeOp<T, true>{}, max);
  double sum = 0;
  for (int64_t i = threadIdx.x; i < n; i += kThreads) sum += std::exp(static_cast<double>(x[i] - max));
  sum = block_sum<T>(sum);
  if (log) {
    const T shift = static_cast<T>(std::log(sum));
    for (int64_t i = threadIdx.x; i < n; i += kThreads) y[i] = x[i] - max - shift;
  } else {
    const double inv = 1.0 / sum;
    for (int64_t i = threadIdx.x; i < n; i += kThreads) {
      y[i] = static_cast<T>(std::exp(static_cast<double>(x[i] - max)) * inv);
    }
  }
}

template <typename T>
__global__ void softmax_backward_kernel(T* out, const T* grad, const T* output, int64_t n,
                                        bool log) {
  const int64_t row = blockIdx.x * n;
  const T* g = grad + row;
  const T* y = output + row;
  T* o = out + row;
  double dot = 0;
  for (int64_t i = threadIdx.x; i < n; i += kThreads) {
    dot += log ? static_cast<double>(g[i]) : static_cast<double>(g[i]) * y[i];
  }
  dot = block_sum<T>(dot);
  for (int64_t i = threadIdx.x; i < n; i += kThreads) {
    o[i] = log ? static_cast<T>(g[i] - std::exp(static_cast<double>(y[i])) * dot)
               : static_cast<T>(y[i] * (g[i] - dot));
  }
}

}  // namespace

cudaError_t launch_reduce(ReduceKind kind, DType dtype, const ReduceArgs& args, int splits,
                          void* workspace) {
  return dispatch(dtype, [&](auto tag) -> cudaError_t {
    using T = decltype(tag);
    switch (kind) {
      case ReduceKind::kSum: return run<T>(args, SumOp<T>{}, splits, workspace);
      case ReduceKind::kProd: return run<T>(args, ProdOp<T>{}, splits, workspace);
      case ReduceKind::kMax: return run<T>(args, ExtremeOp<T, true>{}, splits, workspace);
      case ReduceKind::kMin: return run<T>(args, ExtremeOp<T, false>{}, splits, workspace);
      case ReduceKind::kArgMax: return run<T>(args, ArgOp<T, true>{}, splits, workspace);
      case ReduceKind::kArgMin: return run<T>(args, ArgOp<T, false>{}, splits, workspace);
      case ReduceKind::kVar:
      case ReduceKind::kNorm:
        if constexpr (std::is_floating_point_v<T>) {
          if (kind == ReduceKind::kVar) {
            return run<T>(args, VarOp<T>{args.correction, args.take_sqrt}, splits, workspace);
          }
          return run<T>(args, NormOp<T>{args.p}, splits, workspace);
        }
        return cudaErrorInvalidValue;
    }
    return cudaErrorInvalidValue;
  });
}

cudaError_t launch_cumulative(DType dtype, void* out, const void* in, int64_t rows, int64_t n,
                              bool prod) {
  if (rows == 0 || n == 0) return cudaSuccess;
  return dispatch(dtype, [&](auto tag) {
    using T = decltype(tag);
    const int64_t wanted = (rows + kThreads - 1) / kThreads;
    cumulative_kernel<T><<<static_cast<unsigned>(wanted < 65535 ? wanted : 65535), kThreads, 0, launch_stream()>>>(
        static_cast<SumOut<T>*>(out), static_cast<const T*>(in), rows, n, prod);
    return cudaGetLastError();
  });
}

cudaError_t launch_softmax(DType dtype, void* out, const void* in, int64_t rows, int64_t n,
                           bool log) {
  if (rows == 0 || n == 0) return cudaSuccess;
  auto go = [&](auto tag) {
    using T = decltype(tag);
    softmax_kernel<T><<<static_cast<unsigned>(rows), kThreads, 0, launch_stream()>>>(
        static_cast<T*>(out), static_cast<const T*>(in), n, log);
    return cudaGetLastError();
  };
  if (dtype == DType::kFloat32) return go(float{});
  if (dtype == DType::kFloat64) return go(double{});
  return cudaErrorInvalidValue;
}

cudaError_t launch_softmax_backward(DType dtype, void* out, const void* grad,
                                    const void* output, int64_t rows, int64_t n, bool log) {
  if (rows == 0 || n == 0) return cudaSuccess;
  auto go = [&](auto tag) {
    using T = decltype(tag);
    softmax_backward_kernel<T><<<static_cast<unsigned>(rows), kThreads, 0, launch_stream()>>>(
        static_cast<T*>(out), static_cast<const T*>(grad), static_cast<const T*>(output), n, log);
    return cudaGetLastError();
  };
  if (dtype == DType::kFloat32) return go(float{});
  if (dtype == DType::kFloat64) return go(double{});
  return cudaErrorInvalidValue;
}

}  // namespace torchlet::cuda
