#include "nn/functional/dropout.h"

#include <cmath>

#include "autograd/autograd.h"
#include "tensor/test_util.h"

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

}  // namespace
}  // namespace torchlet
