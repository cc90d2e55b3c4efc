#include "nn/repr.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace torchlet::nn::detail {
namespace {

TEST(FloatRepr, PrintsTheShortestTextThatReadsBackExactly) {
  EXPECT_EQ(float_repr(0.1), "0.1");
  EXPECT_EQ(float_repr(-2.5), "-2.5");
  EXPECT_EQ(float_repr(0.1 + 0.2), "0.30000000000000004");
}

TEST(FloatRepr, PrintsIntegralValuesWithPointZero) {
  EXPECT_EQ(float_repr(1.0), "1.0");
  EXPECT_EQ(float_repr(100000.0), "100000.0");
  EXPECT_EQ(float_repr(123456789.0), "123456789.0");
}

TEST(FloatRepr, SwitchesToScientificNotationBelowOneTenThousandthAndFrom1e16) {
  EXPECT_EQ(float_repr(0.0001), "0.0001");
  EXPECT_EQ(float_repr(1e-5), "1e-05");
  EXPECT_EQ(float_repr(1.5e-7), "1.5e-07");
  EXPECT_EQ(float_repr(1e15), "1000000000000000.0");
  EXPECT_EQ(float_repr(1e16), "1e+16");
  EXPECT_EQ(float_repr(1.5e300), "1.5e+300");
}

TEST(FloatRepr, PrintsZerosInfinitiesAndNanAsPython) {
  EXPECT_EQ(float_repr(0.0), "0.0");
  EXPECT_EQ(float_repr(-0.0), "-0.0");
  EXPECT_EQ(float_repr(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(float_repr(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(float_repr(std::nan("")), "nan");
}

TEST(ScalarRepr, PrintsIntegersWithoutAPointAndFloatsAsFloatRepr) {
  EXPECT_EQ(scalar_repr(Scalar(int64_t{20})), "20");
  EXPECT_EQ(scalar_repr(Scalar(2.0)), "2.0");
}

TEST(TupleRepr, PrintsAOneTupleWithATrailingComma) {
  EXPECT_EQ(tuple_repr({4}), "(4,)");
  EXPECT_EQ(tuple_repr({2, 3}), "(2, 3)");
}

}  // namespace
}  // namespace torchlet::nn::detail
