// Tensor::str() against PyTorch 1.13's repr, recorded in
// tensor/testdata/print_golden.txt by tools/gen_print_fixtures.py.

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "tensor/tensor.h"

namespace torchlet {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// The golden file's cases: a "=== name" line, then the repr's lines.
std::map<std::string, std::string> load_golden() {
  std::ifstream in("tensor/testdata/print_golden.txt");
  EXPECT_TRUE(in) << "cannot open tensor/testdata/print_golden.txt";
  std::map<std::string, std::string> cases;
  std::string line, name;
  while (std::getline(in, line)) {
    if (line.rfind("=== ", 0) == 0) {
      name = line.substr(4);
      continue;
    }
    std::string& text = cases[name];
    text += (text.empty() ? "" : "\n") + line;
  }
  return cases;
}

std::string golden(const std::string& name) {
  static const std::map<std::string, std::string> cases = load_golden();
  const auto it = cases.find(name);
  EXPECT_NE(it, cases.end()) << "no golden case " << name;
  return it == cases.end() ? "" : it->second;
}

TEST(PrintTest, FloatMatrixUsesFixedNotationWithCommonWidth) {
  EXPECT_EQ(tensor({{1.5, -2.25, 3.125}, {0.5, 10.0, -0.75}}).str(),
            golden("float_matrix_mixed"));
}

TEST(PrintTest, IntegerValuedFloatsPrintWithTrailingDot) {
  EXPECT_EQ(tensor({1.0, 2.0}).str(), golden("integer_valued_floats"));
}

TEST(PrintTest, IntegerValuedFloatsIncludingZeroAlign) {
  EXPECT_EQ(tensor({{0.0, -3.0}, {12.0, 5.0}}).str(), golden("integer_valued_floats_with_zero"));
}

TEST(PrintTest, AllZeroFloatsPrintAsIntegers) {
  EXPECT_EQ(zeros({2, 2}).str(), golden("all_zero_floats"));
}

TEST(PrintTest, LargeRangeSwitchesToScientificNotation) {
  EXPECT_EQ(tensor({0.001, 1.0, 12345.678}).str(), golden("sci_mode_large_range"));
}

TEST(PrintTest, TinyValuesSwitchToScientificNotation) {
  EXPECT_EQ(tensor({1e-5, 2.5e-6}).str(), golden("sci_mode_tiny_values"));
}

TEST(PrintTest, HugeIntegerValuedFloatsSwitchToScientificNotation) {
  EXPECT_EQ(tensor({1.0, 1e9}).str(), golden("sci_mode_huge_integer_valued"));
}

TEST(PrintTest, ScientificNotationPadsNonFiniteValues) {
  EXPECT_EQ(tensor({kNaN, 1e-5, -kInf, 1.0}).str(), golden("sci_mode_pads_nonfinite"));
}

TEST(PrintTest, NegativeZeroKeepsItsSign) {
  EXPECT_EQ(tensor({-0.0, 1.5}).str(), golden("negative_zero"));
}

TEST(PrintTest, NegativeValuesWidenTheColumn) {
  EXPECT_EQ(tensor({-1.5, -0.25, 3.0}).str(), golden("negative_values"));
}

TEST(PrintTest, NonFiniteValuesPrintAsPythonSpellsThem) {
  EXPECT_EQ(tensor({kInf, kNaN, -kInf, 1.5}).str(), golden("nonfinite_mixed"));
}

TEST(PrintTest, NonFiniteValuesGetNoDotAmongIntegerValuedFloats) {
  EXPECT_EQ(tensor({kInf, kNaN, 1.0, -2.0}).str(), golden("nonfinite_with_integer_values"));
}

TEST(PrintTest, OnlyNonFiniteValues) {
  EXPECT_EQ(tensor({kNaN, -kInf}).str(), golden("nonfinite_only"));
}

TEST(PrintTest, Int64HasNoDTypeSuffix) {
  EXPECT_EQ(tensor({{1, -20}, {300, 4}}).str(), golden("int64_matrix"));
}

TEST(PrintTest, Int32HasDTypeSuffix) {
  EXPECT_EQ(tensor({1, 2, 3}, kInt32).str(), golden("int32_vector"));
}

TEST(PrintTest, UInt8PrintsNumbersWithDTypeSuffix) {
  EXPECT_EQ(tensor({0, 128, 255}, kUInt8).str(), golden("uint8_vector"));
}

TEST(PrintTest, Float64HasDTypeSuffix) {
  EXPECT_EQ(tensor({1.25, 2.5}, kFloat64).str(), golden("float64_vector"));
}

TEST(PrintTest, BoolPrintsTrueAndFalse) {
  EXPECT_EQ(tensor({true, false, true}).str(), golden("bool_vector"));
}

TEST(PrintTest, ZeroDimFloat) { EXPECT_EQ(scalar_tensor(3.5).str(), golden("scalar_float")); }

TEST(PrintTest, ZeroDimInt64) { EXPECT_EQ(scalar_tensor(7).str(), golden("scalar_int64")); }

TEST(PrintTest, ZeroDimZero) { EXPECT_EQ(scalar_tensor(0.0).str(), golden("scalar_zero")); }

TEST(PrintTest, Empty1DFloatHasNoSuffix) {
  EXPECT_EQ(zeros({0}).str(), golden("empty_1d_float"));
}

TEST(PrintTest, Empty1DInt64ShowsDType) {
  EXPECT_EQ(zeros({0}, kInt64).str(), golden("empty_1d_int64"));
}

TEST(PrintTest, Empty2DShowsSize) { EXPECT_EQ(zeros({0, 3}).str(), golden("empty_2d_float")); }

TEST(PrintTest, Empty3DShowsSizeThenDType) {
  EXPECT_EQ(zeros({2, 0, 3}, kInt32).str(), golden("empty_3d_int32"));
}

TEST(PrintTest, ThreeDimsSeparateBlocksWithBlankLines) {
  EXPECT_EQ(arange(0, 12, 0.5).reshape({2, 3, 4}).str(), golden("three_dims"));
}

TEST(PrintTest, LongFloatVectorWrapsLines) {
  EXPECT_EQ(arange(0, 30, 0.25).str(), golden("long_vector_wraps"));
}

TEST(PrintTest, LongInt64VectorWrapsLines) {
  EXPECT_EQ(arange(100).str(), golden("long_int64_vector_wraps"));
}

TEST(PrintTest, SuffixMovesToNewLineWhenTooLong) {
  EXPECT_EQ(arange(0, 3.5, 0.25, kFloat64).str(), golden("suffix_wraps_to_new_line"));
}

TEST(PrintTest, LargeMatrixIsSummarized) {
  EXPECT_EQ(arange(2000.0).reshape({40, 50}).str(), golden("summarized_matrix"));
}

TEST(PrintTest, LargeVectorIsSummarized) {
  EXPECT_EQ(arange(2000).str(), golden("summarized_vector"));
}

TEST(PrintTest, LargeThreeDimTensorIsSummarizedInEveryDim) {
  EXPECT_EQ(arange(1200).reshape({10, 12, 10}).str(), golden("summarized_three_dims"));
}

TEST(PrintTest, NonContiguousPrintsLogicalValues) {
  const Tensor t = tensor({{1.5, 2.0, -3.0}, {4.0, 5.25, 6.0}}).t();
  ASSERT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.str(), golden("transposed"));
}

TEST(PrintTest, NonDefaultCpuDeviceGetsDeviceSuffix) {
  set_cpu_device_count(2);
  EXPECT_EQ(tensor({1.5, 2.0}, Device(kCPU, 1)).str(), golden("device_cpu1"));
  EXPECT_EQ(tensor({1, 2}, TensorOptions(kInt32).device(Device(kCPU, 1))).str(),
            golden("device_cpu1_with_dtype"));
  set_cpu_device_count(1);
}

TEST(PrintTest, StreamOperatorWritesStr) {
  std::ostringstream out;
  out << tensor({1.0, 2.0});
  EXPECT_EQ(out.str(), golden("integer_valued_floats"));
}

TEST(PrintTest, Float16PrintsItsValuesWithTheDtypeSuffix) {
  EXPECT_EQ(tensor({1.0, 2.5}, kFloat16).str(), golden("float16_vector"));
}

TEST(PrintTest, Float16IntegerValuedWideRangeUsesScientificNotation) {
  EXPECT_EQ(tensor({{1.0, -2.0}, {65504.0, 0.0}}, kFloat16).str(),
            golden("float16_integer_valued"));
}

TEST(PrintTest, Float16PrintsTheRoundedValues) {
  EXPECT_EQ(tensor({0.1, 1e-5, 60000.0}, kFloat16).str(), golden("float16_sci_mode"));
}

TEST(PrintTest, Float16NonFiniteValues) {
  EXPECT_EQ(tensor({NAN, -INFINITY, 0.333}, kFloat16).str(), golden("float16_nonfinite"));
}

TEST(PrintTest, BFloat16Matrix) {
  EXPECT_EQ(tensor({{0.1, -1.5}, {3e38, 2.0}}, kBFloat16).str(), golden("bfloat16_matrix"));
}

TEST(PrintTest, BFloat16Scalar) {
  EXPECT_EQ(scalar_tensor(0.1, kBFloat16).str(), golden("bfloat16_scalar"));
}

TEST(PrintTest, EmptyFloat16) { EXPECT_EQ(zeros({0}, kFloat16).str(), golden("empty_float16")); }

}  // namespace
}  // namespace torchlet
