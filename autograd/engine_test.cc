// The engine: graph shapes, retain/create graph, hooks, grad mode, in-place
// checks, errors, and one backward across two CPU devices.
#include "autograd/engine.h"

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "autograd/autograd.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::all_close;

Variable param(std::initializer_list<double> v) {
  return Variable(from_vector(std::vector<double>(v), {static_cast<int64_t>(v.size())}), true);
}

TEST(EngineTest, DiamondGraphSumsBothPaths) {
  Variable x = param({1, 2});
  Variable y = x * 3.0;
  Variable z = (y.exp() + y * y).sum();  // y used twice
  z.backward();
  const Tensor y_data = x.data() * 3.0;
  EXPECT_TRUE(all_close(x.grad().data(), (y_data.exp() + y_data * 2) * 3));
}

TEST(EngineTest, LeafUsedTwiceAccumulates) {
  Variable x = param({2});
  (x * x).sum().backward();
  EXPECT_EQ(x.grad().item<double>(), 4);
  (x * 3.0).sum().backward();  // grads accumulate across backward calls
  EXPECT_EQ(x.grad().item<double>(), 7);
}

TEST(EngineTest, SecondBackwardWithoutRetainGraphThrows) {
  Variable x = param({1, 2});
  Variable y = (x.exp()).sum();
  y.backward();
  EXPECT_THROW_MSG(y.backward(), "Trying to backward through the graph a second time");
}

TEST(EngineTest, RetainGraphAllowsASecondBackward) {
  Variable x = param({1, 2});
  Variable y = (x * x).sum();
  y.backward(Variable(), /*retain_graph=*/true);
  y.backward();
  EXPECT_TRUE(all_close(x.grad().data(), tensor({4.0, 8.0})));
}

TEST(EngineTest, ImplicitGradientNeedsAScalarOutput) {
  Variable x = param({1, 2});
  EXPECT_THROW_MSG((x * 2.0).backward(), "grad can be implicitly created only for scalar outputs");
}

TEST(EngineTest, BackwardOnAVariableWithoutGradThrows) {
  EXPECT_THROW_MSG(Variable(ones({1})).backward(),
                   "does not require grad and does not have a grad_fn");
}

TEST(EngineTest, ExplicitGradientSeedsTheBackward) {
  Variable x = param({1, 2});
  (x * 2.0).backward(Variable(tensor({1.0, 10.0})));
  EXPECT_TRUE(all_close(x.grad().data(), tensor({2.0, 20.0})));
}

TEST(EngineTest, GradDoesNotTouchLeafGrads) {
  Variable x = param({3});
  Variable w = param({2});
  const variable_list g = autograd::grad({(x * w).sum()}, {x});
  EXPECT_EQ(g[0].item<double>(), 2);
  EXPECT_FALSE(x.grad().defined());
  EXPECT_FALSE(w.grad().defined());
}

TEST(EngineTest, GradOfAnUnusedInputNeedsAllowUnused) {
  Variable x = param({3});
  Variable unused = param({1});
  EXPECT_THROW_MSG(autograd::grad({(x * 2.0).sum()}, {unused}),
                   "appears to not have been used in the graph");
  const variable_list g = autograd::grad({(x * 2.0).sum()}, {unused}, {}, std::nullopt, false,
                                         /*allow_unused=*/true);
  EXPECT_FALSE(g[0].defined());
}

TEST(EngineTest, CreateGraphGivesAGradientPenalty) {
  // d/dx (dy/dx)^2 with y = x^3: dy/dx = 3x^2, penalty 9x^4, derivative 36x^3.
  Variable x = param({2});
  Variable y = x.pow(3.0).sum();
  const Variable dx = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
  EXPECT_TRUE(dx.requires_grad());
  (dx * dx).sum().backward();
  EXPECT_DOUBLE_EQ(x.grad().item<double>(), 36 * 8);
}

TEST(EngineTest, HooksCanReplaceTheGradientAndBeRemoved) {
  Variable x = param({1});
  Variable y = x * 2.0;
  auto handle = y.register_hook([](const Variable& g) { return g * 10.0; });
  y.sum().backward(Variable(), true);
  EXPECT_EQ(x.grad().item<double>(), 20);
  handle.remove();
  x.set_grad(Variable());
  y.sum().backward();
  EXPECT_EQ(x.grad().item<double>(), 2);
}

TEST(EngineTest, LeafHooksSeeTheGradientBeforeAccumulation) {
  Variable x = param({1, 1});
  double seen = 0;
  x.register_hook([&seen](const Variable& g) {
    seen = g.data().sum().item<double>();
    return Variable();
  });
  (x * 3.0).sum().backward();
  EXPECT_EQ(seen, 6);
  EXPECT_TRUE(all_close(x.grad().data(), tensor({3.0, 3.0})));
}

TEST(EngineTest, RetainGradKeepsANonLeafGradient) {
  Variable x = param({1, 2});
  Variable y = x * 2.0;
  y.retain_grad();
  (y * y).sum().backward();
  EXPECT_TRUE(all_close(y.grad().data(), tensor({4.0, 8.0})));
}

TEST(EngineTest, NoGradRecordsNothing) {
  Variable x = param({1});
  NoGradGuard guard;
  Variable y = x * 2.0;
  EXPECT_FALSE(y.requires_grad());
  EXPECT_EQ(y.grad_fn(), nullptr);
  {
    EnableGradGuard enable;
    EXPECT_TRUE((x * 2.0).requires_grad());
  }
  EXPECT_FALSE(is_grad_enabled());
}

TEST(EngineTest, DetachCutsTheGraph) {
  Variable x = param({3});
  Variable y = (x * 2.0).detach();
  EXPECT_FALSE(y.requires_grad());
  EXPECT_TRUE(y.is_leaf());
  Variable z = x * 2.0;
  z.detach_();
  EXPECT_EQ(z.grad_fn(), nullptr);
}

TEST(EngineTest, ModifyingASavedTensorInPlaceIsDetected) {
  Variable x = param({1, 2});
  Variable y = x.exp();  // ExpBackward0 saves its output
  Variable z = y.sum();
  y.add_(1.0);
  EXPECT_THROW_MSG(z.backward(), "modified by an inplace operation");
  EXPECT_THROW_MSG(z.backward(), "ExpBackward0");
}

TEST(EngineTest, InPlaceOnALeafThatRequiresGradThrows) {
  Variable x = param({1});
  EXPECT_THROW_MSG(x.add_(1.0), "a leaf Variable that requires grad is being used in an in-place operation");
  NoGradGuard no_grad;
  x.add_(1.0);  // allowed without recording (optimizers)
  EXPECT_EQ(x.item<double>(), 2);
}

TEST(EngineTest, InPlaceOnANonLeafRebasesItsHistory) {
  Variable x = param({2});
  Variable y = x * 3.0;
  y.mul_(x);  // y = 3x * x
  EXPECT_EQ(y.grad_fn()->name(), "MulBackward0");
  y.sum().backward();
  EXPECT_EQ(x.grad().item<double>(), 12);  // d(3x^2) = 6x
}

TEST(EngineTest, AnExceptionInABackwardFormulaReachesTheCallerAndTheEngineRecovers) {
  Variable x = param({1, 2});
  Variable y = x.exp();
  Variable z = y.sum();
  y.mul_(2.0);  // makes ExpBackward0 throw
  EXPECT_THROW_MSG(z.backward(), "inplace operation");
  Variable w = param({1});
  (w * 5.0).sum().backward();
  EXPECT_EQ(w.grad().item<double>(), 5);
}

class TwoDevices : public ::testing::Test {
 protected:
  void SetUp() override { set_cpu_device_count(2); }
  void TearDown() override { set_cpu_device_count(1); }
};

TEST_F(TwoDevices, GradientsFlowBackAcrossDevices) {
  Variable x = param({1, 2});
  Variable on1 = x.to(Device("cpu:1"));
  Variable y = (on1 * on1).sum();
  EXPECT_EQ(y.device(), Device("cpu:1"));
  y.backward();
  EXPECT_EQ(x.grad().device(), Device("cpu:0"));
  EXPECT_TRUE(all_close(x.grad().data(), tensor({2.0, 4.0})));
}

TEST_F(TwoDevices, OneBackwardRunsGraphsRecordedInTwoThreads) {
  // Each "replica" records on its own device in its own thread; one backward
  // of the combined loss reaches a shared leaf from both devices.
  Variable w = param({1, 2, 3});
  Variable parts[2];
  std::thread threads[2];
  for (int d = 0; d < 2; ++d) {
    threads[d] = std::thread([&, d] {
      const Device device(kCPU, d);
      DeviceGuard guard(device);
      Variable wd = w.to(device);
      parts[d] = (wd * wd * static_cast<double>(d + 1)).sum().to(Device("cpu:0"));
    });
  }
  for (auto& t : threads) t.join();
  (parts[0] + parts[1]).backward();
  // d/dw (w^2 + 2 w^2) = 6w
  EXPECT_TRUE(all_close(w.grad().data(), tensor({6.0, 12.0, 18.0})));
}

TEST_F(TwoDevices, NodesRunOnTheirDevicesExecutor) {
  Variable x = param({1});
  Variable on1 = x.to(Device("cpu:1"));
  std::atomic<bool> ran_on_executor{false};
  on1.register_hook([&](const Variable& g) {
    ran_on_executor = device_executor(Device("cpu:1")).is_current_thread();
    return Variable();
  });
  (on1 * 2.0).sum().backward();
  EXPECT_TRUE(ran_on_executor.load());
}


TEST_F(TwoDevices, BackwardFromAnExecutorWhoseCurrentDeviceIsAnotherDoesNotDeadlock) {
  // The cpu:1 executor switches its current device to cpu:0 and runs a
  // backward that has nodes on cpu:1: those must run on the caller, since
  // the cpu:1 executor is the thread waiting for them.
  Variable x = param({1, 2});
  std::future<void> done = device_executor(Device("cpu:1")).submit([&] {
    DeviceGuard guard(Device("cpu:0"));
    Variable on1 = x.to(Device("cpu:1"));
    (on1 * 3.0).sum().to(Device("cpu:0")).backward();
  });
  ASSERT_EQ(done.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  done.get();
  EXPECT_TRUE(all_close(x.grad().data(), tensor({3.0, 3.0})));
}

}  // namespace
}  // namespace torchlet
