#include "nn/layer_norm.h"

#include <vector>

#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/functional/normalization.h"
#include "nn/module_golden.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

using testing::ModuleCase;
using testing::printed;
using testing::pytorch_repr;

TEST(LayerNormTest, AffineOutputAndGradientsMatchPyTorch) {
  ModuleCase golden("layer_norm");
  LayerNorm layer(LayerNormOptions({3, 4}));
  layer->to(kFloat64);
  golden.bind("weight", layer->weight);
  golden.bind("bias", layer->bias);
  golden.check(layer(golden.leaf("x")));
}

TEST(LayerNormTest, WithoutAffineMatchesPyTorchAndHasNoParameters) {
  ModuleCase golden("layer_norm_plain");
  LayerNorm layer(LayerNormOptions({4}).eps(1e-3).elementwise_affine(false));
  EXPECT_TRUE(layer->parameters().empty());
  golden.check(layer(golden.leaf("x")));
}

TEST(LayerNormTest, ReprsMatchPyTorch) {
  EXPECT_EQ(printed(*LayerNorm(LayerNormOptions({4}))), pytorch_repr("layer_norm_default"));
  EXPECT_EQ(printed(*LayerNorm(LayerNormOptions({2, 3}).eps(1e-3).elementwise_affine(false))),
            pytorch_repr("layer_norm_2d"));
}

TEST(LayerNormTest, StartsWithUnitWeightAndZeroBias) {
  LayerNorm layer(LayerNormOptions({2, 3}));
  EXPECT_EQ(testing::values(layer->weight.data()), std::vector<double>(6, 1.0));
  EXPECT_EQ(testing::values(layer->bias.data()), std::vector<double>(6, 0.0));
  EXPECT_EQ(layer->weight.sizes(), IntArrayRef({2, 3}));
}

TEST(LayerNormTest, ModuleAndFunctionalGiveIdenticalResults) {
  LayerNorm layer(LayerNormOptions({5}).eps(1e-4));
  layer->weight.set_data(randn({5}));
  layer->bias.set_data(randn({5}));
  const Variable x(randn({3, 5}));
  EXPECT_EQ(testing::values(layer(x).data()),
            testing::values(
                functional::layer_norm(x, {5}, layer->weight, layer->bias, 1e-4).data()));
}

TEST(LayerNormTest, PassesGradcheckInInputWeightAndBias) {
  LayerNorm layer(LayerNormOptions({2, 3}));
  EXPECT_TRUE(testing::gradcheck(
      [&](const variable_list& in) {
        layer->weight = Parameter(in[1]);
        layer->bias = Parameter(in[2]);
        return layer->forward(in[0]);
      },
      {Variable(randn({4, 2, 3}, kFloat64), true), Variable(randn({2, 3}, kFloat64), true),
       Variable(randn({2, 3}, kFloat64), true)}));
}

TEST(LayerNormTest, InputOfAnotherTrailingShapeIsRefusedAsPyTorch) {
  LayerNorm layer(LayerNormOptions({4}));
  EXPECT_THROW_MSG(layer(Variable(zeros({2, 3}))),
                   "Given normalized_shape=[4], expected input with shape [*, 4], but got input "
                   "of size[2, 3]");
}

}  // namespace
}  // namespace torchlet::nn
