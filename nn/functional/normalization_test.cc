#include "nn/functional/normalization.h"

#include "autograd/autograd.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

namespace F = nn::functional;

TEST(LayerNormTest, RowsHaveZeroMeanAndUnitVariance) {
  const Variable y = F::layer_norm(Variable(randn({4, 6}) * 3.0 + 2.0), {6}, Variable(),
                                   Variable(), 0.0);
  EXPECT_TRUE(testing::all_close(y.data().mean({1}), zeros({4}), 0, 1e-5));
  EXPECT_TRUE(testing::all_close(y.data().var({1}, false), ones({4}), 0, 1e-4));
}

TEST(LayerNormTest, FusedBackwardMatchesTheCompositeFormula) {
  const Variable x(randn({3, 5}, TensorOptions(kFloat64)), true);
  const Variable w(randn({5}, TensorOptions(kFloat64)), true);
  const Variable b(randn({5}, TensorOptions(kFloat64)), true);
  const Variable seed(randn({3, 5}, TensorOptions(kFloat64)));
  const variable_list fused = autograd::grad({F::layer_norm(x, {5}, w, b)}, {x, w, b}, {seed});
  const Variable mean = x.mean({1}, true);
  const Variable composite =
      (x - mean) / (x.var({1}, false, true) + 1e-5).sqrt() * w + b;
  const variable_list expected = autograd::grad({composite}, {x, w, b}, {seed});
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(testing::all_close(fused[i].data(), expected[i].data(), 1e-10, 1e-12)) << i;
  }
}

TEST(LayerNormTest, RejectsAnEmptyNormalizedShape) {
  EXPECT_THROW_MSG(F::layer_norm(Variable(randn({3, 5})), {}),
                   "Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
                   "least one element, but got normalized_shape = []");
}

TEST(LayerNormTest, RejectsAnInputWhoseTrailingDimsDiffer) {
  EXPECT_THROW_MSG(F::layer_norm(Variable(randn({3, 5})), {4}),
                   "Given normalized_shape=[4], expected input with shape [*, 4], but got input "
                   "of size[3, 5]");
}

TEST(LayerNormTest, RejectsAWeightOfAnotherShape) {
  EXPECT_THROW_MSG(F::layer_norm(Variable(randn({3, 5})), {5}, Variable(ones({4}))),
                   "Expected weight to be of same shape as normalized_shape, but got weight of "
                   "shape [4] and normalized_shape = [5]");
}

TEST(LayerNormTest, RejectsABiasOfAnotherShape) {
  EXPECT_THROW_MSG(F::layer_norm(Variable(randn({3, 5})), {5}, Variable(), Variable(ones({4}))),
                   "Expected bias to be of same shape as normalized_shape, but got bias of shape "
                   "[4] and normalized_shape = [5]");
}

TEST(LayerNormTest, RejectsIntegerInput) {
  EXPECT_THROW_MSG(F::layer_norm(Variable(zeros({2, 3}, TensorOptions(kInt64))), {3}),
                   "layer_norm: expected a floating-point input, got int64");
}

}  // namespace
}  // namespace torchlet
