// Embedding's behaviours and errors; values and gradients against PyTorch
// are in golden_test.cc.
#include "nn/functional/embedding.h"

#include "autograd/autograd.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

namespace F = nn::functional;

Variable table() { return Variable(arange(12, TensorOptions(kFloat32)).view({4, 3}), true); }

TEST(EmbeddingTest, PicksRowsIntoIndicesShapePlusDim) {
  const Variable out = F::embedding(from_vector<int64_t>({3, 0, 3, 1}, {2, 2}), table());
  EXPECT_EQ(out.sizes(), IntArrayRef({2, 2, 3}));
  EXPECT_EQ(testing::values(out.data()[0][0]), (std::vector<double>{9, 10, 11}));
}

TEST(EmbeddingTest, AcceptsInt32Indices) {
  const Variable out = F::embedding(from_vector<int32_t>({2}, {1}), table());
  EXPECT_EQ(testing::values(out.data()), (std::vector<double>{6, 7, 8}));
}

TEST(EmbeddingTest, NegativePaddingIdxCountsFromTheEnd) {
  const Variable w = table();
  F::embedding(from_vector<int64_t>({3, 0}, {2}), w, -1).sum().backward();
  EXPECT_EQ(testing::values(w.grad().data()),
            (std::vector<double>{1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(EmbeddingTest, RepeatedIndicesSumTheirGradients) {
  const Variable w = table();
  F::embedding(from_vector<int64_t>({1, 1, 1}, {3}), w).sum().backward();
  EXPECT_EQ(testing::values(w.grad().data()[1]), (std::vector<double>{3, 3, 3}));
}

TEST(EmbeddingTest, MaxNormLeavesUnreferencedRowsAlone) {
  const Variable w(arange(12, TensorOptions(kFloat32)).view({4, 3}));
  F::embedding(from_vector<int64_t>({1}, {1}), w, std::nullopt, 1.0);
  EXPECT_EQ(testing::values(w.data()[2]), (std::vector<double>{6, 7, 8}));
  EXPECT_NEAR(w.data()[1].norm().item<double>(), 1.0, 1e-5);
}

TEST(EmbeddingTest, RejectsAnIndexPastTheEnd) {
  EXPECT_THROW_MSG(F::embedding(from_vector<int64_t>({0, 4}, {2}), table()),
                   "index out of range in self");
}

TEST(EmbeddingTest, RejectsANegativeIndex) {
  EXPECT_THROW_MSG(F::embedding(from_vector<int64_t>({-1}, {1}), table()),
                   "index out of range in self");
}

TEST(EmbeddingTest, RejectsFloatIndices) {
  EXPECT_THROW_MSG(F::embedding(from_vector<float>({0}, {1}), table()),
                   "Expected tensor for argument #1 'indices' to have one of the following scalar "
                   "types: Long, Int; but got torch.FloatTensor instead (while checking arguments "
                   "for embedding)");
}

TEST(EmbeddingTest, RejectsAPaddingIdxOutsideTheTable) {
  EXPECT_THROW_MSG(F::embedding(from_vector<int64_t>({0}, {1}), table(), 4),
                   "Padding_idx must be within num_embeddings");
  EXPECT_THROW_MSG(F::embedding(from_vector<int64_t>({0}, {1}), table(), -5),
                   "Padding_idx must be within num_embeddings");
}

TEST(EmbeddingTest, RejectsA1DWeight) {
  EXPECT_THROW_MSG(F::embedding(from_vector<int64_t>({0}, {1}), Variable(ones({4}))),
                   "'weight' must be 2-D");
}

TEST(EmbeddingTest, MaxNormRejectsANonContiguousWeight) {
  const Variable w(arange(12, TensorOptions(kFloat32)).view({3, 4}).t());
  EXPECT_THROW_MSG(F::embedding(from_vector<int64_t>({1}, {1}), w, std::nullopt, 1.0),
                   "embedding_renorm_: weight must be contiguous");
}

}  // namespace
}  // namespace torchlet
