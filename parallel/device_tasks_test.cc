// ReceiverCopies and CopyPolicy (Note [Receivers copy]): copies queued on
// the receiving device's executor when a step pulls, made at once when it
// pushes, waited for by finish(); the policy's choice between the two; and
// run_on_devices' caller helping the other devices' tasks.
#include "parallel/device_tasks.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "nn/optim/optim.h"
#include "parallel/parallel.h"
#include "parallel/testing.h"
#include "tensor/executor.h"
#include "tensor/parallel.h"
#include "tensor/test_util.h"

namespace torchlet::parallel::detail {
namespace {

using ::torchlet::testing::all_close;
using ::torchlet::testing::values;

class ReceiverCopiesTest : public ::testing::Test {
 protected:
  void SetUp() override { set_cpu_device_count(2); }
  void TearDown() override { set_cpu_device_count(1); }
  /// A copy to make: 0, 1, ... on cpu:0 into -1s on cpu:1.
  std::pair<Tensor, Tensor> copy_to_cpu1() const {
    Tensor dst = empty({4096}, TensorOptions(kFloat32).device(cpu1));
    dst.fill_(-1);
    return {dst, arange(4096, TensorOptions(kFloat32))};
  }
  const Device cpu1{kCPU, 1};
};

/// Blocks cpu:1's executor until the returned promise is set.
std::promise<void> hold(Device device) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  device_executor(device).submit([released] { released.wait(); });
  return release;
}

TEST_F(ReceiverCopiesTest, APullingStepQueuesTheCopyOnTheReceivingDevice) {
  CopyPolicy policy;  // a first step pulls
  std::promise<void> release = hold(cpu1);
  const auto [dst, src] = copy_to_cpu1();
  ReceiverCopies copies(policy);
  ASSERT_TRUE(copies.takes(cpu1));
  copies.copy(cpu1, {{dst, src}});
  // cpu:1's executor is still held: the copy waits behind it.
  EXPECT_EQ(dst[4095].item<float>(), -1.0f);
  release.set_value();
  copies.finish();
  EXPECT_EQ(values(dst), values(src));
}

// A pulling step whose copy cannot be queued on the receiving device (the
// task's allocation failed) makes it at once on the caller instead.
TEST_F(ReceiverCopiesTest, ACopyThatCannotBeQueuedIsMadeAtOnce) {
  CopyPolicy policy;  // a first step pulls
  std::promise<void> release = hold(cpu1);
  const auto [dst, src] = copy_to_cpu1();
  ReceiverCopies copies(policy);
  ::torchlet::detail::fail_next_submits_for_testing(1);
  copies.copy(cpu1, {{dst, src}});
  // cpu:1's executor is still held, yet the copy is made.
  EXPECT_EQ(values(dst), values(src));
  release.set_value();
  copies.finish();
}

TEST_F(ReceiverCopiesTest, APushingStepCopiesAtOnceOnTheCaller) {
  CopyPolicy policy;
  const Tensor src = arange(4096, TensorOptions(kFloat32));
  const uint64_t kind = CopyPolicy::kind_of(src);
  ASSERT_TRUE(policy.choose(kind));
  policy.record(kind, true, 1.0);  // pulling measured, pushing not yet: push next
  std::promise<void> release = hold(cpu1);
  const Tensor dst = empty({4096}, TensorOptions(kFloat32).device(cpu1));
  ReceiverCopies copies(policy);
  copies.copy(cpu1, {{dst, src}});
  EXPECT_EQ(values(dst), values(src));  // while cpu:1's executor is held
  release.set_value();
  copies.finish();
}

TEST_F(ReceiverCopiesTest, CopiesOntoTheCallersOwnDeviceOrAGpuAreNotTaken) {
  CopyPolicy policy;
  ReceiverCopies copies(policy);
  EXPECT_FALSE(copies.takes(Device(kCPU, 0)));
  EXPECT_FALSE(copies.takes(Device(kCUDA, 0)));
  EXPECT_TRUE(copies.takes(cpu1));
}

TEST_F(ReceiverCopiesTest, TheScopeIsTheThreadsUntilFinishedAndPausedInside) {
  CopyPolicy policy;
  EXPECT_EQ(ReceiverCopies::current(), nullptr);
  ReceiverCopies copies(policy);
  EXPECT_EQ(ReceiverCopies::current(), &copies);
  std::thread([] { EXPECT_EQ(ReceiverCopies::current(), nullptr); }).join();
  {
    const ReceiverCopies::Pause pause;
    EXPECT_EQ(ReceiverCopies::current(), nullptr);
  }
  EXPECT_EQ(ReceiverCopies::current(), &copies);
  copies.finish();
  EXPECT_EQ(ReceiverCopies::current(), nullptr);
}

TEST_F(ReceiverCopiesTest, AQueuedCopysErrorIsRethrownByFinish) {
  CopyPolicy policy;
  const Tensor src = zeros({3});
  const Tensor dst = empty({2}, TensorOptions(kFloat32).device(cpu1));
  ReceiverCopies copies(policy);
  copies.copy(cpu1, {{dst, src}});
  EXPECT_THROW_MSG(copies.finish(), "copy_");  // [2] from [3]
}

TEST_F(ReceiverCopiesTest, TheDestructorWaitsForQueuedCopies) {
  CopyPolicy policy;
  std::promise<void> release = hold(cpu1);
  const Tensor src = arange(4096, TensorOptions(kFloat32));
  const Tensor dst = empty({4096}, TensorOptions(kFloat32).device(cpu1));
  std::atomic<bool> destroyed{false};
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(destroyed.load());
    release.set_value();
  });
  {
    ReceiverCopies copies(policy);
    copies.copy(cpu1, {{dst, src}});
  }
  destroyed = true;
  releaser.join();
  EXPECT_EQ(values(dst), values(src));
}

/// One step's copies through a scope of `policy`: src into a new tensor on
/// cpu:1, then `during` (inside the scope).
void step(CopyPolicy& policy, const Tensor& src, const std::function<void()>& during = [] {}) {
  const Tensor dst = empty(src.sizes(), TensorOptions(src.dtype()).device(Device(kCPU, 1)));
  ReceiverCopies copies(policy);
  copies.copy(Device(kCPU, 1), {{dst, src}});
  during();
  copies.finish();
}

TEST_F(ReceiverCopiesTest, AStepIsTimedUntilTheNextStepOfItsKindStarts) {
  CopyPolicy policy;
  const Tensor batch = arange(4096, TensorOptions(kFloat32));
  step(policy, batch);  // pulls: nothing measured yet
  step(policy, batch);  // pulls again, and the first step is measured
  // Pulling is measured for this kind, so its next step pushes; a kind of
  // another batch size has nothing measured and pulls.
  EXPECT_FALSE(policy.choose(CopyPolicy::kind_of(batch)));
  EXPECT_TRUE(policy.choose(CopyPolicy::kind_of(zeros({10}))));
}

TEST_F(ReceiverCopiesTest, AStepFollowedByAnotherKindOfStepIsNotCounted) {
  CopyPolicy policy;
  const Tensor batch = arange(4096, TensorOptions(kFloat32));
  step(policy, batch);
  step(policy, zeros({10}));
  step(policy, batch);
  EXPECT_TRUE(policy.choose(CopyPolicy::kind_of(batch)));  // still unmeasured
}

TEST_F(ReceiverCopiesTest, AStepThatBuiltReplicasIsNotCounted) {
  CopyPolicy policy;
  const Tensor batch = arange(4096, TensorOptions(kFloat32));
  step(policy, batch, [] { const ReceiverCopies::Pause building; });
  step(policy, batch);
  EXPECT_TRUE(policy.choose(CopyPolicy::kind_of(batch)));  // still unmeasured
}

TEST(CopyPolicyTest, KindsOfStepAreTheGradModeAndTheFirstCopysBytes) {
  const uint64_t batch64 = CopyPolicy::kind_of(zeros({32, 784}));
  EXPECT_EQ(CopyPolicy::kind_of(ones({784, 32})), batch64);
  EXPECT_NE(CopyPolicy::kind_of(zeros({32, 784}, TensorOptions(kFloat64))), batch64);
  EXPECT_NE(CopyPolicy::kind_of(zeros({30, 784})), batch64);
  const NoGradGuard no_grad;
  EXPECT_NE(CopyPolicy::kind_of(zeros({32, 784})), batch64);
}

/// Takes kind 7's first two steps, which pull then push, as lasting
/// `pulling` and `pushing` seconds.
void first_steps(CopyPolicy& policy, double pulling, double pushing) {
  ASSERT_TRUE(policy.choose(7));
  policy.record(7, true, pulling);
  ASSERT_FALSE(policy.choose(7));
  policy.record(7, false, pushing);
}

TEST(CopyPolicyTest, MeasuresPullingThenPushingThenTakesTheFaster) {
  CopyPolicy policy;
  EXPECT_TRUE(policy.choose(7));
  policy.record(7, true, 500e-6);
  EXPECT_FALSE(policy.choose(7));
  policy.record(7, false, 450e-6);
  EXPECT_FALSE(policy.choose(7));  // pushing is faster
  policy.record(7, false, 450e-6);
  policy.record(8, true, 400e-6);  // another kind's steps change nothing
  EXPECT_FALSE(policy.choose(7));
}

TEST(CopyPolicyTest, TriesTheOtherWayOnceEveryProbePeriod) {
  CopyPolicy policy;
  first_steps(policy, 400e-6, 450e-6);
  int pushes = 0;
  for (uint64_t i = 0; i < 10 * CopyPolicy::kProbeEvery; ++i) pushes += policy.choose(7) ? 0 : 1;
  EXPECT_EQ(pushes, 10);
}

TEST(CopyPolicyTest, FollowsAHostThatBecomesSlowToHandLinesOver) {
  CopyPolicy policy;
  first_steps(policy, 400e-6, 550e-6);
  // Pulling steps now take 600 us: a single one does not flip the choice
  // (the median of 400 and 600 is still faster); once they are most of
  // the recent ones, the next step pushes.
  ASSERT_TRUE(policy.choose(7));
  policy.record(7, true, 600e-6);
  EXPECT_TRUE(policy.choose(7));
  policy.record(7, true, 600e-6);
  EXPECT_FALSE(policy.choose(7));
}

TEST(CopyPolicyTest, ForgetsTheLeastRecentlyUsedKind) {
  CopyPolicy policy;
  ASSERT_TRUE(policy.choose(0));
  policy.record(0, true, 1e-3);
  for (uint64_t kind = 1; kind <= CopyPolicy::kKinds; ++kind) policy.choose(kind);
  EXPECT_TRUE(policy.choose(0));  // measured once, since forgotten
}

// Every way of sending the copies gives the same training: DataParallel's
// first steps pull, then push, then take the cheaper, so a few steps go
// through both.
TEST(ReceiverCopiesDataParallelTest, StepsThatPullAndStepsThatPushTrainAlike) {
  set_cpu_device_count(2);
  manual_seed(0);
  nn::Linear plain(8, 3), wrapped(8, 3);
  wrapped->load_state_dict(plain->state_dict());
  DataParallel dp(wrapped, {Device(kCPU, 0), Device(kCPU, 1)});
  optim::SGD opt_plain(plain->parameters(), optim::SGDOptions(0.01));
  optim::SGD opt_dp(wrapped->parameters(), optim::SGDOptions(0.01));
  const Variable x(randn({16, 8}));
  for (int step = 0; step < 4; ++step) {
    opt_plain.zero_grad();
    opt_dp.zero_grad();
    plain(x).pow(2).mean().backward();
    dp(x).pow(2).mean().backward();
    opt_plain.step();
    opt_dp.step();
  }
  EXPECT_TRUE(all_close(wrapped->weight.data(), plain->weight.data()));
  EXPECT_TRUE(all_close(wrapped->bias.data(), plain->bias.data()));
  set_cpu_device_count(1);
}

// Note [Replicas that finish first help] (tensor/parallel.cc): the caller,
// done with its own device's task, runs chunks of the loops the task on
// the other device runs meanwhile, with that task's device.
TEST(RunOnDevicesTest, TheCallerDoneFirstRunsChunksOfTheOtherDevicesLoops) {
  if (hardware_threads() < 2) GTEST_SKIP() << "replicas help one another on two cores or more";
  set_cpu_device_count(hardware_threads());  // each device's pool: its caller alone
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> other_started{false};
  std::atomic<int> chunks_on_caller{0};
  std::atomic<int> on_the_wrong_device{0};
  const std::vector<std::exception_ptr> errors =
      run_on_devices({Device(kCPU, 0), Device(kCPU, 1)}, [&](size_t i) {
        if (i == 0) {
          // Done at once, but not before the other task runs.
          while (!other_started.load()) std::this_thread::yield();
          return;
        }
        other_started = true;
        // Each loop's first chunk waits a while for a second to start.
        for (int loop = 0; loop < 100 && chunks_on_caller.load() == 0; ++loop) {
          std::atomic<bool> second{false};
          parallel_for(0, 1 << 16, 1024, [&](int64_t b, int64_t) {
            if (current_device() != Device(kCPU, 1)) ++on_the_wrong_device;
            if (b != 0) {
              second = true;
              if (std::this_thread::get_id() == caller) ++chunks_on_caller;
              return;
            }
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(10);
            while (!second.load() && std::chrono::steady_clock::now() < deadline) {
              std::this_thread::yield();
            }
          });
        }
      });
  set_cpu_device_count(1);
  for (const std::exception_ptr& error : errors) EXPECT_EQ(error, nullptr);
  EXPECT_GT(chunks_on_caller.load(), 0);
  EXPECT_EQ(on_the_wrong_device.load(), 0);
}

}  // namespace
}  // namespace torchlet::parallel::detail
