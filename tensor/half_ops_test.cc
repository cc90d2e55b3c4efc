// float16 and bfloat16 tensors: conversion, factories, and elementwise ops
// and reductions computed in float32 and rounded, against PyTorch 1.13
// (tensor/testdata/half_golden.txt, written by tools/gen_half_golden.py).
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/nn_kernels.h"
#include "tensor/optim_kernels.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::all_close;
using testing::values;

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> dtypes = {kFloat32, kFloat64, kInt64,   kInt32,
                                            kUInt8,   kBool,    kFloat16, kBFloat16};
  return dtypes;
}

TEST(HalfOpsTest, ToConvertsBetweenEveryPairOfDtypes) {
  const Tensor base = tensor({0, 1, 3, 100}, kInt64);
  for (DType from : all_dtypes()) {
    const Tensor src = base.to(from);
    const std::vector<double> src_values = values(src);
    for (DType to : all_dtypes()) {
      const Tensor out = src.to(to);
      EXPECT_EQ(out.dtype(), to);
      std::vector<double> expected = src_values;
      if (to == kBool) {
        for (double& v : expected) v = v != 0;
      }
      EXPECT_EQ(values(out), expected) << from << " to " << to;
    }
  }
}

// Tensor conversions run vectorized (F16C where the CPU has it): they must
// give Half(float) and float(Half) bit for bit, NaNs and tails included.
template <typename T>
void expect_tensor_conversions_match_scalar(DType dtype) {
  std::vector<T> every(0x10000);
  for (uint32_t i = 0; i < 0x10000; ++i) every[i] = T(static_cast<uint16_t>(i), typename T::FromBits());
  const Tensor reduced = from_vector(every).slice(0, 3);  // an odd length, unaligned
  const std::vector<float> widened = reduced.to(kFloat32).to_vector<float>();
  std::vector<float> narrowing_inputs;
  for (size_t i = 0; i < widened.size(); ++i) {
    const float expected = every[i + 3];
    ASSERT_EQ(std::memcmp(&widened[i], &expected, sizeof(float)), 0) << std::hex << i + 3;
    // The value, the midpoint towards the next one, and a float ulp either side.
    const float next = every[(i + 4) % 0x10000];
    const float mid = static_cast<float>((static_cast<double>(expected) + next) / 2);
    for (float f : {expected, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)}) {
      narrowing_inputs.push_back(f);
    }
  }
  const std::vector<T> narrowed = from_vector(narrowing_inputs).to(dtype).template to_vector<T>();
  for (size_t i = 0; i < narrowed.size(); ++i) {
    ASSERT_EQ(narrowed[i].x, T(narrowing_inputs[i]).x) << narrowing_inputs[i];
  }
}

TEST(HalfOpsTest, TensorConversionsMatchScalarConversionsBitForBit) {
  expect_tensor_conversions_match_scalar<Half>(kFloat16);
  expect_tensor_conversions_match_scalar<BFloat16>(kBFloat16);
}

TEST(HalfOpsTest, CopyIntoStridedHalfRoundsEachElement) {
  Tensor dst = zeros({3, 2}, kFloat16).t();
  dst.copy_(tensor({{0.1, 65519.0, 70000.0}, {-1e-8, 1.0 / 3, -2.5}}, kFloat64));
  EXPECT_EQ(values(dst), (std::vector<double>{0.0999755859375, 65504, INFINITY, -0.0,
                                              0.333251953125, -2.5}));
}

TEST(HalfOpsTest, BFloat16KeepsFloatRangeWithEightBitsOfPrecision) {
  const Tensor t = tensor({3e38, 1.0 + 1.0 / 256, 1.0 + 3.0 / 256, 1e-40}).to(kBFloat16);
  EXPECT_EQ(values(t), (std::vector<double>{3.00405527047391e+38, 1.0, 1.015625,
                                            9.183549615799121e-41}));
}

TEST(HalfOpsTest, FactoriesMakeHalfAndBFloat16) {
  for (DType d : {kFloat16, kBFloat16}) {
    EXPECT_EQ(zeros({2}, d).dtype(), d);
    EXPECT_EQ(values(zeros({2}, d)), (std::vector<double>{0, 0}));
    EXPECT_EQ(values(ones({2}, d)), (std::vector<double>{1, 1}));
    EXPECT_EQ(values(full({2}, 2.5, d)), (std::vector<double>{2.5, 2.5}));
    EXPECT_EQ(values(arange(0, 2, 0.5, d)), (std::vector<double>{0, 0.5, 1, 1.5}));
    EXPECT_EQ(values(linspace(0, 1, 3, d)), (std::vector<double>{0, 0.5, 1}));
    EXPECT_EQ(values(eye(2, d)), (std::vector<double>{1, 0, 0, 1}));
    EXPECT_EQ(values(tensor({1.5, -2.0}, d)), (std::vector<double>{1.5, -2}));
    EXPECT_EQ(scalar_tensor(0.5, d).item<double>(), 0.5);
    EXPECT_EQ(empty({3}, d).numel(), 3);
    EXPECT_EQ(empty({3}, d).dtype(), d);
  }
  EXPECT_EQ(values(full({1}, 0.1, kFloat16)), (std::vector<double>{0.0999755859375}));
  EXPECT_EQ(values(full({1}, 0.1, kBFloat16)), (std::vector<double>{0.10009765625}));
}

TEST(HalfOpsTest, RandomFactoriesDrawInRangeAndRound) {
  for (DType d : {kFloat16, kBFloat16}) {
    manual_seed(0);
    const Tensor u = rand({1000}, d);
    EXPECT_EQ(u.dtype(), d);
    EXPECT_GE(u.min().item<double>(), 0.0);
    EXPECT_LE(u.max().item<double>(), 1.0);
    EXPECT_NEAR(u.mean().item<double>(), 0.5, 0.05);
    const Tensor n = randn({1000}, d);
    EXPECT_EQ(n.dtype(), d);
    EXPECT_NEAR(n.to(kFloat32).std().item<double>(), 1.0, 0.1);
    // The draws are float32's, rounded.
    manual_seed(0);
    EXPECT_EQ(values(rand({1000}).to(d)), values(u));
    const Tensor r = randint(0, 10, {50}, TensorOptions(d));
    EXPECT_EQ(r.dtype(), d);
    EXPECT_TRUE((r.eq(r.floor())).all().item<bool>());
  }
}

class HalfGoldenTest : public ::testing::TestWithParam<DType> {
 protected:
  DType dtype() const { return GetParam(); }
  std::string suffix() const { return std::string("_") + dtype_name(dtype()); }

  /// Golden case `name` for this dtype, rounded to `as` (exact: the file
  /// holds values of that dtype).
  Tensor expected(const std::string& name, std::optional<DType> as = std::nullopt) const {
    const Tensor& stored =
        testing::GoldenFile::get("tensor/testdata/half_golden.txt").at(name + suffix());
    return stored.to(as.value_or(dtype()));
  }

  Tensor x() const { return expected("x"); }
  Tensor y() const { return expected("y"); }
  Tensor big() const { return expected("big"); }

  /// One rounding step of this dtype relative to the value: results of
  /// transcendental functions and reductions may differ from PyTorch's by
  /// one ulp (a different libm or summation order), never more.
  double ulp() const { return dtype() == kFloat16 ? 0x1p-10 : 0x1p-7; }

  void expect_exact(const std::string& name, const Tensor& actual) const {
    EXPECT_EQ(actual.dtype(), dtype()) << name;
    EXPECT_TRUE(all_close(actual, expected(name), 0, 0)) << name;
  }
  void expect_within_ulp(const std::string& name, const Tensor& actual) const {
    EXPECT_EQ(actual.dtype(), dtype()) << name;
    EXPECT_TRUE(all_close(actual, expected(name), ulp(), 0)) << name;
  }
};

TEST_P(HalfGoldenTest, InputsRoundFromFloat32AsPyTorchDoes) {
  const Tensor base = linspace(-2, 2, 12).reshape({3, 4}) * 1.37;
  EXPECT_TRUE(all_close(base.to(dtype()), x(), 0, 0));
  EXPECT_TRUE(all_close((arange(4) * 0.7 + 0.3).to(dtype()), y(), 0, 0));
}

TEST_P(HalfGoldenTest, CorrectlyRoundedOpsMatchPyTorchExactly) {
  const Tensor x = this->x(), y = this->y();
  expect_exact("neg", -x);
  expect_exact("abs", x.abs());
  expect_exact("relu", x.relu());
  expect_exact("floor", x.floor());
  expect_exact("round", x.round());
  expect_exact("sqrt", (x.abs() + 0.1).sqrt());
  expect_exact("add", x + y);
  expect_exact("sub", x - y);
  expect_exact("mul", x * y);
  expect_exact("div", x / y);
  expect_exact("maximum", x.maximum(y - 1));
  expect_exact("add_scalar", x + 0.1);
  expect_exact("mul_scalar", x * 3);
  expect_exact("lt", (x < y - 1).to(dtype()));
  expect_exact("clamp", x.clamp(-0.55, 1.1));
  expect_exact("where", where(x > 0, x, y * 10));
  expect_exact("big_add", big() + big());
  expect_exact("big_mul", big() * 2);
  expect_exact("to_int64", (x * 10).to(kInt64).to(dtype()));
}

// float16 rounds alpha and alpha * b to the dtype before adding (c10::Half
// arithmetic), exactly as PyTorch; PyTorch's bfloat16 add rounds the
// product on some paths and not others, so bfloat16 agrees within an ulp.
TEST_P(HalfGoldenTest, AddAndSubWithAlphaRoundAsPyTorchDoes) {
  if (dtype() == kFloat16) {
    expect_exact("add_alpha", x().add(y(), 1.7));
    expect_exact("sub_alpha", x().sub(y(), 0.1));
  } else {
    expect_within_ulp("add_alpha", x().add(y(), 1.7));
    expect_within_ulp("sub_alpha", x().sub(y(), 0.1));
  }
}

TEST_P(HalfGoldenTest, MixedDtypesPromoteAsPyTorchDoes) {
  const Tensor sum_int = x() + tensor({1, 2, 3, 4});
  EXPECT_EQ(sum_int.dtype(), dtype());
  EXPECT_TRUE(all_close(sum_int, expected("add_int_tensor"), 0, 0));
  const Tensor sum_float = x() + y().to(kFloat32);
  EXPECT_EQ(sum_float.dtype(), kFloat32);
  EXPECT_TRUE(all_close(sum_float, expected("add_float32", kFloat32), 0, 0));
}

TEST_P(HalfGoldenTest, TranscendentalOpsMatchPyTorchWithinAnUlp) {
  const Tensor x = this->x(), y = this->y();
  expect_within_ulp("exp", x.exp());
  expect_within_ulp("log", (x.abs() + 0.1).log());
  expect_within_ulp("sin", x.sin());
  expect_within_ulp("tanh", x.tanh());
  expect_within_ulp("sigmoid", x.sigmoid());
  expect_within_ulp("gelu", x.gelu());
  expect_within_ulp("erf", x.erf());
  expect_within_ulp("pow", (x.abs() + 0.1).pow(y));
}

TEST_P(HalfGoldenTest, ReductionsAccumulateInFloat32AndMatchPyTorch) {
  const Tensor x = this->x();
  expect_within_ulp("sum_all", x.sum());
  expect_within_ulp("sum_d1", x.sum({1}));
  expect_exact("sum_big", big().sum());
  expect_within_ulp("mean_all", x.mean());
  expect_within_ulp("mean_d0", x.mean({0}));
  expect_exact("mean_big", big().mean());
  expect_within_ulp("prod_d1", x.prod(1));
  expect_exact("max_d1", std::get<0>(x.max(1)));
  expect_exact("argmax_d1", x.argmax(1).to(dtype()));
  expect_exact("min_all", x.min());
  expect_within_ulp("var_d1", x.var(1));
  expect_within_ulp("std_all", x.std());
  expect_within_ulp("norm_all", x.norm());
  expect_within_ulp("norm_p1_d0", x.norm(1, {0}));
  expect_within_ulp("softmax_d1", x.softmax(1));
  expect_within_ulp("log_softmax_d0", x.log_softmax(0));
  expect_within_ulp("logsumexp_d1", x.logsumexp({1}));
  expect_within_ulp("cumsum_d1", x.cumsum(1));
}

TEST_P(HalfGoldenTest, MatrixProductsRoundTheFloat32Product) {
  expect_within_ulp("mm", mm(x(), x().t()));
  expect_within_ulp("mm", matmul(x(), x().t()));
}

TEST_P(HalfGoldenTest, InPlaceOpsKeepTheDtype) {
  Tensor t = x().clone();
  t.add_(y());
  expect_exact("add", t);
  Tensor u = x().clone();
  u.mul_(y());
  expect_exact("mul", u);
}

TEST_P(HalfGoldenTest, StridedOperandsGiveTheSameResults) {
  expect_exact("add", testing::transposed_copy(x()) + y());
  expect_exact("mul", testing::strided_copy(x()) * y());
  expect_within_ulp("softmax_d1", testing::transposed_copy(x()).softmax(1));
}

INSTANTIATE_TEST_SUITE_P(ReducedFloatingTypes, HalfGoldenTest,
                         ::testing::Values(kFloat16, kBFloat16),
                         [](const ::testing::TestParamInfo<DType>& info) {
                           return std::string(dtype_name(info.param));
                         });

TEST(HalfOpsTest, NanToNumDefaultsToTheDtypesLargestFiniteValues) {
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor h = tensor({NAN, inf, -inf}, kFloat16).nan_to_num();
  EXPECT_EQ(values(h), (std::vector<double>{0, 65504, -65504}));
  const Tensor b = tensor({inf}, kBFloat16).nan_to_num();
  EXPECT_EQ(values(b), (std::vector<double>{3.3895313892515355e38}));
}

TEST(HalfOpsTest, ComparisonsAndTestsWriteBool) {
  const Tensor h = tensor({1.0, NAN, INFINITY}, kFloat16);
  EXPECT_EQ(h.isnan().to_vector<bool>(), (std::vector<bool>{false, true, false}));
  EXPECT_EQ(h.isinf().to_vector<bool>(), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(h.eq(tensor({1.0, 0.0, 0.0}, kBFloat16)).to_vector<bool>(),
            (std::vector<bool>{true, false, false}));
}

TEST(HalfOpsTest, SortIndexAndGatherMoveHalfElementsUnchanged) {
  const Tensor h = tensor({3.5, -1.0, NAN, 0.25}, kFloat16);
  auto [sorted, order] = h.sort();
  EXPECT_EQ(sorted.dtype(), kFloat16);
  EXPECT_EQ(order.to_vector<int64_t>(), (std::vector<int64_t>{1, 3, 0, 2}));
  EXPECT_EQ(values(h.index({tensor({3, 0})})), (std::vector<double>{0.25, 3.5}));
  EXPECT_EQ(values(cat({h.narrow(0, 0, 2), h.narrow(0, 3, 1)}, 0)),
            (std::vector<double>{3.5, -1.0, 0.25}));
  EXPECT_EQ(values(h.gather(0, tensor({1, 1}))), (std::vector<double>{-1.0, -1.0}));
}

TEST(HalfOpsTest, FusedKernelsWithoutAHalfPathSayWhichOpAndDtype) {
  const Tensor h = ones({2, 3}, kFloat16);
  EXPECT_THROW_MSG(layer_norm_forward(h, {3}, Tensor(), Tensor(), 1e-5),
                   "\"layer_norm\" not implemented for 'Half'");
  EXPECT_THROW_MSG(cross_entropy_forward(ones({2, 3}, kBFloat16), tensor({0, 1}), Tensor(), -100, 0),
                   "\"cross_entropy\" not implemented for 'BFloat16'");
}

}  // namespace
}  // namespace torchlet
