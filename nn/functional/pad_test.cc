// F.pad's gradients against finite differences in float64, to first and
// second order, its values on a small case, and its checks with PyTorch's
// messages.
#include "nn/functional/pad.h"

#include <vector>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

namespace F = nn::functional;
using testing::gradcheck;
using testing::gradgradcheck;
using testing::values;

Variable leaf(std::vector<int64_t> shape) {
  return Variable(randn(shape, TensorOptions(kFloat64)), true);
}

TEST(PadTest, EachModeFillsAsPyTorch) {
  const Variable x(tensor({1.0, 2.0, 3.0}).view({1, 3}));
  EXPECT_EQ(values(F::pad(x, {2, 2}, "reflect").data()),
            (std::vector<double>{3, 2, 1, 2, 3, 2, 1}));
  EXPECT_EQ(values(F::pad(x, {2, 1}, "replicate").data()),
            (std::vector<double>{1, 1, 1, 2, 3, 3}));
  EXPECT_EQ(values(F::pad(Variable(x.data().view({1, 1, 3})), {2, 1}, "circular").data()),
            (std::vector<double>{2, 3, 1, 2, 3, 1}));
  EXPECT_EQ(values(F::pad(x, {1, -1}, "constant", 7).data()), (std::vector<double>{7, 1, 2}));
  EXPECT_EQ(values(F::pad(x, {4, 0}, "replicate").data()),
            (std::vector<double>{1, 1, 1, 1, 1, 2, 3}));
}

TEST(PadTest, GradientsOfEveryModeMatchFiniteDifferences) {
  manual_seed(0);
  EXPECT_TRUE(gradcheck([](const variable_list& v) { return F::pad(v[0], {1, 2, -1, 1}, "constant", 0.5); },
                        {leaf({2, 3, 4})}));
  EXPECT_TRUE(gradcheck([](const variable_list& v) { return F::pad(v[0], {2, 1, 3, 0}, "reflect"); },
                        {leaf({1, 2, 4, 5})}));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& v) { return F::pad(v[0], {1, 1, 2, 0, 0, 1}, "replicate"); },
      {leaf({2, 1, 2, 3, 2})}));
  EXPECT_TRUE(gradcheck([](const variable_list& v) { return F::pad(v[0], {2, -1}, "circular"); },
                        {leaf({2, 2, 5})}));
}

TEST(PadTest, SecondOrderGradients) {
  manual_seed(1);
  EXPECT_TRUE(gradgradcheck(
      [](const variable_list& v) { return F::pad(v[0], {1, 2}, "reflect") * v[0].sum(); },
      {leaf({2, 4})}));
}

TEST(PadTest, PaddingLengthIsChecked) {
  const Variable x(randn({1, 2, 3, 4}));
  EXPECT_THROW_MSG(F::pad(x, {1}), "Padding length must be divisible by 2");
  EXPECT_THROW_MSG(F::pad(x, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1}), "Padding length too large");
  EXPECT_THROW_MSG(F::pad(x, {-3, -3}),
                   "The input size 4, plus negative padding -3 and -3 resulted in a negative "
                   "output size, which is invalid. Check dimension 3 of your input.");
}

TEST(PadTest, NonConstantModesAreChecked) {
  const Variable x(randn({1, 2, 3, 4}));
  EXPECT_THROW_MSG(F::pad(x, {1, 2}, "foo"), "Unrecognised padding mode foo");
  EXPECT_THROW_MSG(F::pad(x, {1, 1}, "replicate", 1),
                   "Padding mode \"replicate\" doesn't take in value argument");
  EXPECT_THROW_MSG(F::pad(x, {1, 2}, "reflect"),
                   "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
  EXPECT_THROW_MSG(F::pad(x, {1, 1, 3, 0}, "reflect"),
                   "Argument #6: Padding size should be less than the corresponding input "
                   "dimension, but got: padding (3, 0) at dimension 2 of input 4");
  EXPECT_THROW_MSG(F::pad(Variable(randn({2, 3, 4})), {4, 2}, "reflect"),
                   "Argument #4: Padding size should be less than the corresponding input "
                   "dimension, but got: padding (4, 2) at dimension 2 of input [2, 3, 4]");
  EXPECT_THROW_MSG(F::pad(x, {5, 2, 1, 1}, "circular"),
                   "Padding value causes wrapping around more than once.");
  EXPECT_THROW_MSG(F::pad(x, {-4, 1, 0, 0}, "circular"),
                   "Padding value causes wrapping around more than once.");
  EXPECT_THROW_MSG(F::pad(Variable(randn({2, 3, 4})), {1, 2, 1, 1}, "circular"),
                   "Invalid padding size, expected 2 but got 4");
}

TEST(PadTest, NonConstantModesRejectNegativePaddingThatLeavesANegativeSize) {
  const Variable x(randn({1, 2, 4}));
  for (const char* mode : {"reflect", "replicate", "circular"}) {
    EXPECT_THROW_MSG(F::pad(x, {-3, -2}, mode),
                     "pad: padding (-3, -2) of dimension 2 of input [1, 2, 4] leaves a negative "
                     "size");
  }
}

TEST(PadTest, ReplicateRejectsAnEmptyNonBatchDimension) {
  EXPECT_THROW_MSG(F::pad(Variable(randn({1, 2, 0})), {1, 1}, "replicate"),
                   "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other "
                   "non-zero dimensions for input, but got: [1, 2, 0]");
  EXPECT_THROW_MSG(F::pad(Variable(randn({1, 0, 3})), {1, 1}, "replicate"),
                   "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other "
                   "non-zero dimensions for input, but got: [1, 0, 3]");
  EXPECT_THROW_MSG(F::pad(Variable(randn({0, 3, 4})), {1, 1, 1, 1}, "replicate"),
                   "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
                   "non-zero dimensions for input, but got: [0, 3, 4]");
  EXPECT_THROW_MSG(F::pad(Variable(randn({1, 0, 2, 3, 4})), {1, 1, 1, 1, 1, 1}, "replicate"),
                   "Expected 4D or 5D (batch mode) tensor with possibly 0 batch size and other "
                   "non-zero dimensions for input, but got: [1, 0, 2, 3, 4]");
}

TEST(PadTest, ReplicateAcceptsAnEmptyBatch) {
  EXPECT_EQ(F::pad(Variable(randn({0, 2, 3})), {1, 1}, "replicate").sizes(), (SizeVec{0, 2, 5}));
}

TEST(PadTest, ReflectRejectsAnEmptyNonBatchDimensionInPyTorchsWords) {
  EXPECT_THROW_MSG(F::pad(Variable(randn({1, 0, 3})), {1, 1}, "reflect"),
                   "2D or 3D (batch mode) tensor expected for input, but got: [ "
                   "torch.FloatTensor{1,0,3} ]");
  EXPECT_THROW_MSG(F::pad(Variable(randn({1, 1, 0, 3}, kFloat64)), {1, 1, 1, 1}, "reflect"),
                   "3D or 4D (batch mode) tensor expected for input, but got: [ "
                   "torch.DoubleTensor{1,1,0,3} ]");
  EXPECT_THROW_MSG(F::pad(Variable(randn({0, 2, 3, 4})), {1, 1, 1, 1, 1, 1}, "reflect"),
                   "Expected 4D or 5D (batch mode) tensor with possibly 0 batch size and other "
                   "non-zero dimensions for input, but got: [0, 2, 3, 4]");
  EXPECT_EQ(F::pad(Variable(randn({0, 3})), {1, 1}, "reflect").sizes(), (SizeVec{0, 5}));
}

TEST(PadTest, CircularPadsAnInputWithAnEmptyChannelDim) {
  EXPECT_EQ(F::pad(Variable(randn({1, 0, 3})), {1, 1}, "circular").sizes(), (SizeVec{1, 0, 5}));
  EXPECT_THROW_MSG(F::pad(Variable(randn({1, 0, 3})), {1, 1, 1, 1}, "circular"),
                   "Invalid padding size, expected 2 but got 4");
}

TEST(PadTest, ReflectAndReplicateRefuseIntegerInputNamingPyTorchsKernel) {
  const Variable x(arange(6).reshape({1, 2, 3}));
  EXPECT_THROW_MSG(F::pad(x, {1, 1}, "reflect"), "\"reflection_pad1d\" not implemented for 'Long'");
  EXPECT_THROW_MSG(F::pad(x, {1, 1}, "replicate"),
                   "\"replication_pad1d_cpu\" not implemented for 'Long'");
  const Variable x4(arange(6).reshape({1, 1, 2, 3}).to(kInt32));
  EXPECT_THROW_MSG(F::pad(x4, {1, 1, 1, 1}, "reflect"),
                   "\"reflection_pad2d\" not implemented for 'Int'");
  EXPECT_THROW_MSG(F::pad(x4, {1, 1, 1, 1}, "replicate"),
                   "\"replication_pad2d_cpu\" not implemented for 'Int'");
  const Variable x5(arange(6).reshape({1, 1, 1, 2, 3}));
  EXPECT_THROW_MSG(F::pad(x5, {1, 1, 1, 1, 0, 0}, "reflect"),
                   "\"reflection_pad3d_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(F::pad(x5, {1, 1, 1, 1, 0, 0}, "replicate"),
                   "\"replication_pad3d_cpu\" not implemented for 'Long'");
}

TEST(PadTest, CircularPadsIntegerInput) {
  const Variable x(arange(6).reshape({1, 2, 3}));
  EXPECT_EQ(testing::values(F::pad(x, {1, 1}, "circular").data()),
            (std::vector<double>{2, 0, 1, 2, 0, 5, 3, 4, 5, 3}));
}

TEST(PadTest, ReflectPaddingTooLargeNamesTheArgumentOfItsDim) {
  const Variable x4(randn({1, 1, 3, 4}));
  EXPECT_THROW_MSG(F::pad(x4, {4, 4, 0, 0}, "reflect"),
                   "Argument #4: Padding size should be less than the corresponding input "
                   "dimension, but got: padding (4, 4) at dimension 3 of input 4");
  EXPECT_THROW_MSG(F::pad(Variable(randn({1, 3, 4})), {0, 0, 3, 0}, "reflect"),
                   "Argument #6: Padding size should be less than the corresponding input "
                   "dimension, but got: padding (3, 0) at dimension 1 of input 3");
  const Variable x5(randn({1, 1, 2, 3, 4}));
  EXPECT_THROW_MSG(F::pad(x5, {4, 0, 0, 0, 0, 0}, "reflect"),
                   "Argument #4: Padding size should be less than the corresponding input "
                   "dimension, but got: padding (4, 0) at dimension 4 of input [1, 1, 2, 3, 4]");
  EXPECT_THROW_MSG(F::pad(x5, {0, 0, 3, 0, 0, 0}, "reflect"),
                   "Argument #6: Padding size should be less than the corresponding input "
                   "dimension, but got: padding (3, 0) at dimension 3 of input [1, 1, 2, 3, 4]");
  EXPECT_THROW_MSG(F::pad(x5, {0, 0, 0, 0, 0, 2}, "reflect"),
                   "Argument #8: Padding size should be less than the corresponding input "
                   "dimension, but got: padding (0, 2) at dimension 2 of input [1, 1, 2, 3, 4]");
  EXPECT_THROW_MSG(F::pad(Variable(randn({1, 2, 3, 4})), {0, 0, 0, 0, 2, 0}, "reflect"),
                   "Argument #8: Padding size should be less than the corresponding input "
                   "dimension, but got: padding (2, 0) at dimension 1 of input [1, 2, 3, 4]");
}

}  // namespace
}  // namespace torchlet
