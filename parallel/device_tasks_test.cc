// ReceiverCopies and StepPolicy (Note [Receivers copy]): copies queued on
// the receiving device's executor when a step pulls, made at once when it
// pushes, waited for by finish(); the policy's choice among pulling or
// pushing, with or without help; and run_on_devices' caller helping the
// other devices' tasks, or not.
#include "parallel/device_tasks.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <mutex>
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
  StepPolicy policy;  // a first step pulls
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
  StepPolicy policy;  // a first step pulls
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
  StepPolicy policy;
  const Tensor src = arange(4096, TensorOptions(kFloat32));
  const uint64_t kind = StepPolicy::kind_of(src);
  ASSERT_EQ(policy.choose(kind), 0);
  policy.record(kind, 0, 1.0);  // pulling measured, pushing not yet: push next
  std::promise<void> release = hold(cpu1);
  const Tensor dst = empty({4096}, TensorOptions(kFloat32).device(cpu1));
  ReceiverCopies copies(policy);
  copies.copy(cpu1, {{dst, src}});
  EXPECT_EQ(values(dst), values(src));  // while cpu:1's executor is held
  release.set_value();
  copies.finish();
}

TEST_F(ReceiverCopiesTest, AStepSetsWhetherReplicasHelpAsItsWayChose) {
  StepPolicy policy;
  const Tensor src = arange(4096, TensorOptions(kFloat32));
  const uint64_t kind = StepPolicy::kind_of(src);
  for (StepPolicy::Way way = 0; way < 2; ++way) {
    ASSERT_EQ(policy.choose(kind), way);
    policy.record(kind, way, 1.0);
  }
  // The ways with help are measured; the next step pulls without.
  const Tensor dst = empty({4096}, TensorOptions(kFloat32).device(cpu1));
  {
    ReceiverCopies copies(policy);
    copies.copy(cpu1, {{dst, src}});
    copies.finish();
  }
  EXPECT_FALSE(::torchlet::detail::replicas_help_enabled());  // until a step decides again
  ReceiverCopies copies(policy);
  copies.copy(cpu1, {{dst, src}});  // pushes without help
  copies.finish();
  EXPECT_FALSE(::torchlet::detail::replicas_help_enabled());
  ::torchlet::detail::set_replicas_help(true);
}

TEST_F(ReceiverCopiesTest, CopiesOntoTheCallersOwnDeviceOrAGpuAreNotTaken) {
  StepPolicy policy;
  ReceiverCopies copies(policy);
  EXPECT_FALSE(copies.takes(Device(kCPU, 0)));
  EXPECT_FALSE(copies.takes(Device(kCUDA, 0)));
  EXPECT_TRUE(copies.takes(cpu1));
}

TEST_F(ReceiverCopiesTest, TheScopeIsTheThreadsUntilFinishedAndPausedInside) {
  StepPolicy policy;
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
  StepPolicy policy;
  const Tensor src = zeros({3});
  const Tensor dst = empty({2}, TensorOptions(kFloat32).device(cpu1));
  ReceiverCopies copies(policy);
  copies.copy(cpu1, {{dst, src}});
  EXPECT_THROW_MSG(copies.finish(), "copy_");  // [2] from [3]
}

TEST_F(ReceiverCopiesTest, TheDestructorWaitsForQueuedCopies) {
  StepPolicy policy;
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
void step(StepPolicy& policy, const Tensor& src, const std::function<void()>& during = [] {}) {
  const Tensor dst = empty(src.sizes(), TensorOptions(src.dtype()).device(Device(kCPU, 1)));
  ReceiverCopies copies(policy);
  copies.copy(Device(kCPU, 1), {{dst, src}});
  during();
  copies.finish();
}

TEST_F(ReceiverCopiesTest, AStepIsTimedUntilTheNextStepOfItsKindStarts) {
  StepPolicy policy;
  const Tensor batch = arange(4096, TensorOptions(kFloat32));
  step(policy, batch);  // pulls: nothing measured yet
  step(policy, batch);  // pulls again, and the first step is measured
  // Pulling is measured for this kind, so its next step pushes; a kind of
  // another batch size has nothing measured and pulls.
  EXPECT_FALSE(StepPolicy::pulls(policy.choose(StepPolicy::kind_of(batch))));
  EXPECT_TRUE(StepPolicy::pulls(policy.choose(StepPolicy::kind_of(zeros({10})))));
}

TEST_F(ReceiverCopiesTest, AStepFollowedByAnotherKindOfStepIsNotCounted) {
  StepPolicy policy;
  const Tensor batch = arange(4096, TensorOptions(kFloat32));
  step(policy, batch);
  step(policy, zeros({10}));
  step(policy, batch);
  EXPECT_EQ(policy.choose(StepPolicy::kind_of(batch)), 0);  // still unmeasured
}

TEST_F(ReceiverCopiesTest, AStepThatBuiltReplicasIsNotCounted) {
  StepPolicy policy;
  const Tensor batch = arange(4096, TensorOptions(kFloat32));
  step(policy, batch, [] { const ReceiverCopies::Pause building; });
  step(policy, batch);
  EXPECT_EQ(policy.choose(StepPolicy::kind_of(batch)), 0);  // still unmeasured
}

TEST(StepPolicyTest, KindsOfStepAreTheGradModeAndTheFirstCopysBytes) {
  const uint64_t batch64 = StepPolicy::kind_of(zeros({32, 784}));
  EXPECT_EQ(StepPolicy::kind_of(ones({784, 32})), batch64);
  EXPECT_NE(StepPolicy::kind_of(zeros({32, 784}, TensorOptions(kFloat64))), batch64);
  EXPECT_NE(StepPolicy::kind_of(zeros({30, 784})), batch64);
  const NoGradGuard no_grad;
  EXPECT_NE(StepPolicy::kind_of(zeros({32, 784})), batch64);
}

/// Takes kind 7's first four steps, which try the ways in order, as
/// lasting `seconds[way]`.
void first_steps(StepPolicy& policy, const std::array<double, StepPolicy::kWays>& seconds) {
  for (StepPolicy::Way way = 0; way < StepPolicy::kWays; ++way) {
    ASSERT_EQ(policy.choose(7), way);
    policy.record(7, way, seconds[way]);
  }
}

TEST(StepPolicyTest, WaysArePullingOrPushingWithOrWithoutHelp) {
  EXPECT_TRUE(StepPolicy::pulls(0) && StepPolicy::helps(0));
  EXPECT_TRUE(!StepPolicy::pulls(1) && StepPolicy::helps(1));
  EXPECT_TRUE(StepPolicy::pulls(2) && !StepPolicy::helps(2));
  EXPECT_TRUE(!StepPolicy::pulls(3) && !StepPolicy::helps(3));
}

TEST(StepPolicyTest, MeasuresEachWayInTurnThenTakesTheFastest) {
  StepPolicy policy;
  first_steps(policy, {500e-6, 450e-6, 420e-6, 480e-6});
  EXPECT_EQ(policy.choose(7), 2);  // pulling without help is fastest
  policy.record(7, 2, 420e-6);
  policy.record(8, 3, 100e-6);  // another kind's steps change nothing
  EXPECT_EQ(policy.choose(7), 2);
}

TEST(StepPolicyTest, TakesTheFirstOfEquallyFastWays) {
  StepPolicy policy;
  first_steps(policy, {450e-6, 400e-6, 400e-6, 400e-6});
  EXPECT_EQ(policy.choose(7), 1);
}

TEST(StepPolicyTest, TriesEachOtherWayInTurnOnceEveryProbePeriod) {
  StepPolicy policy;
  first_steps(policy, {450e-6, 400e-6, 500e-6, 600e-6});
  std::array<int, StepPolicy::kWays> taken{};
  std::vector<StepPolicy::Way> probes;
  for (uint64_t i = 0; i < 9 * StepPolicy::kProbeEvery; ++i) {
    const StepPolicy::Way way = policy.choose(7);
    ++taken[static_cast<size_t>(way)];
    if (way != 1) probes.push_back(way);
  }
  EXPECT_EQ(static_cast<uint64_t>(taken[1]), 9 * StepPolicy::kProbeEvery - 9);
  EXPECT_EQ(probes, (std::vector<StepPolicy::Way>{0, 2, 3, 0, 2, 3, 0, 2, 3}));
}

TEST(StepPolicyTest, FollowsAHostOnWhichHelpingBecomesSlow) {
  StepPolicy policy;
  first_steps(policy, {400e-6, 550e-6, 450e-6, 600e-6});
  // Helped pulling steps now take 500 us: a single one does not flip the
  // choice (the median of 400 and 500 is still the fastest); once they
  // are most of the recent ones, the next step pulls without help.
  ASSERT_EQ(policy.choose(7), 0);
  policy.record(7, 0, 500e-6);
  EXPECT_EQ(policy.choose(7), 0);
  policy.record(7, 0, 500e-6);
  EXPECT_EQ(policy.choose(7), 2);
}

TEST(StepPolicyTest, ForgetsTheLeastRecentlyUsedKind) {
  StepPolicy policy;
  ASSERT_EQ(policy.choose(0), 0);
  policy.record(0, 0, 1e-3);
  for (uint64_t kind = 1; kind <= StepPolicy::kKinds; ++kind) policy.choose(kind);
  EXPECT_EQ(policy.choose(0), 0);  // measured once, since forgotten
}

// Every way of taking a step gives the same training: DataParallel's first
// four steps try the four ways in turn (pulling or pushing, with or without
// help), so a few steps go through each.
TEST(ReceiverCopiesDataParallelTest, StepsThatPullAndStepsThatPushTrainAlike) {
  set_cpu_device_count(2);
  manual_seed(0);
  nn::Linear plain(8, 3), wrapped(8, 3);
  wrapped->load_state_dict(plain->state_dict());
  DataParallel dp(wrapped, {Device(kCPU, 0), Device(kCPU, 1)});
  optim::SGD opt_plain(plain->parameters(), optim::SGDOptions(0.01));
  optim::SGD opt_dp(wrapped->parameters(), optim::SGDOptions(0.01));
  const Variable x(randn({16, 8}));
  for (int step = 0; step < 8; ++step) {
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
  ::torchlet::detail::set_replicas_help(true);
}

/// What run_on_devices' caller, done at once with cpu:0's task, ran of the
/// loops cpu:1's task runs meanwhile (up to `loops` loops of 2 chunks, each
/// first chunk waiting up to 10 ms for the second to start, until the
/// caller ran one): chunks it ran, chunks run on a device other than
/// cpu:1, and every loop's chunks as (begin, end) pairs.
struct HelpSeen {
  int chunks_on_caller = 0;
  int on_the_wrong_device = 0;
  std::vector<std::pair<int64_t, int64_t>> chunks;
};
HelpSeen run_helped_loops(int loops) {
  set_cpu_device_count(hardware_threads());  // each device's pool: its caller alone
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> other_started{false};
  std::atomic<int> chunks_on_caller{0};
  std::atomic<int> on_the_wrong_device{0};
  std::mutex mu;
  HelpSeen seen;
  const std::vector<std::exception_ptr> errors =
      run_on_devices({Device(kCPU, 0), Device(kCPU, 1)}, [&](size_t i) {
        if (i == 0) {
          // Done at once, but not before the other task runs.
          while (!other_started.load()) std::this_thread::yield();
          return;
        }
        other_started = true;
        for (int loop = 0; loop < loops && chunks_on_caller.load() == 0; ++loop) {
          std::atomic<bool> second{false};
          parallel_for(0, 1 << 16, 1024, [&](int64_t b, int64_t e) {
            {
              const std::lock_guard<std::mutex> lock(mu);
              seen.chunks.emplace_back(b, e);
            }
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
  seen.chunks_on_caller = chunks_on_caller.load();
  seen.on_the_wrong_device = on_the_wrong_device.load();
  std::sort(seen.chunks.begin(), seen.chunks.end());
  return seen;
}

// Note [Replicas that finish first help] (tensor/parallel.cc): the caller,
// done with its own device's task, runs chunks of the loops the task on
// the other device runs meanwhile, with that task's device.
TEST(RunOnDevicesTest, TheCallerDoneFirstRunsChunksOfTheOtherDevicesLoops) {
  if (hardware_threads() < 2) GTEST_SKIP() << "replicas help one another on two cores or more";
  ::torchlet::detail::set_replicas_help(true);  // as a DataParallel step may have left it
  const HelpSeen seen = run_helped_loops(100);
  EXPECT_GT(seen.chunks_on_caller, 0);
  EXPECT_EQ(seen.on_the_wrong_device, 0);
}

// Without help (a StepPolicy's choice), the other device's loops split
// into the same chunks, all run on its own thread.
TEST(RunOnDevicesTest, WithoutHelpALoopRunsTheSameChunksOnItsOwnThread) {
  if (hardware_threads() < 2) GTEST_SKIP() << "replicas help one another on two cores or more";
  ::torchlet::detail::set_replicas_help(false);
  const HelpSeen alone = run_helped_loops(5);
  ::torchlet::detail::set_replicas_help(true);
  EXPECT_EQ(alone.chunks_on_caller, 0);
  EXPECT_EQ(alone.on_the_wrong_device, 0);
  const std::vector<std::pair<int64_t, int64_t>> halves{{0, 1 << 15}, {1 << 15, 1 << 16}};
  std::vector<std::pair<int64_t, int64_t>> expected;
  for (int loop = 0; loop < 5; ++loop) {
    expected.insert(expected.end(), halves.begin(), halves.end());
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(alone.chunks, expected);
}

}  // namespace
}  // namespace torchlet::parallel::detail
