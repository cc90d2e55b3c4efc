// Gradients of nansum, nanmean, std_mean, var_mean, aminmax, median,
// nanmedian, quantile, nanquantile, cummax, cummin and logcumsumexp:
// finite-difference checks where the op is smooth, and PyTorch 1.13's
// values where ties make it a choice.
#include <cmath>
#include <initializer_list>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::gradcheck;
using testing::gradgradcheck;

// Distinct float64 values in a non-monotone order, shaped as asked.
Variable distinct(IntArrayRef shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  const Tensor base = arange(0, n, 1, TensorOptions(kFloat64));
  const Tensor wavy = base.mul(7).remainder(static_cast<double>(n)).mul(0.37).sub(1.1);
  return Variable(wavy.reshape(shape), true);
}

// A float64 tensor of `values` (a braced list of doubles is float32).
Tensor f64(std::initializer_list<double> values) {
  return from_vector(std::vector<double>(values), TensorOptions(kFloat64));
}

// The gradient of sum(f(x)) at `x`.
std::vector<double> grad_of(const std::function<Variable(const Variable&)>& f, const Tensor& x) {
  Variable v(x, true);
  f(v).sum().backward();
  return v.grad().data().to_vector<double>();
}

// ---- nansum and nanmean ------------------------------------------------------

TEST(NansumGradTest, Gradcheck) {
  const Variable x = distinct({3, 4});
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].nansum(); }, {x}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].nansum({-1}, true); }, {x}));
}

TEST(NansumGradTest, NaNsGetNoGradient) {
  const Tensor x = f64({1.0, NAN, 3.0, 2.0});
  EXPECT_EQ(grad_of([](const Variable& v) { return v.nansum(); }, x),
            std::vector<double>({1, 0, 1, 1}));
  const std::vector<double> mean = grad_of([](const Variable& v) { return v.nanmean(); }, x);
  EXPECT_DOUBLE_EQ(mean[0], 1.0 / 3);
  EXPECT_EQ(mean[1], 0);
}

TEST(NansumGradTest, DtypeGivesTheGradientBackInTheInputsDtype) {
  Variable v(tensor({1.0f, 2.0f}), true);
  v.nansum({}, false, kFloat64).backward();
  EXPECT_EQ(v.grad().dtype(), kFloat32);
}

TEST(NanmeanGradTest, Gradcheck) {
  const Variable x = distinct({3, 4});
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].nanmean({0}, true); }, {x}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].nanmean({-1, 0}); }, {x}));
}

// ---- std_mean and var_mean ----------------------------------------------------

TEST(StdMeanGradTest, Gradcheck) {
  const Variable x = distinct({3, 4});
  EXPECT_TRUE(gradcheck([](const variable_list& in) {
    auto [s, m] = std_mean(in[0], {1}, false, true);
    return s + m * 2.0;
  }, {x}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) {
    auto [v, m] = var_mean(in[0]);
    return v * 3.0 - m;
  }, {x}));
}

TEST(StdMeanGradTest, RejectsIntegers) {
  const Variable k(tensor({1, 2}));
  EXPECT_THROW_MSG(std_mean(k), "std_mean only support floating point and complex dtypes");
  EXPECT_THROW_MSG(var_mean(k), "var_mean only support floating point and complex dtypes");
}

// ---- aminmax ------------------------------------------------------------------------

TEST(AminmaxGradTest, Gradcheck) {
  const Variable x = distinct({3, 4});
  EXPECT_TRUE(gradcheck([](const variable_list& in) {
    auto [lo, hi] = in[0].aminmax(-1);
    return lo * 2.0 + hi;
  }, {x}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) {
    auto [lo, hi] = in[0].aminmax(std::nullopt, true);
    return lo - hi;
  }, {x}));
}

TEST(AminmaxGradTest, TiesShareTheGradientEvenly) {
  const std::vector<double> g = grad_of([](const Variable& v) { return std::get<1>(v.aminmax()); },
                                        f64({1.0, 3.0, 3.0, 2.0}));
  EXPECT_EQ(g, std::vector<double>({0, 0.5, 0.5, 0}));
}

// ---- median and nanmedian ------------------------------------------------------------

TEST(MedianGradTest, Gradcheck) {
  const Variable x = distinct({3, 5});
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].median(); }, {x}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return std::get<0>(in[0].median(1)); },
                        {x}));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& in) { return std::get<0>(in[0].median(-2, true)); }, {x}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].nanmedian(); }, {x}));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& in) { return std::get<0>(in[0].nanmedian(0, true)); }, {x}));
}

TEST(MedianGradTest, GlobalTiesShareTheGradientEvenly) {
  // PyTorch's evenly_distribute_backward: every element equal to the median.
  const std::vector<double> g = grad_of([](const Variable& v) { return v.median(); },
                                        f64({1.0, 2.0, 2.0, 3.0, 2.0}));
  EXPECT_NEAR(g[1], 1.0 / 3, 1e-12);
  EXPECT_NEAR(g[2], 1.0 / 3, 1e-12);
  EXPECT_NEAR(g[4], 1.0 / 3, 1e-12);
  EXPECT_EQ(g[0] + g[3], 0);
  // A NaN median shares it among the NaNs.
  EXPECT_EQ(grad_of([](const Variable& v) { return v.median(); }, f64({1.0, NAN, 2.0, NAN})),
            std::vector<double>({0, 0.5, 0, 0.5}));
  EXPECT_EQ(
      grad_of([](const Variable& v) { return v.nanmedian(); }, f64({1.0, NAN, 2.0, NAN})),
      std::vector<double>({1, 0, 0, 0}));
}

TEST(MedianGradTest, AlongADimTheSelectedElementGetsIt) {
  EXPECT_EQ(grad_of([](const Variable& v) { return std::get<0>(v.median(0)); },
                    f64({1.0, 2.0, 2.0, 3.0, 2.0})),
            std::vector<double>({0, 0, 1, 0, 0}));
}

// ---- quantile and nanquantile ----------------------------------------------------------

TEST(QuantileGradTest, GradcheckEveryInterpolation) {
  const Variable x = distinct({3, 5});
  const Tensor q = f64({0.0, 0.3, 0.5, 0.85, 1.0});
  for (const std::string mode : {"linear", "lower", "higher", "midpoint", "nearest"}) {
    EXPECT_TRUE(gradcheck([&](const variable_list& in) { return in[0].quantile(q, 1, true, mode); },
                          {x}))
        << mode;
    EXPECT_TRUE(gradcheck([&](const variable_list& in) { return in[0].nanquantile(0.4, -2, false, mode); },
                          {x}))
        << mode;
  }
  EXPECT_TRUE(gradcheck([&](const variable_list& in) { return in[0].quantile(q); }, {x}));
}

TEST(QuantileGradTest, SplitsBetweenTheNeighboursAsPyTorch) {
  // PyTorch 1.13: quantile([1, 3, 3, 2], [0.5, 0.9]).sum() gives [0, 0.8, 0.7, 0.5].
  const Tensor q = tensor({0.5f, 0.9f});
  const std::vector<double> g = grad_of([&](const Variable& v) { return v.quantile(q); },
                                        tensor({1.0f, 3.0f, 3.0f, 2.0f}));
  const std::vector<double> want = {0, 0.8, 0.7, 0.5};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(g[i], want[i], 1e-6) << i;
  // nanquantile([1, nan, 3, 2], 0.4): [0.2, 0, 0, 0.8].
  const std::vector<double> n = grad_of([](const Variable& v) { return v.nanquantile(0.4); },
                                        f64({1.0, NAN, 3.0, 2.0}));
  EXPECT_NEAR(n[0], 0.2, 1e-12);
  EXPECT_EQ(n[1], 0);
  EXPECT_NEAR(n[3], 0.8, 1e-12);
}

TEST(QuantileGradTest, ArgumentErrorsAsOnTensor) {
  const Variable x = distinct({4});
  EXPECT_THROW_MSG(x.quantile(2.0), "quantile() q must be in the range [0, 1] but got 2");
  EXPECT_THROW_MSG(x.quantile(0.5, std::nullopt, false, "foo"),
                   "quantile() interpolation must be one of linear");
}

// ---- cummax, cummin and logcumsumexp ------------------------------------------------------

TEST(CummaxGradTest, Gradcheck) {
  const Variable x = distinct({3, 5});
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return std::get<0>(in[0].cummax(1)); },
                        {x}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return std::get<0>(in[0].cummin(-2)); },
                        {x}));
}

TEST(CummaxGradTest, TiesSendTheGradientToTheLatest) {
  // PyTorch 1.13: cummax([1, 3, 3, 2]).sum() gives [1, 1, 2, 0].
  EXPECT_EQ(grad_of([](const Variable& v) { return std::get<0>(v.cummax(0)); },
                    f64({1.0, 3.0, 3.0, 2.0})),
            std::vector<double>({1, 1, 2, 0}));
  EXPECT_EQ(grad_of([](const Variable& v) { return std::get<0>(v.cummin(0)); },
                    scalar_tensor(2.0)),
            std::vector<double>({1}));
}

TEST(LogcumsumexpGradTest, GradcheckAndGradgradcheck) {
  const Variable x = distinct({3, 4});
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].logcumsumexp(1); }, {x}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].logcumsumexp(-2); }, {x}));
  EXPECT_TRUE(gradgradcheck([](const variable_list& in) { return in[0].logcumsumexp(0); }, {x}));
}

TEST(LogcumsumexpGradTest, NegativeIncomingGradients) {
  const Variable x = distinct({5});
  EXPECT_TRUE(gradcheck([](const variable_list& in) {
    // Weights of both signs reach both parts of the formula.
    const Variable w(f64({1.5, -2.0, 0.5, -0.25, 3.0}));
    return in[0].logcumsumexp(0) * w;
  }, {x}));
}

// ---- Non-differentiable results ------------------------------------------------------------

TEST(CountingOnVariablesTest, GiveTensors) {
  const Variable x(f64({1.0, 0.0, 3.0, 3.0}), true);
  const Tensor count = x.count_nonzero();
  EXPECT_EQ(count.item<int64_t>(), 3);
  EXPECT_EQ(x.histc(2, 0, 4).to_vector<double>(), std::vector<double>({2, 2}));
  const Tensor runs = std::get<0>(x.unique_consecutive());
  EXPECT_EQ(runs.numel(), 3);
  EXPECT_EQ(Variable(tensor({1, 1, 2})).bincount().to_vector<int64_t>(),
            std::vector<int64_t>({0, 2, 1}));
}

}  // namespace
}  // namespace torchlet
