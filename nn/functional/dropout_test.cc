#include "nn/functional/dropout.h"

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "tensor/test_util.h"
#include "tensor/warning.h"

namespace torchlet {
namespace {

namespace F = nn::functional;

TEST(DropoutTest, EvalReturnsTheInputItself) {
  const Variable x(ones({4, 5}));
  EXPECT_TRUE(F::dropout(x, 0.5, /*training=*/false).is_same(x));
}

TEST(DropoutTest, TrainingZeroesOrScalesEachElementByOneOverKeep) {
  manual_seed(0);
  const Variable y = F::dropout(Variable(ones({100, 100})), 0.25);
  int64_t zeros_seen = 0;
  for (double v : testing::values(y.data())) {
    EXPECT_TRUE(v == 0 || std::abs(v - 1 / 0.75) < 1e-6) << v;
    zeros_seen += v == 0;
  }
  EXPECT_NEAR(static_cast<double>(zeros_seen) / 10000, 0.25, 0.03);
}

TEST(DropoutTest, SameSeedGivesTheSameMask) {
  manual_seed(7);
  const Tensor a = F::dropout(Variable(ones({50})), 0.5).data();
  manual_seed(7);
  const Tensor b = F::dropout(Variable(ones({50})), 0.5).data();
  EXPECT_EQ(testing::values(a), testing::values(b));
}

TEST(DropoutTest, GradientIsTheMask) {
  manual_seed(1);
  const Variable x(ones({30}), true);
  const Variable y = F::dropout(x, 0.4);
  y.sum().backward();
  EXPECT_EQ(testing::values(x.grad().data()), testing::values(y.data()));
}

TEST(DropoutTest, ProbabilityOneZeroesEverything) {
  EXPECT_EQ(F::dropout(Variable(ones({8})), 1.0).data().abs().sum().item<double>(), 0);
}

TEST(DropoutTest, InplaceWritesIntoTheInput) {
  manual_seed(3);
  Variable x(ones({40}));
  const Variable y = F::dropout(x, 0.5, true, /*inplace=*/true);
  EXPECT_TRUE(y.is_same(x));
  EXPECT_LT(x.data().sum().item<double>(), 80);
  EXPECT_GT(x.data().eq(0).sum().item<int64_t>(), 0);
}

TEST(DropoutTest, RejectsAProbabilityAboveOne) {
  EXPECT_THROW_MSG(F::dropout(Variable(ones({2})), 1.5),
                   "dropout probability has to be between 0 and 1, but got 1.5");
}

TEST(DropoutTest, RejectsANegativeProbability) {
  EXPECT_THROW_MSG(F::dropout(Variable(ones({2})), -0.1),
                   "dropout probability has to be between 0 and 1, but got -0.1");
}

// ---- Channel dropout ---------------------------------------------------------

// The distinct values of each [n, c] slice of a [N, C, ...] tensor.
std::vector<std::set<double>> channel_values(const Tensor& t) {
  const Tensor rows = t.reshape({t.size(0) * t.size(1), -1});
  std::vector<std::set<double>> out;
  for (int64_t r = 0; r < rows.size(0); ++r) {
    const std::vector<double> v = testing::values(rows.select(0, r));
    out.emplace_back(v.begin(), v.end());
  }
  return out;
}

// Each channel holds exactly one of `dropped` and `kept`; both occur.
void expect_whole_channels(const Tensor& t, double dropped, double kept) {
  bool saw_dropped = false, saw_kept = false;
  for (const std::set<double>& values : channel_values(t)) {
    ASSERT_EQ(values.size(), 1u);
    const double v = *values.begin();
    EXPECT_TRUE(std::abs(v - dropped) < 1e-6 || std::abs(v - kept) < 1e-6) << v;
    saw_dropped = saw_dropped || std::abs(v - dropped) < 1e-6;
    saw_kept = saw_kept || std::abs(v - kept) < 1e-6;
  }
  EXPECT_TRUE(saw_dropped);
  EXPECT_TRUE(saw_kept);
}

TEST(Dropout2dTest, ZeroesWholeChannelsAndScalesTheRest) {
  manual_seed(0);
  testing::WarningCapture warnings;
  const Variable y = F::dropout2d(Variable(ones({4, 8, 3, 3})), 0.5);
  expect_whole_channels(y.data(), 0.0, 2.0);
  EXPECT_TRUE(warnings.messages().empty());
}

TEST(Dropout2dTest, GradientIsTheChannelMask) {
  manual_seed(1);
  const Variable x(ones({3, 5, 2, 2}), true);
  const Variable y = F::dropout2d(x, 0.4);
  y.sum().backward();
  EXPECT_EQ(testing::values(x.grad().data()), testing::values(y.data()));
}

TEST(Dropout2dTest, EvalReturnsTheInputItself) {
  const Variable x(ones({2, 3, 4, 4}));
  EXPECT_TRUE(F::dropout2d(x, 0.5, false).is_same(x));
}

TEST(Dropout2dTest, ThreeDimensionalInputIsReadAsNclWithAWarning) {
  manual_seed(2);
  testing::WarningCapture warnings;
  const Variable y = F::dropout2d(Variable(ones({6, 8, 5})), 0.5);
  expect_whole_channels(y.data(), 0.0, 2.0);
  ASSERT_EQ(warnings.messages().size(), 1u);
  EXPECT_EQ(warnings.messages()[0],
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.");
}

TEST(Dropout2dTest, OtherRanksWarnThatTheyAreDeprecated) {
  testing::WarningCapture warnings;
  F::dropout2d(Variable(ones({2, 3})), 0.5);
  F::dropout2d(Variable(ones({2, 3, 1, 1, 2})), 0.5, false);
  ASSERT_EQ(warnings.messages().size(), 2u);
  EXPECT_EQ(warnings.messages()[0],
            "dropout2d: Received a 2-D input to dropout2d, which is deprecated and will result "
            "in an error in a future release. To retain the behavior and silence this warning, "
            "please use dropout instead. Note that dropout2d exists to provide channel-wise "
            "dropout on inputs with 2 spatial dimensions, a channel dimension, and an optional "
            "batch dimension (i.e. 3D or 4D inputs).");
  EXPECT_NE(warnings.messages()[1].find("Received a 5-D input to dropout2d"), std::string::npos);
}

TEST(Dropout2dTest, OneDimensionalInputIsAnError) {
  testing::WarningCapture warnings;
  EXPECT_THROW_MSG(F::dropout2d(Variable(ones({4})), 0.5),
                   "Feature dropout requires at least 2 dimensions in the input");
}

TEST(Dropout2dTest, RejectsAProbabilityOutsideZeroToOne) {
  EXPECT_THROW_MSG(F::dropout2d(Variable(ones({2, 3, 4, 4})), 1.5),
                   "dropout probability has to be between 0 and 1, but got 1.5");
}

TEST(Dropout1dTest, ZeroesWholeChannelsOfBatchedInputWithoutWarnings) {
  manual_seed(11);
  testing::WarningCapture warnings;
  const Variable y = F::dropout1d(Variable(ones({6, 8, 5})), 0.5);
  expect_whole_channels(y.data(), 0.0, 2.0);
  EXPECT_TRUE(warnings.messages().empty());
}

TEST(Dropout1dTest, UnbatchedInputDropsWholeRows) {
  manual_seed(12);
  const Variable y = F::dropout1d(Variable(ones({16, 5})), 0.25);
  EXPECT_EQ(y.sizes(), IntArrayRef({16, 5}));
  expect_whole_channels(y.data().unsqueeze(0), 0.0, 1 / 0.75);
}

TEST(Dropout1dTest, InplaceUnbatchedWritesTheInput) {
  manual_seed(13);
  Variable x(ones({16, 4}));
  const Variable y = F::dropout1d(x, 0.5, true, /*inplace=*/true);
  EXPECT_EQ(x.sizes(), IntArrayRef({16, 4}));
  EXPECT_EQ(testing::values(x.data()), testing::values(y.data()));
  expect_whole_channels(x.data().unsqueeze(0), 0.0, 2.0);
}

TEST(Dropout1dTest, GradientIsTheChannelMask) {
  manual_seed(14);
  const Variable x(ones({3, 5, 4}), true);
  const Variable y = F::dropout1d(x, 0.4);
  y.sum().backward();
  EXPECT_EQ(testing::values(x.grad().data()), testing::values(y.data()));
}

TEST(Dropout1dTest, EvalIsTheIdentity) {
  const Variable x(randn({2, 3, 4}));
  EXPECT_TRUE(F::dropout1d(x, 0.5, false).is_same(x));
  const Variable unbatched(randn({3, 4}));
  EXPECT_EQ(testing::values(F::dropout1d(unbatched, 0.5, false).data()),
            testing::values(unbatched.data()));
}

TEST(Dropout1dTest, OtherRanksAreTorchsError) {
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{4}, {2, 3, 4, 5}}) {
    EXPECT_THROW_MSG(F::dropout1d(Variable(ones(shape)), 0.5),
                     "dropout1d: Expected 2D or 3D input, but received a " +
                         std::to_string(shape.size()) +
                         "D input. Note that dropout1d exists to provide channel-wise dropout on "
                         "inputs with 1 spatial dimension, a channel dimension, and an optional "
                         "batch dimension (i.e. 2D or 3D inputs).");
  }
  // Also out of training, as PyTorch checks the rank first.
  EXPECT_THROW_MSG(F::dropout1d(Variable(ones({4})), 0.5, false),
                   "dropout1d: Expected 2D or 3D input, but received a 1D input.");
}

TEST(Dropout1dTest, ProbabilityIsCheckedBeforeTheRank) {
  EXPECT_THROW_MSG(F::dropout1d(Variable(ones({4})), 1.5),
                   "dropout probability has to be between 0 and 1, but got 1.5");
}

TEST(Dropout3dTest, ZeroesWholeChannelsOfBatchedInput) {
  manual_seed(3);
  testing::WarningCapture warnings;
  const Variable y = F::dropout3d(Variable(ones({3, 6, 2, 2, 2})), 0.25);
  expect_whole_channels(y.data(), 0.0, 1 / 0.75);
  EXPECT_TRUE(warnings.messages().empty());
}

TEST(Dropout3dTest, GradientIsTheChannelMaskScaledByOneOverKeep) {
  manual_seed(10);
  const Variable x(ones({3, 5, 2, 2, 2}), true);
  const Variable y = F::dropout3d(x, 0.4);
  y.sum().backward();
  expect_whole_channels(x.grad().data(), 0.0, 1 / 0.6);
  EXPECT_EQ(testing::values(x.grad().data()), testing::values(y.data()));
}

TEST(Dropout3dTest, UnbatchedInputDropsWholeChannels) {
  manual_seed(4);
  testing::WarningCapture warnings;
  const Variable y = F::dropout3d(Variable(ones({12, 2, 2, 3})), 0.5);
  EXPECT_EQ(shape_str(y.sizes()), "[12, 2, 2, 3]");
  expect_whole_channels(y.data().unsqueeze(0), 0.0, 2.0);
  EXPECT_TRUE(warnings.messages().empty());
}

TEST(Dropout3dTest, InplaceOnUnbatchedInputWritesTheInput) {
  manual_seed(5);
  Variable x(ones({8, 2, 2, 2}));
  F::dropout3d(x, 0.5, true, /*inplace=*/true);
  expect_whole_channels(x.data().unsqueeze(0), 0.0, 2.0);
}

TEST(Dropout3dTest, OtherRanksWarnThatTheyAreDeprecated) {
  testing::WarningCapture warnings;
  F::dropout3d(Variable(ones({3, 4})), 0.5);
  ASSERT_EQ(warnings.messages().size(), 1u);
  EXPECT_EQ(warnings.messages()[0],
            "dropout3d: Received a 2-D input to dropout3d, which is deprecated and will result "
            "in an error in a future release. To retain the behavior and silence this warning, "
            "please use dropout instead. Note that dropout3d exists to provide channel-wise "
            "dropout on inputs with 3 spatial dimensions, a channel dimension, and an optional "
            "batch dimension (i.e. 4D or 5D inputs).");
}

// ---- Alpha dropout -------------------------------------------------------------

constexpr double kSeluAlpha = 1.7580993408473766;

// PyTorch's affine constants for probability p: kept x -> a * x + b_keep,
// dropped -> b_drop.
struct AlphaAffine {
  double a, b_keep, b_drop;
};
AlphaAffine alpha_affine(double p) {
  const double a = 1 / std::sqrt((kSeluAlpha * kSeluAlpha * p + 1) * (1 - p));
  return {a, kSeluAlpha * a * p, kSeluAlpha * a * (p - 1)};
}

TEST(AlphaDropoutTest, KeptAndDroppedValuesFollowPyTorchsAffineMap) {
  manual_seed(6);
  const AlphaAffine c = alpha_affine(0.2);
  const Variable y = F::alpha_dropout(Variable(ones({400})), 0.2, true);
  int64_t dropped = 0;
  for (double v : testing::values(y.data())) {
    const bool kept = std::abs(v - (c.a + c.b_keep)) < 1e-5;
    EXPECT_TRUE(kept || std::abs(v - c.b_drop) < 1e-5) << v;
    dropped += kept ? 0 : 1;
  }
  EXPECT_NEAR(static_cast<double>(dropped) / 400, 0.2, 0.06);
}

TEST(AlphaDropoutTest, KeepsZeroMeanAndUnitVarianceOfStandardInput) {
  manual_seed(7);
  const Tensor y = F::alpha_dropout(Variable(randn({200, 200}, kFloat64)), 0.3, true).data();
  EXPECT_NEAR(y.mean().item<double>(), 0.0, 0.03);
  EXPECT_NEAR(y.var().item<double>(), 1.0, 0.05);
}

TEST(AlphaDropoutTest, GradientIsTheScaledMask) {
  manual_seed(8);
  const AlphaAffine c = alpha_affine(0.5);
  const Variable x(ones({50}), true);
  const Variable y = F::alpha_dropout(x, 0.5, true);
  y.sum().backward();
  const std::vector<double> g = testing::values(x.grad().data()), out = testing::values(y.data());
  for (size_t i = 0; i < g.size(); ++i) {
    EXPECT_NEAR(g[i], std::abs(out[i] - c.b_drop) < 1e-5 ? 0.0 : c.a, 1e-5);
  }
}

TEST(AlphaDropoutTest, IsTheIdentityOutOfTrainingByDefault) {
  const Variable x(ones({3}));
  EXPECT_TRUE(F::alpha_dropout(x, 0.5).is_same(x));
  EXPECT_TRUE(F::feature_alpha_dropout(x, 0.5).is_same(x));
}

TEST(AlphaDropoutTest, ProbabilityOneGivesZeros) {
  EXPECT_EQ(F::alpha_dropout(Variable(ones({6})), 1.0, true).data().abs().sum().item<double>(), 0);
}

TEST(AlphaDropoutTest, RejectsAProbabilityOutsideZeroToOne) {
  EXPECT_THROW_MSG(F::alpha_dropout(Variable(ones({2})), 1.5),
                   "dropout probability has to be between 0 and 1, but got 1.5");
  EXPECT_THROW_MSG(F::feature_alpha_dropout(Variable(ones({2, 3})), -0.5),
                   "dropout probability has to be between 0 and 1, but got -0.5");
}

TEST(FeatureAlphaDropoutTest, DropsWholeChannels) {
  manual_seed(9);
  const AlphaAffine c = alpha_affine(0.5);
  const Variable y = F::feature_alpha_dropout(Variable(ones({4, 6, 3})), 0.5, true);
  expect_whole_channels(y.data(), c.b_drop, c.a + c.b_keep);
}

TEST(FeatureAlphaDropoutTest, OneDimensionalInputIsAnError) {
  EXPECT_THROW_MSG(F::feature_alpha_dropout(Variable(ones({4})), 0.5, true),
                   "Feature dropout requires at least 2 dimensions in the input");
}

}  // namespace
}  // namespace torchlet
