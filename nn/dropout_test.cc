// The dropout layers: reprs, training versus eval, and their options.
#include <string>

#include "gtest/gtest.h"
#include "nn/module_golden.h"
#include "nn/nn.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

using testing::printed;

TEST(DropoutModuleTest, ReprsMatchPyTorch) {
  EXPECT_EQ(printed(Dropout()), "Dropout(p=0.5, inplace=False)");
  EXPECT_EQ(printed(Dropout2d(DropoutOptions(0.2).inplace(true))),
            "Dropout2d(p=0.2, inplace=True)");
  EXPECT_EQ(printed(Dropout3d()), "Dropout3d(p=0.5, inplace=False)");
  EXPECT_EQ(printed(Dropout1d()), testing::pytorch_repr("dropout1d_default"));
  EXPECT_EQ(printed(Dropout1d(DropoutOptions(0.2).inplace(true))),
            testing::pytorch_repr("dropout1d_inplace"));
  EXPECT_EQ(printed(AlphaDropout(0.1)), "AlphaDropout(p=0.1, inplace=False)");
  EXPECT_EQ(printed(FeatureAlphaDropout()), "FeatureAlphaDropout(p=0.5, inplace=False)");
}

TEST(DropoutModuleTest, EvalModeIsTheIdentity) {
  const Variable x(randn({2, 3, 4, 4}));
  Dropout d;
  Dropout2d d2;
  Dropout3d d3;
  AlphaDropout a;
  FeatureAlphaDropout fa;
  d->eval();
  d2->eval();
  d3->eval();
  a->eval();
  fa->eval();
  EXPECT_TRUE(d(x).is_same(x));
  EXPECT_TRUE(d2(x).is_same(x));
  EXPECT_TRUE(a(x).is_same(x));
  EXPECT_TRUE(fa(x).is_same(x));
  EXPECT_TRUE(testing::all_close(d3(x).data(), x.data()));
}

TEST(DropoutModuleTest, TrainingModeDrops) {
  manual_seed(0);
  const Variable x(ones({4, 8, 2, 2}));
  EXPECT_GT(Dropout()(x).data().eq(0).sum().item<int64_t>(), 0);
  EXPECT_GT(Dropout2d()(x).data().eq(0).sum().item<int64_t>(), 0);
  EXPECT_GT(Dropout3d()(x).data().eq(0).sum().item<int64_t>(), 0);
  EXPECT_FALSE(testing::all_close(AlphaDropout()(x).data(), x.data()));
  EXPECT_FALSE(testing::all_close(FeatureAlphaDropout()(x).data(), x.data()));
}

TEST(DropoutModuleTest, InplaceOptionWritesTheInput) {
  manual_seed(1);
  Variable x(ones({20}));
  Dropout d(DropoutOptions(0.5).inplace(true));
  EXPECT_TRUE(d(x).is_same(x));
  EXPECT_GT(x.data().eq(0).sum().item<int64_t>(), 0);
}

TEST(DropoutModuleTest, ProbabilityOutsideZeroToOneIsAnError) {
  EXPECT_THROW_MSG(Dropout(1.5), "dropout probability has to be between 0 and 1, but got 1.5");
  EXPECT_THROW_MSG(AlphaDropout(-0.5),
                   "dropout probability has to be between 0 and 1, but got -0.5");
}

TEST(DropoutModuleTest, Dropout1dDropsChannelsInTrainingOnly) {
  manual_seed(5);
  const Variable x(ones({4, 8, 3}));
  Dropout1d d;
  const Tensor y = d(x).data();
  EXPECT_GT(y.eq(0).sum().item<int64_t>(), 0);
  // Whole channels: each [n, c] row is all zero or all 2.
  EXPECT_TRUE(y.amax({2}).eq(y.amin({2})).all().item<bool>());
  d->eval();
  EXPECT_TRUE(d(x).is_same(x));
  EXPECT_THROW_MSG(d(Variable(ones({2, 3, 4, 5}))),
                   "dropout1d: Expected 2D or 3D input, but received a 4D input.");
}

TEST(DropoutModuleTest, HasNoParametersNorBuffers) {
  Dropout2d d;
  EXPECT_TRUE(d->parameters().empty());
  EXPECT_TRUE(d->buffers().empty());
}

}  // namespace
}  // namespace torchlet::nn
