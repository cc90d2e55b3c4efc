// Activations: in-place forms, and errors with PyTorch's messages. Values
// and gradients are in golden_test.cc and gradcheck_test.cc.
#include "nn/functional/activation.h"

#include "autograd/autograd.h"
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

}  // namespace
}  // namespace torchlet
