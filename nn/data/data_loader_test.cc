#include "nn/data/data_loader.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "autograd/grad_mode.h"
#include "gtest/gtest.h"
#include "tensor/cuda/cuda_runtime.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"
#include "tensor/warning.h"

namespace torchlet::data {
namespace {

using ::torchlet::testing::values;

// Inputs [i, -i] and target i for example i.
std::shared_ptr<TensorDataset> numbered(int64_t n) {
  Tensor index = arange(0, n, 1, kFloat32);
  return std::make_shared<TensorDataset>(stack({index, -index}, 1), arange(0, n, 1, kInt64));
}

DataLoaderOptions batches_of(int64_t batch_size) {
  DataLoaderOptions options;
  options.batch_size = batch_size;
  return options;
}

DataLoaderOptions shuffled(int64_t batch_size, uint64_t seed, int64_t num_workers = 0) {
  DataLoaderOptions options = batches_of(batch_size);
  options.shuffle = true;
  options.seed = seed;
  options.num_workers = num_workers;
  return options;
}

// The targets of one epoch, batch by batch.
std::vector<std::vector<int64_t>> epoch(DataLoader<Example>& loader) {
  std::vector<std::vector<int64_t>> targets;
  for (Example& batch : loader) targets.push_back(batch.target.to_vector<int64_t>());
  return targets;
}

std::vector<int64_t> flat(const std::vector<std::vector<int64_t>>& batches) {
  std::vector<int64_t> all;
  for (const auto& b : batches) all.insert(all.end(), b.begin(), b.end());
  return all;
}

// Example i is the scalar tensor i; get() records its calls and the threads
// they ran on, and throws for index `fail_at`.
class Probe : public Dataset<Tensor> {
 public:
  explicit Probe(int64_t n, int64_t fail_at = -1) : n_(n), fail_at_(fail_at) {}
  int64_t size() const override { return n_; }
  Tensor get(int64_t index) const override {
    ++calls;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      threads.insert(std::this_thread::get_id());
    }
    if (index == fail_at_) throw std::runtime_error("cannot read example " + std::to_string(index));
    return scalar_tensor(index, kInt64);
  }
  mutable std::atomic<int64_t> calls{0};
  mutable std::set<std::thread::id> threads;

 private:
  int64_t n_;
  int64_t fail_at_;
  mutable std::mutex mutex_;
};

TEST(DataLoaderTest, BatchesFollowTheDatasetOrderWithoutShuffle) {
  DataLoader<Example> loader(numbered(7), batches_of(3));
  EXPECT_EQ(epoch(loader), (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6}}));
}

TEST(DataLoaderTest, BatchesStackInputsAndTargets) {
  DataLoader<Example> loader(numbered(7), batches_of(3));
  auto it = loader.begin();
  const Example& first = *it;
  EXPECT_EQ(first.data.sizes(), (SizeVec{3, 2}));
  EXPECT_EQ(first.target.sizes(), (SizeVec{3}));
  EXPECT_EQ(values(first.data), (std::vector<double>{0, 0, 1, -1, 2, -2}));
}

TEST(DataLoaderTest, SizeCountsThePartialLastBatch) {
  EXPECT_EQ(DataLoader<Example>(numbered(7), batches_of(3)).size(), 3);
  EXPECT_EQ(DataLoader<Example>(numbered(6), batches_of(3)).size(), 2);
}

TEST(DataLoaderTest, DropLastLeavesOutThePartialBatch) {
  DataLoaderOptions options = batches_of(3);
  options.drop_last = true;
  DataLoader<Example> loader(numbered(7), options);
  EXPECT_EQ(loader.size(), 2);
  EXPECT_EQ(epoch(loader), (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}}));
}

TEST(DataLoaderTest, EmptyDatasetHasNoBatches) {
  DataLoader<Example> loader(numbered(0), batches_of(3));
  EXPECT_EQ(loader.size(), 0);
  EXPECT_TRUE(epoch(loader).empty());
}

TEST(DataLoaderTest, ShuffleVisitsEveryExampleOncePerEpoch) {
  DataLoader<Example> loader(numbered(10), shuffled(4, 1));
  std::vector<int64_t> all = flat(epoch(loader));
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(DataLoaderTest, ShuffleReshufflesEveryEpoch) {
  DataLoader<Example> loader(numbered(20), shuffled(4, 1));
  EXPECT_NE(flat(epoch(loader)), flat(epoch(loader)));
}

TEST(DataLoaderTest, ShuffleIsReproducibleBySeed) {
  DataLoader<Example> a(numbered(20), shuffled(4, 5)), b(numbered(20), shuffled(4, 5));
  const auto a1 = epoch(a), a2 = epoch(a);
  EXPECT_EQ(epoch(b), a1);
  EXPECT_EQ(epoch(b), a2);
}

TEST(DataLoaderTest, DifferentSeedsShuffleDifferently) {
  DataLoader<Example> a(numbered(20), shuffled(4, 5)), b(numbered(20), shuffled(4, 6));
  EXPECT_NE(epoch(a), epoch(b));
}

DataLoaderOptions unseeded_shuffle(int64_t batch_size, int64_t num_workers = 0) {
  DataLoaderOptions options = shuffled(batch_size, 0, num_workers);
  options.seed.reset();
  return options;
}

TEST(DataLoaderTest, UnseededShuffleFollowsTheGlobalSeed) {
  DataLoader<Example> a(numbered(20), unseeded_shuffle(4));
  DataLoader<Example> b(numbered(20), unseeded_shuffle(4));
  manual_seed(3);
  const auto from_a = epoch(a);
  manual_seed(3);
  EXPECT_EQ(epoch(b), from_a);
}

// As PyTorch's RandomSampler, which draws a seed from the global generator at
// every iter(): manual_seed before an epoch fixes that epoch's order.
TEST(DataLoaderTest, UnseededShuffleDrawsEachEpochsSeedFromTheGlobalGenerator) {
  DataLoader<Example> loader(numbered(20), unseeded_shuffle(4));
  manual_seed(0);
  const auto first = epoch(loader);
  manual_seed(0);
  EXPECT_EQ(epoch(loader), first);
}

TEST(DataLoaderTest, UnseededShuffleStillReshufflesEveryEpoch) {
  manual_seed(0);
  DataLoader<Example> loader(numbered(20), unseeded_shuffle(4));
  EXPECT_NE(flat(epoch(loader)), flat(epoch(loader)));
}

TEST(DataLoaderTest, UnseededShuffleWithWorkersFollowsTheGlobalSeedAsWithout) {
  DataLoader<Example> serial(numbered(50), unseeded_shuffle(4, 0));
  DataLoader<Example> parallel(numbered(50), unseeded_shuffle(4, 3));
  manual_seed(7);
  const auto expected = epoch(serial);
  manual_seed(7);
  EXPECT_EQ(epoch(parallel), expected);
}

// A seeded loader keeps its own generator: reseeding the global one changes
// nothing, and successive epochs continue its sequence.
TEST(DataLoaderTest, SeededShuffleIgnoresTheGlobalGenerator) {
  DataLoader<Example> a(numbered(20), shuffled(4, 5)), b(numbered(20), shuffled(4, 5));
  manual_seed(1);
  const auto a1 = epoch(a);
  manual_seed(2);
  EXPECT_EQ(epoch(b), a1);
}

TEST(DataLoaderTest, WorkersGiveTheSameBatchesAsTheLoopThread) {
  DataLoader<Example> serial(numbered(50), shuffled(4, 9, 0));
  DataLoader<Example> prefetched(numbered(50), shuffled(4, 9, 2));
  EXPECT_EQ(epoch(prefetched), epoch(serial));
  EXPECT_EQ(epoch(prefetched), epoch(serial));
}

TEST(DataLoaderTest, WorkersMakeBatchesOffTheLoopThread) {
  auto probe = std::make_shared<Probe>(12);
  DataLoaderOptions options = batches_of(2);
  options.num_workers = 2;
  DataLoader<Tensor> loader(probe, options);
  int64_t batches = 0;
  for (Tensor& batch : loader) {
    EXPECT_EQ(batch.to_vector<int64_t>(), (std::vector<int64_t>{2 * batches, 2 * batches + 1}));
    ++batches;
  }
  EXPECT_EQ(batches, 6);
  EXPECT_EQ(probe->threads.count(std::this_thread::get_id()), 0u);
}

// Note [DataLoader threading]: a worker's collate sees the thread state of
// the thread that started the epoch.
class DataLoaderWorkerStateTest : public ::testing::Test {
 protected:
  void SetUp() override { set_cpu_device_count(2); }
  void TearDown() override { set_cpu_device_count(1); }

  // Two workers over six batches of numbered(12), whatever `collate` makes.
  template <typename Batch>
  std::vector<Batch> collect(std::function<Batch(std::vector<Example>)> collate) {
    DataLoaderOptions options = batches_of(2);
    options.num_workers = 2;
    DataLoader<Example, Batch> loader(numbered(12), options, std::move(collate));
    std::vector<Batch> batches;
    for (Batch& batch : loader) batches.push_back(batch);
    return batches;
  }
};

TEST_F(DataLoaderWorkerStateTest, CollateAllocatesOnTheLoopsCurrentDevice) {
  DeviceGuard device(Device("cpu:1"));
  const std::vector<Tensor> batches =
      collect<Tensor>([](std::vector<Example>) { return zeros({1}); });
  ASSERT_EQ(batches.size(), 6u);
  for (const Tensor& batch : batches) EXPECT_EQ(batch.device(), Device("cpu:1"));
}

TEST_F(DataLoaderWorkerStateTest, CollateRunsUnderTheLoopsGradMode) {
  NoGradGuard no_grad;
  const std::vector<bool> grad_enabled =
      collect<bool>([](std::vector<Example>) { return is_grad_enabled(); });
  EXPECT_EQ(grad_enabled, std::vector<bool>(6, false));
}

TEST_F(DataLoaderWorkerStateTest, CollateWarningsReachTheLoopsHandler) {
  std::vector<std::string> warnings;
  WarningHandlerGuard handler([&warnings](const std::string& message) {
    warnings.push_back(message);
  });
  collect<int64_t>([](std::vector<Example> examples) {
    warn("collating " + std::to_string(examples.size()));
    return static_cast<int64_t>(examples.size());
  });
  EXPECT_EQ(warnings, std::vector<std::string>(6, "collating 2"));
}

TEST(DataLoaderTest, WorkersPrefetchAtMostWorkersTimesPrefetchFactorBatches) {
  auto probe = std::make_shared<Probe>(100);
  DataLoaderOptions options = batches_of(1);
  options.num_workers = 2;
  options.prefetch_factor = 3;
  DataLoader<Tensor> loader(probe, options);
  int64_t handed_out = 0;
  for (Tensor& batch : loader) {
    (void)batch;
    ++handed_out;
    EXPECT_LE(probe->calls.load(), handed_out + 2 * 3);
  }
}

TEST(DataLoaderTest, CustomCollateMakesAnyBatchType) {
  using Sum = int64_t;
  auto collate = [](std::vector<Example> examples) {
    Sum sum = 0;
    for (const Example& e : examples) sum += e.target.item<int64_t>();
    return sum;
  };
  DataLoader<Example, Sum> loader(numbered(5), batches_of(2), collate);
  std::vector<Sum> sums;
  for (Sum s : loader) sums.push_back(s);
  EXPECT_EQ(sums, (std::vector<Sum>{1, 5, 4}));
}

TEST(DataLoaderTest, CustomCollateReceivesTheExamplesInBatchOrder) {
  auto collate = [](std::vector<Example> examples) {
    std::vector<int64_t> targets;
    for (const Example& e : examples) targets.push_back(e.target.item<int64_t>());
    return targets;
  };
  DataLoader<Example, std::vector<int64_t>> loader(numbered(5), shuffled(5, 2), collate);
  DataLoader<Example> reference(numbered(5), shuffled(5, 2));
  auto it = loader.begin();
  EXPECT_EQ(*it, flat(epoch(reference)));
}

TEST(DataLoaderTest, SubsetOfTensorDatasetBatchesItsRows) {
  std::shared_ptr<const Dataset<Example>> dataset = numbered(10);
  auto subset = std::make_shared<Subset<Example>>(dataset, std::vector<int64_t>{9, 3, 5});
  DataLoader<Example> loader(subset, batches_of(2));
  EXPECT_EQ(epoch(loader), (std::vector<std::vector<int64_t>>{{9, 3}, {5}}));
}

TEST(DataLoaderTest, DatasetWithoutGetBatchIsCollatedPerExample) {
  auto probe = std::make_shared<Probe>(5);
  DataLoader<Tensor> loader(probe, batches_of(2));
  std::vector<std::vector<int64_t>> batches;
  for (Tensor& batch : loader) batches.push_back(batch.to_vector<int64_t>());
  EXPECT_EQ(batches, (std::vector<std::vector<int64_t>>{{0, 1}, {2, 3}, {4}}));
  EXPECT_EQ(probe->calls.load(), 5);
}

TEST(DataLoaderTest, BreakingOutStopsAndJoinsTheWorkers) {
  auto dataset = numbered(1000);
  DataLoader<Example> loader(dataset, shuffled(2, 1, 2));
  for (Example& batch : loader) {
    (void)batch;
    EXPECT_GT(dataset.use_count(), 2);  // the epoch's workers hold it too
    break;
  }
  // The epoch and its workers are gone: only this test and the loader hold it.
  EXPECT_EQ(dataset.use_count(), 2);
}

TEST(DataLoaderTest, LoopCanRunAgainAfterABreak) {
  DataLoader<Example> loader(numbered(6), batches_of(2));
  for (Example& batch : loader) {
    (void)batch;
    break;
  }
  EXPECT_EQ(flat(epoch(loader)), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
}

TEST(DataLoaderTest, DestroyingTheLoaderMidEpochStopsTheWorkers) {
  auto dataset = numbered(1000);
  auto loader = std::make_unique<DataLoader<Example>>(dataset, shuffled(2, 1, 2));
  auto it = loader->begin();
  ++it;
  loader.reset();
  EXPECT_EQ(dataset.use_count(), 1);
  EXPECT_THROW_MSG(++it, "DataLoader: this epoch was stopped because its DataLoader was destroyed");
}

TEST(DataLoaderTest, DestroyingTheLoaderMidEpochWithoutWorkersStopsTheEpoch) {
  auto dataset = numbered(10);
  auto loader = std::make_unique<DataLoader<Example>>(dataset, batches_of(2));
  auto it = loader->begin();
  loader.reset();
  EXPECT_EQ(dataset.use_count(), 1);
  EXPECT_THROW_MSG(++it, "DataLoader: this epoch was stopped because its DataLoader was destroyed");
}

TEST(DataLoaderTest, WorkerExceptionReachesTheLoopAtTheBatchThatFailed) {
  auto probe = std::make_shared<Probe>(10, /*fail_at=*/5);
  DataLoaderOptions options = batches_of(2);
  options.num_workers = 2;
  DataLoader<Tensor> loader(probe, options);
  std::vector<int64_t> seen;
  try {
    for (Tensor& batch : loader) {
      for (int64_t v : batch.to_vector<int64_t>()) seen.push_back(v);
    }
    ADD_FAILURE() << "the worker's exception did not reach the loop";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "cannot read example 5");
  }
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(probe.use_count(), 2);  // the workers were joined when the loop unwound
}

TEST(DataLoaderTest, ExceptionOnTheLoopThreadReachesTheLoop) {
  auto probe = std::make_shared<Probe>(10, /*fail_at=*/2);
  DataLoader<Tensor> loader(probe, batches_of(2));
  EXPECT_THROW(
      {
        for (Tensor& batch : loader) (void)batch;
      },
      std::runtime_error);
}

TEST(DataLoaderTest, ExceptionInTheLoopBodyStopsTheWorkers) {
  auto dataset = numbered(1000);
  DataLoader<Example> loader(dataset, shuffled(2, 1, 2));
  EXPECT_THROW(
      {
        for (Example& batch : loader) {
          (void)batch;
          throw std::runtime_error("stop");
        }
      },
      std::runtime_error);
  EXPECT_EQ(dataset.use_count(), 2);
}

// PyTorch's RandomSampler refuses an empty dataset when the loader is made.
TEST(DataLoaderTest, ShuffledLoaderOverAnEmptyDatasetIsAnErrorAsPyTorch) {
  EXPECT_THROW_MSG(DataLoader<Example>(numbered(0), shuffled(2, 1)),
                   "num_samples should be a positive integer value, but got num_samples=0");
  EXPECT_THROW_MSG(DataLoader<Example>(numbered(0), unseeded_shuffle(2)),
                   "num_samples should be a positive integer value, but got num_samples=0");
}

TEST(DataLoaderTest, NonPositiveBatchSizeIsAnError) {
  EXPECT_THROW_MSG(DataLoader<Example>(numbered(4), batches_of(0)),
                   "batch_size should be a positive integer value, but got batch_size=0");
}

TEST(DataLoaderTest, NegativeNumWorkersIsAnError) {
  DataLoaderOptions options;
  options.num_workers = -1;
  EXPECT_THROW_MSG(DataLoader<Example>(numbered(4), options),
                   "num_workers option should be non-negative; use num_workers=0 to disable "
                   "multiprocessing.");
}

TEST(DataLoaderTest, NonPositivePrefetchFactorIsAnError) {
  DataLoaderOptions options;
  options.num_workers = 1;
  options.prefetch_factor = 0;
  EXPECT_THROW_MSG(DataLoader<Example>(numbered(4), options),
                   "prefetch_factor option should be a positive integer, but got "
                   "prefetch_factor=0");
}

TEST(DataLoaderTest, NullDatasetIsAnError) {
  EXPECT_THROW_MSG(DataLoader<Example>(nullptr, batches_of(1)), "DataLoader: the dataset is null");
}

TEST(DataLoaderTest, BatchTypeWithoutDefaultCollateNeedsACollate) {
  EXPECT_THROW_MSG((DataLoader<Example, int64_t>(numbered(4), batches_of(1))),
                   "DataLoader: this example type has no default_collate; pass a collate "
                   "function");
}

// Yields `indices` every epoch; its size() says `size`, which need not be
// their number.
class Listed : public Sampler {
 public:
  explicit Listed(std::vector<int64_t> indices, std::optional<int64_t> size = std::nullopt)
      : indices_(std::move(indices)), size_(size.value_or(indices_.size())) {}
  std::vector<int64_t> epoch() override { return indices_; }
  int64_t size() const override { return size_; }

 private:
  std::vector<int64_t> indices_;
  int64_t size_;
};

// Yields `batches` every epoch.
class ListedBatches : public BatchSamplerBase {
 public:
  explicit ListedBatches(std::vector<std::vector<int64_t>> batches)
      : batches_(std::move(batches)) {}
  std::vector<std::vector<int64_t>> epoch() override { return batches_; }
  int64_t size() const override { return static_cast<int64_t>(batches_.size()); }

 private:
  std::vector<std::vector<int64_t>> batches_;
};

// Yields {1} and {3}; has no size().
class UnsizedSampler : public Sampler {
 public:
  std::vector<int64_t> epoch() override { return {1, 3}; }
};

DataLoaderOptions sampled(int64_t batch_size, std::shared_ptr<Sampler> sampler,
                          int64_t num_workers = 0) {
  DataLoaderOptions options = batches_of(batch_size);
  options.sampler = std::move(sampler);
  options.num_workers = num_workers;
  return options;
}

DataLoaderOptions batch_sampled(std::shared_ptr<BatchSamplerBase> batch_sampler,
                                int64_t num_workers = 0) {
  DataLoaderOptions options;
  options.batch_sampler = std::move(batch_sampler);
  options.num_workers = num_workers;
  return options;
}

// As PyTorch's DataLoader(range(10), sampler=[9, 8, 7, 1], batch_size=3).
TEST(DataLoaderSamplerTest, SamplerChoosesTheIndicesOfEachBatch) {
  for (int64_t workers : {0, 2}) {
    DataLoader<Example> loader(numbered(10), sampled(3, std::make_shared<Listed>(
                                                           std::vector<int64_t>{9, 8, 7, 1}),
                                                     workers));
    EXPECT_EQ(loader.size(), 2);
    EXPECT_EQ(epoch(loader), (std::vector<std::vector<int64_t>>{{9, 8, 7}, {1}}));
  }
}

// As PyTorch: len(DataLoader(range(10), sampler=RandomSampler(range(10),
// replacement=True, num_samples=25), batch_size=3, drop_last=True)) == 8.
TEST(DataLoaderSamplerTest, SizeComesFromTheSampler) {
  DataLoaderOptions options = sampled(
      3, std::make_shared<RandomSampler>(10, true, 25, std::make_shared<Generator>(1)));
  options.drop_last = true;
  DataLoader<Example> loader(numbered(10), options);
  EXPECT_EQ(loader.size(), 8);
  const auto batches = epoch(loader);
  EXPECT_EQ(batches.size(), 8u);
  for (const auto& batch : batches) EXPECT_EQ(batch.size(), 3u);
}

// PyTorch's shuffle=True is a RandomSampler over the dataset drawing from the
// loader's generator.
TEST(DataLoaderSamplerTest, ShuffleIsARandomSamplerOverTheDataset) {
  DataLoader<Example> shuffling(numbered(20), shuffled(4, 5));
  DataLoader<Example> sampling(
      numbered(20),
      sampled(4, std::make_shared<RandomSampler>(20, false, std::nullopt,
                                                 std::make_shared<Generator>(5))));
  EXPECT_EQ(epoch(sampling), epoch(shuffling));
  EXPECT_EQ(epoch(sampling), epoch(shuffling));
  EXPECT_NE(dynamic_cast<RandomSampler*>(shuffling.sampler().get()), nullptr);
}

TEST(DataLoaderSamplerTest, DefaultSamplersAreSequentialAndBatchSampler) {
  DataLoaderOptions options = batches_of(3);
  options.drop_last = true;
  DataLoader<Example> loader(numbered(7), options);
  EXPECT_NE(dynamic_cast<SequentialSampler*>(loader.sampler().get()), nullptr);
  const auto* batches = dynamic_cast<BatchSampler*>(loader.batch_sampler().get());
  ASSERT_NE(batches, nullptr);
  EXPECT_EQ(batches->batch_size(), 3);
  EXPECT_TRUE(batches->drop_last());
  EXPECT_EQ(batches->sampler(), loader.sampler());
}

TEST(DataLoaderSamplerTest, LoaderKeepsTheGivenSamplers) {
  auto sampler = std::make_shared<SequentialSampler>(4);
  DataLoader<Example> by_sampler(numbered(4), sampled(2, sampler));
  EXPECT_EQ(by_sampler.sampler(), sampler);
  auto batches = std::make_shared<ListedBatches>(std::vector<std::vector<int64_t>>{{0}});
  DataLoader<Example> by_batches(numbered(4), batch_sampled(batches));
  EXPECT_EQ(by_batches.batch_sampler(), batches);
}

TEST(DataLoaderSamplerTest, WorkersGiveTheSameBatchesFromARandomSampler) {
  const auto loader_with = [](int64_t workers) {
    return std::make_unique<DataLoader<Example>>(
        numbered(50),
        sampled(4,
                std::make_shared<WeightedRandomSampler>(std::vector<double>(50, 1.0), 37, true,
                                                        std::make_shared<Generator>(3)),
                workers));
  };
  auto serial = loader_with(0), parallel = loader_with(2);
  EXPECT_EQ(epoch(*parallel), epoch(*serial));
  EXPECT_EQ(epoch(*parallel), epoch(*serial));
}

// As PyTorch's DataLoader(range(10), batch_sampler=[[1, 5], [3]]).
TEST(DataLoaderSamplerTest, BatchSamplerChoosesEachBatch) {
  for (int64_t workers : {0, 2}) {
    auto batches =
        std::make_shared<ListedBatches>(std::vector<std::vector<int64_t>>{{1, 5}, {3}});
    DataLoader<Example> loader(numbered(10), batch_sampled(batches, workers));
    EXPECT_EQ(loader.size(), 2);
    EXPECT_EQ(epoch(loader), (std::vector<std::vector<int64_t>>{{1, 5}, {3}}));
  }
}

TEST(DataLoaderSamplerTest, WorkersGiveTheSameBatchesFromABatchSampler) {
  const auto loader_with = [](int64_t workers) {
    auto subset = std::make_shared<SubsetRandomSampler>(std::vector<int64_t>{0, 2, 4, 6, 8, 10, 12},
                                                        std::make_shared<Generator>(4));
    return std::make_unique<DataLoader<Example>>(
        numbered(13), batch_sampled(std::make_shared<BatchSampler>(subset, 2, false), workers));
  };
  auto serial = loader_with(0), parallel = loader_with(2);
  const auto first = epoch(*serial);
  EXPECT_EQ(first.size(), 4u);
  EXPECT_EQ(epoch(*parallel), first);
  EXPECT_EQ(epoch(*parallel), epoch(*serial));
}

// PyTorch iterates until the sampler is exhausted, whatever its len() says.
TEST(DataLoaderSamplerTest, AnEpochHasTheBatchesTheSamplerYields) {
  for (int64_t workers : {0, 2}) {
    auto sampler = std::make_shared<Listed>(std::vector<int64_t>{0, 1, 2, 3, 4}, /*size=*/2);
    DataLoader<Example> loader(numbered(5), sampled(2, sampler, workers));
    EXPECT_EQ(loader.size(), 1);
    EXPECT_EQ(epoch(loader), (std::vector<std::vector<int64_t>>{{0, 1}, {2, 3}, {4}}));
  }
}

TEST(DataLoaderSamplerTest, UnsizedSamplerIteratesButTheLoaderHasNoSize) {
  DataLoader<Example> loader(numbered(5), sampled(1, std::make_shared<UnsizedSampler>()));
  EXPECT_EQ(epoch(loader), (std::vector<std::vector<int64_t>>{{1}, {3}}));
  EXPECT_THROW_MSG(loader.size(), "Sampler: this sampler has no length");
}

TEST(DataLoaderSamplerTest, SamplerYieldingNothingGivesNoBatches) {
  for (int64_t workers : {0, 2}) {
    DataLoader<Example> loader(numbered(5), sampled(2, std::make_shared<Listed>(
                                                           std::vector<int64_t>{}),
                                                    workers));
    EXPECT_EQ(loader.size(), 0);
    EXPECT_TRUE(epoch(loader).empty());
  }
}

TEST(DataLoaderSamplerTest, ASamplersIndexOutsideTheDatasetIsAnError) {
  DataLoader<Example> loader(numbered(3),
                             sampled(1, std::make_shared<Listed>(std::vector<int64_t>{0, 7})));
  auto it = loader.begin();
  EXPECT_EQ(it->target.to_vector<int64_t>(), (std::vector<int64_t>{0}));
  EXPECT_THROW_MSG(++it, "index 7 is out of bounds for dimension 0 with size 3");
}

TEST(DataLoaderSamplerTest, SamplerWithShuffleIsAnErrorAsPyTorch) {
  DataLoaderOptions options = shuffled(2, 1);
  options.sampler = std::make_shared<SequentialSampler>(4);
  EXPECT_THROW_MSG(DataLoader<Example>(numbered(4), options),
                   "sampler option is mutually exclusive with shuffle");
}

TEST(DataLoaderSamplerTest, BatchSamplerWithBatchingOptionsIsAnErrorAsPyTorch) {
  const char* message =
      "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
      "drop_last";
  const auto with = [](const std::function<void(DataLoaderOptions&)>& set) {
    DataLoaderOptions options =
        batch_sampled(std::make_shared<ListedBatches>(std::vector<std::vector<int64_t>>{{0}}));
    set(options);
    return options;
  };
  EXPECT_THROW_MSG(DataLoader<Example>(numbered(4), with([](auto& o) { o.batch_size = 2; })),
                   message);
  EXPECT_THROW_MSG(DataLoader<Example>(numbered(4), with([](auto& o) { o.batch_size = 0; })),
                   message);
  EXPECT_THROW_MSG(DataLoader<Example>(numbered(4), with([](auto& o) { o.shuffle = true; })),
                   message);
  EXPECT_THROW_MSG(DataLoader<Example>(numbered(4), with([](auto& o) { o.drop_last = true; })),
                   message);
  EXPECT_THROW_MSG(DataLoader<Example>(numbered(4), with([](auto& o) {
                                         o.sampler = std::make_shared<SequentialSampler>(4);
                                       })),
                   message);
}

TEST(DataLoaderTest, ConcatDatasetBatchesAcrossItsParts) {
  auto both = std::make_shared<ConcatDataset<Example>>(
      std::vector<std::shared_ptr<const Dataset<Example>>>{numbered(3), numbered(2)});
  for (int64_t workers : {0, 2}) {
    DataLoaderOptions options = batches_of(2);
    options.num_workers = workers;
    DataLoader<Example> loader(both, options);
    EXPECT_EQ(epoch(loader), (std::vector<std::vector<int64_t>>{{0, 1}, {2, 0}, {1}}));
  }
}

TEST(DataLoaderTest, PinMemoryWithoutAGpuWarnsAndLeavesBatchesAsTheyAre) {
  if (cuda::device_count() > 0) GTEST_SKIP() << "a GPU is present";
  std::vector<std::string> warnings;
  WarningHandlerGuard guard([&](const std::string& message) { warnings.push_back(message); });
  DataLoaderOptions options = batches_of(3);
  options.pin_memory = true;
  DataLoader<Example> loader(numbered(7), options);
  EXPECT_EQ(warnings, (std::vector<std::string>{
                          "'pin_memory' argument is set as true but no accelerator is found, then "
                          "device pinned memory won't be used."}));
  EXPECT_EQ(epoch(loader), (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6}}));
  EXPECT_FALSE(loader.begin()->data.is_pinned());
}

TEST(DataLoaderTest, PinMemoryPinsEveryTensorOfABatch) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "needs a GPU";
  for (int64_t workers : {0, 2}) {
    DataLoaderOptions options = batches_of(3);
    options.pin_memory = true;
    options.num_workers = workers;
    DataLoader<Example> loader(numbered(7), options);
    for (const Example& batch : loader) {
      EXPECT_TRUE(batch.data.is_pinned());
      EXPECT_TRUE(batch.target.is_pinned());
    }
    EXPECT_EQ(epoch(loader), (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6}}));
  }
  using Nested = std::pair<std::vector<Tensor>, std::tuple<Tensor, int, std::string>>;
  const Nested pinned =
      pin_memory(Nested{{ones({2}), Tensor()}, {zeros({3}), 7, "label"}});
  EXPECT_TRUE(pinned.first[0].is_pinned());
  EXPECT_FALSE(pinned.first[1].defined());
  EXPECT_TRUE(std::get<0>(pinned.second).is_pinned());
  EXPECT_EQ(std::get<1>(pinned.second), 7);
}

// What is not a CPU tensor passes through, with or without a GPU.
TEST(DataLoaderTest, PinMemoryLeavesWhatIsNotATensor) {
  EXPECT_EQ(pin_memory(std::string("text")), "text");
  EXPECT_EQ(pin_memory(3), 3);
  const std::map<std::string, std::vector<Tensor>> empty_lists = {{"a", {}}, {"b", {Tensor()}}};
  const auto same = pin_memory(empty_lists);
  EXPECT_EQ(same.size(), 2u);
  EXPECT_FALSE(same.at("b")[0].defined());
}

}  // namespace
}  // namespace torchlet::data
