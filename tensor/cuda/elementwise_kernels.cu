// Elementwise kernels: one grid-stride loop over a LoopArgs, applying a
// functor to each element's operand pointers. A one-dim loop indexes
// directly; others divide the index into coordinates (loop_offsets).
//
// Functors with a value form (Out apply(In...), kInputs inputs of one type)
// take the flat path when every operand is dense or a single value: each
// thread loads and stores whole 16-byte packs (Note [Flat elementwise]).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "tensor/cuda/elementwise_ops.h"
#include "tensor/cuda/grid.h"
#include "tensor/cuda/launch.h"
#include "tensor/cuda/stream_state.h"

namespace torchlet::cuda {
namespace {

// Numbers from the host are read where the launch put them, in the
// kernel's parameters (__grid_constant__: addressable, never copied). A
// copy in the thread's local memory was wrong, not only slow: with it, nvcc
// 13.0 dropped every store of a functor that reads no operand (fill_ on a
// strided view wrote nothing).
template <typename F>
__global__ void elementwise_kernel(const __grid_constant__ LoopArgs loop, F f) {
  char* base[kMaxLoopOperands];
  for (int op = 0; op < kMaxLoopOperands; ++op) {
    base[op] = (loop.constant_mask >> op) & 1u
                   ? const_cast<char*>(reinterpret_cast<const char*>(&loop.constants[op]))
                   : loop.data[op];
  }
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (loop.ndim <= 1) {
    int64_t s[kMaxLoopOperands];
    for (int op = 0; op < kMaxLoopOperands; ++op) s[op] = loop.ndim == 0 ? 0 : loop.strides[op][0];
    for (; i < loop.numel; i += step) {
      f(base[0] + i * s[0], base[1] + i * s[1], base[2] + i * s[2], base[3] + i * s[3]);
    }
    return;
  }
  for (; i < loop.numel; i += step) {
    int64_t off[kMaxLoopOperands];
    loop_offsets(loop, i, off);
    f(base[0] + off[0], base[1] + off[1], base[2] + off[2], base[3] + off[3]);
  }
}

// Note [Flat elementwise]
// A contiguous add reading its operands through the general kernel's
// pointer arithmetic (a pointer into the thread's copy of each host number,
// so the constants live in local memory, and 4-byte generic loads) moved
// 1.1 TB/s on an H200 whose copy moves 3.6-4.2. The flat kernel reads each
// dense operand in packs of 16 bytes (alignas: one vector load), single
// values once per thread, and applies the functor's value form to each
// element of the pack in registers. Operands not aligned to a pack, and the
// last numel % pack elements, go element by element in the same launch.

template <typename F, typename = void>
struct HasValueForm : std::false_type {};
template <typename F>
struct HasValueForm<F, std::void_t<decltype(F::kInputs)>> : std::true_type {};

template <typename T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

// Elements per pack: 16 bytes of the wider of the input and the output.
template <typename F>
constexpr int kPack = 16 / (sizeof(typename F::In) > sizeof(typename F::Out)
                                ? sizeof(typename F::In)
                                : sizeof(typename F::Out));

template <typename Out, typename In>
struct FlatArgs {
  Out* out = nullptr;
  const In* in[3] = {};
  In value[3] = {};
  unsigned dense = 0;   // bit k: input k has one element per output element
  unsigned single = 0;  // bit k: input k is one element on the device
  int64_t n = 0;
  int64_t packs = 0;    // whole packs the aligned operands hold (0: unaligned)
};

template <typename F, typename In, typename X>
__device__ __forceinline__ typename F::Out apply_value(const F& f, const X& x, int j) {
  if constexpr (F::kInputs == 0) {
    return f.apply();
  } else if constexpr (F::kInputs == 1) {
    return f.apply(x[0][j]);
  } else {
    return f.apply(x[0][j], x[1][j]);
  }
}

template <typename F>
__global__ void flat_kernel(FlatArgs<typename F::Out, typename F::In> a, F f) {
  using Out = typename F::Out;
  using In = typename F::In;
  constexpr int K = F::kInputs > 0 ? F::kInputs : 1;
  constexpr int V = kPack<F>;
  In one[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (k < F::kInputs) one[k] = (a.single >> k) & 1u ? a.in[k][0] : a.value[k];
  }
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int64_t p = first; p < a.packs; p += step) {
    In x[K][V];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (k < F::kInputs && ((a.dense >> k) & 1u)) {
        const Pack<In, V> pack = reinterpret_cast<const Pack<In, V>*>(a.in[k])[p];
#pragma unroll
        for (int j = 0; j < V; ++j) x[k][j] = pack.v[j];
      } else {
#pragma unroll
        for (int j = 0; j < V; ++j) x[k][j] = one[k];
      }
    }
    Pack<Out, V> r;
#pragma unroll
    for (int j = 0; j < V; ++j) r.v[j] = apply_value<F, In>(f, x, j);
    reinterpret_cast<Pack<Out, V>*>(a.out)[p] = r;
  }
  for (int64_t i = a.packs * V + first; i < a.n; i += step) {
    In x[K][1];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      x[k][0] = k < F::kInputs && ((a.dense >> k) & 1u) ? a.in[k][i] : one[k];
    }
    a.out[i] = apply_value<F, In>(f, x, 0);
  }
}

// Launches the flat kernel when the loop allows it; false when it does not.
template <typename F>
bool launch_flat(const LoopArgs& loop, const F& f, cudaError_t& status) {
  using Out = typename F::Out;
  using In = typename F::In;
  constexpr int V = kPack<F>;
  if (loop.ndim > 1 || loop.operands != F::kInputs + 1) return false;
  FlatArgs<Out, In> a;
  a.n = loop.numel;
  a.out = reinterpret_cast<Out*>(loop.data[0]);
  if (loop.ndim == 1 && loop.strides[0][0] != static_cast<int64_t>(sizeof(Out))) return false;
  bool aligned = reinterpret_cast<uintptr_t>(a.out) % sizeof(Pack<Out, V>) == 0;
  for (int k = 0; k < F::kInputs; ++k) {
    const int op = k + 1;
    const int64_t stride = loop.ndim == 0 ? 0 : loop.strides[op][0];
    if ((loop.constant_mask >> op) & 1u) {
      std::memcpy(&a.value[k], &loop.constants[op], sizeof(In));
    } else if (stride == 0) {
      a.in[k] = reinterpret_cast<const In*>(loop.data[op]);
      a.single |= 1u << k;
    } else if (stride == static_cast<int64_t>(sizeof(In))) {
      a.in[k] = reinterpret_cast<const In*>(loop.data[op]);
      a.dense |= 1u << k;
      aligned = aligned && reinterpret_cast<uintptr_t>(a.in[k]) % sizeof(Pack<In, V>) == 0;
    } else {
      return false;
    }
  }
  a.packs = aligned ? a.n / V : 0;
  flat_kernel<F><<<blocks_for(aligned ? (a.n + V - 1) / V : a.n), kThreads, 0, launch_stream()>>>(a, f);
  status = cudaGetLastError();
  return true;
}

template <typename F>
cudaError_t launch(const LoopArgs& loop, F f) {
  if (loop.numel == 0) return cudaSuccess;
  if constexpr (HasValueForm<F>::value) {
    cudaError_t status;
    if (launch_flat(loop, f, status)) return status;
  }
  const int64_t wanted = (loop.numel + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(wanted < (1 << 20) ? wanted : (1 << 20));
  elementwise_kernel<<<blocks, kThreads, 0, launch_stream()>>>(loop, f);
  return cudaGetLastError();
}

template <typename T>
T scalar_as(ScalarArg s) {
  if (s.is_floating) return static_cast<T>(s.d);
  return static_cast<T>(s.i);
}

template <typename T>
__device__ __forceinline__ const T& in(const char* p) {
  return *reinterpret_cast<const T*>(p);
}

template <typename T>
__device__ __forceinline__ T& out(char* p) {
  return *reinterpret_cast<T*>(p);
}

// The functors the kernel applies to (out, operand 1, operand 2, operand 3).
template <BinaryOp Op, typename T>
struct ComparisonFn {
  using Out = bool;
  using In = T;
  static constexpr int kInputs = 2;
  __device__ bool apply(T a, T b) const { return ops::comparison<Op, T>(a, b); }
  __device__ void operator()(char* o, char* a, char* b, char*) const {
    out<bool>(o) = apply(in<T>(a), in<T>(b));
  }
};

template <BinaryOp Op, typename T>
struct ArithmeticFn {
  using Out = T;
  using In = T;
  static constexpr int kInputs = 2;
  T alpha;
  __device__ T apply(T a, T b) const { return ops::arithmetic<Op, T>(a, b, alpha); }
  __device__ void operator()(char* o, char* a, char* b, char*) const {
    out<T>(o) = apply(in<T>(a), in<T>(b));
  }
};

template <UnaryOp Op, typename T>
struct TestFn {
  using Out = bool;
  using In = T;
  static constexpr int kInputs = 1;
  __device__ bool apply(T x) const { return ops::unary_test<Op, T>(x); }
  __device__ void operator()(char* o, char* x, char*, char*) const {
    out<bool>(o) = apply(in<T>(x));
  }
};

template <UnaryOp Op, typename T>
struct UnaryFn {
  using Out = T;
  using In = T;
  static constexpr int kInputs = 1;
  __device__ T apply(T x) const { return ops::unary<Op, T>(x); }
  __device__ void operator()(char* o, char* x, char*, char*) const {
    out<T>(o) = apply(in<T>(x));
  }
};

// float16 and bfloat16 convert through float32, rounding to nearest even,
// as the CPU's conversions do.
template <typename T>
constexpr bool kReduced = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

template <typename Out, typename In>
__host__ __device__ __forceinline__ Out convert(In x) {
  if constexpr (kReduced<In> || kReduced<Out>) {
    float f;
    if constexpr (std::is_same_v<In, __half>) {
      f = __half2float(x);
    } else if constexpr (std::is_same_v<In, __nv_bfloat16>) {
      f = __bfloat162float(x);
    } else {
      f = static_cast<float>(x);
    }
    if constexpr (std::is_same_v<Out, __half>) {
      return __float2half_rn(f);
    } else if constexpr (std::is_same_v<Out, __nv_bfloat16>) {
      return __float2bfloat16_rn(f);
    } else if constexpr (std::is_same_v<Out, bool>) {
      return f != 0.0f;
    } else if constexpr (std::is_same_v<Out, uint8_t>) {
      return static_cast<uint8_t>(static_cast<int64_t>(f));
    } else {
      return static_cast<Out>(f);
    }
  } else if constexpr (std::is_same_v<Out, uint8_t> && std::is_floating_point_v<In>) {
    // A negative number wraps, as on the CPU (the GPU's own conversion
    // would saturate to 0): through int64, which is defined.
    return static_cast<uint8_t>(static_cast<int64_t>(x));
  } else {
    return static_cast<Out>(x);
  }
}

template <typename To, typename From>
struct CopyFn {
  using Out = To;
  using In = From;
  static constexpr int kInputs = 1;
  __device__ To apply(From x) const { return convert<To, From>(x); }
  __device__ void operator()(char* o, char* x, char*, char*) const {
    out<To>(o) = apply(in<From>(x));
  }
};

template <typename T>
struct FillFn {
  using Out = T;
  using In = T;
  static constexpr int kInputs = 0;
  T value;
  __device__ T apply() const { return value; }
  __device__ void operator()(char* o, char*, char*, char*) const { out<T>(o) = value; }
};

template <typename T>
struct NanToNumFn {
  using Out = T;
  using In = T;
  static constexpr int kInputs = 1;
  T nan, pos, neg;
  __device__ T apply(T x) const {
    if (x != x) return nan;
    if (isinf(x)) return x > T(0) ? pos : neg;
    return x;
  }
  __device__ void operator()(char* o, char* x, char*, char*) const {
    out<T>(o) = apply(in<T>(x));
  }
};

// round(decimals): the CPU's (and PyTorch's) scale, round half to even,
// unscale.
template <typename T>
struct RoundDecimalsFn {
  using Out = T;
  using In = T;
  static constexpr int kInputs = 1;
  T scale;
  bool negative;
  __device__ T apply(T x) const {
    return negative ? std::nearbyint(x / scale) * scale : std::nearbyint(x * scale) / scale;
  }
  __device__ void operator()(char* o, char* x, char*, char*) const {
    out<T>(o) = apply(in<T>(x));
  }
};

// where only moves elements: by their size in bytes, any dtype.
template <typename T>
struct WhereFn {
  __device__ void operator()(char* o, char* c, char* a, char* b) const {
    out<T>(o) = in<bool>(c) ? in<T>(a) : in<T>(b);
  }
};

template <typename T>
struct ClampFn {
  using Out = T;
  using In = T;
  static constexpr int kInputs = 1;
  bool has_lo, has_hi;
  T lo, hi;
  __device__ T apply(T x) const { return ops::clamp(x, has_lo, lo, has_hi, hi); }
  __device__ void operator()(char* o, char* x, char*, char*) const {
    out<T>(o) = apply(in<T>(x));
  }
};


// The binary ops defined on floating dtypes only.
constexpr bool is_floating_only(BinaryOp op) {
  switch (op) {
    case BinaryOp::kDiv: case BinaryOp::kAtan2: case BinaryOp::kHypot: case BinaryOp::kLogAddExp:
    case BinaryOp::kLogAddExp2: case BinaryOp::kXlogy: case BinaryOp::kCopysign:
    case BinaryOp::kLerp: case BinaryOp::kGeluBackward: case BinaryOp::kGeluTanhBackward:
      return true;
    default: return false;
  }
}

template <BinaryOp Op, typename T>
constexpr bool kBinaryDefined =
    ops::is_comparison(Op) || !is_floating_only(Op) || std::is_floating_point_v<T>;

template <BinaryOp Op>
cudaError_t binary_op(DType dtype, const LoopArgs& loop, ScalarArg alpha_arg) {
  return dispatch(dtype, [&](auto tag) -> cudaError_t {
    using T = decltype(tag);
    if constexpr (!kBinaryDefined<Op, T>) {
      return cudaErrorInvalidValue;
    } else if constexpr (ops::is_comparison(Op)) {
      return launch(loop, ComparisonFn<Op, T>{});
    } else {
      return launch(loop, ArithmeticFn<Op, T>{scalar_as<T>(alpha_arg)});
    }
  });
}

template <UnaryOp Op>
cudaError_t unary_op(DType dtype, const LoopArgs& loop) {
  return dispatch(dtype, [&](auto tag) -> cudaError_t {
    using T = decltype(tag);
    if constexpr (ops::is_test(Op)) {
      return launch(loop, TestFn<Op, T>{});
    } else if constexpr (!std::is_floating_point_v<T> && Op != UnaryOp::kNeg &&
                         Op != UnaryOp::kAbs && Op != UnaryOp::kSign && Op != UnaryOp::kRelu) {
      return cudaErrorInvalidValue;  // float math: the op layer converts first
    } else {
      return launch(loop, UnaryFn<Op, T>{});
    }
  });
}

}  // namespace

cudaError_t launch_binary(BinaryOp op, DType dtype, const LoopArgs& loop, ScalarArg alpha) {
  switch (op) {
#define TORCHLET_BINARY_CASE(name) \
  case BinaryOp::name: return binary_op<BinaryOp::name>(dtype, loop, alpha);
    TORCHLET_BINARY_CASE(kAdd)
    TORCHLET_BINARY_CASE(kSub)
    TORCHLET_BINARY_CASE(kMul)
    TORCHLET_BINARY_CASE(kDiv)
    TORCHLET_BINARY_CASE(kPow)
    TORCHLET_BINARY_CASE(kMaximum)
    TORCHLET_BINARY_CASE(kMinimum)
    TORCHLET_BINARY_CASE(kFloorDivide)
    TORCHLET_BINARY_CASE(kRemainder)
    TORCHLET_BINARY_CASE(kFmod)
    TORCHLET_BINARY_CASE(kAtan2)
    TORCHLET_BINARY_CASE(kHypot)
    TORCHLET_BINARY_CASE(kLogAddExp)
    TORCHLET_BINARY_CASE(kLogAddExp2)
    TORCHLET_BINARY_CASE(kXlogy)
    TORCHLET_BINARY_CASE(kCopysign)
    TORCHLET_BINARY_CASE(kLerp)
    TORCHLET_BINARY_CASE(kGeluBackward)
    TORCHLET_BINARY_CASE(kGeluTanhBackward)
    TORCHLET_BINARY_CASE(kThresholdBackward)
    TORCHLET_BINARY_CASE(kEq)
    TORCHLET_BINARY_CASE(kNe)
    TORCHLET_BINARY_CASE(kLt)
    TORCHLET_BINARY_CASE(kLe)
    TORCHLET_BINARY_CASE(kGt)
    TORCHLET_BINARY_CASE(kGe)
    TORCHLET_BINARY_CASE(kLogicalAnd)
    TORCHLET_BINARY_CASE(kLogicalOr)
#undef TORCHLET_BINARY_CASE
  }
  return cudaErrorInvalidValue;
}

cudaError_t launch_unary(UnaryOp op, DType dtype, const LoopArgs& loop) {
  switch (op) {
#define TORCHLET_UNARY_CASE(name) \
  case UnaryOp::name: return unary_op<UnaryOp::name>(dtype, loop);
    TORCHLET_UNARY_CASE(kNeg)
    TORCHLET_UNARY_CASE(kAbs)
    TORCHLET_UNARY_CASE(kSign)
    TORCHLET_UNARY_CASE(kExp)
    TORCHLET_UNARY_CASE(kLog)
    TORCHLET_UNARY_CASE(kLog1p)
    TORCHLET_UNARY_CASE(kSqrt)
    TORCHLET_UNARY_CASE(kRsqrt)
    TORCHLET_UNARY_CASE(kSin)
    TORCHLET_UNARY_CASE(kCos)
    TORCHLET_UNARY_CASE(kRelu)
    TORCHLET_UNARY_CASE(kSigmoid)
    TORCHLET_UNARY_CASE(kTanh)
    TORCHLET_UNARY_CASE(kGelu)
    TORCHLET_UNARY_CASE(kGeluTanh)
    TORCHLET_UNARY_CASE(kErf)
    TORCHLET_UNARY_CASE(kLogicalNot)
    TORCHLET_UNARY_CASE(kFloor)
    TORCHLET_UNARY_CASE(kCeil)
    TORCHLET_UNARY_CASE(kRound)
    TORCHLET_UNARY_CASE(kTrunc)
    TORCHLET_UNARY_CASE(kFrac)
    TORCHLET_UNARY_CASE(kIsNan)
    TORCHLET_UNARY_CASE(kIsInf)
    TORCHLET_UNARY_CASE(kIsFinite)
    TORCHLET_UNARY_CASE(kSinh)
    TORCHLET_UNARY_CASE(kCosh)
    TORCHLET_UNARY_CASE(kAsin)
    TORCHLET_UNARY_CASE(kAcos)
    TORCHLET_UNARY_CASE(kAtan)
    TORCHLET_UNARY_CASE(kAsinh)
    TORCHLET_UNARY_CASE(kAcosh)
    TORCHLET_UNARY_CASE(kAtanh)
    TORCHLET_UNARY_CASE(kExpm1)
    TORCHLET_UNARY_CASE(kLog2)
    TORCHLET_UNARY_CASE(kLog10)
    TORCHLET_UNARY_CASE(kExp2)
    TORCHLET_UNARY_CASE(kErfc)
    TORCHLET_UNARY_CASE(kErfinv)
    TORCHLET_UNARY_CASE(kLgamma)
    TORCHLET_UNARY_CASE(kDigamma)
    TORCHLET_UNARY_CASE(kTrigamma)
#undef TORCHLET_UNARY_CASE
  }
  return cudaErrorInvalidValue;
}

// dispatch, plus float16 and bfloat16 for the kernels that only convert.
template <typename F>
cudaError_t dispatch_with_reduced(DType dtype, F&& fn) {
  if (dtype == DType::kFloat16) return fn(__half{});
  if (dtype == DType::kBFloat16) return fn(__nv_bfloat16{});
  return dispatch(dtype, fn);
}

cudaError_t launch_copy(DType dst, DType src, const LoopArgs& loop) {
  return dispatch_with_reduced(dst, [&](auto dst_tag) {
    using Out = decltype(dst_tag);
    return dispatch_with_reduced(src, [&](auto src_tag) {
      using In = decltype(src_tag);
      return launch(loop, CopyFn<Out, In>{});
    });
  });
}

cudaError_t launch_fill_loop(DType dtype, const LoopArgs& loop, ScalarArg value) {
  return dispatch_with_reduced(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (kReduced<T>) {
      return launch(loop, FillFn<T>{convert<T, float>(scalar_as<float>(value))});
    } else {
      return launch(loop, FillFn<T>{scalar_as<T>(value)});
    }
  });
}

cudaError_t launch_where(DType dtype, const LoopArgs& loop) {
  switch (dtype) {
    case DType::kFloat64: case DType::kInt64: return launch(loop, WhereFn<uint64_t>{});
    case DType::kFloat32: case DType::kInt32: return launch(loop, WhereFn<uint32_t>{});
    case DType::kFloat16: case DType::kBFloat16: return launch(loop, WhereFn<uint16_t>{});
    case DType::kUInt8: case DType::kBool: return launch(loop, WhereFn<uint8_t>{});
  }
  return cudaErrorInvalidValue;
}

cudaError_t launch_nan_to_num(DType dtype, const LoopArgs& loop, double nan, const double* posinf,
                              const double* neginf) {
  return dispatch(dtype, [&](auto tag) -> cudaError_t {
    using T = decltype(tag);
    if constexpr (!std::is_floating_point_v<T>) {
      return cudaErrorInvalidValue;
    } else {
      const T pos = posinf ? static_cast<T>(*posinf) : std::numeric_limits<T>::max();
      const T neg = neginf ? static_cast<T>(*neginf) : std::numeric_limits<T>::lowest();
      return launch(loop, NanToNumFn<T>{static_cast<T>(nan), pos, neg});
    }
  });
}

cudaError_t launch_round_decimals(DType dtype, const LoopArgs& loop, int64_t decimals) {
  return dispatch(dtype, [&](auto tag) -> cudaError_t {
    using T = decltype(tag);
    if constexpr (!std::is_floating_point_v<T>) {
      return cudaErrorInvalidValue;
    } else {
      const bool negative = decimals < 0;
      const T scale =
          static_cast<T>(std::pow(10.0, static_cast<double>(negative ? -decimals : decimals)));
      return launch(loop, RoundDecimalsFn<T>{scale, negative});
    }
  });
}

namespace {

template <typename T>
__global__ void arange_kernel(T* out, int64_t n, ScalarArg start, ScalarArg step, bool integral) {
  TORCHLET_GRID_LOOP(i, n) {
    if (integral) {
      out[i] = convert<T, int64_t>(start.i + i * step.i);
    } else {
      // Rounded twice, as the CPU's (no fused multiply-add).
      out[i] = convert<T, double>(__dadd_rn(start.d, __dmul_rn(static_cast<double>(i), step.d)));
    }
  }
}

// Symmetric evaluation, as the CPU's and PyTorch's: exact at both ends.
template <typename T>
__global__ void linspace_kernel(T* out, int64_t steps, double start, double end, double step) {
  const int64_t half = steps / 2;
  TORCHLET_GRID_LOOP(i, steps) {
    // Rounded twice, as the CPU's (no fused multiply-add).
    const double v = steps == 1  ? start
                     : i < half ? __dadd_rn(start, __dmul_rn(step, static_cast<double>(i)))
                                : __dsub_rn(end, __dmul_rn(step, static_cast<double>(steps - 1 - i)));
    out[i] = convert<T, double>(v);
  }
}

}  // namespace

cudaError_t launch_arange(DType dtype, void* out, int64_t n, ScalarArg start, ScalarArg step,
                          bool integral) {
  if (n == 0) return cudaSuccess;
  if (integral) {
    start.i = start.is_floating ? static_cast<int64_t>(start.d) : start.i;
    step.i = step.is_floating ? static_cast<int64_t>(step.d) : step.i;
  } else {
    start.d = start.is_floating ? start.d : static_cast<double>(start.i);
    step.d = step.is_floating ? step.d : static_cast<double>(step.i);
  }
  return dispatch_with_reduced(dtype, [&](auto tag) -> cudaError_t {
    using T = decltype(tag);
    arange_kernel<T><<<blocks_for(n), kThreads, 0, launch_stream()>>>(static_cast<T*>(out), n, start, step, integral);
    return cudaGetLastError();
  });
}

cudaError_t launch_linspace(DType dtype, void* out, int64_t steps, double start, double end) {
  if (steps == 0) return cudaSuccess;
  const double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0;
  return dispatch_with_reduced(dtype, [&](auto tag) -> cudaError_t {
    using T = decltype(tag);
    linspace_kernel<T><<<blocks_for(steps), kThreads, 0, launch_stream()>>>(static_cast<T*>(out), steps, start, end,
                                                         step);
    return cudaGetLastError();
  });
}

cudaError_t launch_clamp(DType dtype, const LoopArgs& loop, const ScalarArg* lo,
                         const ScalarArg* hi) {
  return dispatch(dtype, [&](auto tag) -> cudaError_t {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return cudaErrorInvalidValue;
    } else {
      return launch(loop, ClampFn<T>{lo != nullptr, hi != nullptr,
                                      lo != nullptr ? scalar_as<T>(*lo) : T(0),
                                      hi != nullptr ? scalar_as<T>(*hi) : T(0)});
    }
  });
}

}  // namespace torchlet::cuda
