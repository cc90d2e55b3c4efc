// normalize, cosine_similarity and pairwise_distance against PyTorch 1.13
// (nn/functional/testdata/functional_golden.txt, written by
// tools/gen_functional_golden.py), against finite differences, and their
// errors.
#include "nn/functional/distance.h"

#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/golden_case.h"
#include "autograd/gradcheck.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

namespace F = nn::functional;

testing::GoldenCase golden(const std::string& name) {
  return testing::GoldenCase(
      testing::golden_file("nn/functional/testdata/functional_golden.txt"), name, kFloat32,
      {1e-4, 1e-5});
}

TEST(DistanceGoldenTest, Normalize) {
  testing::GoldenCase plain = golden("normalize");
  plain.check(F::normalize(plain.leaf("x")));
  testing::GoldenCase p1 = golden("normalize_p1_dim0");
  p1.check(F::normalize(p1.leaf("x"), 1.0, 0));
  testing::GoldenCase p3 = golden("normalize_p3_eps");
  p3.check(F::normalize(p3.leaf("x"), 3.0, -1, 0.8));
}

// The first case has a zero row and a tiny one, where the norms clamp.
TEST(DistanceGoldenTest, CosineSimilarity) {
  testing::GoldenCase plain = golden("cosine_similarity");
  const Variable x1 = plain.leaf("x1"), x2 = plain.leaf("x2");
  plain.check(F::cosine_similarity(x1, x2));
  testing::GoldenCase broadcast = golden("cosine_similarity_broadcast_eps");
  const Variable b1 = broadcast.leaf("x1"), b2 = broadcast.leaf("x2");
  broadcast.check(F::cosine_similarity(b1, b2, -1, 0.5));
  testing::GoldenCase vec = golden("cosine_similarity_1d");
  const Variable v1 = vec.leaf("x1"), v2 = vec.leaf("x2");
  vec.check(F::cosine_similarity(v1, v2, 0));
}

TEST(DistanceGoldenTest, PairwiseDistance) {
  testing::GoldenCase plain = golden("pairwise_distance");
  const Variable x1 = plain.leaf("x1"), x2 = plain.leaf("x2");
  plain.check(F::pairwise_distance(x1, x2));
  testing::GoldenCase p1 = golden("pairwise_distance_p1_keepdim");
  const Variable a1 = p1.leaf("x1"), a2 = p1.leaf("x2");
  p1.check(F::pairwise_distance(a1, a2, 1.0, 1e-3, true));
  testing::GoldenCase p3 = golden("pairwise_distance_p3_1d");
  const Variable c1 = p3.leaf("x1"), c2 = p3.leaf("x2");
  p3.check(F::pairwise_distance(c1, c2, 3.0));
}

Variable leaf(std::vector<double> values, std::vector<int64_t> shape) {
  return Variable(from_vector(values, shape), true);
}

TEST(DistanceGradcheckTest, AllThreePassGradcheck) {
  const Variable a = leaf({0.3, -1.2, 0.8, 2.1, -0.4, 1.5, -0.9, 0.2, 1.1, -1.7, 0.6, 0.05}, {3, 4});
  const Variable b = leaf({-0.7, 0.4, 1.3, -0.2, 0.9, -1.1, 0.35, 1.8, -0.6, 0.15, -1.4, 0.75}, {3, 4});
  const Variable row = leaf({0.5, -0.25, 1.5, 0.8}, {4});
  EXPECT_TRUE(testing::gradcheck([](const variable_list& x) { return F::normalize(x[0]); }, {a}));
  EXPECT_TRUE(testing::gradcheck(
      [](const variable_list& x) { return F::normalize(x[0], 1.0, 0); }, {a}));
  EXPECT_TRUE(testing::gradcheck(
      [](const variable_list& x) { return F::normalize(x[0], 3.0, -1, 2.5); }, {a}));
  EXPECT_TRUE(testing::gradcheck(
      [](const variable_list& x) { return F::cosine_similarity(x[0], x[1]); }, {a, b}));
  EXPECT_TRUE(testing::gradcheck(
      [](const variable_list& x) { return F::cosine_similarity(x[0], x[1], 0); }, {a, b}));
  EXPECT_TRUE(testing::gradcheck(
      [](const variable_list& x) { return F::cosine_similarity(x[0], x[1], -1); }, {a, row}));
  EXPECT_TRUE(testing::gradcheck(
      [](const variable_list& x) { return F::pairwise_distance(x[0], x[1]); }, {a, b}));
  EXPECT_TRUE(testing::gradcheck(
      [](const variable_list& x) { return F::pairwise_distance(x[0], x[1], 1.0, 1e-6, true); },
      {a, b}));
  EXPECT_TRUE(testing::gradcheck(
      [](const variable_list& x) { return F::pairwise_distance(x[0], x[1], 3.0); }, {a, row}));
}

// PyTorch 1.13 clamps each squared norm at eps * eps outside autograd: the
// gradient is x2 / (eps * |x2|) for a zero x1 (from Python).
TEST(CosineSimilarityTest, ZeroVectorGivesZeroAndTorchsGradient) {
  const Variable x1 = leaf({0, 0, 0}, {1, 3});
  const Variable x2 = leaf({3, 0, 4}, {1, 3});
  const Variable y = F::cosine_similarity(x1, x2, 1, 0.01);
  EXPECT_EQ(testing::values(y.data()), (std::vector<double>{0}));
  y.sum().backward();
  EXPECT_TRUE(testing::all_close(x1.grad().data(), from_vector<double>({60, 0, 80}, {1, 3})));
  EXPECT_EQ(testing::values(x2.grad().data()), (std::vector<double>{0, 0, 0}));
}

// A vector shorter than eps: its norm is eps in value, while the gradient
// goes through the real norm (PyTorch's result, from Python).
TEST(CosineSimilarityTest, TinyVectorIsClampedInValueOnly) {
  const Variable x1 = leaf({0.003, 0.004}, {1, 2});
  const Variable x2 = leaf({1, 0}, {1, 2});
  const Variable y = F::cosine_similarity(x1, x2, 1, 0.01);
  EXPECT_TRUE(testing::all_close(y.data(), from_vector<double>({0.3}, {1})));
  y.sum().backward();
  EXPECT_TRUE(testing::all_close(x1.grad().data(), from_vector<double>({91.0, -12.0}, {1, 2})));
}

TEST(CosineSimilarityTest, PromotesAndBroadcasts) {
  const Variable a(randn({2, 3}, kFloat64)), b(randn({3}));
  const Variable y = F::cosine_similarity(a, b);
  EXPECT_EQ(y.dtype(), kFloat64);
  EXPECT_EQ(y.sizes(), IntArrayRef({2}));
  EXPECT_EQ(F::cosine_similarity(Variable(randn({3})), Variable(randn({3})), 0).dim(), 0);
}

TEST(CosineSimilarityTest, ErrorsAreTorchs) {
  const Variable longs(arange(6).reshape({2, 3}));
  EXPECT_THROW_MSG(F::cosine_similarity(longs, longs),
                   "expected common dtype to be floating point, yet common dtype is Long");
  EXPECT_THROW_MSG(F::cosine_similarity(Variable(randn({2, 3})), Variable(randn({3, 3}))),
                   "The size of tensor a (2) must match the size of tensor b (3) at "
                   "non-singleton dimension 0");
  EXPECT_THROW_MSG(F::cosine_similarity(Variable(randn({2, 3})), Variable(randn({2, 3})), 2),
                   "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST(NormalizeTest, ZeroRowStaysZeroAndUnitRowsHaveNormOne) {
  const Variable x(from_vector<double>({3, 4, 0, 0}, {2, 2}));
  EXPECT_EQ(testing::values(F::normalize(x).data()), (std::vector<double>{0.6, 0.8, 0, 0}));
  EXPECT_EQ(testing::values(F::normalize(Variable(scalar_tensor(-2.0)), 2.0, 0).data()),
            (std::vector<double>{-1}));
}

TEST(NormalizeTest, DimOutOfRangeIsTorchs) {
  EXPECT_THROW_MSG(F::normalize(Variable(randn({2, 3})), 2.0, 2),
                   "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST(PairwiseDistanceTest, ShapesAsPyTorch) {
  EXPECT_EQ(F::pairwise_distance(Variable(randn({2, 3})), Variable(randn({3}))).sizes(),
            IntArrayRef({2}));
  EXPECT_EQ(F::pairwise_distance(Variable(randn({3})), Variable(randn({3}))).dim(), 0);
  EXPECT_EQ(F::pairwise_distance(Variable(randn({3})), Variable(randn({3})), 2, 1e-6, true).sizes(),
            IntArrayRef({1}));
  const Variable d = F::pairwise_distance(Variable(scalar_tensor(1.0f)), Variable(scalar_tensor(3.0f)));
  EXPECT_NEAR(d.item<float>(), 2.0f, 1e-5);
  const Variable inf = F::pairwise_distance(Variable(ones({2, 3})), Variable(zeros({2, 3})),
                                            INFINITY);
  EXPECT_TRUE(testing::all_close(inf.data(), full({2}, 1.000001f)));
}

TEST(PairwiseDistanceTest, IntegerInputsGiveFloatDistances) {
  const Variable longs(arange(6).reshape({2, 3}));
  const Variable d = F::pairwise_distance(longs, longs);
  EXPECT_EQ(d.dtype(), kFloat32);
  EXPECT_TRUE(testing::all_close(d.data(), full({2}, 1.7321e-06f), 1e-4, 0));
}

TEST(PairwiseDistanceTest, MismatchedShapesAreTorchsError) {
  EXPECT_THROW_MSG(F::pairwise_distance(Variable(randn({2, 3})), Variable(randn({3, 3}))),
                   "The size of tensor a (2) must match the size of tensor b (3) at "
                   "non-singleton dimension 0");
}

}  // namespace
}  // namespace torchlet
