// Activations: in-place forms, and errors with PyTorch's messages. Values
// and gradients are in golden_test.cc and gradcheck_test.cc.
#include "nn/functional/activation.h"

#include "autograd/autograd.h"
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
