#include "nn/embedding.h"

#include <cmath>
#include <string>
#include <vector>

#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/module_golden.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

using testing::ModuleCase;
using testing::printed;
using testing::pytorch_repr;

TEST(EmbeddingTest, LookupAndWeightGradientMatchPyTorch) {
  ModuleCase golden("embedding");
  Embedding layer(EmbeddingOptions(10, 3).padding_idx(0));
  layer->to(kFloat64);
  golden.bind("weight", layer->weight);
  golden.check(layer(golden.index("idx")));
}

TEST(EmbeddingTest, MaxNormRenormalizesTheRowsLookedUpAsPyTorch) {
  ModuleCase golden("embedding_max_norm");
  Embedding layer(EmbeddingOptions(6, 3).max_norm(1.0));
  layer->to(kFloat64);
  layer->weight.set_data(golden.constant("weight"));
  const Variable out = layer(golden.index("idx"));
  EXPECT_TRUE(testing::all_close(out.data(), golden.stored("out"), 1e-10, 1e-12));
  EXPECT_TRUE(testing::all_close(layer->weight.data(), golden.stored("weight_after"), 1e-10, 1e-12));
}

TEST(EmbeddingTest, ReprsMatchPyTorch) {
  EXPECT_EQ(printed(*Embedding(10, 3)), pytorch_repr("embedding_default"));
  EXPECT_EQ(printed(*Embedding(EmbeddingOptions(10, 3).padding_idx(0))),
            pytorch_repr("embedding_padding"));
  EXPECT_EQ(printed(*Embedding(EmbeddingOptions(10, 3).padding_idx(-1))),
            pytorch_repr("embedding_negative_padding"));
  EXPECT_EQ(printed(*Embedding(EmbeddingOptions(10, 3)
                                   .max_norm(1.5)
                                   .norm_type(1.0)
                                   .scale_grad_by_freq(true))),
            pytorch_repr("embedding_all"));
}

TEST(EmbeddingTest, StartsStandardNormalWithThePaddingRowZeroed) {
  manual_seed(0);
  Embedding layer(EmbeddingOptions(2000, 10).padding_idx(3));
  const Tensor w = layer->weight.data();
  EXPECT_EQ(w.sizes(), IntArrayRef({2000, 10}));
  EXPECT_EQ(testing::values(w[3]), std::vector<double>(10, 0.0));
  EXPECT_NEAR(w.mean().item<double>(), 0.0, 0.03);
  EXPECT_NEAR(w.std().item<double>(), 1.0, 0.03);
}

TEST(EmbeddingTest, PaddingRowGetsNoGradient) {
  Embedding layer(EmbeddingOptions(4, 2).padding_idx(1));
  layer(tensor({int64_t{1}, 2, 1})).sum().backward();
  EXPECT_EQ(testing::values(layer->weight.grad().data()),
            (std::vector<double>{0, 0, 0, 0, 1, 1, 0, 0}));
}

// Without padding_idx: its row's gradient is zero by definition, not by the
// finite differences (PaddingRowGetsNoGradient checks it).
TEST(EmbeddingTest, PassesGradcheckInTheWeight) {
  Embedding layer(5, 3);
  const Tensor idx = tensor({int64_t{0}, 2, 2, 4, 1}).view({5, 1});
  EXPECT_TRUE(testing::gradcheck(
      [&](const variable_list& in) {
        layer->weight = Parameter(in[0]);
        return layer->forward(idx);
      },
      {Variable(randn({5, 3}, kFloat64), true)}));
}

TEST(EmbeddingTest, FromPretrainedSharesTheWeightAndFreezesIt) {
  const Tensor weights = randn({4, 2});
  Embedding frozen = Embedding::from_pretrained(weights);
  EXPECT_EQ(frozen->weight.data().data_ptr(), weights.data_ptr());
  EXPECT_FALSE(frozen->weight.requires_grad());
  EXPECT_EQ(printed(*frozen), "Embedding(4, 2)");
  EXPECT_TRUE(Embedding::from_pretrained(weights, /*freeze=*/false)->weight.requires_grad());
  Embedding padded = Embedding::from_pretrained(
      weights, EmbeddingFromPretrainedOptions().freeze(false).padding_idx(2));
  EXPECT_EQ(printed(*padded), "Embedding(4, 2, padding_idx=2)");
  EXPECT_EQ(testing::values(padded(tensor({int64_t{2}})).data()), testing::values(weights[2]));
}

TEST(EmbeddingTest, CloneKeepsTheFrozenWeight) {
  Embedding frozen = Embedding::from_pretrained(randn({3, 2}));
  auto copy = std::dynamic_pointer_cast<EmbeddingImpl>(frozen->clone());
  EXPECT_FALSE(copy->weight.requires_grad());
  EXPECT_EQ(testing::values(copy->weight.data()), testing::values(frozen->weight.data()));
  EXPECT_NE(copy->weight.data().data_ptr(), frozen->weight.data().data_ptr());
}

TEST(EmbeddingTest, FromPretrainedRefusesAWeightThatIsNot2D) {
  EXPECT_THROW_MSG(Embedding::from_pretrained(randn({4})),
                   "Embeddings parameter is expected to be 2-dimensional");
}

TEST(EmbeddingTest, PaddingIdxOutsideTheTableIsRefusedAsPyTorch) {
  EXPECT_THROW_MSG(Embedding(EmbeddingOptions(5, 2).padding_idx(5)),
                   "Padding_idx must be within num_embeddings");
  EXPECT_THROW_MSG(Embedding(EmbeddingOptions(5, 2).padding_idx(-6)),
                   "Padding_idx must be within num_embeddings");
}

TEST(EmbeddingTest, IndexOutOfRangeIsRefusedAsPyTorch) {
  Embedding layer(3, 2);
  EXPECT_THROW_MSG(layer(tensor({int64_t{3}})), "index out of range in self");
}

}  // namespace
}  // namespace torchlet::nn
