// Losses: behaviours beyond the golden values, and every error with
// PyTorch 1.13's message.
#include "nn/functional/loss.h"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "tensor/nn_kernels.h"
#include "tensor/test_util.h"
#include "tensor/warning.h"

namespace torchlet {
namespace {

namespace F = nn::functional;

Variable logits() { return Variable(randn({3, 5})); }
Variable longs(SizeVec shape) { return Variable(zeros(shape, TensorOptions(kInt64))); }
Variable targets(std::vector<int64_t> t) {
  const int64_t n = static_cast<int64_t>(t.size());
  return Variable(from_vector(t, {n}));
}

std::string target_size_warning(const std::string& target, const std::string& input) {
  return "Using a target size (torch.Size(" + target + ")) that is different to the input size "
         "(torch.Size(" + input + ")). This will likely lead to incorrect results due to "
         "broadcasting. Please ensure they have the same size.";
}

TEST(CrossEntropyTest, FusedGradientIsSoftmaxMinusOneHotOverBatch) {
  const Variable x(randn({4, 6}, TensorOptions(kFloat64)), true);
  const Variable t = targets({5, 0, 2, 2});
  F::cross_entropy(x, t).backward();
  const Tensor onehot = zeros({4, 6}, TensorOptions(kFloat64)).scatter(1, t.data().unsqueeze(1), 1.0);
  EXPECT_TRUE(testing::all_close(x.grad().data(), (x.data().softmax(1) - onehot) / 4.0, 1e-12, 1e-14));
}

TEST(CrossEntropyTest, WideFloatRowsMatchLogSoftmaxAndGather) {
  // 37 classes: the vectorized exp's 8-wide blocks and its scalar tail, and
  // logits far below the row's max (exp underflows to 0).
  Tensor values = randn({6, 37}) * 4.0;
  values.select(1, 3).fill_(-150.0);
  const Variable x(values, true);
  const Tensor t = from_vector<int64_t>({0, 36, 3, 17, 8, 9}, {6});
  const Variable loss = F::cross_entropy(x, Variable(t));
  loss.backward();
  const Tensor logp = values.log_softmax(1);
  EXPECT_NEAR(loss.item<double>(), -logp.gather(1, t.unsqueeze(1)).mean().item<double>(), 1e-5);
  const Tensor onehot = zeros({6, 37}).scatter(1, t.unsqueeze(1), 1.0);
  EXPECT_TRUE(testing::all_close(x.grad().data(), (logp.exp() - onehot) / 6.0, 1e-5, 1e-7));
}

TEST(CrossEntropyTest, RecordedBackwardEqualsTheFusedOne) {
  const Variable x(randn({4, 6}, TensorOptions(kFloat64)), true);
  const Variable w(rand({6}, TensorOptions(kFloat64)));
  const auto loss = [&] { return F::cross_entropy(x, targets({5, -100, 2, 1}), w, -100, "mean", 0.1); };
  const Variable fused = autograd::grad({loss()}, {x})[0];
  const Variable recorded = autograd::grad({loss()}, {x}, {}, true, /*create_graph=*/true)[0];
  EXPECT_TRUE(recorded.requires_grad());
  EXPECT_TRUE(testing::all_close(recorded.data(), fused.data(), 1e-12, 1e-14));
}

// "mean" is the rows' losses summed, then divided by the summed weight in
// the loss's dtype: bit for bit sum().div(), in float and double, with and
// without class weights.
TEST(CrossEntropyTest, MeanIsTheSumOfTheRowsDividedByTheirWeight) {
  manual_seed(7);
  for (DType dtype : {kFloat32, kFloat64}) {
    const Variable x(randn({9, 5}, TensorOptions(dtype)) * 3.0);
    const Variable t = targets({4, 0, 1, 1, 3, 2, 0, 4, 2});
    for (const Variable& w : {Variable(), Variable(rand({5}, TensorOptions(dtype)))}) {
      const Tensor rows = F::cross_entropy(x, t, w, -100, "none").data();
      const double total = w.defined() ? w.data().index_select(0, t.data()).sum().item<double>() : 9.0;
      const Tensor mean = F::cross_entropy(x, t, w).data();
      EXPECT_EQ(mean.dtype(), dtype);
      EXPECT_EQ(mean.dim(), 0);
      EXPECT_EQ(testing::values(mean), testing::values(rows.sum().div(total)));
    }
  }
}

TEST(CrossEntropyTest, NanLogitGivesNanLoss) {
  Tensor values = randn({2, 20});
  values.index_put_({1, 11}, std::nan(""));
  const Variable loss = F::cross_entropy(Variable(values), targets({3, 4}), Variable(), -100, "none");
  EXPECT_FALSE(std::isnan(loss.data()[0].item<double>()));
  EXPECT_TRUE(std::isnan(loss.data()[1].item<double>()));
}

TEST(CrossEntropyTest, NoClassesAndEveryTargetIgnoredGivesNan) {
  const Variable x(zeros({2, 0}), true);
  EXPECT_TRUE(std::isnan(F::cross_entropy(x, targets({-100, -100})).item<double>()));
}

TEST(CrossEntropyTest, EmptyBatchMeanIsNanAndSumIsZero) {
  const Variable x(zeros({0, 5}));
  const Variable t(zeros({0}, TensorOptions(kInt64)));
  EXPECT_TRUE(std::isnan(F::cross_entropy(x, t).item<double>()));
  EXPECT_EQ(F::cross_entropy(x, t, Variable(), -100, "sum").item<double>(), 0);
}

TEST(CrossEntropyTest, MeanOverOnlyIgnoredTargetsIsNan) {
  EXPECT_TRUE(std::isnan(F::cross_entropy(logits(), targets({-100, -100, -100})).item<double>()));
}

TEST(CrossEntropyTest, RejectsATargetOutOfBounds) {
  EXPECT_THROW_MSG(F::cross_entropy(logits(), targets({1, 2, 5})), "Target 5 is out of bounds.");
  EXPECT_THROW_MSG(F::cross_entropy(logits(), targets({1, -2, 0})), "Target -2 is out of bounds.");
}

TEST(CrossEntropyTest, RejectsMismatchedBatchSizes) {
  EXPECT_THROW_MSG(F::cross_entropy(logits(), targets({1, 2})),
                   "Expected input batch_size (3) to match target batch_size (2).");
}

TEST(CrossEntropyTest, RejectsAWeightOfTheWrongSize) {
  EXPECT_THROW_MSG(F::cross_entropy(logits(), targets({1, 2, 0}), Variable(ones({3}))),
                   "weight tensor should be defined either for all 5 classes or no classes but "
                   "got weight tensor of shape: [3]");
}

TEST(CrossEntropyTest, RejectsAnUnknownReduction) {
  EXPECT_THROW_MSG(F::cross_entropy(logits(), targets({1, 2, 0}), Variable(), -100, "bad"),
                   "bad is not a valid value for reduction");
}

TEST(CrossEntropyTest, RejectsLabelSmoothingAboveOne) {
  EXPECT_THROW_MSG(F::cross_entropy(logits(), targets({1, 2, 0}), Variable(), -100, "mean", 1.5),
                   "label_smoothing must be between 0.0 and 1.0. Got: 1.5");
}

TEST(CrossEntropyTest, RejectsFloatClassIndices) {
  EXPECT_THROW_MSG(F::cross_entropy(logits(), Variable(zeros({3}))),
                   "expected scalar type Long but found Float");
}

TEST(CrossEntropyTest, RejectsIntegerProbabilities) {
  EXPECT_THROW_MSG(F::cross_entropy(Variable(zeros({})), Variable(zeros({}, TensorOptions(kInt64)))),
                   "Expected floating point type for target with class probabilities, got Long");
}

TEST(CrossEntropyTest, RejectsAMultiTargetFor2DInput) {
  EXPECT_THROW_MSG(F::cross_entropy(logits(), Variable(zeros({3, 1}, TensorOptions(kInt64)))),
                   "0D or 1D target tensor expected, multi-target not supported");
}

TEST(CrossEntropyTest, RejectsASpatialTargetOfTheWrongSize) {
  EXPECT_THROW_MSG(F::cross_entropy(Variable(randn({2, 3, 4})),
                                    Variable(zeros({2, 5}, TensorOptions(kInt64)))),
                   "Expected target size [2, 4], got [2, 5]");
}

// A 4-D input goes to PyTorch's nll_loss2d, which words its checks its own way.
TEST(CrossEntropyTest, RejectsATargetOfTheWrongRankFor4DInput) {
  EXPECT_THROW_MSG(F::cross_entropy(Variable(randn({2, 3, 2, 2})), longs({2, 2})),
                   "only batches of spatial targets supported (3D tensors) but got targets of "
                   "dimension: 2");
}

TEST(CrossEntropyTest, RejectsATargetOfTheRightRankButWrongSizeFor4DInput) {
  EXPECT_THROW_MSG(F::cross_entropy(Variable(randn({2, 3, 2, 2})), longs({2, 2, 3})),
                   "size mismatch (got input: [2, 3, 2, 2] , target: [2, 2, 3]");
}

TEST(CrossEntropyTest, RejectsAWeightOfTheWrongSizeForSpatialInput) {
  EXPECT_THROW_MSG(F::cross_entropy(Variable(randn({2, 3, 2, 2})), longs({2, 2, 3}),
                                    Variable(ones({4}))),
                   "weight tensor should be defined either for all or no classes");
  EXPECT_THROW_MSG(F::cross_entropy(Variable(randn({2, 3, 4})), longs({2, 4}), Variable(ones({4}))),
                   "weight tensor should be defined either for all or no classes");
}

TEST(CrossEntropyTest, RejectsATargetOfTheWrongRankFor5DInput) {
  EXPECT_THROW_MSG(F::cross_entropy(Variable(randn({2, 3, 2, 2, 2})), longs({2, 2})),
                   "Expected target size [2, 2, 2, 2], got [2, 2]");
}

TEST(CrossEntropyTest, RejectsAZeroDimInputWithClassIndices) {
  EXPECT_THROW_MSG(F::cross_entropy(Variable(zeros({})), targets({0})),
                   "Expected 1 or more dimensions (got 0)");
}

TEST(CrossEntropyTest, RejectsAZeroDimInputWithClassProbabilities) {
  EXPECT_THROW_MSG(F::cross_entropy(Variable(zeros({})), Variable(zeros({}))),
                   "Expected 1 or more dimensions (got 0)");
}

TEST(CrossEntropyTest, RejectsA1DTargetFor1DInput) {
  EXPECT_THROW_MSG(F::cross_entropy(Variable(randn({3})), targets({0, 1})),
                   "size mismatch (got input: [3], target: [2])");
}

// F::cross_entropy takes the class-probability path only when the shapes
// match, so the shape check is reached through the tensor-level function.
TEST(CrossEntropyTest, ClassProbabilitiesOfAnotherShapeAreRejected) {
  EXPECT_THROW_MSG(check_class_probabilities(zeros({3, 5}), zeros({3, 4}), Tensor(), 0.0),
                   "cross_entropy: expected target of shape [3, 5] (class probabilities), got "
                   "[3, 4]");
}

TEST(NllLossTest, RejectsATargetOutOfBounds) {
  EXPECT_THROW_MSG(F::nll_loss(logits(), targets({0, 7, 1})), "Target 7 is out of bounds.");
}

TEST(NllLossTest, RejectsMismatchedBatchSizes) {
  EXPECT_THROW_MSG(F::nll_loss(logits(), targets({1, 2})),
                   "Expected input batch_size (3) to match target batch_size (2).");
}

// PyTorch 1.13 accepts a target as long as a 1-D input and returns the
// loss of its first element alone; torchlet refuses it, in the words
// PyTorch uses for other lengths.
TEST(NllLossTest, RejectsA1DTargetFor1DInput) {
  EXPECT_THROW_MSG(F::nll_loss(Variable(randn({3})), targets({0, 1, 2})),
                   "size mismatch (got input: [3], target: [3])");
}

TEST(NllLossTest, RejectsATargetOfTheWrongRankFor4DInput) {
  EXPECT_THROW_MSG(F::nll_loss(Variable(randn({2, 3, 2, 2})), longs({2, 2})),
                   "only batches of spatial targets supported (3D tensors) but got targets of "
                   "dimension: 2");
}

TEST(NllLossTest, MeanOverOnlyIgnoredTargetsHasZeroGradient) {
  const Variable x(randn({3, 4}, TensorOptions(kFloat64)), true);
  const Variable loss = F::nll_loss(x, targets({-100, -100, -100}));
  EXPECT_TRUE(std::isnan(loss.item<double>()));
  loss.backward();
  EXPECT_EQ(testing::values(x.grad().data()), std::vector<double>(12, 0.0));
}

// PyTorch: -weight / total_weight at each kept target, 0/0 = NaN where the
// kept targets weigh nothing; ignored rows stay 0.
TEST(NllLossTest, MeanOverTargetsOfZeroWeightHasNanGradientAtTheTargets) {
  const Variable x(randn({3, 4}, TensorOptions(kFloat64)), true);
  const Variable w(from_vector<double>({0, 1, 1, 1}, {4}));
  const Variable loss = F::nll_loss(x, targets({0, -100, 0}), w);
  EXPECT_TRUE(std::isnan(loss.item<double>()));
  loss.backward();
  const std::vector<double> grad = testing::values(x.grad().data());
  for (size_t i = 0; i < grad.size(); ++i) {
    if (i == 0 || i == 8) {
      EXPECT_TRUE(std::isnan(grad[i])) << i;
    } else {
      EXPECT_EQ(grad[i], 0.0) << i;
    }
  }
}

TEST(NllLossTest, IgnoredTargetsLossIsZeroEvenForNanInput) {
  Tensor values = randn({2, 3});
  values.index_put_({1, 0}, std::nan(""));
  const Variable loss = F::nll_loss(Variable(values), targets({1, -100}), Variable(), -100, "none");
  EXPECT_EQ(loss.data()[1].item<double>(), 0.0);
}

TEST(NllLossTest, RejectsAnUnknownReduction) {
  EXPECT_THROW_MSG(F::nll_loss(logits(), targets({1, 2, 0}), Variable(), -100, "avg"),
                   "avg is not a valid value for reduction");
}

TEST(RegressionLossTest, RejectUnknownReductions) {
  const Variable x(randn({3}));
  EXPECT_THROW_MSG(F::mse_loss(x, x, "bad"), "bad is not a valid value for reduction");
  EXPECT_THROW_MSG(F::l1_loss(x, x, "bad"), "bad is not a valid value for reduction");
  EXPECT_THROW_MSG(F::smooth_l1_loss(x, x, "bad"), "bad is not a valid value for reduction");
  EXPECT_THROW_MSG(F::huber_loss(x, x, "bad"), "bad is not a valid value for reduction");
  EXPECT_THROW_MSG(F::kl_div(x, x, "bad"), "bad is not a valid value for reduction");
  EXPECT_THROW_MSG(F::binary_cross_entropy(x.sigmoid(), x.sigmoid(), Variable(), "bad"),
                   "bad is not a valid value for reduction");
  EXPECT_THROW_MSG(F::binary_cross_entropy_with_logits(x, x, Variable(), "bad"),
                   "bad is not a valid value for reduction");
}

TEST(RegressionLossTest, MseRejectsShapesThatDoNotBroadcast) {
  EXPECT_THROW_MSG(F::mse_loss(Variable(randn({3, 5})), Variable(randn({4, 5}))),
                   "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
                   "dimension 0");
}

TEST(RegressionLossTest, SmoothL1RejectsNegativeBeta) {
  const Variable x(randn({3}));
  EXPECT_THROW_MSG(F::smooth_l1_loss(x, x, "mean", -1.0),
                   "smooth_l1_loss does not support negative values for beta.");
}

TEST(RegressionLossTest, HuberRejectsNonPositiveDelta) {
  const Variable x(randn({3}));
  EXPECT_THROW_MSG(F::huber_loss(x, x, "mean", 0.0),
                   "huber_loss does not support non-positive values for delta.");
}

TEST(RegressionLossTest, L1GradientAtZeroDifferenceIsZero) {
  const Variable x(from_vector<double>({1, 2}, {2}), true);
  F::l1_loss(x, Variable(from_vector<double>({1, 0}, {2})), "sum").backward();
  EXPECT_EQ(testing::values(x.grad().data()), (std::vector<double>{0, 1}));
}

// PyTorch's kernel takes its d <= -beta branch at d == 0 when beta is 0.
TEST(RegressionLossTest, SmoothL1WithZeroBetaHasGradientMinusOneAtZeroDifference) {
  for (const char* reduction : {"none", "sum"}) {
    const Variable x(from_vector<double>({1, 3, 2}, {3}), true);
    const Variable t(from_vector<double>({1, 2, 3}, {3}), true);
    const Variable loss = F::smooth_l1_loss(x, t, reduction, 0.0);
    EXPECT_EQ(testing::values(loss.data().sum()), std::vector<double>{2.0}) << reduction;
    loss.sum().backward();
    EXPECT_EQ(testing::values(x.grad().data()), (std::vector<double>{-1, 1, -1})) << reduction;
    EXPECT_EQ(testing::values(t.grad().data()), (std::vector<double>{1, -1, 1})) << reduction;
  }
}

TEST(RegressionLossTest, SmoothL1WithZeroBetaIsPositiveZeroAtZeroDifference) {
  const Variable x(from_vector<double>({1}, {1}));
  const double loss = F::smooth_l1_loss(x, x, "none", 0.0).data()[0].item<double>();
  EXPECT_EQ(loss, 0.0);
  EXPECT_FALSE(std::signbit(loss));
}

TEST(RegressionLossTest, WarnOnceWhenTheTargetSizeDiffers) {
  const Variable x(randn({3, 4})), t(randn({3, 1}));
  const std::string expected = target_size_warning("[3, 1]", "[3, 4]");
  for (const auto& loss : std::vector<std::function<Variable()>>{
           [&] { return F::mse_loss(x, t); }, [&] { return F::l1_loss(x, t); },
           [&] { return F::smooth_l1_loss(x, t); }, [&] { return F::huber_loss(x, t); }}) {
    testing::WarningCapture warnings;
    loss();
    EXPECT_EQ(warnings.messages(), std::vector<std::string>{expected});
  }
}

TEST(RegressionLossTest, WarnWhenTheTargetHasAnotherRankButAsManyElements) {
  testing::WarningCapture warnings;
  F::mse_loss(Variable(randn({})), Variable(randn({1})));
  EXPECT_EQ(warnings.messages(), std::vector<std::string>{target_size_warning("[1]", "[]")});
}

TEST(RegressionLossTest, DoNotWarnWhenTheSizesMatch) {
  const Variable x(randn({3, 4}));
  testing::WarningCapture warnings;
  F::mse_loss(x, x);
  F::l1_loss(x, x);
  F::smooth_l1_loss(x, x, "mean", 0.0);
  F::huber_loss(x, x);
  F::kl_div(x, x, "sum");
  EXPECT_TRUE(warnings.messages().empty());
}

TEST(RegressionLossTest, WarnBeforeRejectingShapesThatDoNotBroadcast) {
  testing::WarningCapture warnings;
  EXPECT_THROW_MSG(F::huber_loss(Variable(randn({3, 4})), Variable(randn({3, 5}))),
                   "The size of tensor a (4) must match the size of tensor b (5) at non-singleton "
                   "dimension 1");
  EXPECT_EQ(warnings.messages(), std::vector<std::string>{target_size_warning("[3, 5]", "[3, 4]")});
}

TEST(KlDivTest, DoesNotWarnAboutADifferentTargetSize) {
  testing::WarningCapture warnings;
  F::kl_div(Variable(randn({3, 4})), Variable(rand({3, 1})), "sum");
  EXPECT_TRUE(warnings.messages().empty());
}

TEST(KlDivTest, MeanReductionWarnsThatItDividesByTheSupportSizeToo) {
  const Variable x(randn({3, 4}));
  testing::WarningCapture warnings;
  F::kl_div(x, x.exp());
  EXPECT_EQ(warnings.messages(),
            std::vector<std::string>{
                "reduction: 'mean' divides the total loss by both the batch size and the support "
                "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
                "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
                "major release."});
}

TEST(KlDivTest, BatchmeanDoesNotWarn) {
  const Variable x(randn({3, 4}));
  testing::WarningCapture warnings;
  F::kl_div(x, x.exp(), "batchmean");
  EXPECT_TRUE(warnings.messages().empty());
}

TEST(BinaryCrossEntropyTest, RejectsATargetOfAnotherSize) {
  EXPECT_THROW_MSG(F::binary_cross_entropy(Variable(rand({3})), Variable(rand({3, 1}))),
                   "Using a target size (torch.Size([3, 1])) that is different to the input size "
                   "(torch.Size([3])) is deprecated. Please ensure they have the same size.");
}

TEST(BinaryCrossEntropyTest, RejectsAWeightThatBroadcastsBeyondTheInput) {
  EXPECT_THROW_MSG(F::binary_cross_entropy(Variable(rand({2})), Variable(rand({2})),
                                           Variable(rand({2, 2}))),
                   "output with shape [2] doesn't match the broadcast shape [2, 2]");
}

TEST(BinaryCrossEntropyTest, AcceptsAWeightThatBroadcastsToTheInput) {
  const Variable x(from_vector<double>({0.25, 0.5, 0.75, 0.5}, {2, 2}));
  const Variable y(from_vector<double>({1, 0, 1, 0}, {2, 2}));
  const Variable w(from_vector<double>({2, 3}, {2, 1}));
  const Variable loss = F::binary_cross_entropy(x, y, w, "sum");
  EXPECT_NEAR(loss.item<double>(),
              -2 * (std::log(0.25) + std::log(0.5)) - 3 * (std::log(0.75) + std::log(0.5)), 1e-12);
}

TEST(BinaryCrossEntropyTest, RejectsAWeightThatDoesNotBroadcastToTheTarget) {
  EXPECT_THROW_MSG(F::binary_cross_entropy(Variable(rand({2})), Variable(rand({2})),
                                           Variable(rand({3}))),
                   "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
                   "dimension 0");
}

TEST(BinaryCrossEntropyTest, RejectsInputOutsideZeroOne) {
  EXPECT_THROW_MSG(F::binary_cross_entropy(Variable(from_vector<float>({1.5}, {1})),
                                           Variable(ones({1}))),
                   "all elements of input should be between 0 and 1");
}

TEST(BinaryCrossEntropyTest, LogIsClampedAtMinus100) {
  const Variable loss = F::binary_cross_entropy(Variable(zeros({1})), Variable(ones({1})));
  EXPECT_FLOAT_EQ(loss.item<float>(), 100.0f);
}

TEST(BinaryCrossEntropyTest, GradientIsFiniteAtZeroAndOne) {
  const Variable x(from_vector<double>({0, 1}, {2}), true);
  F::binary_cross_entropy(x, Variable(from_vector<double>({0.5, 0.25}, {2})), Variable(), "sum")
      .backward();
  EXPECT_EQ(testing::values(x.grad().data()), (std::vector<double>{-0.5e12, 0.75e12}));
}

TEST(BinaryCrossEntropyWithLogitsTest, RejectsATargetOfAnotherSize) {
  EXPECT_THROW_MSG(F::binary_cross_entropy_with_logits(Variable(rand({3})), Variable(rand({3, 1}))),
                   "Target size (torch.Size([3, 1])) must be the same as input size "
                   "(torch.Size([3]))");
}

TEST(BinaryCrossEntropyWithLogitsTest, StableForLargeLogits) {
  const Variable x(from_vector<float>({200, -200}, {2}));
  const Variable y(from_vector<float>({0, 1}, {2}));
  EXPECT_FLOAT_EQ(F::binary_cross_entropy_with_logits(x, y, Variable(), "sum").item<float>(), 400);
}

TEST(MarginLossTest, RejectUnknownReductions) {
  const Variable x(randn({3})), t(from_vector<float>({1, -1, 1}, {3}));
  EXPECT_THROW_MSG(F::margin_ranking_loss(x, x, t, 0.0, "bad"),
                   "bad is not a valid value for reduction");
  EXPECT_THROW_MSG(F::hinge_embedding_loss(x, t, 1.0, "bad"),
                   "bad is not a valid value for reduction");
  EXPECT_THROW_MSG(F::soft_margin_loss(x, t, "bad"), "bad is not a valid value for reduction");
  EXPECT_THROW_MSG(F::cosine_embedding_loss(Variable(randn({3, 2})), Variable(randn({3, 2})), t,
                                            0.0, "bad"),
                   "bad is not a valid value for reduction");
  EXPECT_THROW_MSG(F::triplet_margin_loss(x, x, x, 1.0, 2.0, 1e-6, false, "bad"),
                   "bad is not a valid value for reduction");
}

// The losses PyTorch reduces in Python word it differently.
TEST(LikelihoodLossTest, RejectUnknownReductionsInPythonsWords) {
  const Variable x(randn({3})), y(rand({3}));
  EXPECT_THROW_MSG(F::multilabel_soft_margin_loss(x, y, Variable(), "bad"), "bad is not valid");
  EXPECT_THROW_MSG(F::poisson_nll_loss(x, y, true, false, 1e-8, "bad"), "bad is not valid");
  EXPECT_THROW_MSG(F::gaussian_nll_loss(x, y, y, false, 1e-6, "bad"), "bad is not valid");
}

TEST(MarginRankingLossTest, RejectsInputsOfDifferentDims) {
  EXPECT_THROW_MSG(F::margin_ranking_loss(Variable(randn({3})), Variable(randn({3, 1})),
                                          Variable(randn({3}))),
                   "margin_ranking_loss : All input tensors should have same dimension but got "
                   "sizes: input1: torch.Size([3]), input2: torch.Size([3, 1]), target: "
                   "torch.Size([3]) ");
}

TEST(MarginRankingLossTest, RejectsSizesThatDoNotBroadcast) {
  EXPECT_THROW_MSG(F::margin_ranking_loss(Variable(randn({3})), Variable(randn({2})),
                                          Variable(randn({3}))),
                   "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
                   "dimension 0");
}

TEST(MarginRankingLossTest, IsZeroWhereTheOrderHoldsByTheMargin) {
  const Variable x1(from_vector<double>({2, 0, 1}, {3})), x2(from_vector<double>({1, 0.5, 3}, {3}));
  const Variable t(from_vector<double>({1, -1, 1}, {3}));
  EXPECT_EQ(testing::values(F::margin_ranking_loss(x1, x2, t, 0.5, "none").data()),
            (std::vector<double>{0, 0, 2.5}));
}

TEST(HingeEmbeddingLossTest, TakesInputAtOneAndTheHingeAtMinusOne) {
  const Variable x(from_vector<double>({0.5, 0.5, 2.0, 0.25}, {4}));
  const Variable t(from_vector<double>({1, -1, -1, 0}, {4}));
  // Any other target value takes both terms, as PyTorch.
  EXPECT_EQ(testing::values(F::hinge_embedding_loss(x, t, 1.0, "none").data()),
            (std::vector<double>{0.5, 0.5, 0, 1.0}));
}

TEST(HingeEmbeddingLossTest, RejectsSizesThatDoNotBroadcast) {
  EXPECT_THROW_MSG(F::hinge_embedding_loss(Variable(randn({3})), Variable(ones({2}))),
                   "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
                   "dimension 0");
}

TEST(SoftMarginLossTest, RejectsATargetThatBroadcastsBeyondTheInput) {
  EXPECT_THROW_MSG(F::soft_margin_loss(Variable(randn({3})), Variable(ones({2, 3}))),
                   "output with shape [3] doesn't match the broadcast shape [2, 3]");
  EXPECT_THROW_MSG(F::soft_margin_loss(Variable(randn({3})), Variable(ones({2}))),
                   "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
                   "dimension 0");
}

TEST(SoftMarginLossTest, BroadcastsTheTargetToTheInput) {
  const Variable x(from_vector<double>({0.5, -1, 2, 0}, {2, 2}));
  const Variable loss = F::soft_margin_loss(x, Variable(from_vector<double>({1, -1}, {2})), "none");
  EXPECT_EQ(loss.sizes(), IntArrayRef({2, 2}));
  EXPECT_NEAR(loss.data()[0][1].item<double>(), std::log1p(std::exp(-1.0)), 1e-15);
}

TEST(MultilabelSoftMarginLossTest, GivesOneLossPerSample) {
  const Variable x(randn({4, 3})), y(rand({4, 3}));
  EXPECT_EQ(F::multilabel_soft_margin_loss(x, y, Variable(), "none").sizes(), IntArrayRef({4}));
  EXPECT_EQ(F::multilabel_soft_margin_loss(Variable(randn({3})), Variable(rand({3})), Variable(),
                                           "none").dim(), 0);
}

TEST(MultilabelSoftMarginLossTest, IsFiniteWithFiniteGradientForLargeLogits) {
  const Variable x(from_vector<double>({800, -800, 0}, {1, 3}), true);
  const Variable loss =
      F::multilabel_soft_margin_loss(x, Variable(from_vector<double>({1, 0, 1}, {1, 3})));
  EXPECT_NEAR(loss.item<double>(), std::log(2.0) / 3, 1e-15);
  loss.backward();
  EXPECT_EQ(testing::values(x.grad().data()), (std::vector<double>{0, 0, -0.5 / 3}));
}

TEST(MultilabelSoftMarginLossTest, RejectsAWeightThatDoesNotBroadcast) {
  EXPECT_THROW_MSG(F::multilabel_soft_margin_loss(Variable(randn({2, 3})), Variable(rand({2, 3})),
                                                  Variable(rand({2}))),
                   "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
                   "dimension 1");
}

TEST(CosineEmbeddingLossTest, RejectsAMultiTarget) {
  EXPECT_THROW_MSG(F::cosine_embedding_loss(Variable(randn({2, 3})), Variable(randn({2, 3})),
                                            Variable(ones({2, 1}))),
                   "0D or 1D target tensor expected, multi-target not supported");
}

TEST(CosineEmbeddingLossTest, Rejects1DInputsWithA1DTarget) {
  EXPECT_THROW_MSG(F::cosine_embedding_loss(Variable(randn({3})), Variable(randn({2, 3})),
                                            Variable(ones({2}))),
                   "1D target tensor expects 2D input tensors, but found inputs with sizes [3] "
                   "and [2, 3].");
}

TEST(CosineEmbeddingLossTest, Rejects2DInputsWithA0DTarget) {
  EXPECT_THROW_MSG(F::cosine_embedding_loss(Variable(randn({2, 3})), Variable(randn({2, 3})),
                                            Variable(ones({}))),
                   "0D target tensor expects 1D input tensors, but found inputs with sizes [2, 3] "
                   "and [2, 3].");
}

TEST(CosineEmbeddingLossTest, RejectsSizesThatDoNotBroadcast) {
  EXPECT_THROW_MSG(F::cosine_embedding_loss(Variable(randn({2, 3})), Variable(randn({2, 4})),
                                            Variable(ones({2}))),
                   "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
                   "dimension 1");
}

TEST(CosineEmbeddingLossTest, ZeroVectorsHaveCosineZeroNotNan) {
  const Variable x(zeros({2, 3}, kFloat64), true);
  const Variable t(from_vector<double>({1, -1}, {2}));
  const Variable loss = F::cosine_embedding_loss(x, x, t, -0.5, "none");
  EXPECT_EQ(testing::values(loss.data()), (std::vector<double>{1, 0.5}));
  loss.sum().backward();
  EXPECT_EQ(testing::values(x.grad().data()), std::vector<double>(6, 0.0));
}

TEST(TripletMarginLossTest, RejectsInputsOfDifferentDims) {
  EXPECT_THROW_MSG(F::triplet_margin_loss(Variable(randn({2, 3})), Variable(randn({3})),
                                          Variable(randn({2, 3}))),
                   "All inputs should have same dimension but got 2D, 1D and 2D inputs.");
}

TEST(TripletMarginLossTest, RejectsSizesThatDoNotBroadcast) {
  EXPECT_THROW_MSG(F::triplet_margin_loss(Variable(randn({2, 3})), Variable(randn({2, 4})),
                                          Variable(randn({2, 3}))),
                   "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
                   "dimension 1");
}

// pairwise_distance adds eps to the difference: |a - p + eps|.
TEST(TripletMarginLossTest, AddsEpsToTheDifference) {
  const Variable a(from_vector<double>({0, 0}, {1, 2})), p(from_vector<double>({3, 4}, {1, 2}));
  const Variable n(from_vector<double>({0, 0}, {1, 2}));
  const double eps = 0.5;
  const double expected = 1.0 + std::hypot(-3 + eps, -4 + eps) - std::hypot(eps, eps);
  EXPECT_NEAR(F::triplet_margin_loss(a, p, n, 1.0, 2.0, eps, false, "sum").item<double>(),
              expected, 1e-14);
}

TEST(TripletMarginLossTest, SwapUsesTheCloserOfAnchorAndPositiveToTheNegative) {
  const Variable a(from_vector<double>({0, 0}, {1, 2})), p(from_vector<double>({1, 0}, {1, 2}));
  const Variable n(from_vector<double>({2, 0}, {1, 2}));
  EXPECT_NEAR(F::triplet_margin_loss(a, p, n, 2.0, 2.0, 0.0, false).item<double>(), 1.0, 1e-14);
  EXPECT_NEAR(F::triplet_margin_loss(a, p, n, 2.0, 2.0, 0.0, true).item<double>(), 2.0, 1e-14);
}

TEST(PoissonNllLossTest, FullAddsTheStirlingTermOnlyWhereTargetExceedsOne) {
  const Variable x(from_vector<double>({0.5, 0.5, 0.5, 0.5}, {4}), true);
  const Variable t(from_vector<double>({0, 1, 2, 5}, {4}));
  const Variable plain = F::poisson_nll_loss(x, t, true, false, 1e-8, "none");
  const Variable full = F::poisson_nll_loss(x, t, true, true, 1e-8, "none");
  const auto stirling = [](double y) { return y * std::log(y) - y + 0.5 * std::log(2 * M_PI * y); };
  const std::vector<double> p = testing::values(plain.data()), f = testing::values(full.data());
  EXPECT_EQ(f[0], p[0]);
  EXPECT_EQ(f[1], p[1]);
  EXPECT_NEAR(f[2] - p[2], stirling(2), 1e-12);
  EXPECT_NEAR(f[3] - p[3], stirling(5), 1e-12);
  full.sum().backward();
  EXPECT_FALSE(std::isnan(testing::values(x.grad().data())[0]));
}

TEST(PoissonNllLossTest, RejectsSizesThatDoNotBroadcast) {
  EXPECT_THROW_MSG(F::poisson_nll_loss(Variable(randn({3})), Variable(rand({2}))),
                   "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
                   "dimension 0");
}

TEST(GaussianNllLossTest, RejectsVarOfIncorrectSize) {
  const Variable x(randn({4, 3}));
  for (const SizeVec& shape :
       {SizeVec{3}, SizeVec{1, 3}, SizeVec{}, SizeVec{4, 2}, SizeVec{2, 1}}) {
    SCOPED_TRACE(shape_str(shape));
    EXPECT_THROW_MSG(F::gaussian_nll_loss(x, x, Variable(rand(shape))), "var is of incorrect size");
  }
  const Variable v(randn({3}));
  EXPECT_THROW_MSG(F::gaussian_nll_loss(v, v, Variable(rand({2}))), "var is of incorrect size");
}

TEST(GaussianNllLossTest, AcceptsVarWithoutTheLastDimOrWithALastDimOfOne) {
  const Variable x(randn({4, 3})), y(randn({4, 3}));
  const Variable var(rand({4}) + 0.5);
  const Variable expanded(var.data().unsqueeze(1).expand({4, 3}));
  const Tensor expected = F::gaussian_nll_loss(x, y, expanded, false, 1e-6, "none").data();
  EXPECT_TRUE(testing::all_close(F::gaussian_nll_loss(x, y, var, false, 1e-6, "none").data(),
                                 expected, 0, 0));
  EXPECT_TRUE(testing::all_close(
      F::gaussian_nll_loss(x, y, var.unsqueeze(1), false, 1e-6, "none").data(), expected, 0, 0));
  // A 0-D var for 1-D input is input's sizes without the last dim too.
  const Variable v(randn({3}));
  EXPECT_EQ(F::gaussian_nll_loss(v, v, Variable(scalar_tensor(2.0)), false, 1e-6, "none").sizes(),
            IntArrayRef({3}));
}

TEST(GaussianNllLossTest, RejectsNegativeVar) {
  const Variable x(randn({3}));
  EXPECT_THROW_MSG(F::gaussian_nll_loss(x, x, Variable(from_vector<float>({1, -0.5f, 2}, {3}))),
                   "var has negative entry/entries");
}

// PyTorch's order of checks: var's size, the reduction, var's sign.
TEST(GaussianNllLossTest, ChecksVarSizeThenReductionThenSign) {
  const Variable x(randn({3}));
  const Variable negative(-ones({3})), short_var(ones({2}));
  EXPECT_THROW_MSG(F::gaussian_nll_loss(x, x, short_var, false, 1e-6, "bad"),
                   "var is of incorrect size");
  EXPECT_THROW_MSG(F::gaussian_nll_loss(x, x, negative, false, 1e-6, "bad"), "bad is not valid");
}

TEST(GaussianNllLossTest, ClampsVarAtEpsButPassesItsGradient) {
  const Variable x(from_vector<double>({1}, {1})), y(from_vector<double>({0}, {1}));
  const Variable var(from_vector<double>({0.0}, {1}), true);
  const Variable loss = F::gaussian_nll_loss(x, y, var, false, 0.5, "sum");
  EXPECT_NEAR(loss.item<double>(), 0.5 * (std::log(0.5) + 2.0), 1e-15);
  loss.backward();
  // d/dvar of 0.5 * (log v + 1 / v) at the clamped v = 0.5: 0.5 * (2 - 4).
  EXPECT_NEAR(var.grad().item<double>(), -1.0, 1e-15);
}

TEST(GaussianNllLossTest, RejectsInputAndTargetThatDoNotBroadcast) {
  EXPECT_THROW_MSG(F::gaussian_nll_loss(Variable(randn({4, 3})), Variable(randn({5, 3})),
                                        Variable(rand({4, 3}))),
                   "The size of tensor a (4) must match the size of tensor b (5) at non-singleton "
                   "dimension 0");
}

}  // namespace
}  // namespace torchlet
