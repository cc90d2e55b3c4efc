// CosineSimilarity and PairwiseDistance against PyTorch 1.13
// (nn/testdata/modules_golden.txt, tools/gen_nn_modules_golden.py).
#include "nn/distance.h"

#include <string>

#include "gtest/gtest.h"
#include "nn/functional/distance.h"
#include "nn/module_golden.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

using testing::ModuleCase;
using testing::printed;
using testing::pytorch_repr;

// The first case has a zero row in x1, where the norm clamps at eps.
TEST(CosineSimilarityModuleTest, OutputsAndGradientsMatchPyTorch) {
  ModuleCase plain("cosine_similarity");
  const Variable x1 = plain.leaf("x1"), x2 = plain.leaf("x2");
  CosineSimilarity layer;
  plain.check(layer(x1, x2));
  EXPECT_EQ(printed(*layer), pytorch_repr("cosine_similarity"));
  ModuleCase dim0("cosine_similarity_dim0");
  const Variable y1 = dim0.leaf("x1"), y2 = dim0.leaf("x2");
  CosineSimilarity layer0(CosineSimilarityOptions().dim(0).eps(1e-3));
  dim0.check(layer0(y1, y2));
  EXPECT_EQ(printed(*layer0), pytorch_repr("cosine_similarity_dim0"));
}

TEST(PairwiseDistanceModuleTest, OutputsAndGradientsMatchPyTorch) {
  ModuleCase plain("pairwise_distance");
  const Variable x1 = plain.leaf("x1"), x2 = plain.leaf("x2");
  PairwiseDistance layer;
  plain.check(layer(x1, x2));
  EXPECT_EQ(printed(*layer), pytorch_repr("pairwise_distance"));
  ModuleCase p1("pairwise_distance_p1");
  const Variable y1 = p1.leaf("x1"), y2 = p1.leaf("x2");
  PairwiseDistance layer1(PairwiseDistanceOptions(1.0).eps(1e-3).keepdim(true));
  p1.check(layer1(y1, y2));
  EXPECT_EQ(printed(*layer1), pytorch_repr("pairwise_distance_p1"));
}

TEST(DistanceModuleTest, DefaultsAndReprsAreTorchs) {
  CosineSimilarity cos;
  EXPECT_EQ(cos->options.dim(), 1);
  EXPECT_EQ(cos->options.eps(), 1e-8);
  EXPECT_EQ(printed(*cos), pytorch_repr("cosine_similarity_default"));
  PairwiseDistance pd;
  EXPECT_EQ(pd->options.p(), 2.0);
  EXPECT_EQ(pd->options.eps(), 1e-6);
  EXPECT_FALSE(pd->options.keepdim());
  EXPECT_EQ(printed(*pd), pytorch_repr("pairwise_distance_default"));
  EXPECT_EQ(printed(*pd->clone()), "PairwiseDistance()");
}

TEST(DistanceModuleTest, ModuleAndFunctionalGiveIdenticalResults) {
  manual_seed(0);
  const Variable a(randn({3, 4})), b(randn({3, 4}));
  EXPECT_EQ(testing::values(CosineSimilarity(CosineSimilarityOptions().dim(0))(a, b).data()),
            testing::values(functional::cosine_similarity(a, b, 0).data()));
  EXPECT_EQ(testing::values(PairwiseDistance(3.0)(a, b).data()),
            testing::values(functional::pairwise_distance(a, b, 3.0).data()));
}

}  // namespace
}  // namespace torchlet::nn
