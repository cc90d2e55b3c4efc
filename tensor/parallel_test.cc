// parallel_for: the caller's ThreadLocalState in every worker, exceptions
// rethrown to the caller after all chunks, the count of chunks workers ran.
#include "tensor/parallel.h"

#include <sched.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
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
