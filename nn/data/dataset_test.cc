#include "nn/data/dataset.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nn/data/collate.h"
#include "nn/data/generator.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"
#include "tensor/warning.h"

namespace torchlet::data {
namespace {

using ::torchlet::testing::values;

// Rows [i, 10 + i] and targets 100 + i, so every value names its row.
std::shared_ptr<TensorDataset> rows(int64_t n) {
  Tensor data = stack({arange(0, n, 1, kFloat32), arange(10, 10 + n, 1, kFloat32)}, 1);
  return std::make_shared<TensorDataset>(data, arange(100, 100 + n, 1, kInt64));
}

TEST(GeneratorTest, RandpermIsAPermutation) {
  Generator generator(3);
  std::vector<int64_t> perm = generator.randperm(50);
  std::sort(perm.begin(), perm.end());
  std::vector<int64_t> expected(50);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(perm, expected);
}

TEST(GeneratorTest, SameSeedGivesSamePermutations) {
  Generator a(7), b(7);
  EXPECT_EQ(a.randperm(20), b.randperm(20));
  EXPECT_EQ(a.randperm(20), b.randperm(20));
}

TEST(GeneratorTest, SuccessiveDrawsDiffer) {
  Generator generator(7);
  EXPECT_NE(generator.randperm(20), generator.randperm(20));
}

TEST(GeneratorTest, ManualSeedRestartsTheSequence) {
  Generator generator(7);
  const std::vector<int64_t> first = generator.randperm(20);
  generator.manual_seed(7);
  EXPECT_EQ(generator.randperm(20), first);
}

TEST(GeneratorTest, UnseededFollowsTheGlobalSeed) {
  manual_seed(11);
  Generator a;
  manual_seed(11);
  Generator b;
  EXPECT_EQ(a.randperm(20), b.randperm(20));
}

TEST(GeneratorTest, NegativeLengthIsAnError) {
  Generator generator(0);
  EXPECT_THROW_MSG(generator.randperm(-1), "randperm: n must be non-negative, got -1");
}

TEST(TensorDatasetTest, SizeIsTheFirstDimension) { EXPECT_EQ(rows(5)->size(), 5); }

TEST(TensorDatasetTest, GetReturnsTheRowAndItsTarget) {
  const Example e = rows(5)->get(3);
  EXPECT_EQ(values(e.data), (std::vector<double>{3, 13}));
  EXPECT_EQ(e.target.dim(), 0);
  EXPECT_EQ(e.target.item<int64_t>(), 103);
}

TEST(TensorDatasetTest, GetBatchGathersRows) {
  const std::optional<Example> batch = rows(5)->get_batch({4, 0, 2});
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(values(batch->data), (std::vector<double>{4, 14, 0, 10, 2, 12}));
  EXPECT_EQ(values(batch->target), (std::vector<double>{104, 100, 102}));
}

TEST(TensorDatasetTest, GetOutOfRangeIsAnError) {
  EXPECT_THROW_MSG(rows(5)->get(5),
                   "TensorDataset: index 5 is out of bounds for dimension 0 with size 5");
  EXPECT_THROW_MSG(rows(5)->get(-6),
                   "TensorDataset: index -6 is out of bounds for dimension 0 with size 5");
}

// PyTorch indexes the tensors, so -1 is the last example and -size the first.
TEST(TensorDatasetTest, NegativeIndexCountsFromTheEndAsPyTorch) {
  const Example last = rows(5)->get(-1);
  EXPECT_EQ(values(last.data), (std::vector<double>{4, 14}));
  EXPECT_EQ(last.target.item<int64_t>(), 104);
  EXPECT_EQ(rows(5)->get(-5).target.item<int64_t>(), 100);
}

TEST(TensorDatasetTest, SizeMismatchIsAnError) {
  EXPECT_THROW_MSG(TensorDataset(zeros({4, 2}), zeros({3})),
                   "Size mismatch between tensors: [4, 2] and [3]");
}

TEST(TensorDatasetTest, ScalarTensorIsAnError) {
  EXPECT_THROW_MSG(TensorDataset(scalar_tensor(1), zeros({3})),
                   "TensorDataset: expected tensors with at least one dimension, got shapes [] "
                   "and [3]");
}

TEST(TensorDatasetTest, UndefinedTensorIsAnError) {
  EXPECT_THROW_MSG(TensorDataset(Tensor(), zeros({3})), "TensorDataset: a tensor is undefined");
}

TEST(CollateTest, StacksTensors) {
  const Tensor batch = default_collate(std::vector<Tensor>{tensor({1, 2}), tensor({3, 4})});
  EXPECT_EQ(batch.sizes(), (SizeVec{2, 2}));
  EXPECT_EQ(values(batch), (std::vector<double>{1, 2, 3, 4}));
}

TEST(CollateTest, StacksExamplesIntoInputsAndTargets) {
  auto dataset = rows(3);
  const Example batch = default_collate({dataset->get(2), dataset->get(0)});
  EXPECT_EQ(batch.data.sizes(), (SizeVec{2, 2}));
  EXPECT_EQ(batch.target.sizes(), (SizeVec{2}));
  EXPECT_EQ(values(batch.target), (std::vector<double>{102, 100}));
}

TEST(CollateTest, NoExamplesIsAnError) {
  EXPECT_THROW_MSG(default_collate(std::vector<Tensor>{}),
                   "default_collate: expected at least one example");
}

TEST(SubsetTest, GetMapsThroughTheIndices) {
  Subset<Example> subset(rows(6), {5, 1});
  EXPECT_EQ(subset.size(), 2);
  EXPECT_EQ(subset.get(0).target.item<int64_t>(), 105);
  EXPECT_EQ(subset.get(1).target.item<int64_t>(), 101);
}

TEST(SubsetTest, GetBatchGathersFromTheDataset) {
  Subset<Example> subset(rows(6), {5, 1, 3});
  const std::optional<Example> batch = subset.get_batch({2, 0});
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(values(batch->target), (std::vector<double>{103, 105}));
}

TEST(SubsetTest, IndexOutsideTheDatasetIsAnError) {
  EXPECT_THROW_MSG(Subset<Example>(rows(6), {1, 6}),
                   "Subset: index 6 is out of range for a dataset of size 6");
}

TEST(SubsetTest, GetOutOfRangeIsAnError) {
  Subset<Example> subset(rows(6), {5, 1});
  EXPECT_THROW_MSG(subset.get(2), "Subset: index 2 is out of range for a subset of size 2");
  EXPECT_THROW_MSG(subset.get_batch({0, -1}),
                   "Subset: index -1 is out of range for a subset of size 2");
}

// Targets 0, 1, 2 | (empty) | 10, 11.
std::shared_ptr<ConcatDataset<Example>> three_empty_two() {
  auto part = [](int64_t first, int64_t n) {
    return std::make_shared<TensorDataset>(zeros({n, 1}), arange(first, first + n, 1, kInt64));
  };
  return std::make_shared<ConcatDataset<Example>>(
      std::vector<std::shared_ptr<const Dataset<Example>>>{part(0, 3), part(5, 0), part(10, 2)});
}

std::vector<int64_t> targets_of(const Dataset<Example>& dataset) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < dataset.size(); ++i) out.push_back(dataset.get(i).target.item<int64_t>());
  return out;
}

TEST(ConcatDatasetTest, SizeIsTheTotalAndCumulativeSizesTheRunningTotals) {
  auto both = three_empty_two();
  EXPECT_EQ(both->size(), 5);
  EXPECT_EQ(both->cumulative_sizes(), (std::vector<int64_t>{3, 3, 5}));
  EXPECT_EQ(both->datasets().size(), 3u);
}

TEST(ConcatDatasetTest, GetReadsTheDatasetHoldingTheIndex) {
  EXPECT_EQ(targets_of(*three_empty_two()), (std::vector<int64_t>{0, 1, 2, 10, 11}));
}

TEST(ConcatDatasetTest, NegativeIndexCountsFromTheEndAsPyTorch) {
  auto both = three_empty_two();
  EXPECT_EQ(both->get(-1).target.item<int64_t>(), 11);
  EXPECT_EQ(both->get(-3).target.item<int64_t>(), 2);
  EXPECT_EQ(both->get(-5).target.item<int64_t>(), 0);
}

TEST(ConcatDatasetTest, NegativeIndexBeyondTheLengthIsAnErrorAsPyTorch) {
  EXPECT_THROW_MSG(three_empty_two()->get(-6),
                   "absolute value of index should not exceed dataset length");
}

TEST(ConcatDatasetTest, IndexPastTheEndIsAnError) {
  EXPECT_THROW_MSG(three_empty_two()->get(5),
                   "ConcatDataset: index 5 is out of range for a dataset of size 5");
}

TEST(ConcatDatasetTest, NoDatasetsIsAnErrorAsPyTorch) {
  EXPECT_THROW_MSG(ConcatDataset<Example>({}), "datasets should not be an empty iterable");
}

TEST(ConcatDatasetTest, NullDatasetIsAnError) {
  EXPECT_THROW_MSG(ConcatDataset<Example>({rows(2), nullptr}), "ConcatDataset: dataset 1 is null");
}

TEST(ConcatDatasetTest, GetBatchWithinOneDatasetGathersThere) {
  const std::optional<Example> batch = three_empty_two()->get_batch({4, 3, -2});
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(values(batch->target), (std::vector<double>{11, 10, 10}));
}

TEST(ConcatDatasetTest, GetBatchAcrossDatasetsLeavesItToCollation) {
  EXPECT_FALSE(three_empty_two()->get_batch({2, 3}).has_value());
  EXPECT_THROW_MSG(three_empty_two()->get_batch({0, 9}),
                   "ConcatDataset: index 9 is out of range for a dataset of size 5");
}

TEST(ConcatDatasetTest, OfSubsetsReadsThroughBoth) {
  std::shared_ptr<const Dataset<Example>> dataset = rows(6);
  auto odd = std::make_shared<Subset<Example>>(dataset, std::vector<int64_t>{5, 3, 1});
  auto even = std::make_shared<Subset<Example>>(dataset, std::vector<int64_t>{0, 2});
  ConcatDataset<Example> both({odd, even});
  EXPECT_EQ(targets_of(both), (std::vector<int64_t>{105, 103, 101, 100, 102}));
}

TEST(RandomSplitTest, PartsHaveTheLengthsAndCoverTheDatasetOnce) {
  Generator generator(42);
  std::shared_ptr<const Dataset<Example>> dataset = rows(10);
  auto parts = random_split(dataset, {7, 0, 3}, generator);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0]->size(), 7);
  EXPECT_EQ(parts[1]->size(), 0);
  EXPECT_EQ(parts[2]->size(), 3);
  std::set<int64_t> seen(parts[0]->indices().begin(), parts[0]->indices().end());
  seen.insert(parts[2]->indices().begin(), parts[2]->indices().end());
  EXPECT_EQ(seen.size(), 10u);
}

TEST(RandomSplitTest, IsAPermutationDrawnFromTheGenerator) {
  Generator generator(42), reference(42);
  std::shared_ptr<const Dataset<Example>> dataset = rows(10);
  auto parts = random_split(dataset, {6, 4}, generator);
  const std::vector<int64_t> perm = reference.randperm(10);
  EXPECT_EQ(parts[0]->indices(), std::vector<int64_t>(perm.begin(), perm.begin() + 6));
  EXPECT_EQ(parts[1]->indices(), std::vector<int64_t>(perm.begin() + 6, perm.end()));
}

TEST(RandomSplitTest, DifferentSeedsGiveDifferentSplits) {
  Generator a(1), b(2);
  std::shared_ptr<const Dataset<Example>> dataset = rows(20);
  EXPECT_NE(random_split(dataset, {10, 10}, a)[0]->indices(),
            random_split(dataset, {10, 10}, b)[0]->indices());
}

TEST(RandomSplitTest, LengthsNotSummingToTheSizeIsAnError) {
  Generator generator(0);
  std::shared_ptr<const Dataset<Example>> dataset = rows(10);
  EXPECT_THROW_MSG(random_split(dataset, {7, 2}, generator),
                   "Sum of input lengths does not equal the length of the input dataset!");
}

TEST(RandomSplitTest, NegativeLengthIsAnError) {
  Generator generator(0);
  std::shared_ptr<const Dataset<Example>> dataset = rows(10);
  EXPECT_THROW_MSG(random_split(dataset, {12, -2}, generator),
                   "random_split: lengths must be non-negative, got -2");
}

TEST(RandomSplitTest, NonWholeCountIsAnError) {
  Generator generator(0);
  std::shared_ptr<const Dataset<Example>> dataset = rows(10);
  EXPECT_THROW_MSG(random_split(dataset, {7.5, 2.5}, generator),
                   "random_split: lengths must be counts, or fractions summing to 1, got 7.5");
}

// The expected counts are what PyTorch 1.13's random_split gives.
TEST(RandomSplitTest, FractionsBecomeFlooredCountsWithTheRemainderRoundRobin) {
  Generator generator(0);
  const auto sizes = [&](int64_t n, const std::vector<double>& fractions) {
    std::vector<int64_t> out;
    for (const auto& part : random_split<Example>(rows(n), fractions, generator)) {
      out.push_back(part->size());
    }
    return out;
  };
  EXPECT_EQ(sizes(10, {0.5, 0.3, 0.2}), (std::vector<int64_t>{5, 3, 2}));
  EXPECT_EQ(sizes(11, {0.34, 0.33, 0.33}), (std::vector<int64_t>{4, 4, 3}));
  EXPECT_EQ(sizes(7, {1.0}), (std::vector<int64_t>{7}));
}

// PyTorch 1.13's docstring example, and a remainder of 3 over four splits.
TEST(RandomSplitTest, FractionsGiveTheCountsPyTorchGives) {
  Generator generator(0);
  const auto sizes = [&](int64_t n, const std::vector<double>& fractions) {
    std::vector<int64_t> out;
    for (const auto& part : random_split<Example>(rows(n), fractions, generator)) {
      out.push_back(part->size());
    }
    return out;
  };
  EXPECT_EQ(sizes(30, {0.3, 0.3, 0.4}), (std::vector<int64_t>{9, 9, 12}));
  EXPECT_EQ(sizes(7, {0.25, 0.25, 0.25, 0.25}), (std::vector<int64_t>{2, 2, 2, 1}));
}

TEST(RandomSplitTest, FractionsCutTheSamePermutationAsCounts) {
  Generator by_fraction(5), by_count(5);
  std::shared_ptr<const Dataset<Example>> dataset = rows(10);
  auto a = random_split(dataset, {0.7, 0.3}, by_fraction);
  auto b = random_split(dataset, {7, 3}, by_count);
  EXPECT_EQ(a[0]->indices(), b[0]->indices());
  EXPECT_EQ(a[1]->indices(), b[1]->indices());
}

TEST(RandomSplitTest, AnEmptySplitFromFractionsIsWarnedAboutAsPyTorch) {
  std::vector<std::string> warnings;
  Generator generator(0);
  std::vector<std::shared_ptr<Subset<Example>>> parts;
  {
    WarningHandlerGuard guard([&](const std::string& message) { warnings.push_back(message); });
    parts = random_split<Example>(rows(2), {0.1, 0.1, 0.8}, generator);
  }
  EXPECT_EQ(parts[1]->size(), 0);
  EXPECT_EQ(warnings, (std::vector<std::string>{
                          "Length of split at index 1 is 0. This might result in an empty dataset."}));
}

TEST(RandomSplitTest, AFractionOutsideZeroToOneIsAnErrorAsPyTorch) {
  Generator generator(0);
  EXPECT_THROW_MSG(random_split<Example>(rows(2), {1.5, -0.5}, generator),
                   "Fraction at index 0 is not between 0 and 1");
}

}  // namespace
}  // namespace torchlet::data
