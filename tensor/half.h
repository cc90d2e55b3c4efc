#pragma once

// The 16-bit floating-point element types: IEEE binary16 (`Half`,
// torch.float16) and bfloat16 (`BFloat16`, torch.bfloat16, float32's upper
// half). Each stores two bytes and converts implicitly to and from float, as
// c10::Half and c10::BFloat16 do: arithmetic on them happens in float.

#include <cstdint>
#include <cstring>
#include <limits>

namespace torchlet {
namespace detail {

inline uint32_t float_bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

inline float float_from_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// `q` rounded up when the dropped bits `rem` exceed half of `unit`, or equal
// it and `q` is odd: round to nearest, ties to even.
inline uint32_t round_half_even(uint32_t q, uint32_t rem, uint32_t unit) {
  const uint32_t half = unit >> 1;
  return q + (rem > half || (rem == half && (q & 1u)) ? 1u : 0u);
}

/// binary16 bits of the nearest value to `f` (ties to even); overflow goes
/// to infinity, tiny values to subnormals or zero, every NaN to the quiet
/// NaN 0x7e00 with f's sign (c10's fp16_ieee_from_fp32_value).
inline uint16_t half_bits_from_float(float f) {
  const uint32_t bits = float_bits(f);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);
  // 65520, halfway between 65504 (the largest half) and 2^16, rounds to inf.
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  if (magnitude >= 0x38800000u) {  // a normal half: rebias the exponent by 127 - 15
    return static_cast<uint16_t>(
        sign | round_half_even((magnitude - 0x38000000u) >> 13, magnitude & 0x1fffu, 0x2000u));
  }
  // 2^-25, halfway between 0 and the smallest subnormal, rounds to zero.
  if (magnitude <= 0x33000000u) return static_cast<uint16_t>(sign);
  // A subnormal half: whole units of 2^-24 (rounding may carry into the
  // smallest normal, whose encoding follows the largest subnormal's).
  const uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  const uint32_t shift = 126u - (magnitude >> 23);
  return static_cast<uint16_t>(sign | round_half_even(mantissa >> shift,
                                                      mantissa & ((1u << shift) - 1u),
                                                      1u << shift));
}

/// The float equal to binary16 `h` (exact: every half is a float).
inline float float_from_half_bits(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1fu) return float_from_bits(sign | 0x7f800000u | (mantissa << 13));
  if (exponent != 0) return float_from_bits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  if (mantissa == 0) return float_from_bits(sign);
  uint32_t normalized = 113;  // a subnormal: shift the leading one into place
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    --normalized;
  }
  return float_from_bits(sign | (normalized << 23) | ((mantissa & 0x3ffu) << 13));
}

/// bfloat16 bits of the nearest value to `f` (ties to even); NaN becomes
/// 0x7fc0 (c10's round_to_nearest_even).
inline uint16_t bfloat16_bits_from_float(float f) {
  const uint32_t bits = float_bits(f);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return 0x7fc0u;
  return static_cast<uint16_t>(round_half_even(bits >> 16, bits & 0xffffu, 0x10000u));
}

inline float float_from_bfloat16_bits(uint16_t b) {
  return float_from_bits(static_cast<uint32_t>(b) << 16);
}

}  // namespace detail

/// IEEE binary16: 1 sign, 5 exponent, 10 mantissa bits; largest 65504.
struct alignas(2) Half {
  struct FromBits {};

  uint16_t x;

  Half() = default;
  constexpr Half(uint16_t bits, FromBits) : x(bits) {}
  Half(float value) : x(detail::half_bits_from_float(value)) {}  // NOLINT(runtime/explicit)
  operator float() const { return detail::float_from_half_bits(x); }  // NOLINT
};

/// bfloat16: 1 sign, 8 exponent, 7 mantissa bits (float32's range).
struct alignas(2) BFloat16 {
  struct FromBits {};

  uint16_t x;

  BFloat16() = default;
  constexpr BFloat16(uint16_t bits, FromBits) : x(bits) {}
  BFloat16(float value) : x(detail::bfloat16_bits_from_float(value)) {}  // NOLINT
  operator float() const { return detail::float_from_bfloat16_bits(x); }  // NOLINT
};

static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2, "16-bit element types");

}  // namespace torchlet

namespace std {

template <>
class numeric_limits<torchlet::Half> {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr int digits = 11;
  static constexpr torchlet::Half lowest() { return {0xfbff, torchlet::Half::FromBits()}; }
  static constexpr torchlet::Half max() { return {0x7bff, torchlet::Half::FromBits()}; }
  static constexpr torchlet::Half min() { return {0x0400, torchlet::Half::FromBits()}; }
  static constexpr torchlet::Half epsilon() { return {0x1400, torchlet::Half::FromBits()}; }
  static constexpr torchlet::Half infinity() { return {0x7c00, torchlet::Half::FromBits()}; }
  static constexpr torchlet::Half quiet_NaN() { return {0x7e00, torchlet::Half::FromBits()}; }
  static constexpr torchlet::Half denorm_min() { return {0x0001, torchlet::Half::FromBits()}; }
};

template <>
class numeric_limits<torchlet::BFloat16> {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr int digits = 8;
  static constexpr torchlet::BFloat16 lowest() { return {0xff7f, torchlet::BFloat16::FromBits()}; }
  static constexpr torchlet::BFloat16 max() { return {0x7f7f, torchlet::BFloat16::FromBits()}; }
  static constexpr torchlet::BFloat16 min() { return {0x0080, torchlet::BFloat16::FromBits()}; }
  static constexpr torchlet::BFloat16 epsilon() { return {0x3c00, torchlet::BFloat16::FromBits()}; }
  static constexpr torchlet::BFloat16 infinity() {
    return {0x7f80, torchlet::BFloat16::FromBits()};
  }
  static constexpr torchlet::BFloat16 quiet_NaN() {
    return {0x7fc0, torchlet::BFloat16::FromBits()};
  }
  static constexpr torchlet::BFloat16 denorm_min() {
    return {0x0001, torchlet::BFloat16::FromBits()};
  }
};

}  // namespace std
