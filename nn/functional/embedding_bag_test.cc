// embedding_bag: outputs and the gradients of weight and per_sample_weights
// against PyTorch (nn/functional/testdata/embedding_bag_golden.txt from
// tools/gen_embedding_bag_golden.py), gradcheck of every mode, bag layouts,
// the fused kernel (tensor/embedding_bag.h: thread counts, reduced dtypes,
// create_graph) and PyTorch's error texts.
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/golden_case.h"
#include "autograd/gradcheck.h"
#include "nn/functional/embedding.h"
#include "tensor/embedding_bag.h"
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

// ---- The fused kernel -------------------------------------------------------------------

// One bag layout of the gradchecks below: flat input cut at offsets (with
// empty bags and entries past the last offset), or 2-D.
struct Layout {
  const char* name;
  Tensor input;
  Tensor offsets;
  bool include_last_offset;
  std::optional<int64_t> padding_idx;
};

std::vector<Layout> layouts() {
  return {
      {"flat", longs({4, 2, 0, 2, 2, 1, 4, 3}), longs({0, 3, 3, 5}), false, std::nullopt},
      {"flat_padding", longs({4, 2, 0, 2, 2, 1, 4, 3}), longs({0, 2, 2, 7}), false, 2},
      {"last_offset", longs({4, 2, 0, 2, 2, 1, 4, 3}), longs({0, 1, 4, 6}), true, std::nullopt},
      {"fixed_padding", from_vector<int64_t>({1, 0, 3, 0, 0, 0, 2, 4, 4}, {3, 3}), Tensor(), false,
       0},
  };
}

Variable call_layout(const Layout& l, const Variable& weight, const std::string& m,
                     const Variable& psw = Variable()) {
  return F::embedding_bag(l.input, weight, l.offsets, std::nullopt, 2.0, false, m, false, psw,
                          l.include_last_offset, l.padding_idx);
}

TEST(EmbeddingBagTest, RecordsOneEmbeddingBagBackwardNode) {
  const Variable out = F::embedding_bag(longs({1, 3, 2}), table(), longs({0, 2}));
  ASSERT_NE(out.grad_fn(), nullptr);
  EXPECT_EQ(out.grad_fn()->name(), "EmbeddingBagBackward0");
}

TEST(EmbeddingBagTest, FusedFunctionPassesGradcheckInEveryModeAndLayout) {
  manual_seed(4);
  for (const Layout& l : layouts()) {
    for (const std::string& m : kModes) {
      SCOPED_TRACE(std::string(l.name) + " " + m);
      EXPECT_TRUE(gradcheck([&](const variable_list& in) { return call_layout(l, in[0], m); },
                            {leaf({5, 3})}));
    }
    SCOPED_TRACE(std::string(l.name) + " per_sample_weights");
    EXPECT_TRUE(gradcheck(
        [&](const variable_list& in) { return call_layout(l, in[0], "sum", in[1]); },
        {leaf({5, 3}), leaf(std::vector<int64_t>(l.input.sizes().begin(),
                                                 l.input.sizes().end()))}));
  }
}

// Under create_graph the backward is built from differentiable ops: its own
// gradient (in the weight, per_sample_weights and the incoming gradient).
TEST(EmbeddingBagTest, BackwardUnderCreateGraphPassesGradgradcheck) {
  manual_seed(5);
  for (const Layout& l : layouts()) {
    for (const std::string& m : kModes) {
      SCOPED_TRACE(std::string(l.name) + " " + m);
      EXPECT_TRUE(testing::gradgradcheck(
          [&](const variable_list& in) { return call_layout(l, in[0], m); }, {leaf({5, 3})}));
    }
    SCOPED_TRACE(std::string(l.name) + " per_sample_weights");
    EXPECT_TRUE(testing::gradgradcheck(
        [&](const variable_list& in) { return call_layout(l, in[0], "sum", in[1]); },
        {leaf({5, 3}), leaf(std::vector<int64_t>(l.input.sizes().begin(),
                                                 l.input.sizes().end()))}));
  }
}

TEST(EmbeddingBagTest, CreateGraphGivesTheSameGradientsAsThePlainBackward) {
  manual_seed(6);
  const Layout l = layouts()[1];
  const Variable psw = leaf({8});
  for (const std::string& m : kModes) {
    SCOPED_TRACE(m);
    const Variable w = leaf({5, 3});
    const bool weighted = m == "sum";
    const Variable out = call_layout(l, w, m, weighted ? psw : Variable());
    const Variable seed(randn(out.sizes(), kFloat64));
    const variable_list inputs = weighted ? variable_list{w, psw} : variable_list{w};
    const variable_list plain = autograd::grad({out}, inputs, {seed}, /*retain_graph=*/true);
    const variable_list graph = autograd::grad({out}, inputs, {seed}, true, /*create_graph=*/true);
    for (size_t i = 0; i < inputs.size(); ++i) {
      EXPECT_TRUE(testing::all_close(plain[i].data(), graph[i].data(), 1e-12, 1e-14)) << i;
    }
  }
}

// Bags of every size (empty, padding only, one long bag) over enough rows
// to split across threads: the outputs and gradients against sums built
// from index_put, and the same bits on 1 and 4 threads.
struct LargeCase {
  Tensor input, offsets;
  std::vector<int64_t> bag;  // of each entry
  int64_t bags = 0;
};

LargeCase large_case() {
  manual_seed(7);
  LargeCase c;
  std::vector<int64_t> cuts = {0, 0, 3};
  while (cuts.back() < 20000) cuts.push_back(cuts.back() + (cuts.size() % 7) * 3);
  cuts.back() = 30000;  // a long last bag
  c.bags = static_cast<int64_t>(cuts.size());
  c.input = randint(0, 3000, {30000}, kInt64);
  c.input.slice(0, 3, 9).fill_(5);  // bag 2: padding only
  for (int64_t b = 0; b < c.bags; ++b) {
    const int64_t end = b + 1 < c.bags ? cuts[b + 1] : 30000;
    for (int64_t i = cuts[b]; i < end; ++i) c.bag.push_back(b);
  }
  c.offsets = longs(cuts);
  return c;
}

struct LargeResult {
  Tensor out, grad_weight, grad_psw;
};

LargeResult run_large(const LargeCase& c, const std::string& m, const Tensor& weight,
                      const Tensor& psw, const Tensor& seed, int threads) {
  set_num_threads(threads);
  const Variable w(weight.clone(), true);
  const Variable p = psw.defined() ? Variable(psw.clone(), true) : Variable();
  const Variable out = F::embedding_bag(c.input, w, c.offsets, std::nullopt, 2.0, m == "mean", m,
                                        false, p, false, 5);
  out.backward(Variable(seed));
  set_num_threads(0);
  return {out.data(), w.grad().data(), p.defined() ? p.grad().data() : Tensor()};
}

TEST(EmbeddingBagTest, LargeBagsMatchSumsOfRowsOnAnyNumberOfThreads) {
  const LargeCase c = large_case();
  const Tensor weight = randn({3000, 40}, kFloat32);
  const Tensor psw = randn({30000}, kFloat32);
  const Tensor seed = randn({c.bags, 40}, kFloat32);
  const Tensor bag = longs(c.bag);
  const Tensor kept = c.input.ne(5);
  for (const std::string& m : kModes) {
    SCOPED_TRACE(m);
    const Tensor p = m == "sum" ? psw : Tensor();
    const int64_t chunks_before = detail::pool_chunks_run();
    const LargeResult many = run_large(c, m, weight, p, seed, 4);
    EXPECT_GT(detail::pool_chunks_run(), chunks_before) << "ran on one thread";
    const LargeResult one = run_large(c, m, weight, p, seed, 1);
    EXPECT_TRUE(testing::all_close(many.out, one.out, 0, 0));
    EXPECT_TRUE(testing::all_close(many.grad_weight, one.grad_weight, 0, 0));
    if (p.defined()) {
      EXPECT_TRUE(testing::all_close(many.grad_psw, one.grad_psw, 0, 0));
    }
    if (m == "max") continue;
    // The reference, in float64: rows (scaled) summed into their bags, and
    // the bags' gradients into the rows.
    const Tensor idx = c.input.masked_select(kept), in_bag = bag.masked_select(kept);
    const Tensor rows = weight.to(kFloat64).index_select(0, idx);
    const Tensor entry_weight =
        p.defined() ? p.to(kFloat64).masked_select(kept) : ones({idx.numel()}, kFloat64);
    const Tensor sizes = zeros({c.bags}, kFloat64).index_put_(
        {TensorIndex(in_bag)}, ones({idx.numel()}, kFloat64), true);
    Tensor expected_out = zeros({c.bags, 40}, kFloat64).index_put_(
        {TensorIndex(in_bag)}, rows.mul(entry_weight.unsqueeze(1)), true);
    if (m == "mean") expected_out = expected_out.div(sizes.clamp_min(1).unsqueeze(1));
    EXPECT_TRUE(testing::all_close(many.out.to(kFloat64), expected_out, 1e-4, 1e-4));
    // mean runs with scale_grad_by_freq: each row's share over its count.
    Tensor factor = entry_weight;
    if (m == "mean") {
      const Tensor counts = zeros({3000}, kFloat64).index_put_(
          {TensorIndex(idx)}, ones({idx.numel()}, kFloat64), true);
      factor = factor.div(sizes.index_select(0, in_bag)).div(counts.index_select(0, idx));
    }
    const Tensor expected_grad = zeros({3000, 40}, kFloat64).index_put_(
        {TensorIndex(idx)},
        seed.to(kFloat64).index_select(0, in_bag).mul(factor.unsqueeze(1)), true);
    EXPECT_TRUE(testing::all_close(many.grad_weight.to(kFloat64), expected_grad, 1e-4, 1e-4));
  }
}

TEST(EmbeddingBagTest, ReducedWeightsComputeInFloat32) {
  const Tensor weight = arange(12, TensorOptions(kFloat32)).view({4, 3}).div(7);
  for (DType dtype : {kFloat16, kBFloat16}) {
    SCOPED_TRACE(dtype);
    const Tensor w = weight.to(dtype);
    const EmbeddingBags bags = embedding_bag_bags(longs({1, 2, 3}), longs({0, 1}), false, 4);
    const EmbeddingBagForward f =
        embedding_bag_forward(w, bags, EmbeddingBagMode::kMean, Tensor(), std::nullopt);
    EXPECT_EQ(f.output.dtype(), dtype);
    const EmbeddingBagForward exact = embedding_bag_forward(
        w.to(kFloat32), bags, EmbeddingBagMode::kMean, Tensor(), std::nullopt);
    EXPECT_TRUE(testing::all_close(f.output, exact.output.to(dtype), 0, 0));
  }
}

TEST(EmbeddingBagTest, KernelRejectsPerSampleWeightsOutsideSumMode) {
  const EmbeddingBags bags = embedding_bag_bags(longs({1, 2}), longs({0}), false, 4);
  EXPECT_THROW_MSG(embedding_bag_forward(ones({4, 3}), bags, EmbeddingBagMode::kMax, ones({2}),
                                         std::nullopt),
                   "embedding_bag: per_sample_weights is only supported for mode='sum'");
  EXPECT_THROW_MSG(embedding_bag_forward(ones({4, 3}), bags, EmbeddingBagMode::kSum, ones({3}),
                                         std::nullopt),
                   "embedding_bag: expected per_sample_weights of 2 elements, one per index, but "
                   "got shape [3]");
}

TEST(EmbeddingBagTest, KernelRejectsAGradientOfAnotherShape) {
  const EmbeddingBags bags = embedding_bag_bags(longs({1, 2}), longs({0}), false, 4);
  const EmbeddingBagForward f =
      embedding_bag_forward(ones({4, 3}), bags, EmbeddingBagMode::kSum, Tensor(), std::nullopt);
  EXPECT_THROW_MSG(embedding_bag_backward_weight(ones({2, 3}), bags, f, 4, EmbeddingBagMode::kSum,
                                                 Tensor(), std::nullopt, false),
                   "embedding_bag: expected a gradient of shape [1, 3], but got [2, 3]");
  EXPECT_THROW_MSG(
      embedding_bag_backward_per_sample_weights(ones({1, 2}), ones({4, 3}), bags, std::nullopt),
      "embedding_bag: expected a gradient of shape [1, 3], but got [1, 2]");
}

TEST(EmbeddingBagTest, KernelRejectsBagsItDidNotLayOut) {
  EmbeddingBags bags;
  bags.indices = longs({1});
  EXPECT_THROW_MSG(embedding_bag_forward(ones({4, 3}), bags, EmbeddingBagMode::kSum, Tensor(),
                                         std::nullopt),
                   "embedding_bag: the bags must come from embedding_bag_bags");
}

TEST(EmbeddingBagTest, KernelRejectsAPaddingIdxOutsideTheTable) {
  const EmbeddingBags bags = embedding_bag_bags(longs({1, 2}), longs({0}), false, 4);
  EXPECT_THROW_MSG(embedding_bag_forward(ones({4, 3}), bags, EmbeddingBagMode::kSum, Tensor(), -1),
                   "embedding_bag: padding_idx must be in [0, 4), but got -1");
}

TEST(EmbeddingBagTest, KernelRejectsAnIntegerWeight) {
  const EmbeddingBags bags = embedding_bag_bags(longs({1, 2}), longs({0}), false, 4);
  EXPECT_THROW_MSG(embedding_bag_forward(ones({4, 3}, kInt64), bags, EmbeddingBagMode::kSum,
                                         Tensor(), std::nullopt),
                   "Expected tensor for argument #1 'weight' to have one of the following scalar "
                   "types: Half, BFloat16, Float, Double; but got torch.LongTensor instead");
}

TEST(EmbeddingBagTest, KernelMaxRefusesScaleGradByFreq) {
  const EmbeddingBags bags = embedding_bag_bags(longs({1, 2}), longs({0}), false, 4);
  const EmbeddingBagForward f =
      embedding_bag_forward(ones({4, 3}), bags, EmbeddingBagMode::kMax, Tensor(), std::nullopt);
  EXPECT_THROW_MSG(embedding_bag_backward_weight(ones({1, 3}), bags, f, 4, EmbeddingBagMode::kMax,
                                                 Tensor(), std::nullopt, true),
                   "max mode does not support scaling the gradient by the frequency");
  EmbeddingBagForward no_rows = f;
  no_rows.max_rows = Tensor();
  EXPECT_THROW_MSG(embedding_bag_backward_weight(ones({1, 3}), bags, no_rows, 4,
                                                 EmbeddingBagMode::kMax, Tensor(), std::nullopt,
                                                 false),
                   "embedding_bag: the backward needs the bag sizes (and, in max mode, the rows "
                   "of the maxima) of its forward");
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
                   "embedding_bag: sparse=True is not supported: torchlet has no sparse "
                   "gradients; pass sparse=False for a dense weight gradient");
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

TEST(EmbeddingBagTest, RejectsOperandsOnAnotherDeviceThanTheWeight) {
  set_cpu_device_count(2);
  const Variable w = table();
  const Device cpu1(kCPU, 1);
  EXPECT_THROW_MSG(F::embedding_bag(longs({1, 2}).to(cpu1), w, longs({0})),
                   "embedding_bag: Expected all tensors to be on the same device, but found at "
                   "least two devices, cpu:0 and cpu:1!");
  EXPECT_THROW_MSG(F::embedding_bag(longs({1, 2}), w, longs({0}).to(cpu1)),
                   "embedding_bag: Expected all tensors to be on the same device");
  EXPECT_THROW_MSG(F::embedding_bag(longs({1, 2}), w, longs({0}), std::nullopt, 2.0, false, "sum",
                                    false, Variable(ones({2}, cpu1))),
                   "embedding_bag: Expected all tensors to be on the same device");
  // All on cpu:1 computes there.
  const Variable w1 = w.to(cpu1);
  EXPECT_EQ(F::embedding_bag(longs({1, 2}).to(cpu1), w1, longs({0}).to(cpu1)).device(), cpu1);
  set_cpu_device_count(1);
}

TEST(EmbeddingBagTest, RejectsAnUndefinedWeight) {
  EXPECT_THROW_MSG(F::embedding_bag(longs({1, 2}), Variable(), longs({0})),
                   "embedding_bag: weight is undefined");
}

}  // namespace
}  // namespace torchlet
