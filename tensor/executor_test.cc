#include "tensor/executor.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "gtest/gtest.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"
#include "tensor/thread_local_state.h"

namespace torchlet {
namespace {

class ExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override { set_cpu_device_count(2); }
  void TearDown() override { set_cpu_device_count(1); }
};

TEST_F(ExecutorTest, RunsWorkWithItsDeviceCurrent) {
  Device seen;
  device_executor(Device("cpu:1")).submit([&] { seen = current_device(); }).get();
  EXPECT_EQ(seen, Device("cpu:1"));
}

TEST_F(ExecutorTest, TasksRunWithTheSubmittersThreadLocalState) {
  ThreadLocalState state = thread_local_state();
  state.grad_enabled = false;
  ThreadLocalState seen;
  {
    ThreadLocalStateGuard guard(state);
    device_executor(Device("cpu:1")).submit([&] { seen = thread_local_state(); }).get();
  }
  EXPECT_FALSE(seen.grad_enabled);
  EXPECT_EQ(seen.device, Device("cpu:1"));  // the executor's device, not the submitter's
}

TEST_F(ExecutorTest, ATasksStateDoesNotLeakIntoTheNext) {
  Executor& ex = device_executor(Device("cpu:1"));
  ex.submit([] {
      thread_local_state().grad_enabled = false;
      thread_local_state().device = Device("cpu:0");
    }).get();
  ThreadLocalState seen;
  ex.submit([&] { seen = thread_local_state(); }).get();
  EXPECT_TRUE(seen.grad_enabled);
  EXPECT_EQ(seen.device, Device("cpu:1"));
}

TEST_F(ExecutorTest, CurrentExecutorIsTheOneWhoseThreadCalls) {
  Executor& ex = device_executor(Device("cpu:1"));
  Executor* seen = nullptr;
  ex.submit([&] { seen = current_executor(); }).get();
  EXPECT_EQ(seen, &ex);
  EXPECT_EQ(current_executor(), nullptr);
}

// A task that waits for work queued behind it on its own executor gets it
// done by helping; without help_until this would never finish.
TEST_F(ExecutorTest, AWaitingTaskRunsTheTasksQueuedBehindIt) {
  Executor& ex = device_executor(Device("cpu:1"));
  std::atomic<bool> later_ran{false};
  std::future<void> waiting = ex.submit([&] {
    std::future<void> later = ex.submit([&] { later_ran = true; });
    ex.help_until([&] { return later_ran.load(); });
    later.get();
  });
  ASSERT_EQ(waiting.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  waiting.get();
  EXPECT_TRUE(later_ran.load());
}

// Two executors' tasks each wait for a task queued on the other's executor:
// both finish because each helps its own queue while it waits.
TEST_F(ExecutorTest, TwoExecutorsWaitingOnEachOtherBothFinish) {
  Executor& ex0 = device_executor(Device("cpu:0"));
  Executor& ex1 = device_executor(Device("cpu:1"));
  std::promise<void> both_started;
  std::shared_future<void> go = both_started.get_future().share();
  std::atomic<int> started{0};
  auto wait_on = [&](Executor* self, Executor* other) {
    return self->submit([&, self, other] {
      if (++started == 2) both_started.set_value();
      go.wait();  // both executors are now busy in these tasks
      std::atomic<bool> done{false};
      other->submit([&done, self] {
        done = true;
        self->wake();
      });
      self->help_until([&] { return done.load(); });
    });
  };
  std::future<void> a = wait_on(&ex0, &ex1);
  std::future<void> b = wait_on(&ex1, &ex0);
  ASSERT_EQ(a.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  ASSERT_EQ(b.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  a.get();
  b.get();
}

TEST_F(ExecutorTest, OneExecutorPerDevice) {
  EXPECT_EQ(&device_executor(Device("cpu:0")), &device_executor(Device("cpu:0")));
  EXPECT_NE(&device_executor(Device("cpu:0")), &device_executor(Device("cpu:1")));
}

TEST_F(ExecutorTest, RunsTasksInSubmissionOrder) {
  std::vector<int> order;
  Executor& ex = device_executor(Device("cpu:0"));
  std::vector<std::future<void>> done;
  for (int i = 0; i < 20; ++i) done.push_back(ex.submit([&order, i] { order.push_back(i); }));
  for (auto& f : done) f.get();
  for (int i = 0; i < 20; ++i) EXPECT_EQ(order[i], i);
}

TEST_F(ExecutorTest, ExceptionsReachTheCaller) {
  auto f = device_executor(Device("cpu:0")).submit([] { zeros({2}) + zeros({3}); });
  EXPECT_THROW_MSG(f.get(), "add: The size of tensor a (2) must match");
  // The executor keeps working afterwards.
  EXPECT_NO_THROW(device_executor(Device("cpu:0")).submit([] {}).get());
}

TEST_F(ExecutorTest, MissingDeviceIsAnError) {
  EXPECT_THROW_MSG(device_executor(Device("cpu:7")), "device_executor: device cpu:7 does not exist");
}

// Two devices compute at once: each executor runs a long matmul, and both
// are observed in flight together (work overlap, not wall-clock speed).
TEST_F(ExecutorTest, TwoCpuDevicesComputeAtTheSameTime) {
  std::atomic<int> in_flight{0};
  std::atomic<int> max_in_flight{0};
  std::atomic<bool> stop{false};
  auto work = [&](Device d) {
    return device_executor(d).submit([&] {
      Tensor a = randn({256, 256});
      ++in_flight;
      // Keep multiplying until both are in flight (or a generous bound).
      for (int i = 0; i < 2000 && !stop.load(); ++i) {
        a = mm(a, a).tanh();
        int now = in_flight.load();
        int prev = max_in_flight.load();
        while (now > prev && !max_in_flight.compare_exchange_weak(prev, now)) {}
        if (max_in_flight.load() == 2) stop = true;
      }
      --in_flight;
    });
  };
  auto f0 = work(Device("cpu:0"));
  auto f1 = work(Device("cpu:1"));
  f0.get();
  f1.get();
  EXPECT_EQ(max_in_flight.load(), 2);
}

TEST_F(ExecutorTest, ThreadsPerDeviceShareTheCores) {
  set_num_threads(0);
  EXPECT_EQ(get_num_threads(), std::max(1, hardware_threads() / 2));
  set_num_threads(3);
  EXPECT_EQ(get_num_threads(), 3);
  set_num_threads(0);
}

}  // namespace
}  // namespace torchlet
