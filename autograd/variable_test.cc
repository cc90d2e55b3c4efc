#include "autograd/variable.h"

#include <sstream>

#include "autograd/autograd.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

TEST(VariableTest, StableSortAndUnsortedTopkMatchTensorsAndPassGradients) {
  const Variable x(tensor({2.0, 1.0, 2.0, 1.0, 3.0}, kFloat64), true);
  const auto [values, indices] = x.sort(0, /*descending=*/false, /*stable=*/true);
  EXPECT_EQ(testing::values(indices), (std::vector<double>{1, 3, 0, 2, 4}));
  (values * Variable(arange(5, kFloat64))).sum().backward();
  EXPECT_EQ(testing::values(x.grad().data()), (std::vector<double>{2, 0, 3, 1, 4}));
  const auto [top, top_indices] = x.topk(2, 0, /*largest=*/true, /*sorted=*/false);
  const auto [tensor_top, tensor_indices] = x.data().topk(2, 0, true, false);
  EXPECT_EQ(testing::values(top_indices), testing::values(tensor_indices));
  EXPECT_EQ(testing::values(top.data()), testing::values(tensor_top));
}

TEST(VariableTest, AddAndSubOfANumberTakeAlpha) {
  const Variable x(tensor({1.0, 2.0}, kFloat64), true);
  const Variable y = x.add(3, 2).sub(1, 0.5);
  EXPECT_EQ(testing::values(y.data()), (std::vector<double>{6.5, 7.5}));
  y.sum().backward();
  EXPECT_EQ(testing::values(x.grad().data()), (std::vector<double>{1, 1}));
}

TEST(VariableTest, SplitPiecesShareOneBackwardNode) {
  const Variable x(arange(12, kFloat64).view({3, 4}), true);
  const std::vector<Variable> parts = x.split(1, 0);
  EXPECT_EQ(parts[0].grad_fn(), parts[2].grad_fn());
  EXPECT_EQ(parts[0].grad_fn()->name(), "SplitBackward0");
  EXPECT_EQ(parts[2].output_nr(), 2u);
  EXPECT_EQ(x.unbind(1)[3].grad_fn()->name(), "UnbindBackward0");
  (parts[1] * 2.0).sum().backward();
  EXPECT_EQ(testing::values(x.grad().data()),
            (std::vector<double>{0, 0, 0, 0, 2, 2, 2, 2, 0, 0, 0, 0}));
}

TEST(VariableTest, HandlesShareState) {
  Variable a(zeros({2}), true);
  Variable b = a;
  const Tensor replacement = tensor({1.0f, 2.0f, 3.0f});
  b.set_data(replacement);
  EXPECT_TRUE(a.data().is_same(replacement));
  b.set_grad(Variable(full({3}, 5.0f)));
  EXPECT_EQ(testing::values(a.grad().data()), (std::vector<double>{5, 5, 5}));
  EXPECT_TRUE(a.is_same(b));
}

TEST(VariableTest, OnlyFloatingPointCanRequireGrad) {
  EXPECT_THROW_MSG(Variable(ones({2}, kInt64), true),
                   "only Tensors of floating point dtype can require gradients");
}

TEST(VariableTest, NonLeafRequiresGradCannotBeTurnedOff) {
  Variable x(ones({2}), true);
  Variable y = x * 2.0;
  EXPECT_FALSE(y.is_leaf());
  EXPECT_THROW_MSG(y.requires_grad_(false), "you can only change requires_grad flags of leaf variables");
}

TEST(VariableTest, ResultsRequireGradOnlyWhenAnInputDoes) {
  Variable a(ones({2})), b(ones({2}), true);
  EXPECT_FALSE((a + a).requires_grad());
  EXPECT_TRUE((a + b).requires_grad());
  EXPECT_EQ((a + b).grad_fn()->name(), "AddBackward0");
}

TEST(VariableTest, PrintsLikePyTorch) {
  Variable x(tensor({1.0f, 2.0f}), true);
  EXPECT_EQ(x.str(), "tensor([1., 2.], requires_grad=True)");
  EXPECT_EQ(mm(x.view({1, 2}), x.view({2, 1})).str(), "tensor([[5.]], grad_fn=<MmBackward0>)");
  EXPECT_EQ(Variable(tensor({3.0f})).str(), "tensor([3.])");
}

// PyTorch 1.13's reprs of the same values: a suffix that would pass the line
// width wraps onto a new line.
TEST(VariableTest, PrintWrapsAutogradSuffixPastTheLineWidth) {
  const Variable x(linspace(0, 1, 9), true);
  EXPECT_EQ(x.str(),
            "tensor([0.0000, 0.1250, 0.2500, 0.3750, 0.5000, 0.6250, 0.7500, 0.8750, 1.0000],\n"
            "       requires_grad=True)");
  EXPECT_EQ((x + x).str(),
            "tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000, 1.2500, 1.5000, 1.7500, 2.0000],\n"
            "       grad_fn=<AddBackward0>)");
  const Variable y(linspace(0, 1, 9).to(kFloat64), true);
  EXPECT_EQ((y + y).str(),
            "tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000, 1.2500, 1.5000, 1.7500, 2.0000],\n"
            "       dtype=torchlet.float64, grad_fn=<AddBackward0>)");
}

TEST(VariableTest, DtypeConversionsCastTheGradientBack) {
  Variable x(tensor({1.0f, 2.0f}), true);
  (x.to(kFloat64) * 2.0).sum().backward();
  EXPECT_EQ(x.grad().dtype(), kFloat32);
  EXPECT_EQ(testing::values(x.grad().data()), (std::vector<double>{2, 2}));
}

TEST(VariableTest, RegisterHookNeedsRequiresGrad) {
  EXPECT_THROW_MSG(Variable(ones({1})).register_hook([](const Variable& g) { return g; }),
                   "cannot register a hook on a tensor that doesn't require gradient");
}

TEST(VariableTest, ClipGradNormScalesAllGradients) {
  Variable a(zeros({2}), true), b(zeros({1}), true);
  a.set_grad(Variable(tensor({3.0f, 0.0f})));
  b.set_grad(Variable(tensor({4.0f})));
  EXPECT_NEAR(clip_grad_norm_({a, b}, 1.0), 5.0, 1e-6);
  EXPECT_NEAR(a.grad().data().norm().item<double>() * a.grad().data().norm().item<double>() +
                  b.grad().item<double>() * b.grad().item<double>(),
              1.0, 1e-5);
  clip_grad_value_({a}, 0.1);
  EXPECT_NEAR(a.grad().data().max().item<double>(), 0.1, 1e-7);
}

}  // namespace
}  // namespace torchlet
