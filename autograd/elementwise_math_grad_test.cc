// Gradients of the elementwise math ops (sinh ... digamma, hypot ...
// copysign, lerp, addcmul, addcdiv): finite-difference checks of every
// backward formula in float64, away from the functions' singularities,
// including the sums that give broadcast inputs their gradient back.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::all_close;
using testing::gradcheck;
using testing::gradgradcheck;
using testing::values;
using Vec = std::vector<double>;

// A float64 leaf requiring grad, uniform in [lo, hi).
Variable leaf(IntArrayRef shape, double lo, double hi, uint64_t seed = 0) {
  manual_seed(seed);
  return Variable(rand(shape, kFloat64) * (hi - lo) + lo, true);
}

struct UnaryCase {
  const char* name;
  std::function<Variable(const Variable&)> op;
  std::function<Variable(Variable&)> inplace;
  double lo, hi;  // the domain the check samples
  bool twice;     // whether the gradient is itself differentiable
};

std::vector<UnaryCase> unary_cases() {
#define TORCHLET_CASE(name, lo, hi, twice)                                                \
  UnaryCase {                                                                             \
    #name, [](const Variable& x) { return x.name(); },                                    \
        [](Variable& x) -> Variable { return x.name##_(); }, lo, hi, twice                 \
  }
  return {
      TORCHLET_CASE(sinh, -3, 3, true),     TORCHLET_CASE(cosh, -3, 3, true),
      TORCHLET_CASE(asin, -0.9, 0.9, true), TORCHLET_CASE(acos, -0.9, 0.9, true),
      TORCHLET_CASE(atan, -4, 4, true),     TORCHLET_CASE(asinh, -4, 4, true),
      TORCHLET_CASE(acosh, 1.2, 5, true),   TORCHLET_CASE(atanh, -0.9, 0.9, true),
      TORCHLET_CASE(expm1, -3, 3, true),    TORCHLET_CASE(log2, 0.2, 5, true),
      TORCHLET_CASE(log10, 0.2, 5, true),   TORCHLET_CASE(exp2, -3, 3, true),
      TORCHLET_CASE(erfc, -2, 2, true),     TORCHLET_CASE(erfinv, -0.9, 0.9, true),
      TORCHLET_CASE(lgamma, 0.2, 6, true),  TORCHLET_CASE(digamma, 0.2, 6, false),
  };
#undef TORCHLET_CASE
}

TEST(ElementwiseMathGradTest, UnaryGradientsMatchFiniteDifferences) {
  for (const UnaryCase& c : unary_cases()) {
    const Variable x = leaf({3, 4}, c.lo, c.hi);
    auto op = c.op;
    EXPECT_TRUE(gradcheck([op](const variable_list& in) { return op(in[0]); }, {x})) << c.name;
    if (c.twice) {
      EXPECT_TRUE(gradgradcheck([op](const variable_list& in) { return op(in[0]); }, {x}))
          << c.name;
    }
  }
}

// gelu's backward is one fused kernel (gelu_backward) when it is not itself
// recorded, and a Variable formula with create_graph, which can be
// differentiated again: both give the same gradient, in float32 (the
// vectorized kernel) and float64, for both forms.
TEST(ElementwiseMathGradTest, GelusFusedBackwardMatchesItsFormulaAndStaysTwiceDifferentiable) {
  for (const DType dtype : {kFloat32, kFloat64}) {
    for (const std::string approximate : {"none", "tanh"}) {
      manual_seed(0);
      const Variable x(randn({5, 7}, dtype) * 4, true);
      const Variable g(rand({5, 7}, dtype) + 0.5);
      const Variable fused = autograd::grad({x.gelu(approximate)}, {x}, {g})[0];
      EXPECT_FALSE(fused.requires_grad());
      const Variable formula =
          autograd::grad({x.gelu(approximate)}, {x}, {g}, std::nullopt, /*create_graph=*/true)[0];
      ASSERT_TRUE(formula.requires_grad()) << approximate;
      const double tolerance = dtype == kFloat32 ? 1e-5 : 1e-12;
      EXPECT_TRUE(all_close(fused.data(), formula.data(), tolerance, tolerance))
          << approximate << " " << dtype;
    }
  }
  for (const std::string approximate : {"none", "tanh"}) {
    const Variable x = leaf({3, 4}, -4, 4);
    EXPECT_TRUE(gradgradcheck(
        [approximate](const variable_list& in) { return in[0].gelu(approximate); }, {x}))
        << approximate;
  }
}

TEST(ElementwiseMathGradTest, LgammaAndDigammaGradientsOnNegativeNonIntegers) {
  const Variable x(tensor({-2.5, -1.3, -0.7, -3.8}, kFloat64), true);
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].lgamma(); }, {x}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].digamma(); }, {x}));
}

TEST(ElementwiseMathGradTest, InPlaceUnaryGradientsMatchFiniteDifferences) {
  for (const UnaryCase& c : unary_cases()) {
    const Variable x = leaf({2, 3}, c.lo, c.hi, 1);
    auto inplace = c.inplace;
    EXPECT_TRUE(gradcheck(
        [inplace](const variable_list& in) {
          Variable y = in[0].mul(1.0);
          inplace(y);
          return y;
        },
        {x}))
        << c.name;
  }
}

TEST(ElementwiseMathGradTest, InPlaceUnaryOnALeafThatRequiresGradThrows) {
  Variable x = leaf({2}, 0.1, 0.5);
  EXPECT_THROW(x.asin_(), Error);
  EXPECT_THROW(x.expm1_(), Error);
}

TEST(ElementwiseMathGradTest, NodesCarryPyTorchsNames) {
  const Variable x = leaf({2}, 0.1, 0.5), y = leaf({2}, 0.1, 0.5, 1);
  EXPECT_EQ(x.sinh().grad_fn()->name(), "SinhBackward0");
  EXPECT_EQ(x.erfinv().grad_fn()->name(), "ErfinvBackward0");
  EXPECT_EQ(x.digamma().grad_fn()->name(), "DigammaBackward0");
  EXPECT_EQ(x.hypot(y).grad_fn()->name(), "HypotBackward0");
  EXPECT_EQ(x.xlogy(y).grad_fn()->name(), "XlogyBackward0");
  EXPECT_EQ(xlogy(2, y).grad_fn()->name(), "XlogyBackward1");
  EXPECT_EQ(x.xlogy(2).grad_fn()->name(), "XlogyBackward2");
  EXPECT_EQ(x.lerp(y, 0.5).grad_fn()->name(), "LerpBackward0");
  EXPECT_EQ(x.lerp(y, y).grad_fn()->name(), "LerpBackward1");
  EXPECT_EQ(x.addcmul(x, y).grad_fn()->name(), "AddcmulBackward0");
  EXPECT_EQ(x.addcdiv(x, y).grad_fn()->name(), "AddcdivBackward0");
}

// ---- Binary: a [3, 4] with b [4] and b [3, 1], so both gradients are summed back ----

struct BinaryCase {
  const char* name;
  std::function<Variable(const Variable&, const Variable&)> op;
  double lo, hi;
};

std::vector<BinaryCase> binary_cases() {
  return {
      {"hypot", [](const Variable& a, const Variable& b) { return a.hypot(b); }, -3, 3},
      {"logaddexp", [](const Variable& a, const Variable& b) { return a.logaddexp(b); }, -3, 3},
      {"logaddexp2", [](const Variable& a, const Variable& b) { return a.logaddexp2(b); }, -3, 3},
      {"xlogy", [](const Variable& a, const Variable& b) { return a.xlogy(b); }, 0.2, 3},
      {"copysign", [](const Variable& a, const Variable& b) { return a.copysign(b); }, 0.2, 3},
  };
}

TEST(ElementwiseMathGradTest, BinaryGradientsSumOverBroadcastDims) {
  for (const BinaryCase& c : binary_cases()) {
    const Variable a = leaf({3, 4}, c.lo, c.hi);
    auto op = c.op;
    auto fn = [op](const variable_list& in) { return op(in[0], in[1]); };
    EXPECT_TRUE(gradcheck(fn, {a, leaf({4}, c.lo, c.hi, 1)})) << c.name;
    EXPECT_TRUE(gradcheck(fn, {leaf({3, 1}, c.lo, c.hi, 2), a})) << c.name;
    EXPECT_TRUE(gradgradcheck(fn, {a, leaf({4}, c.lo, c.hi, 1)})) << c.name;
  }
}

TEST(ElementwiseMathGradTest, CopysignGradientFollowsTheSignOfOther) {
  const Variable a(tensor({-2.0, 3.0, -1.5, 0.5}, kFloat64), true);
  const Variable b(tensor({1.0, -1.0, -4.0, 2.0}, kFloat64), true);
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].copysign(in[1]); }, {a, b}));
  a.copysign(b).sum().backward();
  EXPECT_EQ(values(a.grad().data()), (Vec{-1, -1, 1, 1}));
  EXPECT_EQ(values(b.grad().data()), (Vec{0, 0, 0, 0}));
}

TEST(ElementwiseMathGradTest, XlogyGradientIsZeroWhereSelfIsZero) {
  const Variable x(tensor({0.0, 2.0}, kFloat64), true);
  const Variable y(tensor({3.0, 4.0}, kFloat64), true);
  x.xlogy(y).sum().backward();
  EXPECT_EQ(values(x.grad().data()), (Vec{0, std::log(4.0)}));
  EXPECT_EQ(values(y.grad().data()), (Vec{0, 0.5}));
}

TEST(ElementwiseMathGradTest, ScalarFormsGradients) {
  const Variable x = leaf({3, 4}, 0.2, 3);
  const Variable signed_x = leaf({3, 4}, -3, 3, 1);
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].xlogy(2.5); }, {x}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return xlogy(3, in[0]); }, {x}));
  EXPECT_TRUE(gradgradcheck([](const variable_list& in) { return xlogy(3, in[0]); }, {x}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].copysign(-1); }, {signed_x}));
}

TEST(ElementwiseMathGradTest, LerpGradients) {
  const Variable start = leaf({3, 1}, -2, 2), end = leaf({4}, -2, 2, 1);
  const Variable weight = leaf({3, 4}, -0.5, 1.5, 2);
  for (double w : {0.3, 0.5, 0.8, -1.0}) {
    EXPECT_TRUE(gradcheck(
        [w](const variable_list& in) { return in[0].lerp(in[1], w); }, {start, end}))
        << w;
  }
  auto tensor_weight = [](const variable_list& in) { return in[0].lerp(in[1], in[2]); };
  EXPECT_TRUE(gradcheck(tensor_weight, {start, end, weight}));
  EXPECT_TRUE(gradcheck(tensor_weight, {weight, end, start}));
  EXPECT_TRUE(gradgradcheck(tensor_weight, {start, end, weight}));
}

TEST(ElementwiseMathGradTest, AddcmulAndAddcdivGradients) {
  const Variable self = leaf({3, 1}, -2, 2), t1 = leaf({4}, -2, 2, 1);
  const Variable t2 = leaf({3, 4}, 0.5, 2, 2);
  for (double value : {1.0, -0.5}) {
    EXPECT_TRUE(gradcheck(
        [value](const variable_list& in) { return in[0].addcmul(in[1], in[2], value); },
        {self, t1, t2}));
    EXPECT_TRUE(gradcheck(
        [value](const variable_list& in) { return in[0].addcdiv(in[1], in[2], value); },
        {self, t1, t2}));
  }
  EXPECT_TRUE(gradgradcheck(
      [](const variable_list& in) { return in[0].addcdiv(in[1], in[2], 2); }, {self, t1, t2}));
  EXPECT_TRUE(gradgradcheck(
      [](const variable_list& in) { return in[0].addcmul(in[1], in[2], 2); }, {self, t1, t2}));
}

TEST(ElementwiseMathGradTest, GradientsComeBackInEachInputsDtype) {
  const Variable self(ones({2}, kFloat32), true), t1(ones({2}, kFloat64), true);
  const Variable t2(full({2}, 2.0, kFloat64), true);
  self.addcdiv(t1, t2).sum().backward();
  EXPECT_EQ(self.grad().dtype(), kFloat32);
  EXPECT_EQ(values(t1.grad().data()), (Vec{0.5, 0.5}));
  EXPECT_EQ(t2.grad().dtype(), kFloat64);
}

TEST(ElementwiseMathGradTest, InPlaceBinaryGradients) {
  const Variable a = leaf({3, 4}, 0.2, 3), b = leaf({4}, 0.2, 3, 1), c = leaf({3, 4}, 0.2, 1, 2);
  auto check = [&](const char* name, std::function<void(Variable&, const variable_list&)> op) {
    EXPECT_TRUE(gradcheck(
        [op](const variable_list& in) {
          Variable y = in[0].mul(1.0);
          op(y, in);
          return y;
        },
        {a, b, c}))
        << name;
  };
  check("hypot_", [](Variable& y, const variable_list& in) { y.hypot_(in[1]); });
  check("xlogy_", [](Variable& y, const variable_list& in) { y.xlogy_(in[1]); });
  check("xlogy_ scalar", [](Variable& y, const variable_list&) { y.xlogy_(1.5); });
  check("copysign_", [](Variable& y, const variable_list& in) { y.copysign_(in[1].neg()); });
  check("copysign_ scalar", [](Variable& y, const variable_list&) { y.copysign_(-2); });
  check("lerp_", [](Variable& y, const variable_list& in) { y.lerp_(in[1], 0.7); });
  check("lerp_ tensor", [](Variable& y, const variable_list& in) { y.lerp_(in[1], in[2]); });
  check("addcmul_", [](Variable& y, const variable_list& in) { y.addcmul_(in[1], in[2], 0.5); });
  check("addcdiv_", [](Variable& y, const variable_list& in) { y.addcdiv_(in[2], in[1], -2); });
}

TEST(ElementwiseMathGradTest, InPlaceOpsWithoutGradWriteStraightIntoTheData) {
  Variable x(tensor({3.0, 5.0}, kFloat64));
  x.hypot_(Variable(tensor({4.0, 12.0}, kFloat64)));
  EXPECT_EQ(values(x.data()), (Vec{5, 13}));
  x.addcmul_(Variable(tensor({1.0, 2.0}, kFloat64)), Variable(tensor({2.0, 2.0}, kFloat64)), 0.5);
  EXPECT_EQ(values(x.data()), (Vec{6, 15}));
}

TEST(ElementwiseMathGradTest, ComparisonsGiveTensors) {
  const Variable a(tensor({1.0, 2.0}, kFloat64), true);
  const Variable b(tensor({1.0, 2.1}, kFloat64));
  EXPECT_EQ(values(a.isclose(b)), (Vec{1, 0}));
  EXPECT_TRUE(a.allclose(b, 0.1));
  EXPECT_FALSE(a.equal(b));
  EXPECT_TRUE(a.equal(a));
}

}  // namespace
}  // namespace torchlet
