#include "nn/data/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "nn/data/generator.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"

namespace torchlet::data {
namespace {

// Note [Sampler randomness]: torchlet's Generator does not reproduce torch's
// streams, so the random samplers are checked against the Generator's own
// permutations where PyTorch's use torch.randperm, and against their
// distributions (counts within 5 standard deviations, at a fixed seed) where
// PyTorch's use torch.randint or torch.multinomial.

std::shared_ptr<Generator> seeded(uint64_t seed) { return std::make_shared<Generator>(seed); }

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> out(static_cast<size_t>(n));
  std::iota(out.begin(), out.end(), int64_t{0});
  return out;
}

std::vector<int64_t> sorted(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// How often each value occurs.
std::map<int64_t, int64_t> counts(const std::vector<int64_t>& values) {
  std::map<int64_t, int64_t> out;
  for (int64_t v : values) ++out[v];
  return out;
}

// `count` of `trials` is within 5 standard deviations of a binomial's mean.
void expect_frequency(int64_t count, int64_t trials, double p) {
  const double mean = trials * p;
  const double sd = std::sqrt(trials * p * (1 - p));
  EXPECT_NEAR(static_cast<double>(count), mean, 5 * sd) << "expected probability " << p;
}

// Yields the given indices; has no size().
class Unsized : public Sampler {
 public:
  std::vector<int64_t> epoch() override { return {4, 2}; }
};

class UnsizedBatches : public BatchSamplerBase {
 public:
  std::vector<std::vector<int64_t>> epoch() override { return {{1}}; }
};

TEST(SequentialSamplerTest, YieldsTheDatasetInOrderEveryEpoch) {
  SequentialSampler sampler(5);
  EXPECT_EQ(sampler.epoch(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(sampler.epoch(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

TEST(SequentialSamplerTest, SizeIsTheDatasetSize) { EXPECT_EQ(SequentialSampler(5).size(), 5); }

TEST(SequentialSamplerTest, EmptyDatasetYieldsNothing) {
  SequentialSampler sampler(0);
  EXPECT_EQ(sampler.size(), 0);
  EXPECT_TRUE(sampler.epoch().empty());
}

TEST(SequentialSamplerTest, NegativeSizeIsAnError) {
  EXPECT_THROW_MSG(SequentialSampler(-1),
                   "SequentialSampler: the dataset size must be non-negative, got -1");
}

// PyTorch's RandomSampler yields torch.randperm(n, generator=generator).
TEST(RandomSamplerTest, WithoutReplacementYieldsTheGeneratorsPermutation) {
  RandomSampler sampler(10, false, std::nullopt, seeded(4));
  Generator reference(4);
  EXPECT_EQ(sampler.epoch(), reference.randperm(10));
}

TEST(RandomSamplerTest, EpochsContinueTheGeneratorsSequence) {
  RandomSampler sampler(10, false, std::nullopt, seeded(4));
  Generator reference(4);
  const std::vector<int64_t> first = reference.randperm(10);
  const std::vector<int64_t> second = reference.randperm(10);
  EXPECT_EQ(sampler.epoch(), first);
  EXPECT_EQ(sampler.epoch(), second);
  EXPECT_NE(first, second);
}

TEST(RandomSamplerTest, SharesItsGeneratorWithItsOtherHolders) {
  auto generator = seeded(4);
  RandomSampler sampler(10, false, std::nullopt, generator);
  Generator reference(4);
  reference.randperm(3);
  generator->randperm(3);  // advances the sampler's generator too
  EXPECT_EQ(sampler.epoch(), reference.randperm(10));
}

// As PyTorch: num_samples // n whole permutations, then one more cut short.
TEST(RandomSamplerTest, NumSamplesBeyondTheDatasetRepeatsFreshPermutations) {
  RandomSampler sampler(4, false, 10, seeded(8));
  Generator reference(8);
  std::vector<int64_t> expected;
  for (int k = 0; k < 3; ++k) {
    const std::vector<int64_t> perm = reference.randperm(4);
    expected.insert(expected.end(), perm.begin(), perm.end());
  }
  expected.resize(10);
  EXPECT_EQ(sampler.size(), 10);
  EXPECT_EQ(sampler.epoch(), expected);
}

TEST(RandomSamplerTest, NumSamplesBelowTheDatasetCutsOnePermutation) {
  RandomSampler sampler(10, false, 3, seeded(8));
  Generator reference(8);
  const std::vector<int64_t> perm = reference.randperm(10);
  EXPECT_EQ(sampler.epoch(), std::vector<int64_t>(perm.begin(), perm.begin() + 3));
}

// PyTorch's sampler also draws a permutation it keeps none of after whole
// ones; torchlet's draws only what it yields.
TEST(RandomSamplerTest, AnEpochOfWholePermutationsDrawsNoMore) {
  RandomSampler sampler(5, false, 10, seeded(8));
  Generator reference(8);
  for (int epoch = 0; epoch < 2; ++epoch) {
    std::vector<int64_t> expected = reference.randperm(5);
    const std::vector<int64_t> second = reference.randperm(5);
    expected.insert(expected.end(), second.begin(), second.end());
    EXPECT_EQ(sampler.epoch(), expected);
  }
}

TEST(RandomSamplerTest, WithReplacementDrawsUniformly) {
  RandomSampler sampler(5, true, 50000, seeded(1));
  const std::vector<int64_t> samples = sampler.epoch();
  ASSERT_EQ(samples.size(), 50000u);
  const std::map<int64_t, int64_t> seen = counts(samples);
  ASSERT_EQ(seen.size(), 5u);
  for (const auto& [index, count] : seen) {
    EXPECT_GE(index, 0);
    EXPECT_LT(index, 5);
    expect_frequency(count, 50000, 0.2);
  }
}

TEST(RandomSamplerTest, WithReplacementRepeatsIndices) {
  RandomSampler sampler(100, true, std::nullopt, seeded(1));
  EXPECT_EQ(sampler.size(), 100);
  const std::vector<int64_t> samples = sampler.epoch();
  EXPECT_EQ(samples.size(), 100u);
  EXPECT_LT(counts(samples).size(), 100u);
}

TEST(RandomSamplerTest, WithReplacementIsReproducibleBySeed) {
  RandomSampler a(50, true, 30, seeded(2)), b(50, true, 30, seeded(2)), c(50, true, 30, seeded(3));
  const std::vector<int64_t> first = a.epoch();
  EXPECT_EQ(b.epoch(), first);
  EXPECT_NE(c.epoch(), first);
  EXPECT_NE(a.epoch(), first);  // the next epoch draws anew
}

// Without a generator each epoch draws its seed from the global generator,
// as PyTorch's RandomSampler does at every iter().
TEST(RandomSamplerTest, UnseededFollowsTheGlobalSeedAtEachEpoch) {
  for (bool replacement : {false, true}) {
    RandomSampler sampler(20, replacement);
    manual_seed(3);
    const std::vector<int64_t> first = sampler.epoch();
    EXPECT_NE(sampler.epoch(), first);
    manual_seed(3);
    EXPECT_EQ(sampler.epoch(), first);
  }
}

TEST(RandomSamplerTest, EmptyDatasetIsAnErrorAsPyTorch) {
  EXPECT_THROW_MSG(RandomSampler(0),
                   "num_samples should be a positive integer value, but got num_samples=0");
}

TEST(RandomSamplerTest, NonPositiveNumSamplesIsAnErrorAsPyTorch) {
  EXPECT_THROW_MSG(RandomSampler(3, false, 0),
                   "num_samples should be a positive integer value, but got num_samples=0");
  EXPECT_THROW_MSG(RandomSampler(3, true, -2),
                   "num_samples should be a positive integer value, but got num_samples=-2");
}

TEST(RandomSamplerTest, DrawingFromAnEmptyDatasetIsAnError) {
  for (bool replacement : {false, true}) {
    RandomSampler sampler(0, replacement, 3, seeded(0));
    EXPECT_THROW_MSG(sampler.epoch(),
                     "RandomSampler: cannot draw num_samples=3 samples from an empty dataset");
  }
}

TEST(RandomSamplerTest, NegativeDatasetSizeIsAnError) {
  EXPECT_THROW_MSG(RandomSampler(-1, false, 3),
                   "RandomSampler: the dataset size must be non-negative, got -1");
}

// PyTorch's SubsetRandomSampler yields indices[i] for i in torch.randperm.
TEST(SubsetRandomSamplerTest, YieldsTheIndicesInTheGeneratorsOrder) {
  const std::vector<int64_t> indices = {10, 20, 30, 40, 50};
  SubsetRandomSampler sampler(indices, seeded(6));
  Generator reference(6);
  std::vector<int64_t> expected;
  for (int64_t p : reference.randperm(5)) expected.push_back(indices[p]);
  EXPECT_EQ(sampler.epoch(), expected);
  EXPECT_EQ(sampler.size(), 5);
}

TEST(SubsetRandomSamplerTest, EveryEpochVisitsEachIndexOnceInANewOrder) {
  SubsetRandomSampler sampler({7, 3, 9, 1, 5, 11, 13, 15}, seeded(6));
  const std::vector<int64_t> first = sampler.epoch();
  const std::vector<int64_t> second = sampler.epoch();
  EXPECT_EQ(sorted(first), (std::vector<int64_t>{1, 3, 5, 7, 9, 11, 13, 15}));
  EXPECT_EQ(sorted(second), sorted(first));
  EXPECT_NE(first, second);
}

TEST(SubsetRandomSamplerTest, UnseededFollowsTheGlobalSeed) {
  SubsetRandomSampler sampler(iota(20));
  manual_seed(5);
  const std::vector<int64_t> first = sampler.epoch();
  manual_seed(5);
  EXPECT_EQ(sampler.epoch(), first);
}

TEST(SubsetRandomSamplerTest, NoIndicesYieldNothing) {
  SubsetRandomSampler sampler({});
  EXPECT_EQ(sampler.size(), 0);
  EXPECT_TRUE(sampler.epoch().empty());
}

TEST(WeightedRandomSamplerTest, WithReplacementDrawsInProportionToTheWeights) {
  WeightedRandomSampler sampler({1, 3, 0, 4}, 80000, true, seeded(1));
  const std::map<int64_t, int64_t> seen = counts(sampler.epoch());
  EXPECT_EQ(seen.count(2), 0u);  // weight 0: never drawn
  expect_frequency(seen.at(0), 80000, 1.0 / 8);
  expect_frequency(seen.at(1), 80000, 3.0 / 8);
  expect_frequency(seen.at(3), 80000, 4.0 / 8);
}

TEST(WeightedRandomSamplerTest, AZeroWeightAtTheEndIsNeverDrawn) {
  WeightedRandomSampler sampler({2, 0}, 1000, true, seeded(1));
  EXPECT_EQ(sampler.epoch(), std::vector<int64_t>(1000, 0));
}

TEST(WeightedRandomSamplerTest, WithoutReplacementDrawsEachIndexAtMostOnce) {
  WeightedRandomSampler sampler({5, 1, 2, 8, 3, 1, 1, 4, 2, 6}, 6, false, seeded(1));
  for (int epoch = 0; epoch < 20; ++epoch) {
    const std::vector<int64_t> samples = sampler.epoch();
    ASSERT_EQ(samples.size(), 6u);
    EXPECT_EQ(std::set<int64_t>(samples.begin(), samples.end()).size(), 6u);
  }
}

// torch.multinomial without replacement: each draw in proportion to the
// weights not yet drawn, so P(a then b) = w_a / W * w_b / (W - w_a).
TEST(WeightedRandomSamplerTest, WithoutReplacementDrawsInTurnFromTheWeightsLeft) {
  const std::vector<double> weights = {1, 2, 7};
  WeightedRandomSampler sampler(weights, 2, false, seeded(2));
  std::map<std::pair<int64_t, int64_t>, int64_t> seen;
  const int64_t trials = 20000;
  for (int64_t t = 0; t < trials; ++t) {
    const std::vector<int64_t> s = sampler.epoch();
    ++seen[{s[0], s[1]}];
  }
  for (int64_t a = 0; a < 3; ++a) {
    for (int64_t b = 0; b < 3; ++b) {
      if (a == b) continue;
      expect_frequency(seen[{a, b}], trials, weights[a] / 10 * weights[b] / (10 - weights[a]));
    }
  }
}

TEST(WeightedRandomSamplerTest, WithoutReplacementZeroWeightsComeLast) {
  WeightedRandomSampler sampler({0, 1, 0, 2}, 4, false, seeded(3));
  for (int epoch = 0; epoch < 10; ++epoch) {
    const std::vector<int64_t> samples = sampler.epoch();
    EXPECT_EQ(sorted({samples[0], samples[1]}), (std::vector<int64_t>{1, 3}));
    EXPECT_EQ(sorted({samples[2], samples[3]}), (std::vector<int64_t>{0, 2}));
  }
}

TEST(WeightedRandomSamplerTest, IsReproducibleBySeedAndDrawsAnewEachEpoch) {
  for (bool replacement : {true, false}) {
    WeightedRandomSampler a(std::vector<double>(30, 1.0), 20, replacement, seeded(9));
    WeightedRandomSampler b(std::vector<double>(30, 1.0), 20, replacement, seeded(9));
    const std::vector<int64_t> first = a.epoch();
    EXPECT_EQ(b.epoch(), first);
    EXPECT_NE(a.epoch(), first);
  }
}

TEST(WeightedRandomSamplerTest, UnseededFollowsTheGlobalSeed) {
  WeightedRandomSampler sampler(std::vector<double>(30, 1.0), 20);
  manual_seed(5);
  const std::vector<int64_t> first = sampler.epoch();
  manual_seed(5);
  EXPECT_EQ(sampler.epoch(), first);
}

TEST(WeightedRandomSamplerTest, SizeIsNumSamples) {
  WeightedRandomSampler sampler({1, 2}, 7);
  EXPECT_EQ(sampler.size(), 7);
  EXPECT_EQ(sampler.epoch().size(), 7u);
  EXPECT_TRUE(sampler.replacement());
}

TEST(WeightedRandomSamplerTest, TensorWeightsOfAnyDtypeAreRead) {
  WeightedRandomSampler sampler(tensor({1, 2, 3}).to(kInt64), 2);
  EXPECT_EQ(sampler.weights(), (std::vector<double>{1, 2, 3}));
}

TEST(WeightedRandomSamplerTest, WeightsNotOneDimensionalAreAnErrorAsPyTorch) {
  EXPECT_THROW_MSG(WeightedRandomSampler(ones({1, 2}), 3),
                   "weights should be a 1d sequence but given weights have shape (1, 2)");
  EXPECT_THROW_MSG(WeightedRandomSampler(scalar_tensor(1), 3),
                   "weights should be a 1d sequence but given weights have shape ()");
  EXPECT_THROW_MSG(WeightedRandomSampler(Tensor(), 3),
                   "WeightedRandomSampler: the weights tensor is undefined");
}

TEST(WeightedRandomSamplerTest, NonPositiveNumSamplesIsAnErrorAsPyTorch) {
  EXPECT_THROW_MSG(WeightedRandomSampler({1, 1}, 0),
                   "num_samples should be a positive integer value, but got num_samples=0");
  EXPECT_THROW_MSG(WeightedRandomSampler({1, 1}, -1),
                   "num_samples should be a positive integer value, but got num_samples=-1");
}

// With replacement, torch.multinomial checks each weight in turn.
TEST(WeightedRandomSamplerTest, BadWeightsWithReplacementAreErrorsAsPyTorch) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const char* negative = "invalid multinomial distribution (encountering probability entry < 0)";
  const char* infinite =
      "invalid multinomial distribution (encountering probability entry = infinity or NaN)";
  EXPECT_THROW_MSG(WeightedRandomSampler({1, -1}, 2), negative);
  EXPECT_THROW_MSG(WeightedRandomSampler({1, nan}, 2), negative);
  EXPECT_THROW_MSG(WeightedRandomSampler({1, inf}, 2), infinite);
  EXPECT_THROW_MSG(WeightedRandomSampler({inf, -1}, 2), infinite);
}

TEST(WeightedRandomSamplerTest, BadWeightsWithoutReplacementAreErrorsAsPyTorch) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const char* message = "probability tensor contains either `inf`, `nan` or element < 0";
  EXPECT_THROW_MSG(WeightedRandomSampler({1, -1}, 2, false), message);
  EXPECT_THROW_MSG(WeightedRandomSampler({1, nan}, 2, false), message);
  EXPECT_THROW_MSG(WeightedRandomSampler({1, inf}, 1, false), message);
}

TEST(WeightedRandomSamplerTest, WeightsSummingToZeroAreAnErrorAsPyTorch) {
  const char* message = "invalid multinomial distribution (sum of probabilities <= 0)";
  EXPECT_THROW_MSG(WeightedRandomSampler({0, 0}, 2), message);
  EXPECT_THROW_MSG(WeightedRandomSampler({0, 0}, 2, false), message);
  EXPECT_THROW_MSG(WeightedRandomSampler(std::vector<double>{}, 1), message);
}

TEST(WeightedRandomSamplerTest, MoreSamplesThanWeightsWithoutReplacementIsAnErrorAsPyTorch) {
  const char* message = "cannot sample n_sample > prob_dist.size(-1) samples without replacement";
  EXPECT_THROW_MSG(WeightedRandomSampler({1, 1}, 3, false), message);
  EXPECT_THROW_MSG(WeightedRandomSampler({-1, 0}, 3, false), message);  // checked first
  EXPECT_THROW_MSG(WeightedRandomSampler(std::vector<double>{}, 1, false), message);
}

// PyTorch's docstring example.
TEST(BatchSamplerTest, GroupsTheSamplersIndicesInOrder) {
  BatchSampler sampler(std::make_shared<SequentialSampler>(10), 3, false);
  EXPECT_EQ(sampler.epoch(),
            (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9}}));
  EXPECT_EQ(sampler.size(), 4);
}

TEST(BatchSamplerTest, DropLastLeavesOutThePartialBatch) {
  BatchSampler sampler(std::make_shared<SequentialSampler>(10), 3, true);
  EXPECT_EQ(sampler.epoch(), (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}}));
  EXPECT_EQ(sampler.size(), 3);
}

TEST(BatchSamplerTest, WholeBatchesAreKeptWithDropLast) {
  BatchSampler keep(std::make_shared<SequentialSampler>(9), 3, false);
  BatchSampler drop(std::make_shared<SequentialSampler>(9), 3, true);
  EXPECT_EQ(keep.size(), 3);
  EXPECT_EQ(drop.size(), 3);
  EXPECT_EQ(drop.epoch(), keep.epoch());
}

TEST(BatchSamplerTest, EmptySamplerGivesNoBatches) {
  BatchSampler sampler(std::make_shared<SubsetRandomSampler>(std::vector<int64_t>{}), 2, false);
  EXPECT_EQ(sampler.size(), 0);
  EXPECT_TRUE(sampler.epoch().empty());
}

TEST(BatchSamplerTest, CutsEachEpochOfARandomSampler) {
  BatchSampler sampler(std::make_shared<RandomSampler>(7, false, std::nullopt, seeded(3)), 2,
                       false);
  Generator reference(3);
  for (int epoch = 0; epoch < 2; ++epoch) {
    const std::vector<int64_t> perm = reference.randperm(7);
    EXPECT_EQ(sampler.epoch(),
              (std::vector<std::vector<int64_t>>{
                  {perm[0], perm[1]}, {perm[2], perm[3]}, {perm[4], perm[5]}, {perm[6]}}));
  }
}

TEST(BatchSamplerTest, NonPositiveBatchSizeIsAnErrorAsPyTorch) {
  EXPECT_THROW_MSG(BatchSampler(std::make_shared<SequentialSampler>(3), 0, false),
                   "batch_size should be a positive integer value, but got batch_size=0");
}

TEST(BatchSamplerTest, NullSamplerIsAnError) {
  EXPECT_THROW_MSG(BatchSampler(nullptr, 2, false), "BatchSampler: the sampler is null");
}

// As len() of a PyTorch sampler without __len__.
TEST(SamplerTest, ASamplerWithoutSizeHasNoLength) {
  Unsized sampler;
  EXPECT_EQ(sampler.epoch(), (std::vector<int64_t>{4, 2}));
  EXPECT_THROW_MSG(sampler.size(),
                   "Sampler: this sampler has no length (its class does not override size())");
}

TEST(SamplerTest, BatchSamplerOverAnUnsizedSamplerBatchesButHasNoLength) {
  BatchSampler sampler(std::make_shared<Unsized>(), 1, false);
  EXPECT_EQ(sampler.epoch(), (std::vector<std::vector<int64_t>>{{4}, {2}}));
  EXPECT_THROW_MSG(sampler.size(), "Sampler: this sampler has no length");
}

TEST(SamplerTest, ABatchSamplerWithoutSizeHasNoLength) {
  UnsizedBatches sampler;
  EXPECT_EQ(sampler.epoch(), (std::vector<std::vector<int64_t>>{{1}}));
  EXPECT_THROW_MSG(sampler.size(),
                   "BatchSamplerBase: this batch sampler has no length (its "
                   "class does not override size())");
}

}  // namespace
}  // namespace torchlet::data
