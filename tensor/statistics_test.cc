// nansum, nanmean, std_mean, var_mean, aminmax, count_nonzero, median,
// nanmedian, quantile, nanquantile, cummax, cummin, logcumsumexp and
// unique_consecutive against PyTorch 1.13 (tools/gen_reduction_golden.py).
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::all_close;
using testing::strided_copy;
using testing::transposed_copy;

const Tensor& expected(const std::string& name) {
  return testing::GoldenFile::get("tensor/testdata/statistics_golden.txt").at(name);
}

// The generator's input `name` ("x", "y", ...) in `dtype`.
Tensor input(const std::string& name, DType dtype = kFloat64) {
  return expected("in_" + name).to(dtype);
}

::testing::AssertionResult matches(const Tensor& actual, const std::string& name) {
  return all_close(actual.to(kFloat64), expected(name), 1e-5, 1e-5);
}

// Integral results match exactly and keep PyTorch's dtype.
::testing::AssertionResult matches_int(const Tensor& actual, const std::string& name,
                                       DType dtype = kInt64) {
  if (actual.dtype() != dtype) {
    return ::testing::AssertionFailure() << name << ": dtype " << actual.dtype();
  }
  return all_close(actual.to(kFloat64), expected(name), 0, 0);
}

// A 2-D input in float64 and float32, contiguous, transposed and strided.
std::vector<Tensor> forms(const std::string& name) {
  const Tensor t = input(name);
  return {t, t.to(kFloat32), transposed_copy(t), strided_copy(t.to(kFloat32))};
}

// ---- nansum and nanmean ------------------------------------------------------

TEST(NansumTest, SkipsNaNsAsPyTorch) {
  for (const Tensor& x : forms("x")) {
    EXPECT_TRUE(matches(x.nansum(), "nansum_x"));
    EXPECT_TRUE(matches(nansum(x, {0}), "nansum_x_d0"));
    EXPECT_TRUE(matches(x.nansum({1}, true), "nansum_x_d1_keep"));
    EXPECT_EQ(x.nansum().dtype(), x.dtype());
  }
  for (const Tensor& y : forms("y")) EXPECT_TRUE(matches(y.nansum({-1}), "nansum_y_m1"));
}

TEST(NansumTest, DtypeConvertsTheInputFirst) {
  const Tensor x = input("x", kFloat32);
  const Tensor sum = x.nansum({}, false, kFloat64);
  EXPECT_EQ(sum.dtype(), kFloat64);
  EXPECT_TRUE(matches(sum, "nansum_x"));
}

TEST(NansumTest, IntegersSumToInt64) {
  const Tensor k = input("k", kInt32);
  EXPECT_EQ(k.nansum().dtype(), kInt64);
  EXPECT_EQ(k.nansum().item<int64_t>(), 9);
  EXPECT_EQ(tensor({true, false, true}).nansum().item<int64_t>(), 2);
}

TEST(NansumTest, EmptySumsToZero) {
  EXPECT_EQ(empty({0}).nansum().item<float>(), 0);
  EXPECT_EQ(empty({0, 3}).nansum({0}).sizes(), IntArrayRef({3}));
}

TEST(NansumTest, RejectsAnIntegralDtypeForAFloatInput) {
  EXPECT_THROW_MSG(input("x").nansum({}, false, kInt64),
                   "\"nansum_cpu\" not implemented for 'Long'");
}

TEST(NanmeanTest, AveragesTheNonNaNElements) {
  for (const Tensor& x : forms("x")) {
    EXPECT_TRUE(matches(x.nanmean(), "nanmean_x"));
    EXPECT_TRUE(matches(x.nanmean({1}), "nanmean_x_d1"));
    EXPECT_TRUE(matches(nanmean(x, {0}, true), "nanmean_x_d0_keep"));
    EXPECT_TRUE(matches(x.nanmean({-1, 0}), "nanmean_x_m1_0"));
  }
}

TEST(NanmeanTest, EmptyAndAllNaNGiveNaN) {
  EXPECT_TRUE(std::isnan(empty({0}).nanmean().item<float>()));
  EXPECT_TRUE(std::isnan(full({2}, NAN).nanmean().item<float>()));
}

TEST(NanmeanTest, RejectsIntegers) {
  EXPECT_THROW_MSG(input("k", kInt64).nanmean(),
                   "nanmean(): expected input to have floating point dtype but got Long");
}

// ---- std_mean and var_mean ----------------------------------------------------

TEST(StdMeanTest, MatchesStdAndMean) {
  for (const Tensor& y : forms("y")) {
    auto [s, m] = std_mean(y);
    EXPECT_TRUE(matches(s, "std_mean_y_0"));
    EXPECT_TRUE(matches(m, "std_mean_y_1"));
    auto [s1, m1] = std_mean(y, {1}, false, true);
    EXPECT_TRUE(matches(s1, "std_mean_y_d1_biased_keep_0"));
    EXPECT_TRUE(matches(m1, "std_mean_y_d1_biased_keep_1"));
  }
}

TEST(VarMeanTest, MatchesVarAndMean) {
  for (const Tensor& y : forms("y")) {
    auto [v, m] = var_mean(y, {0});
    EXPECT_TRUE(matches(v, "var_mean_y_d0_0"));
    EXPECT_TRUE(matches(m, "var_mean_y_d0_1"));
    auto [v2, m2] = var_mean(y, {0, 1}, false);
    EXPECT_TRUE(matches(v2, "var_mean_y_01_biased_0"));
    EXPECT_TRUE(matches(m2, "var_mean_y_01_biased_1"));
  }
}

TEST(VarMeanTest, EmptyGivesNaN) {
  auto [v, m] = var_mean(empty({0}));
  EXPECT_TRUE(std::isnan(v.item<float>()));
  EXPECT_TRUE(std::isnan(m.item<float>()));
}

TEST(StdMeanTest, RejectsIntegers) {
  EXPECT_THROW_MSG(std_mean(input("k", kInt64)),
                   "std_mean only support floating point and complex dtypes");
  EXPECT_THROW_MSG(var_mean(input("k", kInt64)),
                   "var_mean only support floating point and complex dtypes");
}

// ---- aminmax and count_nonzero ------------------------------------------------

TEST(AminmaxTest, MatchesAminAndAmax) {
  for (const Tensor& y : forms("y")) {
    auto [lo, hi] = y.aminmax();
    EXPECT_TRUE(matches(lo, "aminmax_y_0"));
    EXPECT_TRUE(matches(hi, "aminmax_y_1"));
    auto [lo1, hi1] = aminmax(y, 1);
    EXPECT_TRUE(matches(lo1, "aminmax_y_d1_0"));
    EXPECT_TRUE(matches(hi1, "aminmax_y_d1_1"));
    auto [lo0, hi0] = y.aminmax(0, true);
    EXPECT_TRUE(matches(lo0, "aminmax_y_d0_keep_0"));
    EXPECT_TRUE(matches(hi0, "aminmax_y_d0_keep_1"));
  }
  auto [lo, hi] = input("x").aminmax(-1);  // NaN propagates
  EXPECT_TRUE(matches(lo, "aminmax_x_m1_0"));
  EXPECT_TRUE(matches(hi, "aminmax_x_m1_1"));
}

TEST(AminmaxTest, KeepdimWithoutDimKeepsEveryDim) {
  auto [lo, hi] = ones({2, 3}).aminmax(std::nullopt, true);
  EXPECT_EQ(lo.sizes(), IntArrayRef({1, 1}));
  EXPECT_EQ(hi.sizes(), IntArrayRef({1, 1}));
}

TEST(AminmaxTest, IntegersAndZeroDim) {
  auto [lo, hi] = tensor({1, 5, 2}).aminmax();
  EXPECT_EQ(lo.dtype(), kInt64);
  EXPECT_EQ(lo.item<int64_t>(), 1);
  EXPECT_EQ(hi.item<int64_t>(), 5);
  auto [a, b] = scalar_tensor(3.0).aminmax(0);
  EXPECT_EQ(a.dim(), 0);
  EXPECT_EQ(b.item<double>(), 3.0);
}

TEST(AminmaxTest, EmptyReductionsAreErrors) {
  EXPECT_THROW_MSG(empty({0}).aminmax(),
                   "aminmax(): cannot compute aminmax over an empty dimension as the operation "
                   "has no identity.");
  EXPECT_THROW_MSG(empty({3, 0}).aminmax(1),
                   "aminmax: Expected reduction dim 1 to have non-zero size.");
  auto [lo, hi] = empty({0, 3}).aminmax(1);
  EXPECT_EQ(lo.sizes(), IntArrayRef({0}));
}

TEST(CountNonzeroTest, CountsOverDims) {
  const Tensor k = input("k", kInt64);
  EXPECT_TRUE(matches_int(k.count_nonzero(), "count_nonzero_k"));
  EXPECT_TRUE(matches_int(count_nonzero(k, {0}), "count_nonzero_k_d0"));
  EXPECT_TRUE(matches_int(k.count_nonzero({-1}), "count_nonzero_k_m1"));
  EXPECT_TRUE(matches_int(transposed_copy(k).count_nonzero({0, 1}), "count_nonzero_k_01"));
  EXPECT_EQ(empty({0}).count_nonzero().item<int64_t>(), 0);
}

TEST(CountNonzeroTest, RejectsARepeatedDim) {
  EXPECT_THROW_MSG(input("k").count_nonzero({0, 0}),
                   "dim 0 appears multiple times in the list of dims");
}

// ---- median and nanmedian -----------------------------------------------------

TEST(MedianTest, GlobalIsTheLowerMedian) {
  for (const Tensor& d : forms("d")) EXPECT_TRUE(matches(d.median(), "median_d"));
  for (const Tensor& y : forms("y")) EXPECT_TRUE(matches(median(y), "median_y"));
  EXPECT_TRUE(matches(input("x").median(), "median_x"));  // NaN
  EXPECT_EQ(tensor({1, 3, 2, 4}).median().item<int64_t>(), 2);
}

TEST(MedianTest, AlongADimGivesValuesAndIndices) {
  for (const Tensor& d : forms("d")) {
    auto [v, i] = d.median(1);
    EXPECT_TRUE(matches(v, "median_d_d1_0"));
    EXPECT_TRUE(matches_int(i, "median_d_d1_1"));
    auto [v0, i0] = median(d, 0, true);
    EXPECT_TRUE(matches(v0, "median_d_d0_keep_0"));
    EXPECT_TRUE(matches_int(i0, "median_d_d0_keep_1"));
  }
}

TEST(MedianTest, NaNIsTheMedianAtItsFirstPosition) {
  for (const Tensor& x : forms("x")) {
    auto [v, i] = x.median(1);
    EXPECT_TRUE(matches(v, "median_x_d1_0"));
    EXPECT_TRUE(matches_int(i, "median_x_d1_1"));
  }
}

TEST(MedianTest, TiesPickPyTorchsIndex) {
  auto [v, i] = tensor({2.0, 1, 2, 1, 2, 1}).median(0);
  EXPECT_EQ(v.item<double>(), 1);
  EXPECT_EQ(i.item<int64_t>(), 5);
  auto [v7, i7] = tensor({2.0, 1, 2, 1, 2, 1, 1}).median(0);
  EXPECT_EQ(i7.item<int64_t>(), 6);
}

TEST(MedianTest, EmptyAndZeroDim) {
  EXPECT_TRUE(std::isnan(empty({0}).median().item<float>()));
  auto [v, i] = empty({3, 0}).median(0);
  EXPECT_EQ(v.sizes(), IntArrayRef({0}));
  EXPECT_EQ(i.dtype(), kInt64);
  auto [v0, i0] = scalar_tensor(5.0).median(0);
  EXPECT_EQ(v0.item<double>(), 5);
  EXPECT_EQ(i0.item<int64_t>(), 0);
}

TEST(MedianTest, Errors) {
  EXPECT_THROW_MSG(empty({0, 3}).median(0),
                   "median(): Expected reduction dim 0 to have non-zero size.");
  EXPECT_THROW_MSG(tensor({true, false}).median(), "\"median_cpu\" not implemented for 'Bool'");
}

TEST(NanmedianTest, IgnoresNaNs) {
  for (const Tensor& x : forms("x")) {
    EXPECT_TRUE(matches(x.nanmedian(), "nanmedian_x"));
    auto [v, i] = nanmedian(x, 1);
    EXPECT_TRUE(matches(v, "nanmedian_x_d1_0"));
    EXPECT_TRUE(matches_int(i, "nanmedian_x_d1_1"));  // the all-NaN row too
  }
  for (const Tensor& d : forms("d")) {
    auto [v, i] = d.nanmedian(-2, true);
    EXPECT_TRUE(matches(v, "nanmedian_d_m2_keep_0"));
    EXPECT_TRUE(matches_int(i, "nanmedian_d_m2_keep_1"));
  }
  EXPECT_TRUE(std::isnan(full({3}, NAN).nanmedian().item<float>()));
}

// ---- quantile and nanquantile -------------------------------------------------

TEST(QuantileTest, MatchesPyTorch) {
  for (const Tensor& d : forms("d")) {
    const Tensor qs = input("qs", d.dtype());
    EXPECT_TRUE(matches(d.quantile(0.3), "quantile_d_03"));
    EXPECT_TRUE(matches(quantile(d, qs, 0), "quantile_d_qs_d0"));
  }
  for (const Tensor& y : forms("y")) {
    EXPECT_TRUE(matches(y.quantile(input("qs", y.dtype()), std::nullopt, true),
                        "quantile_y_qs_keep"));
  }
}

TEST(QuantileTest, EveryInterpolation) {
  for (const std::string mode : {"linear", "lower", "higher", "midpoint", "nearest"}) {
    for (const Tensor& d : forms("d")) {
      EXPECT_TRUE(matches(d.quantile(input("qs", d.dtype()), 1, true, mode),
                          "quantile_d_qs_d1_keep_" + mode))
          << mode;
    }
    for (const Tensor& x : forms("x")) {
      EXPECT_TRUE(matches(x.nanquantile(input("qs", x.dtype()), 1, false, mode),
                          "nanquantile_x_qs_d1_" + mode))
          << mode;
    }
  }
}

TEST(QuantileTest, NaNLanesGiveNaN) {
  for (const Tensor& x : forms("x")) {
    EXPECT_TRUE(matches(x.quantile(input("qs", x.dtype()), 1), "quantile_x_qs_d1"));
    EXPECT_TRUE(matches(x.nanquantile(0.4), "nanquantile_x_04"));
    EXPECT_TRUE(matches(nanquantile(x, 0.7, 0, true), "nanquantile_x_07_d0_keep"));
  }
}

TEST(QuantileTest, ShapesOfScalarAndVectorQ) {
  const Tensor t = ones({2, 3});
  EXPECT_EQ(t.quantile(tensor({0.1f, 0.6f}), 1, true).sizes(), IntArrayRef({2, 2, 1}));
  EXPECT_EQ(t.quantile(scalar_tensor(0.3f), std::nullopt, true).sizes(), IntArrayRef({1, 1}));
  EXPECT_EQ(t.quantile(empty({0}), std::nullopt, true).sizes(), IntArrayRef({0, 1, 1}));
  EXPECT_EQ(scalar_tensor(3.0f).quantile(0.5, 0, true).dim(), 0);
}

TEST(QuantileTest, Errors) {
  const Tensor t = tensor({1.0f, 2.0f});
  EXPECT_THROW_MSG(t.quantile(1.5), "quantile() q must be in the range [0, 1] but got 1.5");
  EXPECT_THROW_MSG(t.quantile(tensor({0.5f, 1.5f})),
                   "quantile() q values must be in the range [0, 1]");
  EXPECT_THROW_MSG(t.quantile(tensor({NAN})), "quantile() q values must be in the range [0, 1]");
  EXPECT_THROW_MSG(tensor({1, 2}).quantile(0.5),
                   "quantile() input tensor must be either float or double dtype");
  EXPECT_THROW_MSG(t.quantile(ones({1, 1})), "quantile() q must be a scalar or 1D tensor");
  EXPECT_THROW_MSG(t.quantile(full({1}, 0.5, TensorOptions(kFloat64))),
                   "quantile() q tensor must be same dtype as the input tensor");
  EXPECT_THROW_MSG(empty({0, 3}).quantile(0.5, 0), "quantile() input tensor must be non-empty");
  EXPECT_THROW_MSG(t.nanquantile(0.5, std::nullopt, false, "foo"),
                   "quantile() interpolation must be one of linear, lower, higher, midpoint or "
                   "nearest, but got foo");
}

TEST(QuantileTest, RejectsQOnAnotherDevice) {
  set_cpu_device_count(2);
  EXPECT_THROW_MSG(ones({3}).quantile(full({1}, 0.5, TensorOptions(kFloat32).device(Device("cpu:1")))),
                   "quantile() q tensor must be on the same device as the input tensor");
  set_cpu_device_count(1);
}

TEST(StatisticsTest, ResultsStayOnTheirVirtualDevice) {
  set_cpu_device_count(2);
  const Tensor t = input("d", kFloat32).to(Device("cpu:1"));
  EXPECT_EQ(t.nansum().device(), Device("cpu:1"));
  EXPECT_EQ(std::get<1>(t.median(0)).device(), Device("cpu:1"));
  EXPECT_EQ(t.quantile(0.5, 1).device(), Device("cpu:1"));
  EXPECT_EQ(std::get<1>(t.cummax(0)).device(), Device("cpu:1"));
  EXPECT_EQ(std::get<2>(t.unique_consecutive(true, true)).device(), Device("cpu:1"));
  set_cpu_device_count(1);
}

// ---- Scans -------------------------------------------------------------------------

TEST(CummaxTest, RunningExtremesAndTheirIndices) {
  for (const Tensor& x : forms("x")) {
    auto [v, i] = x.cummax(1);
    EXPECT_TRUE(matches(v, "cummax_x_d1_0"));
    EXPECT_TRUE(matches_int(i, "cummax_x_d1_1"));
    auto [vn, in] = cummin(x, 1);
    EXPECT_TRUE(matches(vn, "cummin_x_d1_0"));
    EXPECT_TRUE(matches_int(in, "cummin_x_d1_1"));
  }
  for (const Tensor& y : forms("y")) {  // ties move the index on
    auto [v, i] = y.cummax(0);
    EXPECT_TRUE(matches(v, "cummax_y_d0_0"));
    EXPECT_TRUE(matches_int(i, "cummax_y_d0_1"));
    auto [vn, in] = y.cummin(-1);
    EXPECT_TRUE(matches(vn, "cummin_y_m1_0"));
    EXPECT_TRUE(matches_int(in, "cummin_y_m1_1"));
  }
  auto [v, i] = input("k", kInt64).cummax(1);
  EXPECT_TRUE(matches_int(v, "cummax_k_d1_0"));
  EXPECT_TRUE(matches_int(i, "cummax_k_d1_1"));
}

TEST(CummaxTest, EmptyAndZeroDim) {
  auto [v, i] = empty({0, 3}).cummax(1);
  EXPECT_EQ(v.sizes(), IntArrayRef({0, 3}));
  auto [v0, i0] = scalar_tensor(3.0).cummin(0);
  EXPECT_EQ(v0.item<double>(), 3);
  EXPECT_EQ(i0.item<int64_t>(), 0);
}

TEST(LogcumsumexpTest, MatchesPyTorch) {
  for (const Tensor& d : forms("d")) EXPECT_TRUE(matches(d.logcumsumexp(1), "logcumsumexp_d_d1"));
  for (const Tensor& y : forms("y")) EXPECT_TRUE(matches(logcumsumexp(y, 0), "logcumsumexp_y_d0"));
  EXPECT_TRUE(matches(input("big").logcumsumexp(1), "logcumsumexp_big_d1"));
  EXPECT_TRUE(matches(input("big", kFloat32).logcumsumexp(1), "logcumsumexp_big_d1"));
  EXPECT_TRUE(matches(input("x").logcumsumexp(-1), "logcumsumexp_x_m1"));
}

TEST(LogcumsumexpTest, RejectsIntegers) {
  EXPECT_THROW_MSG(tensor({1, 2}).logcumsumexp(0),
                   "\"logcumsumexp_out_cpu\" not implemented for 'Long'");
}

// ---- unique_consecutive -------------------------------------------------------------

void expect_runs(const std::tuple<Tensor, Tensor, Tensor>& result, const std::string& name) {
  EXPECT_TRUE(matches(std::get<0>(result), name + "_0"));
  EXPECT_TRUE(matches_int(std::get<1>(result), name + "_1"));
  EXPECT_TRUE(matches_int(std::get<2>(result), name + "_2"));
}

TEST(UniqueConsecutiveTest, CollapsesRuns) {
  expect_runs(input("runs", kInt64).unique_consecutive(true, true), "unique_consecutive_runs");
  expect_runs(transposed_copy(input("runs2", kFloat32)).unique_consecutive(true, true),
              "unique_consecutive_runs2");
}

TEST(UniqueConsecutiveTest, AlongADim) {
  const Tensor runs2 = input("runs2", kInt64);
  expect_runs(unique_consecutive(runs2, true, true, 0), "unique_consecutive_runs2_d0");
  expect_runs(runs2.unique_consecutive(true, true, -1), "unique_consecutive_runs2_d1");
}

TEST(UniqueConsecutiveTest, UnrequestedResultsAreUndefined) {
  auto [values, inverse, counts] = tensor({1, 1, 2}).unique_consecutive();
  EXPECT_EQ(values.numel(), 2);
  EXPECT_FALSE(inverse.defined());
  EXPECT_FALSE(counts.defined());
}

TEST(UniqueConsecutiveTest, NaNsAreDistinctAndEmptyStaysEmpty) {
  auto [values, inverse, counts] = tensor({NAN, NAN, 1.0f}).unique_consecutive(true, true);
  EXPECT_EQ(values.numel(), 3);
  EXPECT_EQ(counts.to_vector<int64_t>(), std::vector<int64_t>({1, 1, 1}));
  auto [v, i, c] = empty({0}).unique_consecutive(true, true);
  EXPECT_EQ(v.numel(), 0);
  EXPECT_EQ(i.numel(), 0);
  EXPECT_EQ(c.numel(), 0);
  auto [v2, i2, c2] = empty({0, 2}).unique_consecutive(true, true, 0);
  EXPECT_EQ(v2.sizes(), IntArrayRef({0, 2}));
}

TEST(UniqueConsecutiveTest, RejectsADimOfAZeroDimTensor) {
  EXPECT_THROW_MSG(scalar_tensor(3.0).unique_consecutive(false, false, 0),
                   "unique_consecutive: Dimension specified as 0 but tensor has no dimensions");
}

TEST(UniqueConsecutiveTest, RejectsEmptyDimsNotSelected) {
  EXPECT_THROW_MSG(empty({2, 0}).unique_consecutive(false, false, 0),
                   "There are 0 sized dimensions, and they aren't selected, so unique cannot be "
                   "applied");
}

}  // namespace
}  // namespace torchlet
