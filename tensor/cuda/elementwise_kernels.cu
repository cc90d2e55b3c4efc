// Elementwise kernels: one grid-stride loop over a LoopArgs, applying a
// functor to each element's operand pointers. A one-dim loop (contiguous
// operands, or broadcast scalars) indexes directly; others divide the index
// into coordinates (loop_offsets).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "tensor/cuda/elementwise_ops.h"
#include "tensor/cuda/grid.h"
#include "tensor/cuda/launch.h"

namespace torchlet::cuda {
namespace {

template <typename F>
__global__ void elementwise_kernel(LoopArgs loop, F f) {
  // Numbers from the host are read from this thread's copy.
  uint64_t constants[kMaxLoopOperands];
  char* base[kMaxLoopOperands];
  for (int op = 0; op < kMaxLoopOperands; ++op) {
    constants[op] = loop.constants[op];
    base[op] = (loop.constant_mask >> op) & 1u ? reinterpret_cast<char*>(&constants[op])
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

template <typename F>
cudaError_t launch(const LoopArgs& loop, F f) {
  if (loop.numel == 0) return cudaSuccess;
  const int64_t wanted = (loop.numel + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(wanted < (1 << 20) ? wanted : (1 << 20));
  elementwise_kernel<<<blocks, kThreads>>>(loop, f);
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
  __device__ void operator()(char* o, char* a, char* b, char*) const {
    out<bool>(o) = ops::comparison<Op, T>(in<T>(a), in<T>(b));
  }
};

template <BinaryOp Op, typename T>
struct ArithmeticFn {
  T alpha;
  __device__ void operator()(char* o, char* a, char* b, char*) const {
    out<T>(o) = ops::arithmetic<Op, T>(in<T>(a), in<T>(b), alpha);
  }
};

template <UnaryOp Op, typename T>
struct TestFn {
  __device__ void operator()(char* o, char* x, char*, char*) const {
    out<bool>(o) = ops::unary_test<Op, T>(in<T>(x));
  }
};

template <UnaryOp Op, typename T>
struct UnaryFn {
  __device__ void operator()(char* o, char* x, char*, char*) const {
    out<T>(o) = ops::unary<Op, T>(in<T>(x));
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
    } else {
      return static_cast<Out>(f);
    }
  } else {
    return static_cast<Out>(x);
  }
}

template <typename Out, typename In>
struct CopyFn {
  __device__ void operator()(char* o, char* x, char*, char*) const {
    out<Out>(o) = convert<Out, In>(in<In>(x));
  }
};

template <typename T>
struct FillFn {
  T value;
  __device__ void operator()(char* o, char*, char*, char*) const { out<T>(o) = value; }
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
  bool has_lo, has_hi;
  T lo, hi;
  __device__ void operator()(char* o, char* x, char*, char*) const {
    out<T>(o) = ops::clamp(in<T>(x), has_lo, lo, has_hi, hi);
  }
};


template <BinaryOp Op, typename T>
constexpr bool kBinaryDefined =
    ops::is_comparison(Op) ||
    ((Op != BinaryOp::kDiv && Op != BinaryOp::kAtan2) || std::is_floating_point_v<T>);

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
