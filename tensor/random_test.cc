#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::values;

std::vector<int64_t> shape_of(const Tensor& t) {
  return std::vector<int64_t>(t.sizes().begin(), t.sizes().end());
}

double mean_of(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double std_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double sq = 0;
  for (double x : v) sq += (x - m) * (x - m);
  return std::sqrt(sq / static_cast<double>(v.size() - 1));
}

// ---- Seeding -----------------------------------------------------------------

TEST(RandomSeedTest, ManualSeedMakesEveryFactoryReproducible) {
  auto draw = [] {
    std::vector<double> all = values(rand({5}));
    for (const Tensor& t : {randn({5}), randint(0, 100, {5}), bernoulli({5}, 0.5),
                            randperm(5)}) {
      const std::vector<double> v = values(t);
      all.insert(all.end(), v.begin(), v.end());
    }
    return all;
  };
  manual_seed(123);
  const std::vector<double> first = draw();
  manual_seed(123);
  EXPECT_EQ(draw(), first);
}

TEST(RandomSeedTest, DifferentSeedsGiveDifferentValues) {
  manual_seed(1);
  const std::vector<double> a = values(rand({16}));
  manual_seed(2);
  EXPECT_NE(values(rand({16})), a);
}

TEST(RandomSeedTest, ConsecutiveDrawsDiffer) {
  manual_seed(7);
  const std::vector<double> a = values(randn({16}));
  EXPECT_NE(values(randn({16})), a);
}

TEST(RandomSeedTest, InPlaceFillsAreReproducible) {
  Tensor a = empty({8}), b = empty({8});
  manual_seed(5);
  a.uniform_(-2, 2);
  manual_seed(5);
  b.uniform_(-2, 2);
  EXPECT_EQ(values(a), values(b));
}

TEST(RandomSeedTest, SeedAppliesToDevicesFirstUsedAfterSeeding) {
  set_cpu_device_count(3);
  manual_seed(11);
  const std::vector<double> on_cpu0 = values(rand({8}, Device("cpu:0")));
  manual_seed(11);
  EXPECT_EQ(values(rand({8}, Device("cpu:2"))), on_cpu0);
}

// ---- Shapes and dtypes -----------------------------------------------------------

TEST(RandomFactoryTest, DefaultDtypes) {
  EXPECT_EQ(rand({2}).dtype(), kFloat32);
  EXPECT_EQ(randn({2}).dtype(), kFloat32);
  EXPECT_EQ(randint(5, {2}).dtype(), kInt64);
  EXPECT_EQ(bernoulli({2}, 0.5).dtype(), kFloat32);
  EXPECT_EQ(randperm(3).dtype(), kInt64);
}

TEST(RandomFactoryTest, ShapesAndRequestedDtypes) {
  EXPECT_EQ(shape_of(rand({2, 3}, kFloat64)), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(rand({2, 3}, kFloat64).dtype(), kFloat64);
  EXPECT_EQ(shape_of(randn({4, 1, 2})), (std::vector<int64_t>{4, 1, 2}));
  EXPECT_EQ(randint(0, 3, {2, 2}, kInt32).dtype(), kInt32);
  EXPECT_EQ(shape_of(randint(0, 3, {0, 2})), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(bernoulli({3}, 0.5, kFloat64).dtype(), kFloat64);
  EXPECT_EQ(randperm(0).numel(), 0);
}

TEST(RandomFactoryTest, FactoriesHonorTheDevice) {
  set_cpu_device_count(2);
  EXPECT_EQ(rand({2}, Device("cpu:1")).device(), Device("cpu:1"));
  EXPECT_EQ(randperm(4, Device("cpu:1")).device(), Device("cpu:1"));
}

TEST(RandomFactoryTest, LikeFactoriesKeepShapeDtypeAndDevice) {
  set_cpu_device_count(2);
  const Tensor t = zeros({3, 2}, TensorOptions(kFloat64).device(Device("cpu:1")));
  for (const Tensor& r : {rand_like(t), randn_like(t)}) {
    EXPECT_EQ(shape_of(r), (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(r.dtype(), kFloat64);
    EXPECT_EQ(r.device(), Device("cpu:1"));
  }
}

// ---- Distributions -------------------------------------------------------------------

TEST(RandomDistributionTest, RandIsInUnitInterval) {
  manual_seed(0);
  for (DType dtype : {kFloat32, kFloat64}) {
    for (double v : values(rand({10000}, dtype))) {
      EXPECT_GE(v, 0.0);
      EXPECT_LT(v, 1.0);
    }
  }
}

TEST(RandomDistributionTest, RandMeanIsAboutOneHalf) {
  manual_seed(0);
  EXPECT_NEAR(mean_of(values(rand({10000}))), 0.5, 0.02);
}

TEST(RandomDistributionTest, RandnHasZeroMeanAndUnitStd) {
  manual_seed(0);
  const std::vector<double> v = values(randn({10000}));
  EXPECT_NEAR(mean_of(v), 0.0, 0.05);
  EXPECT_NEAR(std_of(v), 1.0, 0.05);
}

TEST(RandomDistributionTest, RandnOddLengthFillsEveryElement) {
  manual_seed(0);
  Tensor t = full({7}, 1e9);
  t.normal_();
  for (double v : values(t)) EXPECT_LT(std::abs(v), 100.0);
}

TEST(RandomDistributionTest, UniformRespectsBounds) {
  manual_seed(0);
  Tensor t = empty({10000}, kFloat64);
  t.uniform_(-3, 5);
  const std::vector<double> v = values(t);
  EXPECT_GE(*std::min_element(v.begin(), v.end()), -3.0);
  EXPECT_LT(*std::max_element(v.begin(), v.end()), 5.0);
  EXPECT_NEAR(mean_of(v), 1.0, 0.15);
}

TEST(RandomDistributionTest, NormalHonorsMeanAndStd) {
  manual_seed(0);
  Tensor t = empty({10000});
  t.normal_(10, 2);
  const std::vector<double> v = values(t);
  EXPECT_NEAR(mean_of(v), 10.0, 0.1);
  EXPECT_NEAR(std_of(v), 2.0, 0.1);
}

TEST(RandomDistributionTest, RandintStaysInBoundsAndHitsEveryValue) {
  manual_seed(0);
  const std::vector<double> v = values(randint(-2, 3, {1000}));
  EXPECT_EQ(*std::min_element(v.begin(), v.end()), -2);
  EXPECT_EQ(*std::max_element(v.begin(), v.end()), 2);
}

TEST(RandomDistributionTest, RandintWithOnlyHighStartsAtZero) {
  manual_seed(0);
  const std::vector<double> v = values(randint(4, {1000}));
  EXPECT_EQ(*std::min_element(v.begin(), v.end()), 0);
  EXPECT_EQ(*std::max_element(v.begin(), v.end()), 3);
}

TEST(RandomDistributionTest, BernoulliWithProbabilityZeroAndOneIsExact) {
  manual_seed(0);
  EXPECT_EQ(values(bernoulli({1000}, 0.0)), std::vector<double>(1000, 0.0));
  EXPECT_EQ(values(bernoulli({1000}, 1.0)), std::vector<double>(1000, 1.0));
}

TEST(RandomDistributionTest, BernoulliOfTensorUsesEachProbability) {
  manual_seed(0);
  const Tensor p = tensor({0.0, 1.0, 1.0, 0.0}, kFloat64);
  const Tensor r = bernoulli(p);
  EXPECT_EQ(r.dtype(), kFloat64);
  EXPECT_EQ(values(r), (std::vector<double>{0, 1, 1, 0}));
}

TEST(RandomDistributionTest, BernoulliHalfIsAboutHalfOnes) {
  manual_seed(0);
  EXPECT_NEAR(mean_of(values(bernoulli({10000}, 0.5))), 0.5, 0.03);
}

TEST(RandomDistributionTest, RandpermIsAPermutation) {
  manual_seed(0);
  std::vector<double> v = values(randperm(50));
  const std::vector<double> shuffled = v;
  std::sort(v.begin(), v.end());
  std::vector<double> expected(50);
  std::iota(expected.begin(), expected.end(), 0.0);
  EXPECT_EQ(v, expected);
  EXPECT_NE(shuffled, expected);
}

// ---- In-place fills ---------------------------------------------------------------------

TEST(RandomFillTest, FillsANonContiguousTensorThroughItsView) {
  manual_seed(0);
  Tensor base = zeros({4, 6});
  Tensor view = base.slice(1, 0, std::nullopt, 2);  // every other column
  view.uniform_(1, 2);
  const std::vector<double> v = values(base);
  for (int64_t i = 0; i < 24; ++i) {
    if (i % 2 == 0) {
      EXPECT_GE(v[i], 1.0);
    } else {
      EXPECT_EQ(v[i], 0.0);
    }
  }
}

TEST(RandomFillTest, UniformAndNormalBumpTheVersion) {
  Tensor t = zeros({4});
  uint32_t before = t.version();
  t.uniform_();
  EXPECT_GT(t.version(), before);
  before = t.version();
  t.normal_();
  EXPECT_GT(t.version(), before);
}

TEST(RandomFillTest, NonContiguousFillBumpsTheVersion) {
  Tensor t = zeros({3, 3}).t();
  const uint32_t before = t.version();
  t.normal_();
  EXPECT_GT(t.version(), before);
}

// ---- Errors -------------------------------------------------------------------------------

TEST(RandomErrorTest, RandRejectsIntegralDtype) {
  EXPECT_THROW_MSG(rand({2}, kInt64), "rand: expected a floating-point dtype, got int64");
  EXPECT_THROW_MSG(randn({2}, kInt32), "randn: expected a floating-point dtype, got int32");
}

TEST(RandomErrorTest, LikeFactoriesRejectIntegralDtype) {
  EXPECT_THROW_MSG(rand_like(zeros({2}, kInt64)),
                   "rand_like: expected a floating-point dtype, got int64");
  EXPECT_THROW_MSG(randn_like(zeros({2}, kBool)),
                   "randn_like: expected a floating-point dtype, got bool");
}

TEST(RandomErrorTest, RandintRequiresLowBelowHigh) {
  EXPECT_THROW_MSG(randint(5, 5, {2}),
                   "randint: expects 'from' to be less than 'to', but got from=5 >= to=5");
  EXPECT_THROW_MSG(randint(0, {2}),
                   "randint: expects 'from' to be less than 'to', but got from=0 >= to=0");
}

TEST(RandomErrorTest, BernoulliRejectsProbabilityOutsideUnitInterval) {
  EXPECT_THROW_MSG(bernoulli({2}, 1.5), "bernoulli: expected p to be in [0, 1], but got p=1.5");
  EXPECT_THROW_MSG(bernoulli(tensor({0.5, -0.25})),
                   "bernoulli: expected p to be in [0, 1], but got p=-0.25");
}

TEST(RandomErrorTest, BernoulliRejectsIntegralProbabilities) {
  EXPECT_THROW_MSG(bernoulli(tensor({0, 1})),
                   "bernoulli: expected a floating-point dtype, got int64");
  EXPECT_THROW_MSG(bernoulli({2}, 0.5, kInt64),
                   "bernoulli: expected a floating-point dtype, got int64");
}

TEST(RandomErrorTest, BernoulliRejectsUndefinedTensor) {
  EXPECT_THROW_MSG(bernoulli(Tensor()), "bernoulli: expected a defined tensor");
}

TEST(RandomErrorTest, RandintBoundsMustFitTheDtype) {
  EXPECT_THROW_MSG(randint(0, 300, {3}, kUInt8),
                   "randint: to - 1 is out of bounds for unsigned char (to=300, dtype uint8)");
  EXPECT_THROW_MSG(randint(-5, 3, {3}, kUInt8),
                   "randint: from is out of bounds for unsigned char (from=-5, dtype uint8)");
  EXPECT_THROW_MSG(randint(0, int64_t{1} << 40, {3}, kInt32),
                   "randint: to - 1 is out of bounds for int");
  const Tensor full_range = randint(0, 256, {64}, kUInt8);  // to - 1 = 255 fits
  EXPECT_EQ(full_range.dtype(), kUInt8);
}

TEST(RandomErrorTest, RandintOnCudaRefusesReducedFloatDtypes) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "needs a GPU";
  EXPECT_THROW_MSG(randint(0, 3, {2}, TensorOptions(kFloat16).device(Device("cuda:0"))),
                   "\"randint\" not implemented for 'Half'");
  EXPECT_THROW_MSG(randint(0, 3, {2}, TensorOptions(kBFloat16).device(Device("cuda:0"))),
                   "\"randint\" not implemented for 'BFloat16'");
}

TEST(RandomErrorTest, RandpermNMustFitTheDtype) {
  EXPECT_THROW_MSG(randperm(300, kUInt8),
                   "randperm: n is too large for result tensor type uint8 (n=300, the largest "
                   "value would be 299)");
  EXPECT_EQ(randperm(256, kUInt8).max().item<int64_t>(), 255);
}

TEST(RandomErrorTest, RandpermRejectsNegativeN) {
  EXPECT_THROW_MSG(randperm(-1), "randperm: n must be non-negative, got n=-1");
}

TEST(RandomErrorTest, InPlaceFillsRejectIntegralTensors) {
  Tensor t = zeros({2}, kInt64);
  EXPECT_THROW_MSG(t.uniform_(), "uniform_: expected a floating-point dtype, got int64");
  EXPECT_THROW_MSG(t.normal_(), "normal_: expected a floating-point dtype, got int64");
}

TEST(RandomErrorTest, UniformRequiresOrderedBounds) {
  Tensor t = zeros({2});
  EXPECT_THROW_MSG(t.uniform_(2, 1),
                   "uniform_: expects to return a [from, to) range, but found from=2 > to=1");
}

TEST(RandomErrorTest, NormalRequiresNonNegativeStd) {
  Tensor t = zeros({2});
  EXPECT_THROW_MSG(t.normal_(0, -1), "normal_: expects std >= 0.0, but found std=-1");
}

TEST(RandomErrorTest, FillsRejectExpandedTensors) {
  Tensor t = zeros({1}).expand({3});
  EXPECT_THROW_MSG(t.uniform_(), "uniform_: unsupported operation: more than one element");
}

TEST(RandomErrorTest, NegativeSizeIsRejected) {
  EXPECT_THROW_MSG(rand({-1}), "Trying to create tensor with negative dimension -1");
}

}  // namespace
}  // namespace torchlet
