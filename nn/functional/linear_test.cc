#include "nn/functional/linear.h"

#include "autograd/autograd.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

namespace F = nn::functional;

TEST(LinearTest, MatchesInputTimesWeightTransposedPlusBias) {
  const Variable x(randn({4, 3})), w(randn({2, 3})), b(randn({2}));
  EXPECT_TRUE(testing::all_close(F::linear(x, w, b).data(), x.data().mm(w.data().t()) + b.data()));
}

// Note [A Linear layer is one node]: the same gradients as PyTorch's two
// nodes, addmm(bias, input, weight.t()), bit for bit, for inputs laid out
// either way.
TEST(LinearTest, OneNodeGivesAddmmsGradientsExactly) {
  manual_seed(4);
  for (bool transposed_input : {false, true}) {
    const Tensor x0 = transposed_input ? randn({5, 6}).t() : randn({6, 5});
    const Tensor w0 = randn({3, 5}), b0 = randn({3}), g = randn({6, 3});
    Variable x(x0, true), w(w0, true), b(b0, true);
    Variable xr(x0, true), wr(w0, true), br(b0, true);
    const Variable out = F::linear(x, w, b);
    const Variable ref = addmm(br, xr, wr.t());
    EXPECT_EQ(testing::values(out.data()), testing::values(ref.data()));
    out.backward(Variable(g));
    ref.backward(Variable(g));
    EXPECT_EQ(testing::values(x.grad().data()), testing::values(xr.grad().data()));
    EXPECT_EQ(testing::values(w.grad().data()), testing::values(wr.grad().data()));
    EXPECT_EQ(testing::values(b.grad().data()), testing::values(br.grad().data()));
    EXPECT_TRUE(w.grad().data().is_contiguous());
  }
}

TEST(LinearTest, RecordsOneAddmmNodeOverBiasInputAndWeight) {
  Variable x(randn({4, 3}), true), w(randn({2, 3}), true), b(randn({2}), true);
  const Variable out = F::linear(x, w, b);
  ASSERT_NE(out.grad_fn(), nullptr);
  EXPECT_EQ(out.grad_fn()->name(), "AddmmBackward0");
  const auto& edges = out.grad_fn()->next_edges();
  ASSERT_EQ(edges.size(), 3u);
  // addmm's order (self, mat1, mat2), with the weight in mat2's place.
  EXPECT_EQ(edges[0].fn, autograd::gradient_edge(b).fn);
  EXPECT_EQ(edges[1].fn, autograd::gradient_edge(x).fn);
  EXPECT_EQ(edges[2].fn, autograd::gradient_edge(w).fn);
  EXPECT_EQ(edges[2].fn->name(), "AccumulateGrad");
}

TEST(LinearTest, KeepsLeadingDims) {
  EXPECT_EQ(F::linear(Variable(randn({2, 5, 3})), Variable(randn({4, 3}))).sizes(),
            IntArrayRef({2, 5, 4}));
}

TEST(LinearTest, RejectsMismatchedInFeatures) {
  EXPECT_THROW_MSG(F::linear(Variable(randn({3, 5})), Variable(randn({4, 3}))),
                   "mat1 and mat2 shapes cannot be multiplied (3x5 and 3x4)");
}

// PyTorch 1.13's CPU messages (from Python): addmm's for a 2-D or
// contiguous 3-D input with a bias, else matmul's.
TEST(LinearTest, DtypeMismatchesAreTorchs) {
  const Variable w(randn({3, 5})), b(randn({3}));
  const Variable d2(randn({4, 5}, kFloat64)), d3(randn({2, 4, 5}, kFloat64));
  EXPECT_THROW_MSG(F::linear(d2, w), "expected scalar type Double but found Float");
  EXPECT_THROW_MSG(F::linear(d3, w), "expected scalar type Double but found Float");
  EXPECT_THROW_MSG(F::linear(Variable(randn({5}, kFloat64)), w, b),
                   "expected scalar type Double but found Float");
  EXPECT_THROW_MSG(F::linear(d2, w, b), "mat1 and mat2 must have the same dtype");
  EXPECT_THROW_MSG(F::linear(d3, w, b), "mat1 and mat2 must have the same dtype");
  EXPECT_THROW_MSG(F::linear(d3.transpose(0, 1), w, b),
                   "expected scalar type Double but found Float");
  EXPECT_THROW_MSG(F::linear(Variable(randn({4, 5})), w, Variable(randn({3}, kFloat64))),
                   "self and mat2 must have the same dtype");
  const Variable longs(ones({4, 5}, kInt64));
  EXPECT_THROW_MSG(F::linear(longs, w), "expected scalar type Long but found Float");
  EXPECT_THROW_MSG(F::linear(longs, w, b), "mat1 and mat2 must have the same dtype");
}

TEST(BilinearTest, IsX1WeightX2PerOutputFeature) {
  const Variable x1(randn({1, 2})), x2(randn({1, 3})), w(randn({1, 2, 3}));
  const double expected = x1.data().mm(w.data()[0]).mm(x2.data().t()).item<double>();
  EXPECT_NEAR(F::bilinear(x1, x2, w).item<double>(), expected, 1e-5);
}

TEST(BilinearTest, RejectsInputsOfDifferentRank) {
  EXPECT_THROW_MSG(F::bilinear(Variable(randn({3, 4})), Variable(randn({3, 1, 5})),
                               Variable(randn({6, 4, 5}))),
                   "bilinear(): input dimensions do not match: got 2 and 3");
}

TEST(BilinearTest, RejectsMismatchedBatchDims) {
  EXPECT_THROW_MSG(F::bilinear(Variable(randn({3, 4})), Variable(randn({2, 5})),
                               Variable(randn({6, 4, 5}))),
                   "bilinear(): input batch dimensions do not match at dim 0: got 3 and 2");
}

TEST(BilinearTest, RejectsInput1OfTheWrongSize) {
  EXPECT_THROW_MSG(F::bilinear(Variable(randn({3, 3})), Variable(randn({3, 5})),
                               Variable(randn({6, 4, 5}))),
                   "bilinear(): input1 size does not match weight size: got 3 but expected 4");
}

TEST(BilinearTest, RejectsInput2OfTheWrongSize) {
  EXPECT_THROW_MSG(F::bilinear(Variable(randn({3, 4})), Variable(randn({3, 5})),
                               Variable(randn({6, 4, 4}))),
                   "bilinear(): input2 size does not match weight size: got 5 but expected 4");
}

TEST(BilinearTest, RejectsABiasOfTheWrongSize) {
  EXPECT_THROW_MSG(F::bilinear(Variable(randn({3, 4})), Variable(randn({3, 5})),
                               Variable(randn({6, 4, 5})), Variable(randn({5}))),
                   "bilinear(): bias size does not match weight size: got 5 but expected 6");
}

TEST(BilinearTest, RejectsA2DWeight) {
  EXPECT_THROW_MSG(F::bilinear(Variable(randn({3, 4})), Variable(randn({3, 5})),
                               Variable(randn({6, 20}))),
                   "bilinear(): expected a 3-D weight [out, in1, in2], got [6, 20]");
}

TEST(BilinearTest, RejectsZeroDimInputs) {
  EXPECT_THROW_MSG(F::bilinear(Variable(scalar_tensor(1.0)), Variable(scalar_tensor(2.0)),
                               Variable(randn({1, 1, 1}))),
                   "bilinear(): expected inputs with at least one dimension");
}

}  // namespace
}  // namespace torchlet
