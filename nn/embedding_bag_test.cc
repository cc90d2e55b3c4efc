// The EmbeddingBag module: outputs and gradients against PyTorch
// (nn/testdata/embedding_bag_golden.txt from
// tools/gen_embedding_bag_golden.py), initialization, reprs, from_pretrained
// and PyTorch's error texts. The bag semantics themselves are tested in
// nn/functional/embedding_bag_test.cc.
#include <string>
#include <vector>

#include "autograd/golden_case.h"
#include "gtest/gtest.h"
#include "nn/embedding.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

using testing::printed;

class BagCase : public testing::GoldenCase {
 public:
  explicit BagCase(std::string name)
      : GoldenCase(testing::golden_file("nn/testdata/embedding_bag_golden.txt"), std::move(name),
                   kFloat64, {1e-10, 1e-12}) {}
};

EmbeddingBag float64(EmbeddingBag bag) {
  bag->to(kFloat64);
  return bag;
}

TEST(EmbeddingBagModuleTest, MeanOfFlatBagsMatchesPyTorch) {
  BagCase golden("bag_mean");
  EmbeddingBag bag = float64(EmbeddingBag(10, 3));
  golden.bind("weight", bag->weight);
  golden.check(bag(golden.index("input"), golden.index("offsets")));
}

TEST(EmbeddingBagModuleTest, MaxOfFixedBagsWithPaddingMatchesPyTorch) {
  BagCase golden("bag_max_padding");
  EmbeddingBag bag = float64(EmbeddingBag(EmbeddingBagOptions(10, 3).mode("max").padding_idx(2)));
  golden.bind("weight", bag->weight);
  golden.check(bag(golden.index("input")));
}

TEST(EmbeddingBagModuleTest, WeightedSumWithLastOffsetMatchesPyTorch) {
  BagCase golden("bag_sum_weighted_last_offset");
  EmbeddingBag bag =
      float64(EmbeddingBag(EmbeddingBagOptions(10, 3).mode("sum").include_last_offset(true)));
  golden.bind("weight", bag->weight);
  golden.check(bag(golden.index("input"), golden.index("offsets"), golden.leaf("psw")));
}

TEST(EmbeddingBagModuleTest, MaxNormRenormalizesTheWeightAsPyTorch) {
  BagCase golden("bag_max_norm");
  EmbeddingBag bag = float64(EmbeddingBag(EmbeddingBagOptions(6, 3).max_norm(1.2).mode("sum")));
  golden.bind("weight", bag->weight);
  golden.check(bag(golden.index("input"), golden.index("offsets")));
  EXPECT_TRUE(
      testing::all_close(bag->weight.data(), golden.stored("weight_after"), 1e-10, 1e-12));
}

TEST(EmbeddingBagModuleTest, StartsStandardNormalWithThePaddingRowZeroed) {
  manual_seed(0);
  EmbeddingBag bag(EmbeddingBagOptions(2000, 10).padding_idx(-1));
  const Tensor w = bag->weight.data();
  EXPECT_EQ(w.sizes(), IntArrayRef({2000, 10}));
  EXPECT_EQ(bag->options.padding_idx(), 1999);
  EXPECT_EQ(testing::values(w[1999]), std::vector<double>(10, 0.0));
  EXPECT_NEAR(w.mean().item<double>(), 0.0, 0.03);
  EXPECT_NEAR(w.std().item<double>(), 1.0, 0.03);
}

TEST(EmbeddingBagModuleTest, WeightIsItsOnlyParameter) {
  EmbeddingBag bag(4, 2);
  const auto params = bag->named_parameters();
  ASSERT_EQ(params.size(), 1u);
  EXPECT_EQ(params.begin()->first, "weight");
  EXPECT_TRUE(bag->weight.requires_grad());
}

// The strings are what PyTorch 1.13 prints for the same arguments.
TEST(EmbeddingBagModuleTest, ReprsMatchPyTorch) {
  EXPECT_EQ(printed(*EmbeddingBag(10, 3)), "EmbeddingBag(10, 3, mode=mean)");
  EXPECT_EQ(printed(*EmbeddingBag(EmbeddingBagOptions(10, 3).mode("sum"))),
            "EmbeddingBag(10, 3, mode=sum)");
  EXPECT_EQ(printed(*EmbeddingBag(EmbeddingBagOptions(10, 3).mode("max"))),
            "EmbeddingBag(10, 3, mode=max)");
  EXPECT_EQ(printed(*EmbeddingBag(EmbeddingBagOptions(10, 3)
                                      .max_norm(1.5)
                                      .norm_type(1.0)
                                      .scale_grad_by_freq(true)
                                      .padding_idx(-1)
                                      .include_last_offset(true))),
            "EmbeddingBag(10, 3, max_norm=1.5, norm_type=1.0, scale_grad_by_freq=True, "
            "mode=mean, padding_idx=9)");
  EXPECT_EQ(printed(*EmbeddingBag(EmbeddingBagOptions(10, 3).max_norm(1.0).norm_type(3.0))),
            "EmbeddingBag(10, 3, max_norm=1.0, norm_type=3.0, mode=mean)");
}

TEST(EmbeddingBagModuleTest, FromPretrainedSharesTheWeightAndFreezesIt) {
  const Tensor weights = randn({4, 2});
  EmbeddingBag frozen = EmbeddingBag::from_pretrained(weights);
  EXPECT_EQ(frozen->weight.data().data_ptr(), weights.data_ptr());
  EXPECT_FALSE(frozen->weight.requires_grad());
  EXPECT_EQ(printed(*frozen), "EmbeddingBag(4, 2, mode=mean)");
  EXPECT_TRUE(EmbeddingBag::from_pretrained(weights, /*freeze=*/false)->weight.requires_grad());
}

TEST(EmbeddingBagModuleTest, FromPretrainedTakesEveryOption) {
  const Tensor weights = from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  EmbeddingBag bag = EmbeddingBag::from_pretrained(
      weights, EmbeddingBagFromPretrainedOptions()
                   .freeze(false)
                   .mode("sum")
                   .padding_idx(0)
                   .include_last_offset(true)
                   .scale_grad_by_freq(true)
                   .norm_type(3.0)
                   .max_norm(100.0));
  EXPECT_EQ(printed(*bag),
            "EmbeddingBag(3, 2, max_norm=100.0, norm_type=3.0, scale_grad_by_freq=True, "
            "mode=sum, padding_idx=0)");
  // The pretrained padding row is kept, but left out of the bag.
  const Variable out = bag(tensor({int64_t{0}, 2, 2}), tensor({int64_t{0}, 3}));
  EXPECT_EQ(testing::values(out.data()), (std::vector<double>{10, 12}));
  EXPECT_EQ(testing::values(bag->weight.data()[0]), (std::vector<double>{1, 2}));
}

TEST(EmbeddingBagModuleTest, CloneKeepsTheFrozenWeight) {
  EmbeddingBag frozen = EmbeddingBag::from_pretrained(randn({3, 2}));
  auto copy = std::dynamic_pointer_cast<EmbeddingBagImpl>(frozen->clone());
  EXPECT_FALSE(copy->weight.requires_grad());
  EXPECT_EQ(testing::values(copy->weight.data()), testing::values(frozen->weight.data()));
  EXPECT_NE(copy->weight.data().data_ptr(), frozen->weight.data().data_ptr());
}

TEST(EmbeddingBagModuleTest, ForwardTakesAVariableInput) {
  EmbeddingBag bag = EmbeddingBag::from_pretrained(from_vector<float>({1, 2, 3, 4}, {2, 2}));
  const Variable out = bag(Variable(from_vector<int64_t>({0, 1}, {1, 2})));
  EXPECT_EQ(testing::values(out.data()), (std::vector<double>{2, 3}));
}

TEST(EmbeddingBagModuleTest, FromPretrainedRefusesAWeightThatIsNot2D) {
  EXPECT_THROW_MSG(EmbeddingBag::from_pretrained(randn({4})),
                   "Embeddings parameter is expected to be 2-dimensional");
}

TEST(EmbeddingBagModuleTest, PaddingIdxOutsideTheTableIsRefusedAsPyTorch) {
  EXPECT_THROW_MSG(EmbeddingBag(EmbeddingBagOptions(5, 2).padding_idx(5)),
                   "padding_idx must be within num_embeddings");
  EXPECT_THROW_MSG(EmbeddingBag(EmbeddingBagOptions(5, 2).padding_idx(-6)),
                   "padding_idx must be within num_embeddings");
}

// PyTorch takes both and fails at the first call; torchlet fails at once.
TEST(EmbeddingBagModuleTest, UnknownModeIsRefusedWhenBuilt) {
  EXPECT_THROW_MSG(EmbeddingBag(EmbeddingBagOptions(5, 2).mode("min")),
                   "mode has to be one of sum, mean or max");
}

TEST(EmbeddingBagModuleTest, SparseIsRefusedWhenBuilt) {
  EXPECT_THROW_MSG(EmbeddingBag(EmbeddingBagOptions(5, 2).sparse(true)),
                   "EmbeddingBag: sparse=True is not supported: torchlet has no sparse gradients; "
                   "pass sparse=False for a dense weight gradient");
}

TEST(EmbeddingBagModuleTest, MaxModeRefusesScaleGradByFreqAtTheCall) {
  EmbeddingBag bag(EmbeddingBagOptions(5, 2).mode("max").scale_grad_by_freq(true));
  EXPECT_THROW_MSG(bag(tensor({int64_t{1}}), tensor({int64_t{0}})),
                   "max mode does not support scaling the gradient by the frequency");
}

TEST(EmbeddingBagModuleTest, IndexOutOfRangeIsRefusedAsPyTorch) {
  EmbeddingBag bag(3, 2);
  EXPECT_THROW_MSG(bag(tensor({int64_t{3}}), tensor({int64_t{0}})),
                   "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx "
                   "to be 3");
}

}  // namespace
}  // namespace torchlet::nn
