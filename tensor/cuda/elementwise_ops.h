#pragma once

// What each elementwise op computes on one element, as functions nvcc
// compiles for the GPU and the host compiler for the tests that hold them
// to the CPU kernels' results (tensor/cuda/elementwise_ops_test.cc). The
// semantics are the CPU kernels' (tensor/cpu/elementwise_kernels.cc, which
// uses the integer power, division and remainder helpers from here):
// Python's remainder and floor division, integer powers by squaring, NaN
// propagating through maximum, minimum and clamp, round half to even.
//
// Plain C++17 and <cmath>: no torchlet types beyond the op enums.

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tensor/cuda/host_device.h"
#include "tensor/kernel_ops.h"

namespace torchlet::cuda::ops {

template <typename T>
TORCHLET_HOST_DEVICE bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return x != x;
  } else {
    return false;
  }
}

template <typename T>
TORCHLET_HOST_DEVICE T integer_pow(T base, T exp) {
  if constexpr (std::is_same_v<T, bool>) {
    return base || !exp;
  } else {
    if constexpr (std::is_signed_v<T>) {
      if (exp < 0) {
        if (base == 1) return 1;
        if (base == -1) return (exp % 2 == 0) ? 1 : -1;
        return 0;
      }
    }
    T result = 1;
    while (exp) {
      if (exp & 1) result = static_cast<T>(result * base);
      exp = static_cast<T>(exp >> 1);
      base = static_cast<T>(base * base);
    }
    return result;
  }
}

template <typename T>
TORCHLET_HOST_DEVICE T floor_divide_of(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b == 0) return a / b;
    const T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && (b < 0) != (mod < 0)) div -= T(1);
    if (div == 0) return std::copysign(T(0), a / b);
    T floored = std::floor(div);
    if (div - floored > T(0.5)) floored += T(1);
    return floored;
  } else if constexpr (std::is_same_v<T, bool>) {
    return a;
  } else if constexpr (std::is_signed_v<T>) {
    if ((a < 0) != (b < 0)) {
      const T quot = static_cast<T>(a / b);
      return static_cast<T>(a % b != 0 ? quot - 1 : quot);
    }
    return static_cast<T>(a / b);
  } else {
    return static_cast<T>(a / b);
  }
}

template <typename T>
TORCHLET_HOST_DEVICE T remainder_of(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    T mod = std::fmod(a, b);
    if (mod != 0 && (b < 0) != (mod < 0)) mod += b;
    return mod;
  } else if constexpr (std::is_same_v<T, bool>) {
    return a;
  } else if constexpr (std::is_signed_v<T>) {
    T mod = static_cast<T>(a % b);
    if (mod != 0 && (mod < 0) != (b < 0)) mod = static_cast<T>(mod + b);
    return mod;
  } else {
    return static_cast<T>(a % b);
  }
}

template <typename T>
TORCHLET_HOST_DEVICE T fmod_of(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::fmod(a, b);
  } else if constexpr (std::is_same_v<T, bool>) {
    return a;
  } else {
    return static_cast<T>(a % b);
  }
}

// Note [Special functions]
// digamma and trigamma are evaluated here for the CPU and the GPU alike:
// the recurrence psi(x) = psi(x + 1) - 1 / x (psi_1(x) = psi_1(x + 1) +
// 1 / x^2) carries x up to 10, where the asymptotic series in Bernoulli
// numbers is exact to the last bit; negative x use the reflection formulas
// psi(x) = psi(1 - x) - pi / tan(pi x) and psi_1(x) = pi^2 / sin^2(pi x) -
// psi_1(1 - x). lgamma and erfinv are the GPU's own functions there; on the
// host lgamma is the reentrant lgamma_r (std::lgamma writes the global
// signgam, a data race under parallel loops) and erfinv is Newton's method
// on erf (on erfc for |y| > 1/2, whose residual keeps its digits near 1)
// from Winitzki's closed-form guess.

template <typename T>
TORCHLET_HOST_DEVICE T digamma_of_positive(T x) {
  T result = 0;
  for (; x < T(10); x += T(1)) result -= T(1) / x;
  const T r = T(1) / (x * x);
  // Bernoulli terms B_2k / (2k x^2k), k = 1..7, by Horner in 1 / x^2.
  const T series =
      r * (T(1) / 12 -
           r * (T(1) / 120 -
                r * (T(1) / 252 -
                     r * (T(1) / 240 - r * (T(1) / 132 - r * (T(691) / 32760 - r * (T(1) / 12)))))));
  return result + std::log(x) - T(0.5) / x - series;
}

/// d/dx lgamma(x): -inf at +0, +inf at -0, NaN at negative integers and -inf.
template <typename T>
TORCHLET_HOST_DEVICE T digamma_of(T x) {
  constexpr T kPi = T(3.14159265358979323846);
  if (x == T(0)) return std::copysign(std::numeric_limits<T>::infinity(), -x);
  if (x < T(0)) {
    const T whole = std::trunc(x);
    if (x == whole) return std::numeric_limits<T>::quiet_NaN();
    return digamma_of_positive(T(1) - x) - kPi / std::tan(kPi * (x - whole));
  }
  return digamma_of_positive(x);
}

template <typename T>
TORCHLET_HOST_DEVICE T trigamma_of_positive(T x) {
  T result = 0;
  for (; x < T(10); x += T(1)) result += T(1) / (x * x);
  const T r = T(1) / (x * x);
  // 1/x + 1/(2x^2) + sum B_2k / x^(2k+1), k = 1..6.
  const T series =
      r * (T(1) / 6 - r * (T(1) / 30 - r * (T(1) / 42 - r * (T(1) / 30 - r * (T(5) / 66 -
                                                                              r * (T(691) / 2730))))));
  return result + (T(1) + T(0.5) / x + series) / x;
}

/// polygamma(1, x).
template <typename T>
TORCHLET_HOST_DEVICE T trigamma_of(T x) {
  constexpr T kPi = T(3.14159265358979323846);
  if (x < T(0.5)) {
    const T s = std::sin(kPi * x);
    return kPi * kPi / (s * s) - trigamma_of_positive(T(1) - x);
  }
  return trigamma_of_positive(x);
}

template <typename T>
TORCHLET_HOST_DEVICE T lgamma_of(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    return ::lgammaf(x);
  } else {
    return ::lgamma(x);
  }
#else
  int sign;
  if constexpr (std::is_same_v<T, float>) {
    return ::lgammaf_r(x, &sign);
  } else {
    return ::lgamma_r(x, &sign);
  }
#endif
}

template <typename T>
TORCHLET_HOST_DEVICE T erfinv_of(T y) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    return ::erfinvf(y);
  } else {
    return ::erfinv(y);
  }
#else
  if constexpr (std::is_same_v<T, float>) {
    return static_cast<float>(erfinv_of(static_cast<double>(y)));
  } else {
    const double a = std::abs(y);
    if (!(a <= 1)) return std::numeric_limits<double>::quiet_NaN();
    if (a == 1) return std::copysign(std::numeric_limits<double>::infinity(), y);
    if (y == 0) return y;
    constexpr double kPi = 3.14159265358979323846, kWinitzki = 0.147;
    const double tail = 1 - a;  // exact for a >= 1/2
    const double ln = std::log(tail * (1 + a));
    const double first = 2 / (kPi * kWinitzki) + ln / 2;
    double x = std::sqrt(std::sqrt(first * first - ln / kWinitzki) - first);
    for (int step = 0; step < 4; ++step) {
      const double residual = a > 0.5 ? tail - std::erfc(x) : std::erf(x) - a;
      x -= residual / (1.1283791670955126 * std::exp(-x * x));
    }
    return std::copysign(x, y);
  }
#endif
}

/// log(exp(a) + exp(b)) (base 2 with `Base2`), without overflow.
template <bool Base2, typename T>
TORCHLET_HOST_DEVICE T logaddexp_of(T a, T b) {
  if (std::isinf(a) && a == b) return a;
  const T larger = a > b ? a : b;
  const T gap = -std::abs(a - b);
  if constexpr (Base2) {
    return larger + std::log1p(std::exp2(gap)) * T(1.44269504088896340736);
  } else {
    return larger + std::log1p(std::exp(gap));
  }
}

/// x log(y), 0 where x == 0 unless y is NaN.
template <typename T>
TORCHLET_HOST_DEVICE T xlogy_of(T x, T y) {
  if (is_nan(y)) return y;
  if (x == T(0)) return T(0);
  return x * std::log(y);
}

/// gelu's tanh form x (1 + tanh(u)) / 2, u = sqrt(2 / pi) (x + 0.044715
/// x^3), as x sigmoid(2u), whose negative tail does not cancel to 0 (Note
/// [AVX2 tanh-form gelu] in tensor/cpu/vector_math.h).
template <typename T>
TORCHLET_HOST_DEVICE T gelu_tanh_of(T x) {
  constexpr T kSqrt2OverPi = T(0.79788456080286535588), kCube = T(0.044715);
  const T two_u = T(2) * kSqrt2OverPi * (x + kCube * x * x * x);
  const T e = std::exp(-std::abs(two_u));
  return x * (two_u < T(0) ? e : T(1)) / (T(1) + e);
}

/// grad gelu'(x): Phi(x) + x phi(x) for the exact form (1 + erf(z) as
/// erfc(-z), which keeps the negative tail's digits), and for kTanh the
/// derivative of x (1 + tanh(u)) / 2 = x sigmoid(2u), u = sqrt(2 / pi) (x +
/// 0.044715 x^3), from sigmoid(2u) and sigmoid(-2u), which do not cancel in
/// the tails as 1 + tanh(u) and 1 - tanh(u)^2 would (Note [AVX2 tanh-form
/// gelu] in tensor/cpu/vector_math.h).
template <bool kTanh, typename T>
TORCHLET_HOST_DEVICE T gelu_backward_of(T grad, T x) {
  if constexpr (kTanh) {
    constexpr T kSqrt2OverPi = T(0.79788456080286535588), kCube = T(0.044715);
    const T x_squared = x * x;
    const T two_u = T(2) * kSqrt2OverPi * (x + kCube * x_squared * x);
    const T e = std::exp(-std::abs(two_u));
    const T large = T(1) / (T(1) + e), small = e * large;  // sigmoid(|2u|), sigmoid(-|2u|)
    const T s = two_u < T(0) ? small : large, s_other = two_u < T(0) ? large : small;
    const T du = kSqrt2OverPi * (T(1) + T(3) * kCube * x_squared);
    return grad * (s + T(2) * x * s * s_other * du);
  } else {
    constexpr T kSqrtHalf = T(0.70710678118654752440);
    constexpr T kInvSqrt2Pi = T(0.39894228040143267794);
    const T cdf = T(0.5) * std::erfc(-x * kSqrtHalf);
    // exp(-x^2 / 2) of the exact square: x^2 rounded, times 1 - half of
    // what the rounding lost (which a large x^2 / 2 would magnify).
    const T square = x * x;
    const T pdf = kInvSqrt2Pi * std::exp(T(-0.5) * square) *
                  (T(1) - T(0.5) * std::fma(x, x, -square));
    return grad * (cdf + x * pdf);
  }
}

/// start + weight (end - start), from whichever end is nearer the weight.
template <typename T>
TORCHLET_HOST_DEVICE T lerp_of(T start, T end, T weight) {
  return std::abs(weight) < T(0.5) ? start + weight * (end - start)
                                   : end - (end - start) * (T(1) - weight);
}

/// True for the ops whose result is bool whatever T is.
constexpr bool is_comparison(BinaryOp op) { return op >= BinaryOp::kEq; }

/// The arithmetic ops: out = a op b (alpha scales b for add and sub, and
/// is the threshold of threshold_backward). Ops the op layer never sends
/// for T (division of integers, say) return a.
template <BinaryOp Op, typename T>
TORCHLET_HOST_DEVICE T arithmetic(T a, T b, T alpha) {
  constexpr bool kFloat = std::is_floating_point_v<T>;
  if constexpr (Op == BinaryOp::kAdd) {
    return static_cast<T>(a + alpha * b);
  } else if constexpr (Op == BinaryOp::kSub) {
    return static_cast<T>(a - alpha * b);
  } else if constexpr (Op == BinaryOp::kMul) {
    return static_cast<T>(a * b);
  } else if constexpr (Op == BinaryOp::kDiv && kFloat) {
    return a / b;
  } else if constexpr (Op == BinaryOp::kPow) {
    if constexpr (kFloat) {
      return std::pow(a, b);
    } else {
      return integer_pow(a, b);
    }
  } else if constexpr (Op == BinaryOp::kFloorDivide) {
    return floor_divide_of(a, b);
  } else if constexpr (Op == BinaryOp::kRemainder) {
    return remainder_of(a, b);
  } else if constexpr (Op == BinaryOp::kFmod) {
    return fmod_of(a, b);
  } else if constexpr (Op == BinaryOp::kAtan2 && kFloat) {
    return std::atan2(a, b);
  } else if constexpr (Op == BinaryOp::kHypot && kFloat) {
    return std::hypot(a, b);
  } else if constexpr (Op == BinaryOp::kLogAddExp && kFloat) {
    return logaddexp_of<false>(a, b);
  } else if constexpr (Op == BinaryOp::kLogAddExp2 && kFloat) {
    return logaddexp_of<true>(a, b);
  } else if constexpr (Op == BinaryOp::kXlogy && kFloat) {
    return xlogy_of(a, b);
  } else if constexpr (Op == BinaryOp::kCopysign && kFloat) {
    return std::copysign(a, b);
  } else if constexpr (Op == BinaryOp::kLerp && kFloat) {
    return lerp_of(a, b, alpha);
  } else if constexpr (Op == BinaryOp::kGeluBackward && kFloat) {
    return gelu_backward_of<false>(a, b);
  } else if constexpr (Op == BinaryOp::kGeluTanhBackward && kFloat) {
    return gelu_backward_of<true>(a, b);
  } else if constexpr (Op == BinaryOp::kThresholdBackward) {
    return b <= alpha ? T(0) : a;
  } else if constexpr (Op == BinaryOp::kMaximum) {
    if (is_nan(a) || is_nan(b)) return is_nan(a) ? a : b;
    return a > b ? a : b;
  } else if constexpr (Op == BinaryOp::kMinimum) {
    if (is_nan(a) || is_nan(b)) return is_nan(a) ? a : b;
    return a < b ? a : b;
  } else {
    return a;
  }
}

/// The comparisons and logical ops.
template <BinaryOp Op, typename T>
TORCHLET_HOST_DEVICE bool comparison(T a, T b) {
  if constexpr (Op == BinaryOp::kEq) {
    return a == b;
  } else if constexpr (Op == BinaryOp::kNe) {
    return a != b;
  } else if constexpr (Op == BinaryOp::kLt) {
    return a < b;
  } else if constexpr (Op == BinaryOp::kLe) {
    return a <= b;
  } else if constexpr (Op == BinaryOp::kGt) {
    return a > b;
  } else if constexpr (Op == BinaryOp::kGe) {
    return a >= b;
  } else if constexpr (Op == BinaryOp::kLogicalAnd) {
    return a && b;
  } else {
    return a || b;
  }
}

/// True for the ops whose result is bool whatever T is.
constexpr bool is_test(UnaryOp op) {
  return op == UnaryOp::kLogicalNot || op == UnaryOp::kIsNan || op == UnaryOp::kIsInf ||
         op == UnaryOp::kIsFinite;
}

/// The bool-valued unary ops.
template <UnaryOp Op, typename T>
TORCHLET_HOST_DEVICE bool unary_test(T x) {
  if constexpr (Op == UnaryOp::kLogicalNot) {
    return !x;
  } else if constexpr (!std::is_floating_point_v<T>) {
    return Op == UnaryOp::kIsFinite;
  } else if constexpr (Op == UnaryOp::kIsNan) {
    return x != x;
  } else if constexpr (Op == UnaryOp::kIsInf) {
    return std::isinf(x);
  } else {
    return std::isfinite(x);
  }
}

/// The unary ops that keep T. Float-only math on an integer T returns x
/// (the op layer converts integers to float32 first).
template <UnaryOp Op, typename T>
TORCHLET_HOST_DEVICE T unary(T x) {
  if constexpr (Op == UnaryOp::kNeg) {
    if constexpr (std::is_same_v<T, bool>) {
      return x;
    } else {
      return static_cast<T>(-x);
    }
  } else if constexpr (Op == UnaryOp::kAbs) {
    if constexpr (std::is_floating_point_v<T>) {
      return std::abs(x);
    } else if constexpr (std::is_signed_v<T>) {
      return static_cast<T>(x < 0 ? -x : x);
    } else {
      return x;
    }
  } else if constexpr (Op == UnaryOp::kSign) {
    if constexpr (std::is_same_v<T, bool>) {
      return x;
    } else if constexpr (std::is_unsigned_v<T>) {
      return static_cast<T>(x != 0);
    } else {
      return static_cast<T>((T(0) < x) - (x < T(0)));
    }
  } else if constexpr (Op == UnaryOp::kRelu) {
    if constexpr (std::is_unsigned_v<T>) {
      return x;
    } else {
      return x < T(0) ? T(0) : x;  // NaN stays NaN
    }
  } else if constexpr (!std::is_floating_point_v<T>) {
    return x;
  } else if constexpr (Op == UnaryOp::kExp) {
    return std::exp(x);
  } else if constexpr (Op == UnaryOp::kLog) {
    return std::log(x);
  } else if constexpr (Op == UnaryOp::kLog1p) {
    return std::log1p(x);
  } else if constexpr (Op == UnaryOp::kSqrt) {
    return std::sqrt(x);
  } else if constexpr (Op == UnaryOp::kRsqrt) {
    return T(1) / std::sqrt(x);
  } else if constexpr (Op == UnaryOp::kSin) {
    return std::sin(x);
  } else if constexpr (Op == UnaryOp::kCos) {
    return std::cos(x);
  } else if constexpr (Op == UnaryOp::kSigmoid) {
    return T(1) / (T(1) + std::exp(-x));
  } else if constexpr (Op == UnaryOp::kTanh) {
    return std::tanh(x);
  } else if constexpr (Op == UnaryOp::kErf) {
    return std::erf(x);
  } else if constexpr (Op == UnaryOp::kSinh) {
    return std::sinh(x);
  } else if constexpr (Op == UnaryOp::kCosh) {
    return std::cosh(x);
  } else if constexpr (Op == UnaryOp::kAsin) {
    return std::asin(x);
  } else if constexpr (Op == UnaryOp::kAcos) {
    return std::acos(x);
  } else if constexpr (Op == UnaryOp::kAtan) {
    return std::atan(x);
  } else if constexpr (Op == UnaryOp::kAsinh) {
    return std::asinh(x);
  } else if constexpr (Op == UnaryOp::kAcosh) {
    return std::acosh(x);
  } else if constexpr (Op == UnaryOp::kAtanh) {
    return std::atanh(x);
  } else if constexpr (Op == UnaryOp::kExpm1) {
    return std::expm1(x);
  } else if constexpr (Op == UnaryOp::kLog2) {
    return std::log2(x);
  } else if constexpr (Op == UnaryOp::kLog10) {
    return std::log10(x);
  } else if constexpr (Op == UnaryOp::kExp2) {
    return std::exp2(x);
  } else if constexpr (Op == UnaryOp::kErfc) {
    return std::erfc(x);
  } else if constexpr (Op == UnaryOp::kErfinv) {
    return erfinv_of(x);
  } else if constexpr (Op == UnaryOp::kLgamma) {
    return lgamma_of(x);
  } else if constexpr (Op == UnaryOp::kDigamma) {
    return digamma_of(x);
  } else if constexpr (Op == UnaryOp::kTrigamma) {
    return trigamma_of(x);
  } else if constexpr (Op == UnaryOp::kFloor) {
    return std::floor(x);
  } else if constexpr (Op == UnaryOp::kCeil) {
    return std::ceil(x);
  } else if constexpr (Op == UnaryOp::kRound) {
    return std::nearbyint(x);  // half to even in the default rounding mode
  } else if constexpr (Op == UnaryOp::kTrunc) {
    return std::trunc(x);
  } else if constexpr (Op == UnaryOp::kFrac) {
    return x - std::trunc(x);
  } else if constexpr (Op == UnaryOp::kGelu) {
    // 1 + erf(z) as erfc(-z), which keeps the negative tail's digits.
    constexpr T kSqrtHalf = T(0.70710678118654752440);
    return T(0.5) * x * std::erfc(-x * kSqrtHalf);
  } else if constexpr (Op == UnaryOp::kGeluTanh) {
    return gelu_tanh_of(x);
  } else {
    return x;
  }
}

/// clamp with optional bounds; NaN passes through.
template <typename T>
TORCHLET_HOST_DEVICE T clamp(T x, bool has_lo, T lo, bool has_hi, T hi) {
  if (is_nan(x)) return x;
  if (has_lo && x < lo) x = lo;
  if (has_hi && x > hi) x = hi;
  return x;
}

}  // namespace torchlet::cuda::ops
