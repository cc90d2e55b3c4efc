// Activations: in-place forms, and errors with PyTorch's messages. Values
// and gradients are in golden_test.cc and gradcheck_test.cc.
#include "nn/functional/activation.h"

#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/golden_case.h"
#include "autograd/gradcheck.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

namespace F = nn::functional;

Variable values() { return Variable(from_vector<float>({-2, -0.5, 0, 0.5, 3, 7}, {6})); }

TEST(ActivationTest, InplaceReluWritesIntoInputAndReturnsIt) {
  Variable x = values();
  const Variable y = F::relu(x, /*inplace=*/true);
  EXPECT_TRUE(y.is_same(x));
  EXPECT_EQ(testing::values(x.data()), (std::vector<double>{0, 0, 0, 0.5, 3, 7}));
}

TEST(ActivationTest, InplaceLeakyReluWritesIntoInput) {
  Variable x = values();
  F::leaky_relu(x, 0.5, /*inplace=*/true);
  EXPECT_EQ(testing::values(x.data()), (std::vector<double>{-1, -0.25, 0, 0.5, 3, 7}));
}

TEST(ActivationTest, InplaceRelu6KeepsGradientFlowingToTheNonLeafInput) {
  const Variable leaf(from_vector<double>({-1, 2, 8}, {3}), true);
  const Variable y = F::relu6(leaf * 1.0, /*inplace=*/true);
  y.sum().backward();
  EXPECT_EQ(testing::values(y.data()), (std::vector<double>{0, 2, 6}));
  EXPECT_EQ(testing::values(leaf.grad().data()), (std::vector<double>{0, 1, 0}));
}

TEST(ActivationTest, InplaceOnALeafThatRequiresGradThrows) {
  const Variable x(from_vector<float>({1, -1}, {2}), true);
  EXPECT_THROW_MSG(F::leaky_relu(x, 0.01, true),
                   "a leaf Variable that requires grad is being used in an in-place operation.");
}

// The gradient of `act(leaf * 2, inplace)` weighted by distinct numbers, so
// each element's gradient counts.
Tensor weighted_gradient(Variable (*act)(const Variable&, bool), bool inplace) {
  const Variable leaf(from_vector<double>({-2.5, -0.7, 0.3, 1.1, 2.9, -4.2}, {6}), true);
  const Variable weight(from_vector<double>({1, -2, 3, 0.5, -1.5, 2}, {6}));
  (act(leaf * 2.0, inplace) * weight).sum().backward();
  return leaf.grad().data();
}

Variable silu_fn(const Variable& x, bool inplace) { return F::silu(x, inplace); }
Variable mish_fn(const Variable& x, bool inplace) { return F::mish(x, inplace); }

TEST(ActivationTest, InplaceSiluOnANonLeafBackpropagatesTheOutOfPlaceGradient) {
  EXPECT_TRUE(testing::all_close(weighted_gradient(silu_fn, true), weighted_gradient(silu_fn, false)));
}

TEST(ActivationTest, InplaceMishOnANonLeafBackpropagatesTheOutOfPlaceGradient) {
  EXPECT_TRUE(testing::all_close(weighted_gradient(mish_fn, true), weighted_gradient(mish_fn, false)));
}

TEST(ActivationTest, InplaceSiluWritesIntoTheInputAndPassesGradcheck) {
  const Variable leaf(from_vector<double>({-2.5, -0.7, 0.3, 1.1, 2.9, -4.2}, {2, 3}), true);
  EXPECT_TRUE(testing::gradcheck(
      [](const variable_list& in) {
        Variable y = in[0] * 1.0;
        const Variable out = F::silu(y, /*inplace=*/true);
        EXPECT_TRUE(out.is_same(y));
        return out;
      },
      {leaf}));
}

TEST(ActivationTest, InplaceMishPassesGradcheck) {
  const Variable leaf(from_vector<double>({-2.5, -0.7, 0.3, 1.1, 2.9, -4.2}, {2, 3}), true);
  EXPECT_TRUE(testing::gradcheck(
      [](const variable_list& in) { return F::mish(in[0] * 1.0, /*inplace=*/true); }, {leaf}));
}

TEST(ActivationTest, InplaceSiluAndMishOnALeafThatRequiresGradThrow) {
  const Variable x(from_vector<float>({1, -1}, {2}), true);
  EXPECT_THROW_MSG(F::silu(x, true),
                   "a leaf Variable that requires grad is being used in an in-place operation.");
  EXPECT_THROW_MSG(F::mish(x, true),
                   "a leaf Variable that requires grad is being used in an in-place operation.");
  EXPECT_EQ(testing::values(x.data()), (std::vector<double>{1, -1}));
}

TEST(ActivationTest, InplaceLeakyReluWithANegativeSlopeRaisesAtBackward) {
  const Variable leaf(from_vector<double>({-1, 2, -3}, {3}), true);
  Variable y = leaf * 1.0;
  F::leaky_relu(y, -0.5, /*inplace=*/true);
  EXPECT_EQ(testing::values(y.data()), (std::vector<double>{0.5, 2, 1.5}));
  EXPECT_THROW_MSG(y.sum().backward(),
                   "In-place leakyReLu backward calculation is triggered with a negative slope "
                   "which is not supported. This is caused by calling in-place forward function "
                   "with a negative slope, please call out-of-place version instead. File an "
                   "issue at https://github.com/pytorch/pytorch if you do require supporting "
                   "in-place leakRelu backward calculation with negative slope");
}

TEST(ActivationTest, InplaceEluAndCeluWithANegativeAlphaRaiseAtBackward) {
  const char* message =
      "In-place elu backward calculation is triggered with a negative slope which is not "
      "supported. This is caused by calling in-place forward function with a negative slope, "
      "please call out-of-place version instead.";
  const Variable leaf(from_vector<double>({-1, 2, -3}, {3}), true);
  EXPECT_THROW_MSG(F::elu(leaf * 1.0, -0.5, /*inplace=*/true).sum().backward(), message);
  EXPECT_THROW_MSG(F::celu(leaf * 1.0, -0.5, /*inplace=*/true).sum().backward(), message);
}

TEST(ActivationTest, InplaceNegativeSlopeWithoutGradientIsAllowed) {
  Variable x(from_vector<double>({-1, 2}, {2}));
  F::leaky_relu(x, -0.5, /*inplace=*/true);
  F::elu(x, -1.0, /*inplace=*/true);
  EXPECT_EQ(testing::values(x.data()), (std::vector<double>{0.5, 2}));
}

TEST(ActivationTest, OutOfPlaceNegativeSlopeBackpropagates) {
  const Variable leaf(from_vector<double>({-1, 2}, {2}), true);
  F::leaky_relu(leaf, -0.5).sum().backward();
  EXPECT_EQ(testing::values(leaf.grad().data()), (std::vector<double>{-0.5, 1}));
}

TEST(ActivationTest, FloatingOnlyActivationsRefuseInt64WithPyTorchsKernelName) {
  const Variable x(arange(6).reshape({1, 2, 3}));
  EXPECT_THROW_MSG(F::gelu(x), "\"GeluKernelImpl\" not implemented for 'Long'");
  EXPECT_THROW_MSG(F::gelu(x, "tanh"), "\"GeluKernelImpl\" not implemented for 'Long'");
  EXPECT_THROW_MSG(F::elu(x), "\"elu_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(F::selu(x), "\"elu_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(F::celu(x), "\"elu_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(F::silu(x), "\"silu_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(F::mish(x), "\"mish_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(F::leaky_relu(x), "\"leaky_relu_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(F::softplus(x), "\"softplus_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(F::elu(Variable(zeros({2}, kBool))), "\"elu_cpu\" not implemented for 'Bool'");
}

TEST(ActivationTest, ReluEqualsTheVariableMethod) {
  EXPECT_TRUE(testing::all_close(F::relu(values()).data(), values().relu().data()));
}

TEST(ActivationTest, SoftplusAboveThresholdIsTheInput) {
  const Variable x(from_vector<double>({30, 100}, {2}));
  EXPECT_EQ(testing::values(F::softplus(x).data()), (std::vector<double>{30, 100}));
}

TEST(ActivationTest, GeluRejectsAnUnknownApproximation) {
  EXPECT_THROW_MSG(F::gelu(values(), "fast"), "approximate argument must be either none or tanh.");
}

TEST(ActivationTest, PreluRejectsAWeightPerWrongChannelCount) {
  const Variable x(zeros({2, 4}));
  EXPECT_THROW_MSG(F::prelu(x, Variable(ones({3}))),
                   "Mismatch of parameter numbers and input channel size. Found parameter numbers "
                   "= 3 and channel size = 4.");
}

TEST(ActivationTest, PreluRejectsAMatrixWeight) {
  EXPECT_THROW_MSG(F::prelu(Variable(zeros({2, 4})), Variable(ones({2, 2}))),
                   "prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = 2");
}

TEST(ActivationTest, PreluRejectsAZeroDimInputWithPerChannelWeight) {
  EXPECT_THROW_MSG(F::prelu(Variable(zeros({})), Variable(ones({2}))),
                   "Not allow zero-dim input tensor.");
}

TEST(ActivationTest, CeluRejectsAlphaZero) {
  EXPECT_THROW_MSG(F::celu(values(), 0.0), "ZeroDivisionError: alpha cannot be 0 for CELU");
}

TEST(ActivationTest, SoftmaxRejectsADimOutOfRange) {
  EXPECT_THROW_MSG(F::softmax(Variable(zeros({3, 5})), 2), "Dimension out of range");
}

// ---- Hardswish, hardsigmoid, logsigmoid, softsign, tanhshrink, threshold,
// softshrink, hardshrink, softmin, glu.

// A case of nn/functional/testdata/functional_golden.txt, in float32.
testing::GoldenCase golden(const std::string& name) {
  return testing::GoldenCase(
      testing::golden_file("nn/functional/testdata/functional_golden.txt"), name, kFloat32,
      {1e-4, 1e-5});
}

TEST(MoreActivationsTest, MatchPyTorchAtRandomPointsAndKinks) {
  const std::vector<std::pair<std::string, Variable (*)(const Variable&)>> unary = {
      {"hardswish", [](const Variable& x) { return F::hardswish(x); }},
      {"hardsigmoid", [](const Variable& x) { return F::hardsigmoid(x); }},
      {"logsigmoid", [](const Variable& x) { return F::logsigmoid(x); }},
      {"softsign", [](const Variable& x) { return F::softsign(x); }},
      {"tanhshrink", [](const Variable& x) { return F::tanhshrink(x); }},
      {"threshold", [](const Variable& x) { return F::threshold(x, 1.0, -2.0); }},
      {"softshrink", [](const Variable& x) { return F::softshrink(x, 0.5); }},
      {"hardshrink", [](const Variable& x) { return F::hardshrink(x, 2.0); }},
      {"softmin", [](const Variable& x) { return F::softmin(x, 1); }},
      {"glu", [](const Variable& x) { return F::glu(x); }},
      {"glu_dim1", [](const Variable& x) { return F::glu(x, 1); }}};
  for (const auto& [name, fn] : unary) {
    SCOPED_TRACE(name);
    testing::GoldenCase c = golden(name);
    c.check(fn(c.leaf("x")));
  }
}

// PyTorch 1.13's gradients at the kinks, in float64 (from Python).
std::vector<double> gradient_at(Variable (*fn)(const Variable&), std::vector<double> points) {
  const Variable x(from_vector<double>(points, {static_cast<int64_t>(points.size())}), true);
  fn(x).sum().backward();
  return testing::values(x.grad().data());
}

TEST(MoreActivationsTest, GradientsAtTheKinksAreTorchs) {
  const std::vector<double> points = {-4, -3, -2, 0, 2, 3, 4};
  std::vector<double> swish = gradient_at([](const Variable& x) { return F::hardswish(x); }, points);
  // At 3, PyTorch's vectorized kernel gives 1 (its scalar tail loop 1.5).
  const std::vector<double> swish_torch = {0, -0.5, -1.0 / 6, 0.5, 7.0 / 6, 1, 1};
  for (size_t i = 0; i < points.size(); ++i) EXPECT_NEAR(swish[i], swish_torch[i], 1e-15) << i;
  const double sixth = static_cast<double>(1.0f / 6.0f);  // PyTorch's float constant
  EXPECT_EQ(gradient_at([](const Variable& x) { return F::hardsigmoid(x); }, points),
            (std::vector<double>{0, 0, sixth, sixth, sixth, 0, 0}));
  EXPECT_EQ(gradient_at([](const Variable& x) { return F::threshold(x, 2, -1); }, points),
            (std::vector<double>{0, 0, 0, 0, 0, 1, 1}));
  EXPECT_EQ(gradient_at([](const Variable& x) { return F::softshrink(x, 2); }, points),
            (std::vector<double>{1, 1, 0, 0, 0, 1, 1}));
  EXPECT_EQ(gradient_at([](const Variable& x) { return F::softshrink(x, 3); }, points),
            (std::vector<double>{1, 0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(gradient_at([](const Variable& x) { return F::hardshrink(x, 2); }, points),
            (std::vector<double>{1, 1, 0, 0, 0, 1, 1}));
  EXPECT_EQ(gradient_at([](const Variable& x) { return F::softsign(x); }, {0})[0], 1);
  EXPECT_EQ(gradient_at([](const Variable& x) { return F::tanhshrink(x); }, {0})[0], 0);
  EXPECT_EQ(gradient_at([](const Variable& x) { return F::logsigmoid(x); }, {0})[0], 0.5);
}

TEST(MoreActivationsTest, ValuesAtTheKinksAreTorchs) {
  const Variable x(from_vector<double>({-4, -3, -2, 0, 2, 3, 4}, {7}));
  EXPECT_EQ(testing::values(F::hardswish(x).data()),
            (std::vector<double>{0, 0, -1.0 / 3, 0, 5.0 / 3, 3, 4}));
  EXPECT_EQ(testing::values(F::hardsigmoid(x).data()),
            (std::vector<double>{0, 0, 1.0 / 6, 0.5, 5.0 / 6, 1, 1}));
  EXPECT_EQ(testing::values(F::threshold(x, 2, -1).data()),
            (std::vector<double>{-1, -1, -1, -1, -1, 3, 4}));
  EXPECT_EQ(testing::values(F::softshrink(x, 2).data()),
            (std::vector<double>{-2, -1, 0, 0, 0, 1, 2}));
  EXPECT_EQ(testing::values(F::hardshrink(x, 2).data()),
            (std::vector<double>{-4, -3, 0, 0, 0, 3, 4}));
}

TEST(MoreActivationsTest, LogsigmoidIsFiniteFarFromZero) {
  const Variable x(from_vector<float>({-200, -30, 30, 200}, {4}), true);
  const Variable y = F::logsigmoid(x);
  y.sum().backward();
  EXPECT_TRUE(testing::all_close(y.data(), from_vector<float>({-200, -30, -9.35762e-14f, 0}, {4})));
  EXPECT_TRUE(testing::all_close(x.grad().data(),
                                 from_vector<float>({1, 1, 9.35762e-14f, 0}, {4}), 1e-5, 1e-12));
}

TEST(MoreActivationsTest, ShrinksOfNanAreTorchs) {
  const Variable nan(from_vector<float>({std::nanf("")}, {1}));
  EXPECT_EQ(testing::values(F::softshrink(nan, 1).data()), (std::vector<double>{0}));
  EXPECT_TRUE(F::hardshrink(nan, 1).data().isnan().all().item<bool>());
  EXPECT_TRUE(F::threshold(nan, 1, 2).data().isnan().all().item<bool>());
}

TEST(MoreActivationsTest, PassGradcheckAwayFromTheKinks) {
  const Variable x(from_vector<double>({-4.2, -2.5, -0.7, 0.3, 1.1, 2.9, 3.4, -1.6}, {2, 4}),
                   true);
  const std::vector<std::pair<std::string, Variable (*)(const Variable&)>> fns = {
      {"hardswish", [](const Variable& x) { return F::hardswish(x); }},
      {"logsigmoid", [](const Variable& x) { return F::logsigmoid(x); }},
      {"softsign", [](const Variable& x) { return F::softsign(x); }},
      {"tanhshrink", [](const Variable& x) { return F::tanhshrink(x); }},
      {"threshold", [](const Variable& x) { return F::threshold(x, 0.5, 7); }},
      {"softshrink", [](const Variable& x) { return F::softshrink(x, 0.5); }},
      {"hardshrink", [](const Variable& x) { return F::hardshrink(x, 1.5); }},
      {"softmin", [](const Variable& x) { return F::softmin(x, 1); }},
      {"softmin_dim0", [](const Variable& x) { return F::softmin(x, 0); }},
      {"glu", [](const Variable& x) { return F::glu(x); }},
      {"glu_dim0", [](const Variable& x) { return F::glu(x, 0); }},
      {"hardswish_inplace",
       [](const Variable& x) { return F::hardswish(x * 1.0, /*inplace=*/true); }}};
  for (const auto& [name, fn] : fns) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(testing::gradcheck([fn = fn](const variable_list& in) { return fn(in[0]); }, {x}));
  }
}

// hardsigmoid's slope is PyTorch's float 1/6, which finite differences in
// float64 see as 1/6 to 3e-8: checked with a looser tolerance.
TEST(MoreActivationsTest, HardsigmoidGradientIsTheFiniteDifferenceToFloatPrecision) {
  const Variable x(from_vector<double>({-4.2, -2.5, -0.7, 0.3, 1.1, 2.9, 3.4, -1.6}, {8}), true);
  F::hardsigmoid(x).sum().backward();
  const std::vector<double> g = testing::values(x.grad().data());
  const std::vector<double> expected = {0, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6, 0, 1.0 / 6};
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], expected[i], 1e-7) << i;
}

TEST(MoreActivationsTest, InplaceFormsWriteIntoTheInput) {
  Variable x = values();
  const Variable y = F::hardswish(x, /*inplace=*/true);
  EXPECT_TRUE(y.is_same(x));
  EXPECT_TRUE(testing::all_close(
      x.data(), from_vector<float>({-1.0f / 3, -1.25f / 6, 0, 1.75f / 6, 3, 7}, {6})));
  Variable h = values();
  EXPECT_TRUE(F::hardsigmoid(h, true).is_same(h));
  EXPECT_EQ(testing::values(h.data()), (std::vector<double>{1.0f / 6, 5.0f / 12, 0.5, 7.0f / 12, 1, 1}));
  Variable t = values();
  EXPECT_TRUE(F::threshold(t, 0.5, 9, true).is_same(t));
  EXPECT_EQ(testing::values(t.data()), (std::vector<double>{9, 9, 9, 9, 3, 7}));
}

TEST(MoreActivationsTest, InplaceOnALeafThatRequiresGradThrows) {
  const Variable x(from_vector<float>({1, -1}, {2}), true);
  const char* message = "a leaf Variable that requires grad is being used in an in-place operation.";
  EXPECT_THROW_MSG(F::hardswish(x, true), message);
  EXPECT_THROW_MSG(F::hardsigmoid(x, true), message);
  EXPECT_THROW_MSG(F::threshold(x, 0, 0, true), message);
}

TEST(MoreActivationsTest, InplaceHardswishOnANonLeafBackpropagatesTheOutOfPlaceGradient) {
  const auto fn = [](const Variable& x, bool inplace) { return F::hardswish(x, inplace); };
  EXPECT_TRUE(testing::all_close(weighted_gradient(fn, true), weighted_gradient(fn, false)));
  const auto sig = [](const Variable& x, bool inplace) { return F::hardsigmoid(x, inplace); };
  EXPECT_TRUE(testing::all_close(weighted_gradient(sig, true), weighted_gradient(sig, false)));
}

TEST(MoreActivationsTest, FloatingOnlyOnesRefuseInt64WithPyTorchsKernelName) {
  const Variable x(arange(6).reshape({2, 3}));
  EXPECT_THROW_MSG(F::hardswish(x), "\"hardswish_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(F::hardsigmoid(x), "\"hardsigmoid_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(F::logsigmoid(x), "\"log_sigmoid_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(F::softshrink(x, 1), "\"softshrink_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(F::hardshrink(x, 1), "\"hardshrink_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(F::glu(Variable(arange(4))), "\"glu_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(F::hardswish(Variable(zeros({2}, kBool))),
                   "\"hardswish_cpu\" not implemented for 'Bool'");
}

TEST(MoreActivationsTest, IntegerInputsAsPyTorch) {
  const Variable x(arange(6).reshape({2, 3}));
  // threshold keeps the dtype; softsign and tanhshrink divide or tanh into float.
  const Variable t = F::threshold(x, 2, -1);
  EXPECT_EQ(t.dtype(), kInt64);
  EXPECT_EQ(testing::values(t.data()), (std::vector<double>{-1, -1, -1, 3, 4, 5}));
  EXPECT_EQ(F::softsign(x).dtype(), kFloat32);
  EXPECT_TRUE(testing::all_close(F::softsign(x).data(),
                                 from_vector<float>({0, 0.5, 2.0f / 3, 0.75, 0.8, 5.0f / 6}, {2, 3})));
  EXPECT_EQ(F::tanhshrink(x).dtype(), kFloat32);
}

TEST(MoreActivationsTest, SoftshrinkRejectsANegativeLambda) {
  EXPECT_THROW_MSG(F::softshrink(values(), -1.0),
                   "lambda must be greater or equal to 0, but found to be -1.");
  EXPECT_THROW_MSG(F::softshrink(values(), -0.5),
                   "lambda must be greater or equal to 0, but found to be -0.5.");
  // hardshrink takes one (everything is outside the empty interval).
  EXPECT_EQ(testing::values(F::hardshrink(values(), -1.0).data()),
            testing::values(values().data()));
}

TEST(MoreActivationsTest, GluErrorsAreTorchs) {
  EXPECT_THROW_MSG(F::glu(Variable(zeros({2, 3})), 1),
                   "Halving dimension must be even, but dimension 1 is size 3");
  EXPECT_THROW_MSG(F::glu(Variable(zeros({2, 3}))),
                   "Halving dimension must be even, but dimension 1 is size 3");
  EXPECT_THROW_MSG(F::glu(Variable(arange(3))),
                   "Halving dimension must be even, but dimension 0 is size 3");
  EXPECT_THROW_MSG(F::glu(Variable(zeros({}))),
                   "glu does not support scalars because halving size must be even");
  EXPECT_THROW_MSG(F::glu(Variable(zeros({2, 4})), 2),
                   "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST(MoreActivationsTest, SoftminIsSoftmaxOfTheNegation) {
  const Variable x(from_vector<double>({1, 2, 3, -1, 0, 4}, {2, 3}));
  EXPECT_TRUE(testing::all_close(F::softmin(x, 1).data(), (-x.data()).softmax(1)));
}

}  // namespace
}  // namespace torchlet
