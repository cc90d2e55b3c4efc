// parallel_apply(): replicas at once on their devices' executors (the one
// on the caller's device on the caller's thread), the
// caller's thread-local state carried, exceptions wrapped, on 2, 3 and 4
// CPU devices.
#include "parallel/parallel_apply.h"

#include <mutex>
#include <set>
#include <thread>

#include "parallel/testing.h"
#include "tensor/executor.h"
#include "tensor/test_util.h"

namespace torchlet::parallel {
namespace {

using testing::ThrowingNet;
using testing::ThrowingNetImpl;

/// Records, for each call, the device, grad mode, whether it ran on its
/// device's executor, and the thread.
class ProbeImpl : public nn::Module {
 public:
  Variable forward(const Variable& x) {
    std::lock_guard<std::mutex> lock(mutex);
    devices.push_back(current_device());
    grad_modes.push_back(is_grad_enabled());
    on_executor.push_back(device_executor(current_device()).is_current_thread());
    threads.push_back(std::this_thread::get_id());
    return x * 2;
  }
  std::mutex mutex;
  std::vector<Device> devices;
  std::vector<bool> grad_modes;
  std::vector<bool> on_executor;
  std::vector<std::thread::id> threads;
};

class ParallelApplyTest : public testing::OnDevices {
 protected:
  std::vector<std::shared_ptr<ProbeImpl>> probes() const {
    std::vector<std::shared_ptr<ProbeImpl>> out;
    for (int i = 0; i < count(); ++i) out.push_back(std::make_shared<ProbeImpl>());
    return out;
  }
  std::vector<std::tuple<Variable>> inputs() const {
    std::vector<std::tuple<Variable>> out;
    for (Device d : devices()) out.emplace_back(Variable(ones({2}).to(d)));
    return out;
  }
  std::vector<std::shared_ptr<ThrowingNetImpl>> throwing(std::vector<int> failing) const {
    std::vector<std::shared_ptr<ThrowingNetImpl>> out;
    for (Device d : devices()) {
      auto m = std::make_shared<ThrowingNetImpl>(failing);
      m->to(d);
      out.push_back(m);
    }
    return out;
  }
  std::vector<std::tuple<Variable>> rows() const {
    std::vector<std::tuple<Variable>> out;
    for (Device d : devices()) out.emplace_back(Variable(ones({1, 3}).to(d)));
    return out;
  }
};

TEST_P(ParallelApplyTest, EachReplicaOffTheCallersDeviceRunsOnItsDevicesExecutor) {
  const auto modules = probes();
  const std::vector<Variable> outs = parallel_apply(modules, inputs(), {}, devices());
  ASSERT_EQ(outs.size(), devices().size());
  for (size_t i = 1; i < modules.size(); ++i) {
    EXPECT_EQ(modules[i]->devices, std::vector<Device>{devices()[i]});
    EXPECT_EQ(modules[i]->on_executor, std::vector<bool>{true});
    EXPECT_EQ(outs[i].device(), devices()[i]);
  }
}

TEST_P(ParallelApplyTest, TheReplicaOnTheCallersDeviceRunsOnTheCallingThread) {
  ASSERT_EQ(current_device(), devices()[0]);
  const auto modules = probes();
  const std::vector<Variable> outs = parallel_apply(modules, inputs(), {}, devices());
  EXPECT_EQ(modules[0]->threads, std::vector<std::thread::id>{std::this_thread::get_id()});
  EXPECT_EQ(modules[0]->devices, std::vector<Device>{devices()[0]});
  EXPECT_EQ(outs[0].device(), devices()[0]);
}

TEST_P(ParallelApplyTest, FromAnotherDeviceEveryReplicaRunsOnItsExecutor) {
  const std::vector<Device> all = devices();
  const std::vector<Device> others(all.begin() + 1, all.end());
  if (others.size() < 2) GTEST_SKIP() << "a single replica runs on the calling thread";
  auto modules = probes();
  modules.pop_back();
  auto in = inputs();
  in.erase(in.begin());
  parallel_apply(modules, in, {}, others);
  for (size_t i = 0; i < modules.size(); ++i) {
    EXPECT_EQ(modules[i]->devices, std::vector<Device>{others[i]});
    EXPECT_EQ(modules[i]->on_executor, std::vector<bool>{true});
    EXPECT_NE(modules[i]->threads[0], std::this_thread::get_id());
  }
}

TEST_P(ParallelApplyTest, GradModeIsCarriedIntoTheWorkers) {
  const auto modules = probes();
  {
    NoGradGuard no_grad;
    parallel_apply(modules, inputs(), {}, devices());
  }
  parallel_apply(modules, inputs(), {}, devices());
  for (const auto& m : modules) EXPECT_EQ(m->grad_modes, (std::vector<bool>{false, true}));
}

TEST_P(ParallelApplyTest, DevicesDefaultToTheModulesDevices) {
  auto modules = throwing({});
  const std::vector<Variable> outs = parallel_apply(modules, rows());
  for (size_t i = 0; i < outs.size(); ++i) EXPECT_EQ(outs[i].device(), devices()[i]);
}

TEST_P(ParallelApplyTest, AnExceptionNamesItsReplicaAndDevice) {
  EXPECT_THROW_MSG(parallel_apply(throwing({1}), rows(), {}, devices()),
                   "Caught std::invalid_argument in replica 1 on device cpu:1.\nbad replica input");
}

TEST_P(ParallelApplyTest, WhenAllThrowTheFirstIsReportedAndTheExecutorsStayUsable) {
  std::vector<int> all;
  for (int i = 0; i < count(); ++i) all.push_back(i);
  EXPECT_THROW_MSG(parallel_apply(throwing(all), rows(), {}, devices()),
                   "Caught std::invalid_argument in replica 0 on device cpu:0.");
  const std::vector<Variable> outs = parallel_apply(throwing({}), rows(), {}, devices());
  EXPECT_EQ(outs.size(), devices().size());
}

// A replica whose task cannot be queued (its allocation failed) is
// reported as one that threw, after the others ran; nothing is left
// running, and the next call works.
TEST_P(ParallelApplyTest, AReplicaThatCannotBeQueuedIsReportedAndTheNextCallWorks) {
  auto modules = probes();
  ::torchlet::detail::fail_next_submits_for_testing(1);
  EXPECT_THROW_MSG(parallel_apply(modules, inputs(), {}, devices()),
                   "Caught std::bad_alloc in replica 1 on device cpu:1.\nstd::bad_alloc");
  for (int i = 0; i < count(); ++i) {
    EXPECT_EQ(modules[i]->devices.size(), i == 1 ? 0u : 1u) << "replica " << i;
  }
  const std::vector<Variable> outs = parallel_apply(modules, inputs(), {}, devices());
  EXPECT_EQ(outs.size(), devices().size());
  EXPECT_EQ(modules[1]->devices.size(), 1u);
}

TEST_P(ParallelApplyTest, ASingleReplicaRunsOnTheCallerWithItsDeviceCurrent) {
  auto modules = probes();
  modules.resize(1);
  auto in = inputs();
  parallel_apply(modules, std::vector<std::tuple<Variable>>{in.back()}, {}, {devices().back()});
  EXPECT_EQ(modules[0]->devices, std::vector<Device>{devices().back()});
  EXPECT_EQ(modules[0]->on_executor, std::vector<bool>{false});
}

TEST_P(ParallelApplyTest, CalledFromAnExecutorItDoesNotDeadlock) {
  const auto modules = probes();
  const auto in = inputs();
  const std::vector<Device> devs = devices();
  std::future<void> done = device_executor(devs[0]).submit(
      [&] { EXPECT_EQ(parallel_apply(modules, in, {}, devs).size(), devs.size()); });
  ASSERT_EQ(done.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  done.get();
}

TEST_P(ParallelApplyTest, MismatchedLengthsThrow) {
  auto modules = probes();
  auto in = inputs();
  in.pop_back();
  EXPECT_THROW_MSG(parallel_apply(modules, in, {}, devices()),
                   "parallel_apply: got " + std::to_string(count()) + " modules but " +
                       std::to_string(count() - 1) + " inputs");
  EXPECT_THROW_MSG(parallel_apply(modules, inputs(), {}, {devices()[0]}),
                   "modules but 1 devices");
}

TEST_P(ParallelApplyTest, NoReplicasThrow) {
  EXPECT_THROW_MSG(parallel_apply(decltype(probes()){}, decltype(inputs()){}),
                   "parallel_apply: Expected at least one replica");
}

INSTANTIATE_TEST_SUITE_P(Devices, ParallelApplyTest, ::testing::Values(2, 3, 4),
                         ::testing::PrintToStringParamName());

}  // namespace
}  // namespace torchlet::parallel
