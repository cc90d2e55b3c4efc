// Gradients of the shape ops and the slice-wise index ops: finite-difference
// checks of every backward formula (float64), and the view semantics of
// diagonal and movedim on Variables.
#include <vector>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::gradcheck;
using testing::gradgradcheck;
using testing::values;
using Vec = std::vector<double>;

// A float64 leaf requiring grad with distinct values.
Variable leaf(IntArrayRef shape, uint64_t seed = 0) {
  manual_seed(seed);
  return Variable(randn(shape, kFloat64), true);
}

TEST(ShapeOpsGradTest, Triangles) {
  const Variable b = leaf({2, 3, 4});
  for (int64_t k : {-5, -1, 0, 2, 6}) {
    EXPECT_TRUE(gradcheck([k](const variable_list& in) { return in[0].tril(k); }, {b})) << k;
    EXPECT_TRUE(gradcheck([k](const variable_list& in) { return triu(in[0], k); }, {b})) << k;
  }
  EXPECT_TRUE(gradgradcheck([](const variable_list& in) { return in[0].tril(1); }, {b}));
}

TEST(ShapeOpsGradTest, InPlaceTriangles) {
  const Variable x = leaf({3, 4});
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].mul(2).tril_(-1); }, {x}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].mul(2).triu_(1); }, {x}));
}

TEST(ShapeOpsGradTest, InPlaceTriangleOfALeafThrows) {
  Variable x = leaf({2, 2});
  EXPECT_THROW(x.tril_(), Error);
}

TEST(ShapeOpsGradTest, Flips) {
  const Variable b = leaf({2, 3, 4});
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].flip({0, -1}); }, {b}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return fliplr(in[0]); }, {b}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].flipud(); }, {b}));
}

TEST(ShapeOpsGradTest, RollOverSeveralDims) {
  const Variable b = leaf({2, 3, 4});
  EXPECT_TRUE(gradcheck(
      [](const variable_list& in) {
        return in[0].roll({1, -5, 2}, {0, 2, 2});
      },
      {b}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].roll(7); }, {b}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return roll(in[0], {-1}, {1}); }, {b}));
}

TEST(ShapeOpsGradTest, Rot90) {
  const Variable x = leaf({3, 4});
  for (int64_t k : {-1, 1, 2, 3, 5}) {
    EXPECT_TRUE(gradcheck([k](const variable_list& in) { return in[0].rot90(k); }, {x})) << k;
  }
  const Variable b = leaf({2, 3, 4});
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].rot90(1, {2, 0}); }, {b}));
}

TEST(ShapeOpsGradTest, DiagonalWithOffsetsAndSwappedDims) {
  const Variable b = leaf({2, 3, 4});
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].diagonal(); }, {b}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].diagonal(1, -1, 0); }, {b}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].diagonal(-1, 2, 1); }, {b}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return diagonal(in[0], 2, 1, 2); }, {b}));
  EXPECT_TRUE(gradgradcheck([](const variable_list& in) { return in[0].diagonal(1, 2, 0); }, {b}));
}

TEST(ShapeOpsGradTest, DiagonalBeyondTheMatrixHasZeroGradient) {
  const Variable x = leaf({3, 4});
  const Variable d = x.diagonal(10);
  EXPECT_EQ(d.numel(), 0);
  d.sum().backward();
  EXPECT_EQ(values(x.grad().data()), Vec(12, 0.0));
}

TEST(ShapeOpsGradTest, DiagDiagEmbedAndTrace) {
  const Variable v = leaf({3}), x = leaf({3, 4}, 1);
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].diag(-2); }, {v}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].diag(1); }, {x}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return diag_embed(in[0], 1, 0, 2); }, {x}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].diag_embed(-1, 2, 0); }, {x}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return trace(in[0]); }, {x}));
}

TEST(ShapeOpsGradTest, RepeatSumsOverTheBlocks) {
  const Variable x = leaf({2, 3});
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].repeat({2, 1, 3}); }, {x}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].tile({2}); }, {x}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].repeat({0, 2}); }, {x}));
  const Variable y = leaf({2, 3}, 1);
  y.repeat({2, 2}).sum().backward();
  EXPECT_EQ(values(y.grad().data()), Vec(6, 4.0));
}

TEST(ShapeOpsGradTest, RepeatInterleaveSumsEachGroup) {
  const Variable x = leaf({3, 4});
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return in[0].repeat_interleave(2); }, {x}));
  EXPECT_TRUE(
      gradcheck([](const variable_list& in) { return in[0].repeat_interleave(3, -1); }, {x}));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& in) {
        return in[0].repeat_interleave(tensor({2, 0, 3}), 0);
      },
      {x}));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& in) { return in[0].repeat_interleave(arange(12).remainder(3)); },
      {x}));
  const Variable y = leaf({3}, 1);
  y.repeat_interleave(tensor({2, 0, 3})).sum().backward();
  EXPECT_EQ(values(y.grad().data()), (Vec{2, 0, 3}));
}

TEST(ShapeOpsGradTest, MovedimAndMeshgrid) {
  const Variable b = leaf({2, 3, 4});
  EXPECT_TRUE(gradcheck(
      [](const variable_list& in) {
        return in[0].movedim({0, 1}, {2, 0});
      },
      {b}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return moveaxis(in[0], -1, 0); }, {b}));
  const Variable a = leaf({3}), c = leaf({2}, 1);
  EXPECT_TRUE(gradcheck(
      [](const variable_list& in) {
        const std::vector<Variable> g = meshgrid({in[0], in[1]}, "xy");
        return g[0] * 2 + g[1] * 3;
      },
      {a, c}));
}

TEST(ShapeOpsGradTest, IndexAddWithDuplicateIndices) {
  const Variable x = leaf({3, 4}), src = leaf({3, 4}, 1);
  const Tensor index = tensor({2, 0, 2});
  EXPECT_TRUE(gradcheck(
      [&](const variable_list& in) { return in[0].index_add(0, index, in[1], 2.5); }, {x, src}));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& in) {
        return in[0].index_add(1, tensor({3, 3}), in[1]);
      },
      {x, leaf({3, 2}, 2)}));
  EXPECT_TRUE(gradcheck(
      [&](const variable_list& in) { return in[0].mul(1).index_add_(0, index, in[1]); }, {x, src}));
}

TEST(ShapeOpsGradTest, IndexOpsOnZeroDimTensors) {
  const Variable s = leaf({}), src = leaf({}, 1);
  EXPECT_TRUE(gradcheck(
      [](const variable_list& in) { return in[0].index_add(0, tensor({0}), in[1], 3); },
      {s, src}));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& in) { return in[0].index_copy(0, tensor({0}), in[1]); }, {s, src}));
}

TEST(ShapeOpsGradTest, IndexCopyAndIndexFill) {
  const Variable x = leaf({3, 4}), src = leaf({3, 2}, 1);
  EXPECT_TRUE(gradcheck(
      [](const variable_list& in) {
        return in[0].index_copy(1, tensor({3, 0}), in[1]);
      },
      {x, src}));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& in) {
        return in[0].mul(1).index_copy_(1, tensor({1, 2}), in[1]);
      },
      {x, src}));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& in) {
        return in[0].index_fill(0, tensor({-1, 0}), 3.0);
      },
      {x}));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& in) { return in[0].mul(1).index_fill_(1, tensor({2}), 3.0); }, {x}));
  const Variable y = leaf({3, 4}, 2);
  y.index_fill(1, tensor({0, 3}), 1.0).sum().backward();
  EXPECT_EQ(values(y.grad().data()), (Vec{0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0}));
}

TEST(ShapeOpsGradTest, TakeAlongDim) {
  const Variable x = leaf({3, 4});
  EXPECT_TRUE(gradcheck(
      [](const variable_list& in) {
        return in[0].take_along_dim(tensor({{0, 0, 1, 3}}), 1);
      },
      {leaf({1, 4})}));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& in) {
        return in[0].take_along_dim(tensor({{0}, {2}}), 0);
      },
      {x}));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& in) {
        return take_along_dim(in[0], tensor({11, 0, 11}));
      },
      {x}));
}

TEST(ShapeOpsGradTest, DiagonalOfAVariableIsAView) {
  const Variable base = leaf({3, 3});
  Variable x = base.mul(1);
  Variable d = x.diagonal();
  EXPECT_TRUE(d.data().shares_storage(x.data()));
  d.mul_(2);  // writes through the view into x, recorded on x's history
  EXPECT_EQ(x.data().diagonal().to_vector<double>(),
            base.data().diagonal().mul(2).to_vector<double>());
  x.sum().backward();
  EXPECT_EQ(values(base.grad().data()), (Vec{2, 1, 1, 1, 2, 1, 1, 1, 2}));
}

TEST(ShapeOpsGradTest, MovedimOfAVariableIsAView) {
  const Variable base = leaf({2, 3, 4});
  Variable x = base.mul(1);
  Variable m = x.movedim(0, 2);
  EXPECT_TRUE(m.data().shares_storage(x.data()));
  m.select(2, 0).zero_();
  EXPECT_EQ(x.data().select(0, 0).abs().sum().item<double>(), 0);
  x.sum().backward();
  EXPECT_EQ(base.grad().data().select(0, 0).sum().item<double>(), 0);
  EXPECT_EQ(base.grad().data().select(0, 1).sum().item<double>(), 12);
}

TEST(ShapeOpsGradTest, ErrorsComeFromTheTensorOps) {
  const Variable x = leaf({3, 4});
  EXPECT_THROW_MSG(x.roll({1, 2}, {0}), "shifts and dimensions must align");
  EXPECT_THROW_MSG(leaf({2, 2, 2}).diag(), "diag(): Supports 1D or 2D tensors");
  EXPECT_THROW_MSG(x.repeat({2}), "Number of dimensions of repeat dims can not be smaller");
  EXPECT_THROW_MSG(x.index_add(0, tensor({0}), leaf({1, 4}).to(kFloat32)),
                   "must have the same scalar type");
  EXPECT_THROW_MSG(leaf({3}).trace(), "trace: expected a matrix, but got tensor with dim 1");
  EXPECT_THROW_MSG(leaf({3}).fliplr(), "Input must be >= 2-d.");
}

}  // namespace
}  // namespace torchlet
