// Every differentiable op wraps its dims with torchlet::wrap_dim, so a bad dim
// raises PyTorch's "Dimension out of range" error naming the op, whether or
// not the op records a node (a 0-dim tensor takes dims in [-1, 0]).
#include "autograd/autograd.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

Variable matrix() { return Variable(zeros({2, 3}), true); }
Tensor index() { return zeros({2, 3}, kInt64); }

constexpr const char* kMatrixRange =
    "Dimension out of range (expected to be in range of [-2, 1], but got -3)";

TEST(WrapDimTest, IndexSelectRejectsADimBelowTheRange) {
  EXPECT_THROW_MSG(matrix().index_select(-3, zeros({1}, kInt64)),
                   std::string("index_select: ") + kMatrixRange);
}

TEST(WrapDimTest, GatherRejectsADimBelowTheRange) {
  EXPECT_THROW_MSG(matrix().gather(-3, index()), std::string("gather: ") + kMatrixRange);
}

TEST(WrapDimTest, ScatterRejectsADimBelowTheRange) {
  EXPECT_THROW_MSG(matrix().scatter(-3, index(), matrix()), std::string("scatter: ") + kMatrixRange);
}

TEST(WrapDimTest, ScatterAddRejectsADimBelowTheRange) {
  EXPECT_THROW_MSG(matrix().scatter_add(-3, index(), matrix()),
                   std::string("scatter_add: ") + kMatrixRange);
}

TEST(WrapDimTest, StackRejectsADimBelowTheRange) {
  EXPECT_THROW_MSG(stack({matrix(), matrix()}, -4),
                   "stack: Dimension out of range (expected to be in range of [-3, 2], but got -4)");
}

TEST(WrapDimTest, StackRejectsADimAboveTheRange) {
  EXPECT_THROW_MSG(stack({matrix(), matrix()}, 3),
                   "stack: Dimension out of range (expected to be in range of [-3, 2], but got 3)");
}

TEST(WrapDimTest, CatRejectsADimAboveTheRange) {
  EXPECT_THROW_MSG(cat({matrix(), matrix()}, 2),
                   "cat: Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST(WrapDimTest, CatOfOnlySkippedEmptyTensorsChecksNoDim) {
  const Variable empty_vector(zeros({0}), true);
  const Variable out = cat({empty_vector, empty_vector}, 5);
  EXPECT_EQ(out.numel(), 0);
  EXPECT_TRUE(out.requires_grad());
}

TEST(WrapDimTest, ProdOfAScalarTakesDimsInMinusOneToZero) {
  EXPECT_THROW_MSG(Variable(ones({}), true).prod(2),
                   "prod: Dimension out of range (expected to be in range of [-1, 0], but got 2)");
}

TEST(WrapDimTest, CumprodRejectsADimBelowTheRange) {
  EXPECT_THROW_MSG(matrix().cumprod(-3), std::string("cumprod: ") + kMatrixRange);
}

TEST(WrapDimTest, MaxAlongADimRejectsADimBelowTheRange) {
  EXPECT_THROW_MSG(matrix().max(-3), std::string("max: ") + kMatrixRange);
}

TEST(WrapDimTest, SumOverDimsRejectsADimBelowTheRange) {
  EXPECT_THROW_MSG(matrix().sum({-3}), std::string("sum: ") + kMatrixRange);
}

TEST(WrapDimTest, StdOverDimsRejectsADimBelowTheRange) {
  EXPECT_THROW_MSG(matrix().std({-3}, true, false), std::string("std: ") + kMatrixRange);
}

TEST(WrapDimTest, NormOverDimsRejectsADimBelowTheRange) {
  EXPECT_THROW_MSG(matrix().norm(2, {-3}, false), std::string("norm: ") + kMatrixRange);
}

TEST(WrapDimTest, LogsumexpRejectsADimBelowTheRange) {
  EXPECT_THROW_MSG(matrix().logsumexp({-3}, false), std::string("logsumexp: ") + kMatrixRange);
}

TEST(WrapDimTest, NarrowRejectsADimBelowTheRange) {
  EXPECT_THROW_MSG(matrix().narrow(-3, 0, 1), std::string("narrow: ") + kMatrixRange);
}

TEST(WrapDimTest, NarrowOfAScalarIsAnError) {
  EXPECT_THROW_MSG(Variable(ones({}), true).narrow(0, 0, 1),
                   "narrow: narrow() cannot be applied to a 0-dim tensor.");
}

TEST(WrapDimTest, SelectRejectsADimAboveTheRange) {
  EXPECT_THROW_MSG(matrix().select(2, 0),
                   "select: Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST(WrapDimTest, SelectOfAScalarIsAnError) {
  EXPECT_THROW_MSG(Variable(ones({}), true).select(0, 0),
                   "select: select() cannot be applied to a 0-dim tensor.");
}

TEST(WrapDimTest, SliceRejectsADimBelowTheRange) {
  EXPECT_THROW_MSG(matrix().slice(-3, 0, 1, 1), std::string("slice: ") + kMatrixRange);
}

TEST(WrapDimTest, PermuteRejectsADimBelowTheRange) {
  EXPECT_THROW_MSG(matrix().permute({0, -3}), std::string("permute: ") + kMatrixRange);
}

}  // namespace
}  // namespace torchlet
