// In-place ops on Variables and their views (the base's history is rebased,
// other views follow), and differentiable indexing.
#include <cmath>
#include <limits>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using indexing::Slice;
using testing::all_close;
using testing::values;
using testing::gradcheck;
using testing::gradgradcheck;

Variable leaf2x2() { return Variable(tensor({{1.0, 2.0}, {3.0, 4.0}}, kFloat64), true); }

Tensor f64(const TensorLiteral& t) { return tensor(t, kFloat64); }

// ---- In place through views --------------------------------------------------------

TEST(InplaceViewTest, WriteThroughViewOfNonLeafRebasesTheBase) {
  Variable x = leaf2x2();
  Variable y = x * 2.0;
  y.select(0, 0).mul_(3.0);
  EXPECT_TRUE(all_close(y.data(), f64({{6.0, 12.0}, {6.0, 8.0}})));
  y.sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), f64({{6.0, 6.0}, {2.0, 2.0}})));
}

TEST(InplaceViewTest, BaseAndViewGetCopySlicesAndAsStridedHistory) {
  Variable x = leaf2x2();
  Variable y = x * 1.0;
  Variable row = y[1];
  row.add_(1.0);
  EXPECT_EQ(y.grad_fn()->name(), "CopySlices");
  EXPECT_EQ(row.grad_fn()->name(), "AsStridedBackward0");
}

TEST(InplaceViewTest, ViewOfLeafThatRequiresGradIsRefused) {
  Variable x = leaf2x2();
  EXPECT_THROW_MSG(x[0].add_(1.0),
                   "add_: a view of a leaf Variable that requires grad is being used in an "
                   "in-place operation.");
}

TEST(InplaceViewTest, ViewOfLeafMayBeWrittenUnderNoGrad) {
  Variable x = leaf2x2();
  {
    NoGradGuard no_grad;
    x[0].mul_(10.0);
  }
  EXPECT_TRUE(all_close(x.data(), f64({{10.0, 20.0}, {3.0, 4.0}})));
  EXPECT_TRUE(x.is_leaf());
}

TEST(InplaceViewTest, WritingAVariableIntoAViewMakesTheBaseRequireGrad) {
  Variable w(f64({1.0, 2.0}), true);
  Variable buffer(zeros({4}, kFloat64));
  buffer.narrow(0, 1, 2).copy_(w * 3.0);
  EXPECT_TRUE(buffer.requires_grad());
  EXPECT_TRUE(all_close(buffer.data(), f64({0.0, 3.0, 6.0, 0.0})));
  (buffer * buffer).sum().backward();
  EXPECT_TRUE(all_close(w.grad().data(), f64({18.0, 36.0})));
}

TEST(InplaceViewTest, OtherViewsFollowTheBasesNewHistory) {
  Variable x = leaf2x2();
  Variable y = x * 1.0;
  Variable a = y[0], b = y[1];
  a.mul_(5.0);
  (a.sum() + (b * 3.0).sum()).backward();
  EXPECT_TRUE(all_close(x.grad().data(), f64({{5.0, 5.0}, {3.0, 3.0}})));
}

TEST(InplaceViewTest, ViewSeesInPlaceChangeOfItsBase) {
  Variable x = leaf2x2();
  Variable y = x * 1.0;
  Variable v = y[0];
  y.mul_(2.0);
  v.sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), f64({{2.0, 2.0}, {0.0, 0.0}})));
}

TEST(InplaceViewTest, ViewOfAViewWritesIntoTheRootBase) {
  Variable x(f64({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}), true);
  Variable y = x * 1.0;
  Variable column = y.t().narrow(0, 1, 1);  // y[:, 1:2] transposed
  column.mul_(2.0);
  y.sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), f64({{1.0, 2.0, 1.0}, {1.0, 2.0, 1.0}})));
}

TEST(InplaceViewTest, ViewCreatedUnderNoGradIsRefused) {
  Variable x = leaf2x2();
  Variable y = x * 1.0;
  Variable v;
  {
    NoGradGuard no_grad;
    v = y[0];
  }
  EXPECT_THROW_MSG(v.add_(1.0),
                   "add_: a view was created in no_grad mode and is being modified inplace with "
                   "grad mode enabled. This view is of a Variable that requires grad; create the "
                   "view with grad mode enabled or use the out-of-place form.");
}

TEST(InplaceViewTest, DetachInPlaceOfAViewIsRefused) {
  Variable x = leaf2x2();
  Variable v = (x * 1.0)[0];
  EXPECT_THROW_MSG(v.detach_(), "Can't detach views in-place. Use detach() instead.");
}

TEST(InplaceViewTest, WriteThroughAnExpandedViewIsRefusedAndChangesNothing) {
  Variable x(f64({{1.0, 2.0}}), true);
  Variable y = x * 1.0;
  Variable wide = y.expand({3, 2});
  EXPECT_THROW_MSG(wide.add_(1.0), "more than one element of the written-to tensor refers to a "
                                   "single memory location");
  EXPECT_EQ(y.grad_fn()->name(), "MulBackward1");
  EXPECT_TRUE(all_close(y.data(), f64({{1.0, 2.0}})));
}

TEST(InplaceViewTest, ViewOfABaseGivenNewDataIsNoLongerTracked) {
  Variable x = leaf2x2();
  Variable y = x * 1.0;
  Variable row = y[0];
  y.set_data(zeros({2, 2}, kFloat64));
  row.mul_(2.0);  // writes the old storage only; y's history is untouched
  EXPECT_EQ(y.grad_fn()->name(), "MulBackward1");
  EXPECT_TRUE(all_close(y.data(), zeros({2, 2}, kFloat64)));
}

TEST(InplaceViewTest, WriteThroughViewPassesGradcheck) {
  auto fn = [](const variable_list& in) {
    Variable y = in[0] * 1.0;
    y.narrow(1, 1, 2).mul_(in[1]);  // in[1] broadcasts over the rows
    return y.pow(2.0);
  };
  variable_list inputs = {Variable(f64({{0.5, -1.0, 2.0}, {1.5, 0.25, -0.75}}), true),
                          Variable(f64({1.25, -0.5}), true)};
  EXPECT_TRUE(gradcheck(fn, inputs));
  EXPECT_TRUE(gradgradcheck(fn, inputs));
}

// ---- Other in-place ops ---------------------------------------------------------------

TEST(InplaceOpTest, CopyConvertsAndBroadcastsAndGradientReachesTheSource) {
  Variable src(tensor({1.0f, 2.0f}), true);
  Variable dst = Variable(zeros({3, 2}, kFloat64), true) * 1.0;
  dst.copy_(src);
  EXPECT_EQ(dst.dtype(), kFloat64);
  (dst * 2.0).sum().backward();
  EXPECT_EQ(src.grad().dtype(), kFloat32);
  EXPECT_TRUE(all_close(src.grad().data(), tensor({6.0f, 6.0f})));
}

TEST(InplaceOpTest, FillOverwritesNonFiniteValuesAndStopsTheGradient) {
  Variable x(f64({0.0, 1.0}), true), w(f64({1.0, 1.0}), true);
  Variable y = x.log();  // -inf, 0
  y.fill_(2.0);
  EXPECT_EQ(y.grad_fn()->name(), "FillBackward2");
  EXPECT_TRUE(all_close(y.data(), f64({2.0, 2.0})));
  (y * w).sum().backward();
  EXPECT_TRUE(all_close(w.grad().data(), f64({2.0, 2.0})));
  // As in PyTorch, the zero gradient still passes log's formula: 0 / 0 at 0.
  EXPECT_TRUE(std::isnan(x.grad().data()[0].item<double>()));
  EXPECT_EQ(x.grad().data()[1].item<double>(), 0.0);
}

TEST(InplaceOpTest, ZeroStopsTheGradient) {
  Variable x = leaf2x2();
  Variable y = x * 3.0;
  y.zero_();
  EXPECT_EQ(y.grad_fn()->name(), "ZeroBackward0");
  (y + x).sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), ones({2, 2}, kFloat64)));
}

TEST(InplaceOpTest, ReluAndClampInPlaceMatchOutOfPlaceGradients) {
  Variable x(f64({-1.0, 0.5, 2.0}), true);
  Variable y = x * 1.0;
  y.relu_();
  Variable z = x * 1.0;
  z.clamp_(0.0, 1.0);
  (y + z).sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), f64({0.0, 2.0, 1.0})));
}

TEST(InplaceOpTest, DivByVariableInPlace) {
  Variable x(f64({2.0, 6.0}), true), d(f64({4.0, 3.0}), true);
  Variable y = x * 1.0;
  y.div_(d);
  y.sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), f64({0.25, 1.0 / 3.0})));
  EXPECT_TRUE(all_close(d.grad().data(), f64({-2.0 / 16.0, -6.0 / 9.0})));
}

TEST(InplaceOpTest, MaskedFillInPlaceZeroesTheMaskedGradient) {
  Variable x(f64({1.0, 2.0, 3.0}), true);
  Variable y = x * 2.0;
  y.masked_fill_(tensor({false, true, false}), 0.0);
  y.sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), f64({2.0, 0.0, 2.0})));
}

// ---- Indexing -------------------------------------------------------------------------

TEST(InplaceOpTest, ReluInPlaceWritesIntoSelfWithoutATemporary) {
  const Variable x(tensor({-1.0, 2.0, -3.0, 4.0}, kFloat64), true);
  Variable y = x * 1.0;
  const void* storage = y.data().data_ptr();
  y.relu_();
  EXPECT_EQ(y.data().data_ptr(), storage);
  EXPECT_EQ(y.grad_fn()->name(), "ReluBackward0");
  (y * y).sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), tensor({0.0, 4.0, 0.0, 8.0}, kFloat64)));
}

TEST(InplaceOpTest, OpsThatNeedNoOldValueKeepSelfsStorageWhileRecording) {
  const Variable x(tensor({0.5, -1.5, 2.5}, kFloat64), true);
  Variable y = x * 1.0;
  const void* storage = y.data().data_ptr();
  y.add_(x, 2).add_(1.0, 3).sub_(0.5).mul_(2.0).div_(4.0).sigmoid_().neg_().fill_(1.0);
  EXPECT_EQ(y.data().data_ptr(), storage);
  y = x * 1.0;
  y.add_(x, 2).sub_(x).mul_(3.0).tanh_();
  const Variable expected = ((x * 2.0) * 3.0).tanh();
  EXPECT_TRUE(all_close(y.data(), expected.data()));
  const variable_list g = autograd::grad({y.sum()}, {x});
  const variable_list e = autograd::grad({expected.sum()}, {x});
  EXPECT_TRUE(all_close(g[0].data(), e[0].data()));
}

TEST(InplaceOpTest, WritingASavedOutputAfterReluInPlaceIsDetected) {
  const Variable x(tensor({-1.0, 2.0}, kFloat64), true);
  Variable y = x * 1.0;
  y.relu_();
  y.mul_(2.0);
  EXPECT_THROW_MSG(y.sum().backward(), "modified by an inplace operation");
}

TEST(InplaceOpTest, ReluInPlaceThroughAViewRebasesTheBase) {
  const Variable x(tensor({{-1.0, 2.0}, {3.0, -4.0}}, kFloat64), true);
  Variable base = x * 1.0;
  Variable row = base.select(0, 1);
  row.relu_();
  EXPECT_TRUE(all_close(base.data(), tensor({{-1.0, 2.0}, {3.0, 0.0}}, kFloat64)));
  (base * base).sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), tensor({{-2.0, 4.0}, {6.0, 0.0}}, kFloat64)));
}

TEST(InplaceOpTest, DivisionFamilyInPlaceMatchesOutOfPlace) {
  const Variable x(tensor({2.3, -1.7, 0.9}, kFloat64), true);
  const Variable d(tensor({0.7, -1.3, 1.9}, kFloat64), true);
  Variable y = x * 1.0;
  y.remainder_(d).fmod_(0.4).atan2_(d);
  const Variable expected = x.remainder(d).fmod(0.4).atan2(d);
  EXPECT_TRUE(all_close(y.data(), expected.data()));
  const variable_list g = autograd::grad({y.sum()}, {x, d});
  const variable_list e = autograd::grad({expected.sum()}, {x, d});
  EXPECT_TRUE(all_close(g[0].data(), e[0].data()));
  EXPECT_TRUE(all_close(g[1].data(), e[1].data()));
}

TEST(InplaceOpTest, NanToNumInPlaceMasksTheOldNonFiniteElements) {
  const Variable x(tensor({-1e308, 2.0, 3.0}, kFloat64), true);
  Variable y = x * 10.0;  // -inf, 20, 30
  y.nan_to_num_(0.0, 5.0, -5.0);
  EXPECT_EQ(values(y.data()), (std::vector<double>{-5.0, 20.0, 30.0}));
  y.sum().backward();
  EXPECT_EQ(values(x.grad().data()), (std::vector<double>{0.0, 10.0, 10.0}));
}

TEST(InplaceOpTest, FloorDivideBackwardIsNotImplemented) {
  const Variable x(tensor({2.5, -1.5}, kFloat64), true);
  const Variable q = x.floor_divide(2.0);
  EXPECT_TRUE(q.requires_grad());
  EXPECT_THROW_MSG(q.sum().backward(), "derivative for floor_divide is not implemented");
}

TEST(IndexTest, BasicIndexIsAViewSharingStorage) {
  Variable x = leaf2x2();
  Variable v = x.index({Slice(), 1});
  EXPECT_TRUE(v.data().shares_storage(x.data()));
  v.sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), f64({{0.0, 1.0}, {0.0, 1.0}})));
}

TEST(IndexTest, RepeatedTensorIndicesAccumulateTheGradient) {
  Variable x(f64({1.0, 2.0, 3.0}), true);
  x.index({tensor({0, 0, 2})}).sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), f64({2.0, 0.0, 1.0})));
}

TEST(IndexTest, BoolMaskGradientReachesTrueElements) {
  Variable x = leaf2x2();
  (x.index({tensor({{true, false}, {false, true}})}) * 5.0).sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), f64({{5.0, 0.0}, {0.0, 5.0}})));
}

TEST(IndexTest, MixedIndexPassesGradcheck) {
  auto fn = [](const variable_list& in) {
    return in[0].index({Slice(1, indexing::None), indexing::None, tensor({2, 0, 2})}).pow(2.0);
  };
  variable_list inputs = {Variable(f64({{0.5, -1.0, 2.0}, {1.5, 0.25, -0.75}, {3.0, -2.0, 1.0}}),
                                   true)};
  EXPECT_TRUE(gradcheck(fn, inputs));
  EXPECT_TRUE(gradgradcheck(fn, inputs));
}

TEST(IndexTest, IndexPutPassesGradcheckInBothInputs) {
  for (bool accumulate : {false, true}) {
    auto fn = [accumulate](const variable_list& in) {
      return in[0].index_put({tensor({2, 0})}, in[1], accumulate).pow(2.0);
    };
    variable_list inputs = {Variable(f64({{0.5, -1.0}, {1.5, 0.25}, {3.0, -2.0}}), true),
                            Variable(f64({1.25, -0.5}), true)};  // broadcast over rows
    EXPECT_TRUE(gradcheck(fn, inputs)) << "accumulate=" << accumulate;
    EXPECT_TRUE(gradgradcheck(fn, inputs)) << "accumulate=" << accumulate;
  }
}

TEST(IndexTest, IndexPutInPlaceOnNonLeaf) {
  Variable x = leaf2x2();
  Variable value(f64({7.0}), true);
  Variable y = x * 1.0;
  y.index_put_({0}, value);
  EXPECT_TRUE(all_close(y.data(), f64({{7.0, 7.0}, {3.0, 4.0}})));
  (y * y).sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), f64({{0.0, 0.0}, {6.0, 8.0}})));
  EXPECT_TRUE(all_close(value.grad().data(), f64({28.0})));
}

TEST(IndexTest, IndexPutScalarThroughAView) {
  Variable x = leaf2x2();
  Variable y = x * 2.0;
  y[1].index_put_({0}, 0.0);
  EXPECT_TRUE(all_close(y.data(), f64({{2.0, 4.0}, {0.0, 8.0}})));
  y.sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), f64({{2.0, 2.0}, {0.0, 2.0}})));
}

TEST(IndexTest, IndexPutOnLeafThatRequiresGradIsRefused) {
  Variable x = leaf2x2();
  EXPECT_THROW_MSG(x.index_put_({0}, 1.0),
                   "index_put_: a leaf Variable that requires grad is being used in an in-place "
                   "operation.");
}

TEST(IndexTest, SecondBackwardThroughReleasedIndexNodeThrows) {
  Variable x(f64({1.0, 2.0, 3.0}), true);
  Variable y = x.index({tensor({1, 2})}).sum();
  y.backward(Variable(), /*retain_graph=*/false);
  EXPECT_THROW_MSG(y.backward(), "Trying to backward through the graph a second time");
}

}  // namespace
}  // namespace torchlet
