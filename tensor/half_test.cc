// Conversions between float and the 16-bit floating types (tensor/half.h):
// exhaustive over every bit pattern, and checked against PyTorch 1.13 on
// the edge cases of rounding (tensor/testdata/half_rounding.txt, written by
// tools/gen_half_golden.py).
#include "tensor/half.h"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <string>

#include "gtest/gtest.h"

namespace torchlet {
namespace {

// The value of a binary16 or bfloat16 bit pattern, from the IEEE definition.
float reference_value(uint16_t bits, int exponent_bits, int mantissa_bits) {
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const uint32_t exponent = (bits >> mantissa_bits) & ((1u << exponent_bits) - 1);
  const uint32_t mantissa = bits & ((1u << mantissa_bits) - 1);
  const float sign = (bits >> (exponent_bits + mantissa_bits)) ? -1.0f : 1.0f;
  if (exponent == (1u << exponent_bits) - 1) {
    return mantissa ? std::numeric_limits<float>::quiet_NaN()
                    : sign * std::numeric_limits<float>::infinity();
  }
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), 1 - bias - mantissa_bits);
  return sign * std::ldexp(static_cast<float>(mantissa + (1u << mantissa_bits)),
                           static_cast<int>(exponent) - bias - mantissa_bits);
}

float half_value(uint32_t bits) { return Half(static_cast<uint16_t>(bits), Half::FromBits()); }
float bfloat16_value(uint32_t bits) {
  return BFloat16(static_cast<uint16_t>(bits), BFloat16::FromBits());
}

TEST(HalfTest, HalfToFloatIsExactForEveryBitPattern) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float expected = reference_value(static_cast<uint16_t>(h), 5, 10);
    const float actual = half_value(h);
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(actual)) << std::hex << h;
    } else {
      EXPECT_EQ(actual, expected) << std::hex << h;
      EXPECT_EQ(std::signbit(actual), std::signbit(expected)) << std::hex << h;
    }
  }
}

TEST(HalfTest, BFloat16ToFloatIsExactForEveryBitPattern) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const float expected = reference_value(static_cast<uint16_t>(b), 8, 7);
    const float actual = bfloat16_value(b);
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(actual)) << std::hex << b;
    } else {
      EXPECT_EQ(actual, expected) << std::hex << b;
      EXPECT_EQ(std::signbit(actual), std::signbit(expected)) << std::hex << b;
    }
  }
}

TEST(HalfTest, EveryHalfRoundTripsThroughFloat) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = half_value(h);
    if (std::isnan(f)) {
      EXPECT_EQ(Half(f).x, (h & 0x8000) | 0x7e00) << std::hex << h;  // the quiet NaN, signed
    } else {
      EXPECT_EQ(Half(f).x, h) << std::hex << h;
    }
  }
}

TEST(HalfTest, EveryBFloat16RoundTripsThroughFloat) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const float f = bfloat16_value(b);
    EXPECT_EQ(BFloat16(f).x, std::isnan(f) ? 0x7fc0 : b) << std::hex << b;
  }
}

// Between every two neighbouring finite values of one sign: the midpoint
// (a float, exactly) goes to the even one, a float ulp either side goes to
// the nearer one.
template <typename T>
void expect_ties_to_even(uint32_t largest_finite, float (*value)(uint32_t)) {
  for (uint32_t sign : {0x0000u, 0x8000u}) {
    for (uint32_t lo = 0; lo < largest_finite; ++lo) {
      const float a = value(sign | lo), b = value(sign | (lo + 1));
      const float mid = static_cast<float>((static_cast<double>(a) + b) / 2);
      const uint32_t even = (lo & 1) ? lo + 1 : lo;
      ASSERT_EQ(T(mid).x, sign | even) << std::hex << (sign | lo);
      ASSERT_EQ(T(std::nextafter(mid, a)).x, sign | lo) << std::hex << (sign | lo);
      ASSERT_EQ(T(std::nextafter(mid, b)).x, sign | (lo + 1)) << std::hex << (sign | lo);
    }
  }
}

TEST(HalfTest, FloatToHalfRoundsToNearestTiesToEvenEverywhere) {
  expect_ties_to_even<Half>(0x7bff, half_value);
}

TEST(HalfTest, FloatToBFloat16RoundsToNearestTiesToEvenEverywhere) {
  expect_ties_to_even<BFloat16>(0x7f7f, bfloat16_value);
}

TEST(HalfTest, OverflowGoesToInfinityFromHalfwayAboveTheLargestHalf) {
  EXPECT_EQ(Half(65504.0f).x, 0x7bff);
  EXPECT_EQ(Half(std::nextafter(65520.0f, 0.0f)).x, 0x7bff);
  EXPECT_EQ(Half(65520.0f).x, 0x7c00);
  EXPECT_EQ(Half(-1e10f).x, 0xfc00);
  EXPECT_EQ(Half(std::numeric_limits<float>::infinity()).x, 0x7c00);
  EXPECT_EQ(BFloat16(std::numeric_limits<float>::max()).x, 0x7f80);
}

TEST(HalfTest, TinyValuesBecomeSubnormalsOrSignedZero) {
  EXPECT_EQ(Half(std::ldexp(1.0f, -24)).x, 0x0001);
  EXPECT_EQ(Half(std::ldexp(1.0f, -25)).x, 0x0000);  // a tie: to the even zero
  EXPECT_EQ(Half(std::nextafter(std::ldexp(1.0f, -25), 1.0f)).x, 0x0001);
  EXPECT_EQ(Half(-std::ldexp(1.0f, -26)).x, 0x8000);
  EXPECT_EQ(Half(std::ldexp(1023.5f, -24)).x, 0x0400);  // carries into the smallest normal
}

TEST(HalfTest, NumericLimitsDescribeTheFormats) {
  EXPECT_EQ(static_cast<float>(std::numeric_limits<Half>::max()), 65504.0f);
  EXPECT_EQ(static_cast<float>(std::numeric_limits<Half>::lowest()), -65504.0f);
  EXPECT_EQ(static_cast<float>(std::numeric_limits<Half>::min()), std::ldexp(1.0f, -14));
  EXPECT_EQ(static_cast<float>(std::numeric_limits<Half>::epsilon()), std::ldexp(1.0f, -10));
  EXPECT_EQ(static_cast<float>(std::numeric_limits<Half>::denorm_min()), std::ldexp(1.0f, -24));
  EXPECT_TRUE(std::isnan(static_cast<float>(std::numeric_limits<Half>::quiet_NaN())));
  EXPECT_TRUE(std::isinf(static_cast<float>(std::numeric_limits<Half>::infinity())));
  EXPECT_EQ(static_cast<float>(std::numeric_limits<BFloat16>::max()), 3.38953139e38f);
  EXPECT_EQ(static_cast<float>(std::numeric_limits<BFloat16>::min()), std::ldexp(1.0f, -126));
  EXPECT_EQ(static_cast<float>(std::numeric_limits<BFloat16>::epsilon()), std::ldexp(1.0f, -7));
  EXPECT_TRUE(std::isinf(static_cast<float>(std::numeric_limits<BFloat16>::infinity())));
}

TEST(HalfTest, MatchesPyTorchOnRoundingEdgeCases) {
  std::ifstream in("tensor/testdata/half_rounding.txt");
  ASSERT_TRUE(in.good());
  int cases = 0;
  for (std::string f_hex, h_hex, b_hex; in >> f_hex >> h_hex >> b_hex; ++cases) {
    const float f = detail::float_from_bits(static_cast<uint32_t>(std::stoul(f_hex, nullptr, 16)));
    EXPECT_EQ(Half(f).x, std::stoul(h_hex, nullptr, 16)) << f_hex;
    const uint16_t torch_bfloat16 = static_cast<uint16_t>(std::stoul(b_hex, nullptr, 16));
    if (std::isnan(f)) {  // PyTorch's vectorized copy writes 0xffff; both are NaN
      EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(f)))) << f_hex;
      EXPECT_TRUE(std::isnan(bfloat16_value(torch_bfloat16))) << f_hex;
    } else {
      EXPECT_EQ(BFloat16(f).x, torch_bfloat16) << f_hex;
    }
  }
  EXPECT_GT(cases, 4000);
}

}  // namespace
}  // namespace torchlet
