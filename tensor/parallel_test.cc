// parallel_for: the caller's ThreadLocalState in every worker, exceptions
// rethrown to the caller after all chunks, the count of chunks workers ran;
// loops split across idle devices' executors (Note [Idle devices lend their
// cores]).
#include "tensor/parallel.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/conv.h"
#include "tensor/executor.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"
#include "tensor/thread_local_state.h"

namespace torchlet {
namespace {

constexpr int kThreads = 4;
constexpr int64_t kGrain = 8;
constexpr int64_t kRange = kThreads * kGrain * 4;

// Four pool threads on two CPU devices, whatever the machine's cores.
class ParallelForTest : public ::testing::Test {
 protected:
  void SetUp() override {
    set_cpu_device_count(2);
    set_num_threads(kThreads);
  }
  void TearDown() override {
    set_num_threads(0);
    set_cpu_device_count(1);
  }
};

// Per chunk: the thread that ran it and the state it saw.
struct Seen {
  std::mutex mu;
  std::set<std::thread::id> threads;
  std::vector<ThreadLocalState> states;
  void record() {
    std::lock_guard<std::mutex> lock(mu);
    threads.insert(std::this_thread::get_id());
    states.push_back(thread_local_state());
  }
};

TEST_F(ParallelForTest, WorkersRunWithTheCallersCurrentDevice) {
  Seen seen;
  {
    DeviceGuard guard(Device("cpu:1"));
    parallel_for(0, kRange, kGrain, [&](int64_t, int64_t) { seen.record(); });
  }
  EXPECT_GT(seen.threads.size(), 1u);  // workers ran chunks, not only the caller
  for (const ThreadLocalState& s : seen.states) EXPECT_EQ(s.device, Device("cpu:1"));
}

TEST_F(ParallelForTest, WorkersRunWithTheCallersOtherThreadLocalState) {
  Seen seen;
  ThreadLocalState state = thread_local_state();
  state.grad_enabled = false;
  {
    ThreadLocalStateGuard guard(state);
    parallel_for(0, kRange, kGrain, [&](int64_t, int64_t) { seen.record(); });
  }
  EXPECT_GT(seen.threads.size(), 1u);
  for (const ThreadLocalState& s : seen.states) EXPECT_FALSE(s.grad_enabled);
}

TEST_F(ParallelForTest, AllocationInAWorkerLandsOnTheCallersDevice) {
  std::mutex mu;
  std::vector<Device> devices;
  DeviceGuard guard(Device("cpu:1"));
  parallel_for(0, kRange, kGrain, [&](int64_t, int64_t) {
    Tensor t = zeros({1});
    std::lock_guard<std::mutex> lock(mu);
    devices.push_back(t.device());
  });
  ASSERT_EQ(devices.size(), static_cast<size_t>(kThreads));
  for (Device d : devices) EXPECT_EQ(d, Device("cpu:1"));
}

TEST_F(ParallelForTest, PoolChunksRunCountsTheWorkersChunksOnly) {
  const int64_t before = detail::pool_chunks_run();
  parallel_for(0, kRange, kGrain, [](int64_t, int64_t) {});
  EXPECT_EQ(detail::pool_chunks_run() - before, kThreads - 1);  // not the caller's chunk
  parallel_for(0, kGrain, kGrain, [](int64_t, int64_t) {});     // inline: no pool
  EXPECT_EQ(detail::pool_chunks_run() - before, kThreads - 1);
}

TEST_F(ParallelForTest, AnExceptionInAWorkerReachesTheCallerAfterAllChunks) {
  std::atomic<int> entered{0};
  std::atomic<int> finished{0};
  auto run = [&] {
    parallel_for(0, kRange, kGrain, [&](int64_t b, int64_t) {
      ++entered;
      TORCHLET_CHECK(b == 0, "chunk failed");
      ++finished;
    });
  };
  EXPECT_THROW_MSG(run(), "chunk failed");
  EXPECT_EQ(entered.load(), kThreads);
  EXPECT_EQ(finished.load(), 1);  // the caller's chunk ran to its end
}

TEST_F(ParallelForTest, AnExceptionInTheCallersChunkWaitsForTheWorkers) {
  std::atomic<int> finished{0};
  auto run = [&] {
    parallel_for(0, kRange, kGrain, [&](int64_t b, int64_t) {
      TORCHLET_CHECK(b != 0, "first chunk failed");
      ++finished;
    });
  };
  EXPECT_THROW_MSG(run(), "first chunk failed");
  EXPECT_EQ(finished.load(), kThreads - 1);
}

TEST_F(ParallelForTest, ThePoolWorksAfterAnException) {
  EXPECT_THROW_MSG(parallel_for(0, kRange, kGrain,
                                [](int64_t, int64_t) { TORCHLET_CHECK(false, "boom"); }),
                   "boom");
  std::atomic<int64_t> covered{0};
  parallel_for(0, kRange, kGrain, [&](int64_t b, int64_t e) { covered += e - b; });
  EXPECT_EQ(covered.load(), kRange);
}

TEST_F(ParallelForTest, AnErrorFromAnOpInsideALoopReachesTheCaller) {
  auto run = [] {
    parallel_for(0, kRange, kGrain, [](int64_t, int64_t) { zeros({2}) + zeros({3}); });
  };
  EXPECT_THROW_MSG(run(), "add: The size of tensor a (2) must match");
}

// Holds the calling thread's device's intra-op pool from another thread
// (as a DataLoader worker's collate does beside a training step) until
// destroyed.
class BusyPool {
 public:
  BusyPool()
      : holder_([this] {
          parallel_for(0, 2, 1, [this](int64_t b, int64_t) {
            if (b != 0) return;  // the holder's own chunk, run while it holds the pool
            held_ = true;
            while (!release_) std::this_thread::yield();
          });
        }) {
    while (!held_) std::this_thread::yield();
  }
  ~BusyPool() {
    release_ = true;
    holder_.join();
  }
  BusyPool(const BusyPool&) = delete;
  BusyPool& operator=(const BusyPool&) = delete;

 private:
  std::atomic<bool> held_{false};
  std::atomic<bool> release_{false};
  std::thread holder_;
};

// Each chunk a loop ran: its bounds, and whether it ran in a parallel
// region; and the threads that ran them.
struct LoopChunks {
  std::vector<std::tuple<int64_t, int64_t, bool>> chunks;
  std::set<std::thread::id> threads;
};
LoopChunks chunks_of_a_loop() {
  std::mutex mu;
  LoopChunks seen;
  parallel_for(0, kRange + 3, kGrain, [&](int64_t b, int64_t e) {
    std::lock_guard<std::mutex> lock(mu);
    seen.chunks.emplace_back(b, e, detail::in_parallel_region());
    seen.threads.insert(std::this_thread::get_id());
  });
  std::sort(seen.chunks.begin(), seen.chunks.end());
  return seen;
}

TEST_F(ParallelForTest, ALoopWhosePoolIsBusyRunsThePoolsChunksInARegion) {
  const LoopChunks free_pool = chunks_of_a_loop();
  ASSERT_EQ(free_pool.chunks.size(), static_cast<size_t>(kThreads));
  BusyPool busy;
  const LoopChunks busy_pool = chunks_of_a_loop();
  EXPECT_EQ(busy_pool.chunks, free_pool.chunks);  // every one of them in a region
  EXPECT_EQ(busy_pool.threads, std::set<std::thread::id>{std::this_thread::get_id()});
  EXPECT_FALSE(detail::in_parallel_region());
}

TEST_F(ParallelForTest, AnExceptionInALoopWhosePoolIsBusyComesAfterEveryChunk) {
  BusyPool busy;
  std::atomic<int> entered{0};
  auto run = [&] {
    parallel_for(0, kRange, kGrain, [&](int64_t b, int64_t) {
      ++entered;
      TORCHLET_CHECK(b != 0, "first chunk failed");
    });
  };
  EXPECT_THROW_MSG(run(), "first chunk failed");
  EXPECT_EQ(entered.load(), kThreads);
}

// A convolution chooses its kernels from the thread count and whether it
// is inside a parallel region, and its chunks choose again: with more than
// 8 output channels (LeNet-5's second layer) its weight gradient keeps
// transposed sums only in a region, which a busy pool's loop once left.
TEST_F(ParallelForTest, AConvolutionsWeightGradientWithItsPoolBusyMatchesTheFreePool) {
  manual_seed(0);
  const Tensor input = randn({64, 6, 14, 14});
  const Tensor grad_output = randn({64, 16, 10, 10});
  ConvParams params;
  params.stride = {1, 1};
  params.padding = {0, 0};
  params.dilation = {1, 1};
  const Tensor free_pool = convolution_backward_weight(input, grad_output, {16, 6, 5, 5}, params);
  BusyPool busy;
  const Tensor busy_pool = convolution_backward_weight(input, grad_output, {16, 6, 5, 5}, params);
  EXPECT_TRUE(busy_pool.allclose(free_pool, 1e-5, 1e-4));
}

// Note [Idle devices lend their cores]: one CPU device per core, so each
// device's pool is its caller alone, and large loops on a thread that is
// not an executor offer chunks to other devices' executors that poll for
// work.
constexpr int64_t kLarge = kLendingMinRange;

class LendingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (hardware_threads() < 2) GTEST_SKIP() << "needs two cores";
    set_cpu_device_count(hardware_threads());
    set_num_threads(0);
  }
  void TearDown() override { set_cpu_device_count(1); }
};

/// cpu:1's executor's thread, which then polls for its next task for a
/// while (kSpinBetweenTasks) unless the host deschedules it.
std::thread::id poll_on_cpu1() {
  std::thread::id id;
  device_executor(Device("cpu:1")).submit([&id] { id = std::this_thread::get_id(); }).get();
  return id;
}

// Runs a two-chunk loop until cpu:1's executor ran its second chunk (the
// caller's first waits for that, a while, each try), as it will unless the
// host keeps that thread off its core every time. `second` is the second
// chunk's body. True if the executor ran it.
bool lent_second_chunk(const std::function<void()>& second) {
  for (int attempt = 0; attempt < 50; ++attempt) {
    const std::thread::id helper = poll_on_cpu1();
    std::atomic<bool> second_done{false};
    std::atomic<bool> by_helper{false};
    const auto body = [&](int64_t b, int64_t) {
      if (b == 0) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
        while (!second_done.load() && std::chrono::steady_clock::now() < deadline) {
          std::this_thread::yield();
        }
        return;
      }
      if (b != kLarge / hardware_threads()) return;
      by_helper = std::this_thread::get_id() == helper;
      second_done = true;
      if (by_helper) second();
    };
    try {
      parallel_for(0, kLarge, kGrain, body);
    } catch (...) {
      if (by_helper) throw;
    }
    if (by_helper) return true;
  }
  return false;
}

TEST_F(LendingTest, AnIdleDevicesExecutorRunsAChunkWithTheCallersState) {
  ThreadLocalState seen;
  ThreadLocalState state = thread_local_state();
  state.grad_enabled = false;
  const int64_t before = detail::lent_chunks_run();
  ThreadLocalStateGuard guard(state);
  ASSERT_TRUE(lent_second_chunk([&] { seen = thread_local_state(); }));
  EXPECT_GE(detail::lent_chunks_run() - before, 1);
  EXPECT_EQ(seen.device, Device("cpu:0"));
  EXPECT_FALSE(seen.grad_enabled);
  // The executor still runs its own device's tasks.
  Device ran_on{kCPU, 0};
  device_executor(Device("cpu:1")).submit([&] { ran_on = current_device(); }).get();
  EXPECT_EQ(ran_on, Device("cpu:1"));
}

TEST_F(LendingTest, AnExceptionInALentChunkReachesTheCaller) {
  EXPECT_THROW_MSG(lent_second_chunk([] { TORCHLET_CHECK(false, "lent chunk failed"); }),
                   "lent chunk failed");
}

TEST_F(LendingTest, ChunksAreTheSameWhetherOrNotADeviceLent) {
  const auto chunks = [] {
    std::mutex mu;
    std::set<std::pair<int64_t, int64_t>> seen;
    parallel_for(0, kLarge, kGrain, [&](int64_t b, int64_t e) {
      std::lock_guard<std::mutex> lock(mu);
      seen.emplace(b, e);
    });
    return seen;
  };
  std::set<std::pair<int64_t, int64_t>> expected;
  const int n = hardware_threads();
  for (int i = 0; i < n; ++i) expected.emplace(kLarge * i / n, kLarge * (i + 1) / n);
  poll_on_cpu1();
  EXPECT_EQ(chunks(), expected);  // cpu:1 polling
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(chunks(), expected);  // cpu:1 asleep: the caller runs every chunk
}

// Calls of fn for a loop over [0, range), each checked to be the whole.
int whole_calls(int64_t range) {
  std::atomic<int> n{0};
  parallel_for(0, range, kGrain, [&](int64_t b, int64_t e) {
    EXPECT_EQ(b, 0);
    EXPECT_EQ(e, range);
    ++n;
  });
  return n.load();
}

TEST_F(LendingTest, LoopsOnAnExecutorOrWithASetThreadCountRunWhole) {
  EXPECT_EQ(device_executor(Device("cpu:1"))
                .submit([] { EXPECT_EQ(whole_calls(kLarge), 1); })
                .wait_for(std::chrono::seconds(10)),
            std::future_status::ready);
  set_num_threads(1);
  poll_on_cpu1();
  EXPECT_EQ(whole_calls(kLarge), 1);
  set_num_threads(0);
}

TEST_F(LendingTest, LoopsBelowTheLendingSizeRunWhole) {
  poll_on_cpu1();
  EXPECT_EQ(whole_calls(kLarge - 1), 1);
}

TEST_F(LendingTest, EveryElementIsCoveredOnceOverManyLentLoops) {
  constexpr int kLoops = 60;
  std::vector<int> hits(kLarge);
  for (int i = 0; i < kLoops; ++i) {
    if (i % 3 == 0) poll_on_cpu1();
    parallel_for(0, kLarge, kGrain, [&](int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) ++hits[j];
    });
  }
  for (int64_t j = 0; j < kLarge; ++j) ASSERT_EQ(hits[j], kLoops) << "element " << j;
}

// Note [Replicas that finish first help]: one CPU device per core, so that
// each device's pool is its caller alone.
class ReplicaHelpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (hardware_threads() < 2) GTEST_SKIP() << "replicas help one another on two cores or more";
    set_cpu_device_count(hardware_threads());
    // Executors that ran a task poll for a while and would help too; let
    // them sleep so that only the threads a test starts take chunks.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  void TearDown() override { set_cpu_device_count(1); }
};

TEST_F(ReplicaHelpTest, OpsPlanForOneThreadPerCoreInsideAReplica) {
  EXPECT_EQ(detail::split_threads(), 1);
  EXPECT_FALSE(detail::splits_for_helpers_only());
  {
    detail::ReplicaScope replica;
    EXPECT_EQ(get_num_threads(), 1);
    EXPECT_EQ(detail::split_threads(), hardware_threads());
    EXPECT_TRUE(detail::splits_for_helpers_only());
    set_num_threads(1);
    EXPECT_EQ(detail::split_threads(), 1);
    EXPECT_FALSE(detail::splits_for_helpers_only());
    set_num_threads(0);
  }
  EXPECT_EQ(detail::split_threads(), 1);
}

// A replica with fewer samples than split_threads() cannot split its
// convolutions by sample; it runs their products in the one-thread kernels
// (which are faster than a split of one sample's products), as a device of
// one thread does, bit for bit: LeNet-5's two layers, forward and the
// weight's gradient, at one sample.
TEST_F(ReplicaHelpTest, AReplicasConvolutionOfOneSampleRunsTheOneThreadKernels) {
  manual_seed(0);
  struct Layer {
    SizeVec input, weight;
    int64_t padding;
  };
  for (const Layer& layer : {Layer{{1, 1, 28, 28}, {6, 1, 5, 5}, 2},
                             Layer{{1, 6, 14, 14}, {16, 6, 5, 5}, 0}}) {
    const Tensor input = randn(layer.input);
    const Tensor weight = randn(layer.weight);
    const Tensor bias = randn({layer.weight[0]});
    ConvParams params;
    params.stride = {1, 1};
    params.padding = {layer.padding, layer.padding};
    params.dilation = {1, 1};
    const auto run = [&] {
      const Tensor out = convolution(input, weight, bias, params);
      const Tensor grad_weight =
          convolution_backward_weight(input, out, layer.weight, params);
      return std::make_pair(out, grad_weight);
    };
    set_num_threads(1);
    const auto [out_one, grad_one] = run();
    set_num_threads(0);
    detail::ReplicaScope replica;
    const auto [out_replica, grad_replica] = run();
    EXPECT_TRUE(out_replica.equal(out_one)) << layer.weight[0] << " channels";
    EXPECT_TRUE(grad_replica.equal(grad_one)) << layer.weight[0] << " channels";
  }
}

TEST_F(ReplicaHelpTest, AReplicasLoopRunsAPoolsChunksInARegionWhenNobodyHelps) {
  detail::ReplicaScope replica;
  const LoopChunks seen = chunks_of_a_loop();
  const int n = hardware_threads();
  std::vector<std::tuple<int64_t, int64_t, bool>> expected;
  for (int i = 0; i < n; ++i) {
    expected.emplace_back((kRange + 3) * i / n, (kRange + 3) * (i + 1) / n, true);
  }
  EXPECT_EQ(seen.chunks, expected);
  EXPECT_EQ(seen.threads, std::set<std::thread::id>{std::this_thread::get_id()});
}

// Runs a loop in a replica on cpu:1 with grad mode off while another thread
// waits in spin_helping_until. The replica's first chunk waits (up to 10 s)
// until the second has started, which only the waiting thread can start;
// `second` is that chunk's body. Returns the thread that ran it.
std::thread::id helped_second_chunk(const std::function<void()>& second) {
  std::atomic<bool> owner_done{false};
  std::atomic<bool> second_started{false};
  std::thread::id ran_second;
  std::thread helper([&] {
    EXPECT_TRUE(
        detail::spin_helping_until([&] { return owner_done.load(); }, std::chrono::seconds(10)));
  });
  const int64_t second_begin = kRange / hardware_threads();
  try {
    ThreadLocalState state = thread_local_state();
    state.device = Device("cpu:1");
    state.grad_enabled = false;
    ThreadLocalStateGuard guard(state);
    detail::ReplicaScope replica;
    parallel_for(0, kRange, kGrain, [&](int64_t b, int64_t) {
      if (b == 0) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!second_started.load() && std::chrono::steady_clock::now() < deadline) {
          std::this_thread::yield();
        }
      } else if (b == second_begin) {
        ran_second = std::this_thread::get_id();
        second_started = true;
        second();
      }
    });
  } catch (...) {
    owner_done = true;
    helper.join();
    throw;
  }
  owner_done = true;
  helper.join();
  return ran_second;
}

TEST_F(ReplicaHelpTest, AWaitingThreadRunsAReplicasChunkWithTheReplicasState) {
  const int64_t before = detail::lent_chunks_run();
  ThreadLocalState seen;
  std::thread::id helper;
  const std::thread::id ran = helped_second_chunk([&] {
    seen = thread_local_state();
    helper = std::this_thread::get_id();
  });
  EXPECT_NE(ran, std::this_thread::get_id());
  EXPECT_EQ(ran, helper);
  EXPECT_EQ(seen.device, Device("cpu:1"));
  EXPECT_FALSE(seen.grad_enabled);
  EXPECT_GE(detail::lent_chunks_run() - before, 1);
}

TEST_F(ReplicaHelpTest, AnExceptionInAHelpedChunkReachesTheReplica) {
  EXPECT_THROW_MSG(helped_second_chunk([] { TORCHLET_CHECK(false, "helped chunk failed"); }),
                   "helped chunk failed");
}

TEST_F(ReplicaHelpTest, LoopsOutsideAReplicaAreNotOffered) {
  std::atomic<bool> stop{false};
  std::thread waiter([&] {
    EXPECT_TRUE(detail::spin_helping_until([&] { return stop.load(); }, std::chrono::seconds(10)));
  });
  std::set<std::thread::id> threads;
  std::mutex mu;
  for (int i = 0; i < 20; ++i) {
    parallel_for(0, kRange, kGrain, [&](int64_t b, int64_t e) {
      EXPECT_EQ(b, 0);
      EXPECT_EQ(e, kRange);
      std::lock_guard<std::mutex> lock(mu);
      threads.insert(std::this_thread::get_id());
    });
  }
  stop = true;
  waiter.join();
  EXPECT_EQ(threads, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST_F(ReplicaHelpTest, AWaitGivesUpAfterItsBudgetWithNothingToRun) {
  EXPECT_FALSE(detail::spin_helping_until([] { return false; }, std::chrono::milliseconds(2)));
  EXPECT_TRUE(detail::spin_helping_until([] { return true; }, std::chrono::milliseconds(2)));
}

// Note [Cores we may use]: pools are sized to the CPUs of the affinity
// mask. Each check runs in a fresh process (hardware_threads() is computed
// once), confined to one allowed CPU before anything asks for the count;
// the exit code carries the counts back.
int confined_to_one_cpu_then(int (*count)()) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return 100;
  int first = 0;
  while (!CPU_ISSET(first, &allowed)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  if (sched_setaffinity(0, sizeof(one), &one) != 0) return 101;
  return count();
}

// torch.set_flush_denormal. Each test turns it on only inside a
// FlushDenormalOn, so a failing one leaves the other tests' arithmetic alone.
#if defined(__x86_64__)
class FlushDenormalOn {
 public:
  FlushDenormalOn() { EXPECT_TRUE(set_flush_denormal(true)); }
  ~FlushDenormalOn() { set_flush_denormal(false); }
  FlushDenormalOn(const FlushDenormalOn&) = delete;
  FlushDenormalOn& operator=(const FlushDenormalOn&) = delete;
};

// 1e-20 squared, 1e-40, is a float subnormal; computed at run time.
float underflowing_square() {
  volatile float x = 1e-20f;
  return x * x;
}

TEST(FlushDenormalTest, SubnormalResultsAndInputsAreZeroWhileOn) {
  const Tensor subnormal = full({3}, 1e-39f);
  {
    FlushDenormalOn on;
    EXPECT_EQ(underflowing_square(), 0.0f);
    EXPECT_EQ(subnormal.mul(2).sum().item<float>(), 0.0f);
  }
  EXPECT_GT(underflowing_square(), 0.0f);
  EXPECT_EQ(subnormal.mul(2).sum().item<float>(), 1e-39f * 6);
}

TEST(FlushDenormalTest, DoublesAreFlushedToo) {
  FlushDenormalOn on;
  volatile double x = 1e-160;
  EXPECT_EQ(x * x, 0.0);
  EXPECT_EQ(full({2}, 1e-310, TensorOptions(kDouble)).add(0.0).sum().item<double>(), 0.0);
}

TEST_F(ParallelForTest, WorkersFlushSubnormalsWhenTheCallerDoes) {
  // The workers exist before the setting changes, so nothing is inherited
  // when a thread is created: the setting travels with each loop.
  parallel_for(0, kRange, kGrain, [](int64_t, int64_t) {});
  std::vector<float> squares(kRange, -1.0f);
  Seen seen;
  {
    FlushDenormalOn on;
    parallel_for(0, kRange, kGrain, [&](int64_t b, int64_t e) {
      seen.record();
      for (int64_t i = b; i < e; ++i) squares[i] = underflowing_square();
    });
  }
  EXPECT_GT(seen.threads.size(), 1u);
  for (const float square : squares) EXPECT_EQ(square, 0.0f);
}

TEST_F(ParallelForTest, WorkersGoBackToSubnormalsAfterALoopThatFlushed) {
  {
    FlushDenormalOn on;
    parallel_for(0, kRange, kGrain, [](int64_t, int64_t) { underflowing_square(); });
  }
  std::vector<float> squares(kRange, -1.0f);
  parallel_for(0, kRange, kGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) squares[i] = underflowing_square();
  });
  for (const float square : squares) EXPECT_GT(square, 0.0f);
}

TEST(FlushDenormalTest, AnExecutorRunsSubmittedWorkWithTheSubmittersSetting) {
  set_cpu_device_count(2);
  Executor& executor = device_executor(Device("cpu:1"));
  float flushed = -1.0f, kept = -1.0f;
  {
    FlushDenormalOn on;
    executor.submit([&] { flushed = underflowing_square(); }).get();
  }
  executor.submit([&] { kept = underflowing_square(); }).get();
  set_cpu_device_count(1);
  EXPECT_EQ(flushed, 0.0f);
  EXPECT_GT(kept, 0.0f);
}
#else
TEST(FlushDenormalTest, IsUnsupportedAndChangesNothingOffX86) {
  EXPECT_FALSE(set_flush_denormal(true));
  volatile float x = 1e-20f;
  EXPECT_GT(x * x, 0.0f);
}
#endif

TEST(HardwareThreadsTest, CountsTheCpusOfTheAffinityMask) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  EXPECT_EQ(hardware_threads(), CPU_COUNT(&allowed));
}

TEST(HardwareThreadsTest, AProcessConfinedToOneCpuCountsOne) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(confined_to_one_cpu_then([] { return hardware_threads(); })),
              ::testing::ExitedWithCode(1), "");
}

TEST(HardwareThreadsTest, AProcessConfinedToOneCpuRunsOpsOnOneThread) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(confined_to_one_cpu_then([] { return get_num_threads(); })),
              ::testing::ExitedWithCode(1), "");
}

}  // namespace
}  // namespace torchlet
