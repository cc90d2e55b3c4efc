// embedding_bag: outputs and the gradients of weight and per_sample_weights
// against PyTorch (nn/functional/testdata/embedding_bag_golden.txt from
// tools/gen_embedding_bag_golden.py), gradcheck of every mode, bag layouts
// and PyTorch's error texts.
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/golden_case.h"
#include "autograd/gradcheck.h"
#include "nn/functional/embedding.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

namespace F = nn::functional;
using testing::gradcheck;

// The options of one call; the defaults are embedding_bag's.
struct Call {
  std::string mode = "mean";
  std::optional<double> max_norm;
  double norm_type = 2.0;
  bool scale_grad_by_freq = false;
  bool include_last_offset = false;
  std::optional<int64_t> padding_idx;
};

const std::map<std::string, Tensor>& fixture() {
  return testing::golden_file("nn/functional/testdata/embedding_bag_golden.txt");
}

// Replays case `name` with `call` (its input as int32 with `int32`) and
// checks the output, the gradients and, with max_norm, the weight after.
void check_case(const std::string& name, const Call& call, bool int32 = false) {
  SCOPED_TRACE(name);
  testing::GoldenCase golden(fixture(), name, kFloat64, {1e-10, 1e-12});
  const DType index_type = int32 ? kInt32 : kInt64;
  const Tensor input = golden.index("input").to(index_type);
  const bool flat = fixture().count(name + ".in.offsets") > 0;
  const Tensor offsets = flat ? golden.index("offsets").to(index_type) : Tensor();
  const Variable weight = golden.leaf("weight");
  const bool weighted = fixture().count(name + ".in.psw") > 0;
  const Variable psw = weighted ? golden.leaf("psw") : Variable();
  golden.check(F::embedding_bag(input, weight, offsets, call.max_norm, call.norm_type,
                                call.scale_grad_by_freq, call.mode, /*sparse=*/false, psw,
                                call.include_last_offset, call.padding_idx));
  EXPECT_TRUE(testing::all_close(weight.data(), golden.stored("weight_after"), 1e-10, 1e-12))
      << "weight after the call";
}

Call mode(const std::string& m) {
  Call call;
  call.mode = m;
  return call;
}

const std::vector<std::string> kModes = {"sum", "mean", "max"};

// ---- Against PyTorch --------------------------------------------------------------

TEST(EmbeddingBagTest, FlatInputWithOffsetsAndEmptyBagsMatchesPyTorch) {
  for (const std::string& m : kModes) check_case("flat_" + m, mode(m));
}

TEST(EmbeddingBagTest, FixedLengthBagsOf2DInputMatchPyTorch) {
  for (const std::string& m : kModes) check_case("fixed_" + m, mode(m));
}

TEST(EmbeddingBagTest, IncludeLastOffsetMatchesPyTorch) {
  for (const std::string& m : kModes) {
    Call call = mode(m);
    call.include_last_offset = true;
    check_case("last_offset_" + m, call);
  }
}

TEST(EmbeddingBagTest, PaddingIdxIsLeftOutOfTheBagsAsPyTorch) {
  for (const std::string& m : kModes) {
    Call call = mode(m);
    call.padding_idx = 2;
    check_case("padding_" + m, call);
  }
}

TEST(EmbeddingBagTest, NegativePaddingIdxCountsFromTheEndAsPyTorch) {
  for (const std::string& m : kModes) {
    Call call = mode(m);
    call.padding_idx = -8;
    check_case("fixed_padding_" + m, call);
  }
}

TEST(EmbeddingBagTest, MaxNormRenormalizesTheWeightInPlaceAsPyTorch) {
  for (const std::string& m : kModes) {
    Call call = mode(m);
    call.max_norm = 1.0;
    call.norm_type = 1.5;
    check_case("max_norm_" + m, call);
  }
}

// 1.13's CPU kernel divides some rows by another index's count (input
// [1, 1, 3] gives row 3 a gradient of 0.5); the fixture holds the documented gradient, each
// row's divided by its index's frequency, as embedding() and CUDA give.
TEST(EmbeddingBagTest, ScaleGradByFreqDividesByEachIndexsFrequency) {
  for (const char* m : {"sum", "mean"}) {
    Call call = mode(m);
    call.scale_grad_by_freq = true;
    check_case(std::string("scale_grad_") + m, call);
  }
}

TEST(EmbeddingBagTest, PerSampleWeightsAndTheirGradientMatchPyTorch) {
  check_case("per_sample_weights", mode("sum"));
  Call padded = mode("sum");
  padded.padding_idx = 0;
  check_case("per_sample_weights_fixed_padding", padded);
  Call last = mode("sum");
  last.include_last_offset = true;
  last.scale_grad_by_freq = true;
  check_case("per_sample_weights_last_offset_scale_grad", last);
}

TEST(EmbeddingBagTest, Int32IndicesAndOffsetsMatchPyTorch) {
  check_case("int32", mode("mean"), /*int32=*/true);
}

// ---- Bags ---------------------------------------------------------------------------

Variable table() { return Variable(arange(12, TensorOptions(kFloat32)).view({4, 3}), true); }

Tensor longs(std::vector<int64_t> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return from_vector<int64_t>(std::move(v), {n});
}

TEST(EmbeddingBagTest, EmptyBagsGiveZerosAndPassNoGradient) {
  for (const std::string& m : kModes) {
    SCOPED_TRACE(m);
    const Variable w = table();
    const Variable out = F::embedding_bag(longs({1, 3}), w, longs({0, 0, 2, 2}), std::nullopt,
                                          2.0, false, m);
    EXPECT_EQ(out.sizes(), IntArrayRef({4, 3}));
    EXPECT_EQ(testing::values(out.data()[0]), (std::vector<double>{0, 0, 0}));
    EXPECT_EQ(testing::values(out.data()[3]), (std::vector<double>{0, 0, 0}));
    out.sum().backward();
    EXPECT_EQ(testing::values(w.grad().data()[0]), (std::vector<double>{0, 0, 0}));
  }
}

TEST(EmbeddingBagTest, OutputHasWeightsDtype) {
  const Variable out = F::embedding_bag(longs({1, 3}), table(), longs({0}));
  EXPECT_EQ(out.dtype(), kFloat32);
  EXPECT_EQ(testing::values(out.data()), (std::vector<double>{6, 7, 8}));
}

TEST(EmbeddingBagTest, HalfWeightGivesHalfBagsInEveryMode) {
  const std::vector<std::vector<double>> expected = {{9, 11, 13}, {4.5, 5.5, 6.5}, {6, 7, 8}};
  for (size_t i = 0; i < kModes.size(); ++i) {
    SCOPED_TRACE(kModes[i]);
    const Variable w(arange(12, TensorOptions(kFloat32)).view({4, 3}).to(kFloat16), true);
    const Variable out = F::embedding_bag(longs({1, 2}), w, longs({0}), std::nullopt, 2.0, false,
                                          kModes[i]);
    EXPECT_EQ(out.dtype(), kFloat16);
    EXPECT_EQ(testing::values(out.data()), expected[i]);
    out.sum().backward();
    EXPECT_EQ(w.grad().dtype(), kFloat16);
  }
}

TEST(EmbeddingBagTest, MaxGivesTheGradientToTheFirstMaximum) {
  const Variable w(from_vector<double>({1, 5, 3, 2, 3, 7}, {3, 2}), true);
  const Variable out = F::embedding_bag(longs({0, 1, 2}), w, longs({0}), std::nullopt, 2.0,
                                        false, "max");
  EXPECT_EQ(testing::values(out.data()), (std::vector<double>{3, 7}));
  out.backward(Variable(from_vector<double>({10, 100}, {1, 2})));
  EXPECT_EQ(testing::values(w.grad().data()), (std::vector<double>{0, 0, 10, 0, 0, 100}));
}

// Bags of 1, 1, 1 and 8: too uneven to pad to the longest.
TEST(EmbeddingBagTest, MaxOfEqualEntriesInUnevenBagsGivesTheGradientToTheFirst) {
  const Variable w = Variable(ones({3, 2}), true);
  const Variable out = F::embedding_bag(longs({2, 2, 2, 1, 0, 1, 1, 0, 1, 1, 0}), w,
                                        longs({0, 1, 2, 3}), std::nullopt, 2.0, false, "max");
  EXPECT_EQ(testing::values(out.data()), std::vector<double>(8, 1.0));
  out.sum().backward();
  EXPECT_EQ(testing::values(w.grad().data()), (std::vector<double>{0, 0, 1, 1, 3, 3}));
}

TEST(EmbeddingBagTest, MaxOfALongBagBesideShortOnesIsEachCoordinatesMaximum) {
  manual_seed(3);
  const Variable w(randn({10, 3}, kFloat64), true);
  const Tensor input = randint(0, 10, {14}, kInt64);
  const std::vector<int64_t> cuts = {0, 1, 12, 12, 14};
  const Variable out =
      F::embedding_bag(input, w, longs(cuts), std::nullopt, 2.0, false, "max");
  for (size_t b = 0; b < cuts.size(); ++b) {
    const int64_t end = b + 1 < cuts.size() ? cuts[b + 1] : 14;
    if (end == cuts[b]) continue;
    const Tensor rows = w.data().index_select(0, input.slice(0, cuts[b], end));
    EXPECT_EQ(testing::values(out.data()[b]), testing::values(rows.amax({0}))) << "bag " << b;
  }
  EXPECT_TRUE(gradcheck(
      [&](const variable_list& in) {
        return F::embedding_bag(input, in[0], longs(cuts), std::nullopt, 2.0, false, "max");
      },
      {w}));
}

TEST(EmbeddingBagTest, IncludeLastOffsetLeavesOutEntriesPastTheLastOffset) {
  const Variable w = table();
  const Variable out = F::embedding_bag(longs({1, 2, 3, 0}), w, longs({0, 1, 2}), std::nullopt,
                                        2.0, false, "sum", false, Variable(),
                                        /*include_last_offset=*/true);
  EXPECT_EQ(testing::values(out.data()), (std::vector<double>{3, 4, 5, 6, 7, 8}));
  out.sum().backward();
  EXPECT_EQ(testing::values(w.grad().data()),
            (std::vector<double>{0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0}));
}

TEST(EmbeddingBagTest, NoOffsetsMeanNoBags) {
  const Variable out = F::embedding_bag(longs({1, 2}), table(), longs({}));
  EXPECT_EQ(out.sizes(), IntArrayRef({0, 3}));
  const Variable last = F::embedding_bag(longs({1, 2}), table(), longs({0}), std::nullopt, 2.0,
                                         false, "mean", false, Variable(), true);
  EXPECT_EQ(last.sizes(), IntArrayRef({0, 3}));
}

// PyTorch 1.13 fails on bags of length 0 ("step must be nonzero"); they are
// empty bags.
TEST(EmbeddingBagTest, EmptyFixedLengthBagsGiveZeros) {
  const Variable out = F::embedding_bag(zeros({2, 0}, kInt64), table(), Tensor(), std::nullopt,
                                        2.0, false, "max");
  EXPECT_EQ(testing::values(out.data()), std::vector<double>(6, 0.0));
}

TEST(EmbeddingBagTest, AnEmptyInputGivesZeroBags) {
  const Variable out = F::embedding_bag(longs({}), table(), longs({0, 0}));
  EXPECT_EQ(testing::values(out.data()), std::vector<double>(6, 0.0));
}

TEST(EmbeddingBagTest, MeanDividesByTheEntriesThatAreNotPadding) {
  const Variable out = F::embedding_bag(longs({1, 3, 3, 3}), table(), longs({0}), std::nullopt,
                                        2.0, false, "mean", false, Variable(), false, 3);
  EXPECT_EQ(testing::values(out.data()), (std::vector<double>{3, 4, 5}));
}

TEST(EmbeddingBagTest, PaddingEntriesGetNoPerSampleWeightGradient) {
  const Variable psw(from_vector<float>({2, 3, 4}, {3}), true);
  F::embedding_bag(longs({1, 0, 2}), table(), longs({0}), std::nullopt, 2.0, false, "sum", false,
                   psw, false, 0)
      .sum()
      .backward();
  EXPECT_EQ(testing::values(psw.grad().data()), (std::vector<double>{12, 0, 21}));
}

// ---- gradcheck ------------------------------------------------------------------------

Variable leaf(std::vector<int64_t> shape) { return Variable(randn(shape, kFloat64), true); }

TEST(EmbeddingBagTest, PassesGradcheckInTheWeightInEveryMode) {
  manual_seed(0);
  const Tensor input = longs({4, 2, 0, 2, 2, 1, 4, 3});
  const Tensor offsets = longs({0, 3, 3, 5, 8});
  for (const std::string& m : kModes) {
    SCOPED_TRACE(m);
    EXPECT_TRUE(gradcheck(
        [&](const variable_list& in) {
          return F::embedding_bag(input, in[0], offsets, std::nullopt, 2.0, false, m, false,
                                  Variable(), true, 1);
        },
        {leaf({5, 3})}));
  }
}

// Not a true gradient, so no gradcheck: the row picked three times gets a
// third of its plain gradient.
TEST(EmbeddingBagTest, ScaleGradByFreqDividesARowsGradientByItsCount) {
  manual_seed(1);
  const Tensor input = from_vector<int64_t>({1, 1, 0, 3, 1, 2}, {2, 3});
  for (const char* m : {"sum", "mean"}) {
    SCOPED_TRACE(m);
    const Variable w = leaf({4, 2});
    const Variable out = F::embedding_bag(input, w, Tensor(), std::nullopt, 2.0, true, m);
    out.sum().backward();
    const Variable plain = Variable(w.data().clone(), true);
    F::embedding_bag(input, plain, Tensor(), std::nullopt, 2.0, false, m).sum().backward();
    EXPECT_TRUE(testing::all_close(w.grad().data()[1], plain.grad().data()[1].div(3)));
    EXPECT_TRUE(testing::all_close(w.grad().data()[0], plain.grad().data()[0]));
  }
}

TEST(EmbeddingBagTest, PassesGradcheckInWeightAndPerSampleWeights) {
  manual_seed(2);
  const Tensor input = longs({4, 2, 0, 2, 2, 1, 4, 3});
  const Tensor offsets = longs({0, 3, 3, 5});
  EXPECT_TRUE(gradcheck(
      [&](const variable_list& in) {
        return F::embedding_bag(input, in[0], offsets, std::nullopt, 2.0, false, "sum", false,
                                in[1], false, 0);
      },
      {leaf({5, 3}), leaf({8})}));
  EXPECT_TRUE(gradcheck(
      [&](const variable_list& in) {
        return F::embedding_bag(input.view({2, 4}), in[0], Tensor(), std::nullopt, 2.0, false,
                                "sum", false, in[1]);
      },
      {leaf({5, 3}), leaf({2, 4})}));
}

// ---- Errors -----------------------------------------------------------------------------

TEST(EmbeddingBagTest, RejectsPerSampleWeightsOfAnotherShape) {
  EXPECT_THROW_MSG(F::embedding_bag(longs({1}), table(), longs({0}), std::nullopt, 2.0, false,
                                    "sum", false, Variable(ones({2}))),
                   "embedding_bag: If per_sample_weights (torch.Size([2])) is not None, then it "
                   "must have the same shape as the input (torch.Size([1]))");
}

TEST(EmbeddingBagTest, Rejects2DInputWithOffsets) {
  EXPECT_THROW_MSG(F::embedding_bag(from_vector<int64_t>({1, 2}, {1, 2}), table(), longs({0})),
                   "if input is 2D, then offsets has to be None, as input is treated is a "
                   "mini-batch of fixed length sequences. However, found offsets of type "
                   "<class 'torch.Tensor'>");
}

TEST(EmbeddingBagTest, Rejects1DInputWithoutOffsets) {
  EXPECT_THROW_MSG(F::embedding_bag(longs({1, 2}), table()),
                   "offsets has to be a 1D Tensor but got None");
}

TEST(EmbeddingBagTest, RejectsOffsetsThatAreNot1D) {
  EXPECT_THROW_MSG(F::embedding_bag(longs({1, 2}), table(), zeros({1, 1}, kInt64)),
                   "offsets has to be a 1D Tensor");
  EXPECT_THROW_MSG(F::embedding_bag(longs({1, 2}), table(), scalar_tensor(0, kInt64)),
                   "offsets has to be a 1D Tensor");
}

TEST(EmbeddingBagTest, RejectsInputThatIsNot1DOr2D) {
  EXPECT_THROW_MSG(F::embedding_bag(zeros({1, 1, 2}, kInt64), table()),
                   "input has to be 1D or 2D Tensor, but got Tensor of dimension 3");
  EXPECT_THROW_MSG(F::embedding_bag(scalar_tensor(1, kInt64), table(), longs({0})),
                   "input has to be 1D or 2D Tensor, but got Tensor of dimension 0");
}

TEST(EmbeddingBagTest, RejectsAnUnknownMode) {
  EXPECT_THROW_MSG(F::embedding_bag(longs({1}), table(), longs({0}), std::nullopt, 2.0, false,
                                    "min"),
                   "mode has to be one of sum, mean or max");
}

TEST(EmbeddingBagTest, MaxRejectsScaleGradByFreq) {
  EXPECT_THROW_MSG(F::embedding_bag(longs({1}), table(), longs({0}), std::nullopt, 2.0, true,
                                    "max"),
                   "max mode does not support scaling the gradient by the frequency");
}

TEST(EmbeddingBagTest, MaxRejectsSparse) {
  EXPECT_THROW_MSG(F::embedding_bag(longs({1}), table(), longs({0}), std::nullopt, 2.0, false,
                                    "max", true),
                   "max mode does not support sparse weights");
}

TEST(EmbeddingBagTest, RejectsSparseGradients) {
  EXPECT_THROW_MSG(F::embedding_bag(longs({1}), table(), longs({0}), std::nullopt, 2.0, false,
                                    "sum", true),
                   "embedding_bag: sparse=True is not supported");
}

TEST(EmbeddingBagTest, RejectsPerSampleWeightsOutsideSumMode) {
  EXPECT_THROW_MSG(F::embedding_bag(longs({1}), table(), longs({0}), std::nullopt, 2.0, false,
                                    "mean", false, Variable(ones({1}))),
                   "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                   "supported for mode='sum' (got mode='mean'). Please open a feature request on "
                   "GitHub.");
}

TEST(EmbeddingBagTest, RejectsFloatIndicesOrOffsets) {
  const char* message =
      "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
      "Long, Int; but got torch.FloatTensor instead (while checking arguments for "
      "embedding_bag)";
  EXPECT_THROW_MSG(F::embedding_bag(from_vector<float>({1}, {1}), table(), longs({0})), message);
  EXPECT_THROW_MSG(F::embedding_bag(longs({1}), table(), from_vector<float>({0}, {1})), message);
}

TEST(EmbeddingBagTest, RejectsAnIntegerWeight) {
  EXPECT_THROW_MSG(F::embedding_bag(longs({1}), Variable(zeros({4, 3}, kInt64)), longs({0})),
                   "Expected tensor for argument #1 'weight' to have one of the following scalar "
                   "types: Half, Float, Double; but got torch.LongTensor instead (while checking "
                   "arguments for embedding_bag)");
}

TEST(EmbeddingBagTest, RejectsAWeightThatIsNot2D) {
  EXPECT_THROW_MSG(F::embedding_bag(longs({1}), Variable(ones({4})), longs({0})),
                   "embedding_bag: 'weight' must be 2-D, but got shape [4]");
}

TEST(EmbeddingBagTest, RejectsPerSampleWeightsOfAnotherDtype) {
  EXPECT_THROW_MSG(F::embedding_bag(longs({1}), table(), longs({0}), std::nullopt, 2.0, false,
                                    "sum", false, Variable(ones({1}, kFloat64))),
                   "Expected tensor for argument #1 'weight' to have the same type as tensor for "
                   "argument #1 'per_sample_weights'; but type torch.FloatTensor does not equal "
                   "torch.DoubleTensor (while checking arguments for embedding_bag)");
}

TEST(EmbeddingBagTest, RejectsAPaddingIdxOutsideTheTable) {
  EXPECT_THROW_MSG(F::embedding_bag(longs({1}), table(), longs({0}), std::nullopt, 2.0, false,
                                    "mean", false, Variable(), false, 4),
                   "padding_idx must be within the number of embeddings, -4 through 3, but got 4");
  EXPECT_THROW_MSG(F::embedding_bag(longs({1}), table(), longs({0}), std::nullopt, 2.0, false,
                                    "mean", false, Variable(), false, -5),
                   "padding_idx must be within the number of embeddings, -4 through 3, but got -5");
}

TEST(EmbeddingBagTest, IncludeLastOffsetRejectsEmptyOffsets) {
  EXPECT_THROW_MSG(F::embedding_bag(longs({1}), table(), longs({}), std::nullopt, 2.0, false,
                                    "mean", false, Variable(), true),
                   "include_last_offset: number of offset should be at least 1");
}

TEST(EmbeddingBagTest, RejectsOffsetsNotStartingAtZero) {
  EXPECT_THROW_MSG(F::embedding_bag(longs({1, 2}), table(), longs({1})),
                   "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to "
                   "start from position 0. However, got 1");
}

TEST(EmbeddingBagTest, RejectsOffsetsPastTheInput) {
  EXPECT_THROW_MSG(F::embedding_bag(longs({1, 2}), table(), longs({0, 3})),
                   "offsets[-1] can not be greater than input's length 2 but got offsets[-1] of 3");
}

TEST(EmbeddingBagTest, RejectsDecreasingOffsets) {
  EXPECT_THROW_MSG(F::embedding_bag(longs({1, 2, 3, 0}), table(), longs({0, 3, 1, 4})),
                   "embedding_bag: offsets has to be non-decreasing, but offsets[2] = 1 is less "
                   "than offsets[1] = 3");
}

TEST(EmbeddingBagTest, RejectsAnIndexOutsideTheTable) {
  for (const std::string& m : kModes) {
    EXPECT_THROW_MSG(F::embedding_bag(longs({1, 4}), table(), longs({0}), std::nullopt, 2.0,
                                      false, m),
                     "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to "
                     "be 4");
    EXPECT_THROW_MSG(F::embedding_bag(longs({-1, 1}), table(), longs({0}), std::nullopt, 2.0,
                                      false, m),
                     "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to "
                     "be -1");
  }
}

TEST(EmbeddingBagTest, RejectsAnIndexOutsideTheTableBeforeRenormalizing) {
  const Variable w = table();
  EXPECT_THROW_MSG(F::embedding_bag(longs({1, 4}), w, longs({0}), 1.0),
                   "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to "
                   "be 4");
  EXPECT_EQ(testing::values(w.data()[1]), (std::vector<double>{3, 4, 5}));
}

}  // namespace
}  // namespace torchlet
