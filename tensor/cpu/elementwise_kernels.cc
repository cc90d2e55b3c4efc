// CPU kernels for elementwise math. Each op is a small functor applied by
// one strided loop; the contiguous and scalar-broadcast cases get their own
// tight loops so the compiler vectorizes them.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "tensor/cpu/cpu_features.h"
#include "tensor/cpu/dispatch.h"
#include "tensor/cpu/kernels.h"
#include "tensor/cpu/loops.h"
#include "tensor/cpu/reduced_float.h"
#include "tensor/cpu/vector_math.h"
#include "tensor/cuda/elementwise_ops.h"
#include "tensor/factories.h"

namespace torchlet::cpu {
namespace {

template <typename T>
const T& at(char* base, int64_t stride, int64_t i) {
  return *reinterpret_cast<const T*>(base + i * stride);
}

// out[i] = f(a[i], b[i]) over a loop of three operands.
template <typename Out, typename In, typename F>
void binary_loop(const StridedLoop& loop, F f) {
  for_each_run(loop, [f](char** d, const int64_t* s, int64_t n) {
    Out* out = reinterpret_cast<Out*>(d[0]);
    const In* a = reinterpret_cast<const In*>(d[1]);
    const In* b = reinterpret_cast<const In*>(d[2]);
    if (s[0] == sizeof(Out) && s[1] == sizeof(In) && s[2] == sizeof(In)) {
      for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
    } else if (s[0] == sizeof(Out) && s[1] == sizeof(In) && s[2] == 0) {
      const In bv = *b;
      for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], bv);
    } else if (s[0] == sizeof(Out) && s[1] == 0 && s[2] == sizeof(In)) {
      const In av = *a;
      for (int64_t i = 0; i < n; ++i) out[i] = f(av, b[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<Out*>(d[0] + i * s[0]) = f(at<In>(d[1], s[1], i), at<In>(d[2], s[2], i));
      }
    }
  });
}

template <typename Out, typename In, typename F>
void unary_loop(const StridedLoop& loop, F f) {
  for_each_run(loop, [f](char** d, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
      Out* out = reinterpret_cast<Out*>(d[0]);
      const In* in = reinterpret_cast<const In*>(d[1]);
      for (int64_t i = 0; i < n; ++i) out[i] = f(in[i]);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      *reinterpret_cast<Out*>(d[0] + i * s[0]) = f(at<In>(d[1], s[1], i));
    }
  });
}

// Integer powers, Python's floor division and remainder, and fmod, one
// element at a time: the definitions the CUDA kernels apply too.
using cuda::ops::floor_divide_of;
using cuda::ops::fmod_of;
using cuda::ops::integer_pow;
using cuda::ops::remainder_of;

// Floating-only binary math, one element at a time (Note [Special functions]
// in tensor/cuda/elementwise_ops.h). Returns false for an op it does not know.
template <typename T>
bool floating_binary(BinaryOp op, const StridedLoop& loop, T alpha) {
  switch (op) {
    case BinaryOp::kHypot:
      binary_loop<T, T>(loop, [](T a, T b) { return std::hypot(a, b); });
      return true;
    case BinaryOp::kLogAddExp:
      binary_loop<T, T>(loop, [](T a, T b) { return cuda::ops::logaddexp_of<false>(a, b); });
      return true;
    case BinaryOp::kLogAddExp2:
      binary_loop<T, T>(loop, [](T a, T b) { return cuda::ops::logaddexp_of<true>(a, b); });
      return true;
    case BinaryOp::kXlogy:
      binary_loop<T, T>(loop, [](T a, T b) { return cuda::ops::xlogy_of(a, b); });
      return true;
    case BinaryOp::kCopysign:
      binary_loop<T, T>(loop, [](T a, T b) { return std::copysign(a, b); });
      return true;
    case BinaryOp::kLerp:
      binary_loop<T, T>(loop, [alpha](T a, T b) { return cuda::ops::lerp_of(a, b, alpha); });
      return true;
    case BinaryOp::kGeluBackward:
      binary_loop<T, T>(loop, [](T g, T x) { return cuda::ops::gelu_backward_of<false>(g, x); });
      return true;
    case BinaryOp::kGeluTanhBackward:
      binary_loop<T, T>(loop, [](T g, T x) { return cuda::ops::gelu_backward_of<true>(g, x); });
      return true;
    default:
      return false;
  }
}

// Floating pow. A broadcast exponent of 2 or 1 (x.pow(2) in norms,
// variances and losses) is a product or a copy, as in PyTorch's kernel:
// the same bits as the correctly rounded pow, without a libm call each
// (powf was a third of cdist's time).
template <typename T>
void float_pow(const StridedLoop& loop) {
  for_each_run(loop, [](char** d, const int64_t* s, int64_t n) {
    const T e = s[2] == 0 ? *reinterpret_cast<const T*>(d[2]) : T(0);
    if (s[2] == 0 && (e == T(2) || e == T(1))) {
      const bool square = e == T(2);
      if (s[0] == sizeof(T) && s[1] == sizeof(T)) {
        T* out = reinterpret_cast<T*>(d[0]);
        const T* a = reinterpret_cast<const T*>(d[1]);
        if (square) {
          for (int64_t i = 0; i < n; ++i) out[i] = a[i] * a[i];
        } else {
          for (int64_t i = 0; i < n; ++i) out[i] = a[i];
        }
        return;
      }
      for (int64_t i = 0; i < n; ++i) {
        const T x = at<T>(d[1], s[1], i);
        *reinterpret_cast<T*>(d[0] + i * s[0]) = square ? x * x : x;
      }
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      *reinterpret_cast<T*>(d[0] + i * s[0]) = std::pow(at<T>(d[1], s[1], i), at<T>(d[2], s[2], i));
    }
  });
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) __m256 gelu_backward8(__m256 g, __m256 x) {
  return gelu_backward8_avx2(g, x);
}
__attribute__((target("avx2,fma"))) __m256 gelu_tanh_backward8(__m256 g, __m256 x) {
  return gelu_tanh_backward8_avx2(g, x);
}

// Float gelu backward 8 at a time (vector_math.h); other layouts (a
// broadcast gradient, strided views) go through small buffers, so that
// every layout gets the same bits.
template <__m256 (*F)(__m256, __m256)>
void vector_map2(const StridedLoop& loop) {
  for_each_run(loop, [](char** d, const int64_t* s, int64_t n) {
    constexpr int64_t size = sizeof(float);
    if (s[0] == size && s[1] == size && s[2] == size) {
      map8x2_avx2<F>(reinterpret_cast<const float*>(d[1]), reinterpret_cast<const float*>(d[2]),
                     reinterpret_cast<float*>(d[0]), n);
      return;
    }
    constexpr int64_t kChunk = 64;
    float a[kChunk], b[kChunk];
    for (int64_t begin = 0; begin < n; begin += kChunk) {
      const int64_t m = std::min(kChunk, n - begin);
      for (int64_t i = 0; i < m; ++i) {
        a[i] = at<float>(d[1], s[1], begin + i);
        b[i] = at<float>(d[2], s[2], begin + i);
      }
      map8x2_avx2<F>(a, b, a, m);
      for (int64_t i = 0; i < m; ++i) *reinterpret_cast<float*>(d[0] + (begin + i) * s[0]) = a[i];
    }
  });
}
#endif

template <typename T>
void arithmetic(BinaryOp op, const StridedLoop& loop, Scalar alpha_scalar) {
  const T alpha = alpha_scalar.to<T>();
  const bool unit = alpha_scalar.to_double() == 1.0;
  switch (op) {
    case BinaryOp::kAdd:
      if (unit) return binary_loop<T, T>(loop, [](T a, T b) { return static_cast<T>(a + b); });
      return binary_loop<T, T>(loop, [alpha](T a, T b) { return static_cast<T>(a + alpha * b); });
    case BinaryOp::kSub:
      if (unit) return binary_loop<T, T>(loop, [](T a, T b) { return static_cast<T>(a - b); });
      return binary_loop<T, T>(loop, [alpha](T a, T b) { return static_cast<T>(a - alpha * b); });
    case BinaryOp::kMul:
      return binary_loop<T, T>(loop, [](T a, T b) { return static_cast<T>(a * b); });
    case BinaryOp::kDiv:
      if constexpr (std::is_floating_point_v<T>) {
        return binary_loop<T, T>(loop, [](T a, T b) { return a / b; });
      }
      break;
    case BinaryOp::kPow:
      if constexpr (std::is_floating_point_v<T>) {
        return float_pow<T>(loop);
      } else {
        return binary_loop<T, T>(loop, [](T a, T b) { return integer_pow(a, b); });
      }
    case BinaryOp::kFloorDivide:
      if constexpr (!std::is_same_v<T, bool>) {
        return binary_loop<T, T>(loop, [](T a, T b) { return floor_divide_of(a, b); });
      }
      break;
    case BinaryOp::kRemainder:
      if constexpr (!std::is_same_v<T, bool>) {
        return binary_loop<T, T>(loop, [](T a, T b) { return remainder_of(a, b); });
      }
      break;
    case BinaryOp::kFmod:
      if constexpr (!std::is_same_v<T, bool>) {
        return binary_loop<T, T>(loop, [](T a, T b) { return fmod_of(a, b); });
      }
      break;
    case BinaryOp::kAtan2:
      if constexpr (std::is_floating_point_v<T>) {
        return binary_loop<T, T>(loop, [](T a, T b) { return std::atan2(a, b); });
      }
      break;
    case BinaryOp::kThresholdBackward:
      return binary_loop<T, T>(loop, [alpha](T a, T b) { return b <= alpha ? T(0) : a; });
    case BinaryOp::kMaximum:
      return binary_loop<T, T>(loop, [](T a, T b) -> T {
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
        }
        return a > b ? a : b;
      });
    case BinaryOp::kMinimum:
      return binary_loop<T, T>(loop, [](T a, T b) -> T {
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
        }
        return a < b ? a : b;
      });
    default:
#if defined(__x86_64__)
      if constexpr (std::is_same_v<T, float>) {
        if (op == BinaryOp::kGeluBackward && cpu_has_avx2_fma()) {
          return vector_map2<gelu_backward8>(loop);
        }
        if (op == BinaryOp::kGeluTanhBackward && cpu_has_avx2_fma()) {
          return vector_map2<gelu_tanh_backward8>(loop);
        }
      }
#endif
      if constexpr (std::is_floating_point_v<T>) {
        if (floating_binary<T>(op, loop, alpha)) return;
      }
      break;
  }
  TORCHLET_INTERNAL_ASSERT(false, "not an arithmetic op for this dtype");
}

template <typename T>
void comparison(BinaryOp op, const StridedLoop& loop) {
  switch (op) {
    case BinaryOp::kEq: return binary_loop<bool, T>(loop, [](T a, T b) { return a == b; });
    case BinaryOp::kNe: return binary_loop<bool, T>(loop, [](T a, T b) { return a != b; });
    case BinaryOp::kLt: return binary_loop<bool, T>(loop, [](T a, T b) { return a < b; });
    case BinaryOp::kLe: return binary_loop<bool, T>(loop, [](T a, T b) { return a <= b; });
    case BinaryOp::kGt: return binary_loop<bool, T>(loop, [](T a, T b) { return a > b; });
    case BinaryOp::kGe: return binary_loop<bool, T>(loop, [](T a, T b) { return a >= b; });
    case BinaryOp::kLogicalAnd: return binary_loop<bool, T>(loop, [](T a, T b) { return a && b; });
    case BinaryOp::kLogicalOr: return binary_loop<bool, T>(loop, [](T a, T b) { return a || b; });
    default: TORCHLET_INTERNAL_ASSERT(false, "not a comparison");
  }
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) __m256 sigmoid8(__m256 x) { return sigmoid8_avx2(x); }
__attribute__((target("avx2,fma"))) __m256 tanh8(__m256 x) { return tanh8_avx2(x); }
__attribute__((target("avx2,fma"))) __m256 erf8(__m256 x) { return erf8_avx2(x); }
__attribute__((target("avx2,fma"))) __m256 gelu8(__m256 x) { return gelu8_avx2(x); }
__attribute__((target("avx2,fma"))) __m256 gelu_tanh8(__m256 x) { return gelu_tanh8_avx2(x); }
// IEEE square roots, the same bits as std::sqrt's (which libm's errno
// handling keeps scalar).
__attribute__((target("avx2,fma"))) __m256 sqrt8(__m256 x) { return _mm256_sqrt_ps(x); }
__attribute__((target("avx2,fma"))) __m256 rsqrt8(__m256 x) {
  return _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(x));
}

// Float sigmoid, tanh, erf or gelu 8 at a time (Notes [AVX2 sigmoid and
// tanh] and [AVX2 erf and gelu] in tensor/cpu/vector_math.h); strided
// runs go through a small buffer, so that every layout gets the same bits.
template <__m256 (*F)(__m256)>
void vector_map(const StridedLoop& loop) {
  for_each_run(loop, [](char** d, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(float) && s[1] == sizeof(float)) {
      map8_avx2<F>(reinterpret_cast<const float*>(d[1]), reinterpret_cast<float*>(d[0]), n);
      return;
    }
    constexpr int64_t kChunk = 64;
    float buffer[kChunk];
    for (int64_t begin = 0; begin < n; begin += kChunk) {
      const int64_t m = std::min(kChunk, n - begin);
      for (int64_t i = 0; i < m; ++i) buffer[i] = at<float>(d[1], s[1], begin + i);
      map8_avx2<F>(buffer, buffer, m);
      for (int64_t i = 0; i < m; ++i) *reinterpret_cast<float*>(d[0] + (begin + i) * s[0]) = buffer[i];
    }
  });
}
#endif

template <typename T>
void float_math(UnaryOp op, const StridedLoop& loop) {
#if defined(__x86_64__)
  if constexpr (std::is_same_v<T, float>) {
    if (op == UnaryOp::kSigmoid && cpu_has_avx2_fma()) return vector_map<sigmoid8>(loop);
    if (op == UnaryOp::kTanh && cpu_has_avx2_fma()) return vector_map<tanh8>(loop);
    if (op == UnaryOp::kErf && cpu_has_avx2_fma()) return vector_map<erf8>(loop);
    if (op == UnaryOp::kGelu && cpu_has_avx2_fma()) return vector_map<gelu8>(loop);
    if (op == UnaryOp::kGeluTanh && cpu_has_avx2_fma()) return vector_map<gelu_tanh8>(loop);
    if (op == UnaryOp::kSqrt && cpu_has_avx2_fma()) return vector_map<sqrt8>(loop);
    if (op == UnaryOp::kRsqrt && cpu_has_avx2_fma()) return vector_map<rsqrt8>(loop);
  }
#endif
  switch (op) {
    case UnaryOp::kExp: return unary_loop<T, T>(loop, [](T x) { return std::exp(x); });
    case UnaryOp::kLog: return unary_loop<T, T>(loop, [](T x) { return std::log(x); });
    case UnaryOp::kLog1p: return unary_loop<T, T>(loop, [](T x) { return std::log1p(x); });
    case UnaryOp::kSqrt: return unary_loop<T, T>(loop, [](T x) { return std::sqrt(x); });
    case UnaryOp::kRsqrt: return unary_loop<T, T>(loop, [](T x) { return T(1) / std::sqrt(x); });
    case UnaryOp::kSin: return unary_loop<T, T>(loop, [](T x) { return std::sin(x); });
    case UnaryOp::kCos: return unary_loop<T, T>(loop, [](T x) { return std::cos(x); });
    case UnaryOp::kSigmoid:
      return unary_loop<T, T>(loop, [](T x) { return T(1) / (T(1) + std::exp(-x)); });
    case UnaryOp::kTanh: return unary_loop<T, T>(loop, [](T x) { return std::tanh(x); });
    case UnaryOp::kErf: return unary_loop<T, T>(loop, [](T x) { return std::erf(x); });
    case UnaryOp::kFloor: return unary_loop<T, T>(loop, [](T x) { return std::floor(x); });
    case UnaryOp::kCeil: return unary_loop<T, T>(loop, [](T x) { return std::ceil(x); });
    // Half to even: nearbyint in the default rounding mode.
    case UnaryOp::kRound: return unary_loop<T, T>(loop, [](T x) { return std::nearbyint(x); });
    case UnaryOp::kTrunc: return unary_loop<T, T>(loop, [](T x) { return std::trunc(x); });
    case UnaryOp::kFrac: return unary_loop<T, T>(loop, [](T x) { return x - std::trunc(x); });
    case UnaryOp::kSinh: return unary_loop<T, T>(loop, [](T x) { return std::sinh(x); });
    case UnaryOp::kCosh: return unary_loop<T, T>(loop, [](T x) { return std::cosh(x); });
    case UnaryOp::kAsin: return unary_loop<T, T>(loop, [](T x) { return std::asin(x); });
    case UnaryOp::kAcos: return unary_loop<T, T>(loop, [](T x) { return std::acos(x); });
    case UnaryOp::kAtan: return unary_loop<T, T>(loop, [](T x) { return std::atan(x); });
    case UnaryOp::kAsinh: return unary_loop<T, T>(loop, [](T x) { return std::asinh(x); });
    case UnaryOp::kAcosh: return unary_loop<T, T>(loop, [](T x) { return std::acosh(x); });
    case UnaryOp::kAtanh: return unary_loop<T, T>(loop, [](T x) { return std::atanh(x); });
    case UnaryOp::kExpm1: return unary_loop<T, T>(loop, [](T x) { return std::expm1(x); });
    case UnaryOp::kLog2: return unary_loop<T, T>(loop, [](T x) { return std::log2(x); });
    case UnaryOp::kLog10: return unary_loop<T, T>(loop, [](T x) { return std::log10(x); });
    case UnaryOp::kExp2: return unary_loop<T, T>(loop, [](T x) { return std::exp2(x); });
    case UnaryOp::kErfc: return unary_loop<T, T>(loop, [](T x) { return std::erfc(x); });
    case UnaryOp::kErfinv:
      return unary_loop<T, T>(loop, [](T x) { return cuda::ops::erfinv_of(x); });
    case UnaryOp::kLgamma:
      return unary_loop<T, T>(loop, [](T x) { return cuda::ops::lgamma_of(x); });
    case UnaryOp::kDigamma:
      return unary_loop<T, T>(loop, [](T x) { return cuda::ops::digamma_of(x); });
    case UnaryOp::kTrigamma:
      return unary_loop<T, T>(loop, [](T x) { return cuda::ops::trigamma_of(x); });
    case UnaryOp::kGelu:
      return unary_loop<T, T>(loop, [](T x) {
        // 1 + erf(z) as erfc(-z), which keeps the negative tail's digits.
        return T(0.5) * x * std::erfc(-x * T(M_SQRT1_2));
      });
    case UnaryOp::kGeluTanh:
      return unary_loop<T, T>(loop, [](T x) { return cuda::ops::gelu_tanh_of(x); });
    default: TORCHLET_INTERNAL_ASSERT(false, "not a floating-point op");
  }
}

template <typename T>
void sign_preserving(UnaryOp op, const StridedLoop& loop) {
  switch (op) {
    case UnaryOp::kNeg:
      if constexpr (!std::is_same_v<T, bool>) {
        return unary_loop<T, T>(loop, [](T x) { return static_cast<T>(-x); });
      }
      break;
    case UnaryOp::kAbs:
      if constexpr (std::is_floating_point_v<T>) {
        return unary_loop<T, T>(loop, [](T x) { return std::abs(x); });
      } else if constexpr (std::is_signed_v<T>) {
        return unary_loop<T, T>(loop, [](T x) { return static_cast<T>(x < 0 ? -x : x); });
      } else {
        return unary_loop<T, T>(loop, [](T x) { return x; });
      }
    case UnaryOp::kSign:
      if constexpr (std::is_same_v<T, bool>) {
        return unary_loop<T, T>(loop, [](T x) { return x; });
      } else {
        return unary_loop<T, T>(loop, [](T x) { return static_cast<T>((T(0) < x) - (x < T(0))); });
      }
    case UnaryOp::kRelu:
      if constexpr (!std::is_same_v<T, bool>) {
        // NaN stays NaN, as in PyTorch.
        return unary_loop<T, T>(loop, [](T x) { return x < T(0) ? T(0) : x; });
      }
      break;
    default:
      break;
  }
  TORCHLET_INTERNAL_ASSERT(false, "unsupported unary op for this dtype");
}

// The bool-valued unary ops: logical_not and the floating-point tests
// (integers are never NaN or infinite).
void float_test(UnaryOp op, const StridedLoop& loop, DType dtype) {
  dispatch_all(dtype, [&](auto tag) {
    using T = decltype(tag);
    switch (op) {
      case UnaryOp::kLogicalNot: return unary_loop<bool, T>(loop, [](T x) { return !x; });
      case UnaryOp::kIsNan:
        return unary_loop<bool, T>(loop, [](T x) {
          if constexpr (std::is_floating_point_v<T>) return std::isnan(x);
          return false;
        });
      case UnaryOp::kIsInf:
        return unary_loop<bool, T>(loop, [](T x) {
          if constexpr (std::is_floating_point_v<T>) return std::isinf(x);
          return false;
        });
      default:
        return unary_loop<bool, T>(loop, [](T x) {
          if constexpr (std::is_floating_point_v<T>) return std::isfinite(x);
          return true;
        });
    }
  });
}

// a + alpha * b (or a - alpha * b) in float16 or bfloat16, as PyTorch
// 1.13's CPU add rounds it: alpha to the dtype first, and for float16 (whose
// c10::Half arithmetic rounds every step) the product too.
void scaled_reduced_add(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b,
                        Scalar alpha) {
  const DType dtype = a.dtype();
  const double rounded = dtype == kFloat16 ? static_cast<float>(Half(alpha.to<float>()))
                                           : static_cast<float>(BFloat16(alpha.to<float>()));
  if (dtype == kBFloat16) {
    const Tensor result = float32_result(out);
    binary(op, result, float32_operand(a), float32_operand(b), rounded);
    return store_result(out, result);
  }
  const Tensor product = empty(b.sizes(), b.options().dtype(dtype));
  binary(BinaryOp::kMul, product, b, scalar_tensor(rounded, b.options().dtype(dtype)),
         1);
  binary(op, out, a, product, 1);
}

}  // namespace

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha) {
  const bool scaled = (op == BinaryOp::kAdd || op == BinaryOp::kSub) && alpha.to_double() != 1.0;
  if (scaled && is_reduced_floating_point(a.dtype())) {
    return scaled_reduced_add(op, out, a, b, alpha);
  }
  auto in_float32 = [&](const Tensor& o, const Tensor& x, const Tensor& y) {
    binary(op, o, x, y, alpha);
  };
  if (run_in_float32(out, in_float32, a, b)) return;
  const StridedLoop loop = make_loop({&out, &a, &b}, out.sizes());
  const bool boolean_out = out.dtype() == kBool && a.dtype() != kBool;
  const bool is_compare = op >= BinaryOp::kEq;
  dispatch_all(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (is_compare || boolean_out) {
      comparison<T>(op, loop);
    } else {
      arithmetic<T>(op, loop, alpha);
    }
  });
}

void unary(UnaryOp op, const Tensor& out, const Tensor& in) {
  auto in_float32 = [op](const Tensor& o, const Tensor& x) { unary(op, o, x); };
  if (run_in_float32(out, in_float32, in)) return;
  const StridedLoop loop = make_loop({&out, &in}, out.sizes());
  if (op == UnaryOp::kLogicalNot || op == UnaryOp::kIsNan || op == UnaryOp::kIsInf ||
      op == UnaryOp::kIsFinite) {
    return float_test(op, loop, in.dtype());
  }
  dispatch_all(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      switch (op) {
        case UnaryOp::kNeg: case UnaryOp::kAbs: case UnaryOp::kSign: case UnaryOp::kRelu:
          return sign_preserving<T>(op, loop);
        default:
          return float_math<T>(op, loop);
      }
    } else {
      return sign_preserving<T>(op, loop);
    }
  });
}

void clamp(const Tensor& out, const Tensor& in, const Scalar* lo, const Scalar* hi) {
  auto in_float32 = [=](const Tensor& o, const Tensor& x) { clamp(o, x, lo, hi); };
  if (run_in_float32(out, in_float32, in)) return;
  const StridedLoop loop = make_loop({&out, &in}, out.sizes());
  dispatch_all(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      const bool has_lo = lo != nullptr, has_hi = hi != nullptr;
      const T l = has_lo ? lo->to<T>() : T(0);
      const T h = has_hi ? hi->to<T>() : T(0);
      if constexpr (std::is_floating_point_v<T>) {
        // Branch-free, so that the loop vectorizes: max(l, x) and min(h, x)
        // written to keep x when it is NaN (the comparison is then false).
        const T low = has_lo ? l : -std::numeric_limits<T>::infinity();
        const T high = has_hi ? h : std::numeric_limits<T>::infinity();
        unary_loop<T, T>(loop, [=](T x) {
          const T y = x < low ? low : x;
          return y > high ? high : y;
        });
      } else {
        unary_loop<T, T>(loop, [=](T x) {
          if (has_lo && x < l) x = l;
          if (has_hi && x > h) x = h;
          return x;
        });
      }
    }
  });
}

void round_decimals(const Tensor& out, const Tensor& in, int64_t decimals) {
  auto in_float32 = [=](const Tensor& o, const Tensor& x) { round_decimals(o, x, decimals); };
  if (run_in_float32(out, in_float32, in)) return;
  const StridedLoop loop = make_loop({&out, &in}, out.sizes());
  dispatch_floating(in.dtype(), "round", [&](auto tag) {
    using T = decltype(tag);
    const bool negative = decimals < 0;
    const T scale = static_cast<T>(std::pow(10.0, static_cast<double>(negative ? -decimals : decimals)));
    if (negative) {
      unary_loop<T, T>(loop, [scale](T x) { return std::nearbyint(x / scale) * scale; });
    } else {
      unary_loop<T, T>(loop, [scale](T x) { return std::nearbyint(x * scale) / scale; });
    }
  });
}

void nan_to_num(const Tensor& out, const Tensor& in, double nan, const double* posinf,
                const double* neginf) {
  if (is_reduced_floating_point(in.dtype())) {
    // The default bounds are the reduced dtype's own finite extremes.
    const double largest = in.dtype() == kFloat16 ? std::numeric_limits<Half>::max()
                                                   : std::numeric_limits<BFloat16>::max();
    const double lowest = -largest;
    auto in_float32 = [&](const Tensor& o, const Tensor& x) {
      nan_to_num(o, x, nan, posinf ? posinf : &largest, neginf ? neginf : &lowest);
    };
    run_in_float32(out, in_float32, in);
    return;
  }
  const StridedLoop loop = make_loop({&out, &in}, out.sizes());
  dispatch_floating(in.dtype(), "nan_to_num", [&](auto tag) {
    using T = decltype(tag);
    const T nan_value = static_cast<T>(nan);
    const T pos = posinf ? static_cast<T>(*posinf) : std::numeric_limits<T>::max();
    const T neg = neginf ? static_cast<T>(*neginf) : std::numeric_limits<T>::lowest();
    unary_loop<T, T>(loop, [=](T x) {
      if (std::isnan(x)) return nan_value;
      if (std::isinf(x)) return x > 0 ? pos : neg;
      return x;
    });
  });
}

void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  const StridedLoop loop = make_loop({&out, &cond, &a, &b}, out.sizes());
  dispatch_all_and_reduced(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for_each_run(loop, [](char** d, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<T*>(d[0] + i * s[0]) =
            at<bool>(d[1], s[1], i) ? at<T>(d[2], s[2], i) : at<T>(d[3], s[3], i);
      }
    });
  });
}

}  // namespace torchlet::cpu
