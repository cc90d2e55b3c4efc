// The engine: graph shapes, retain/create graph, hooks, grad mode, in-place
// checks, errors, and one backward across two CPU devices.
#include "autograd/engine.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <future>
#include <thread>

#include "autograd/autograd.h"
#include "tensor/executor.h"
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

// clamp saves no Variable, only a mask in its node state: a backward
// without retain_graph frees the mask, and a second one is refused.
TEST(EngineTest, SecondBackwardThroughStateFreedByTheFirstThrows) {
  Variable x = param({-1, 0.5, 2});
  Variable y = x.clamp(0, 1).sum();
  y.backward();
  EXPECT_THROW_MSG(y.backward(),
                   "ClampBackward1: Trying to backward through the graph a second time");
}

// Integers and slices are no saved tensors: nothing is freed, and the node
// runs again, as a basic index (select, slice) does in PyTorch.
TEST(EngineTest, ABasicIndexNodeRunsAgainWithoutRetainGraph) {
  Variable x = param({1, 2, 3});
  Variable y = x.index({indexing::Slice(1, indexing::None)}).sum();
  y.backward();
  y.backward();
  EXPECT_TRUE(all_close(x.grad().data(), tensor({0.0, 2.0, 2.0})));
}

TEST(EngineTest, ATensorIndexNodeIsFreedByTheFirstBackward) {
  Variable x = param({1, 2, 3});
  Variable y = x.index({tensor({0, 2})}).sum();
  y.backward();
  EXPECT_THROW_MSG(y.backward(),
                   "IndexBackward0: Trying to backward through the graph a second time");
}

TEST(EngineTest, RetainGraphKeepsTheNodeState) {
  Variable x = param({-1, 0.5, 2});
  Variable y = x.clamp(0, 1).sum();
  y.backward(Variable(), /*retain_graph=*/true);
  y.backward();
  EXPECT_TRUE(all_close(x.grad().data(), tensor({0.0, 2.0, 0.0})));
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
                   "element 0 of tensors does not require grad and does not have a grad_fn");
}

TEST(EngineTest, ExplicitGradientSeedsTheBackward) {
  Variable x = param({1, 2});
  (x * 2.0).backward(Variable(tensor({1.0, 10.0})));
  EXPECT_TRUE(all_close(x.grad().data(), tensor({2.0, 20.0})));
}

TEST(EngineTest, AnExplicitGradientOfTheWrongShapeThrows) {
  Variable x = param({1, 2});
  EXPECT_THROW_MSG((x * 2.0).backward(Variable(tensor({1.0, 2.0, 3.0}))),
                   "backward: the gradient of shape [3] does not match output 0 of shape [2]");
}

TEST(EngineTest, BackwardNeedsOneGradientPerOutput) {
  Variable x = param({1, 2});
  EXPECT_THROW_MSG(autograd::backward({x.sum(), (x * 2.0).sum()}, {Variable(ones({}))}),
                   "backward: got 1 gradients for 2 outputs");
}

// A node written against the public Node interface that returns no
// gradient for its one input.
struct DropsItsGradient : autograd::Node {
  variable_list apply(variable_list&&) override { return {}; }
  std::string name() const override { return "DropsItsGradient"; }
};

TEST(EngineTest, ANodeReturningTheWrongNumberOfGradientsThrows) {
  Variable x = param({1, 2});
  Variable y = x.exp();
  auto dropper = std::make_shared<DropsItsGradient>();
  dropper->mutable_next_edges().push_back(autograd::gradient_edge(x));
  y.grad_fn()->mutable_next_edges()[0] = autograd::Edge{dropper, 0};
  EXPECT_THROW_MSG(y.sum().backward(), "DropsItsGradient returned 0 gradients but has 1 inputs");
}

TEST(EngineTest, ALeafHookReturningAnotherShapeIsRefusedByAccumulateGrad) {
  Variable x = param({1, 2});
  x.register_hook([](const Variable& g) { return g.sum(); });
  EXPECT_THROW_MSG((x * 2.0).sum().backward(),
                   "AccumulateGrad: the gradient (float64 [] on cpu:0) does not match the leaf "
                   "(float64 [2] on cpu:0)");
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
                   "grad: One of the differentiated Variables (input 0) appears to not have been "
                   "used in the graph. Set allow_unused=true if this is the desired behavior.");
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
  EXPECT_THROW_MSG(z.backward(),
                   "one of the variables needed for gradient computation has been modified by an "
                   "inplace operation: [float64 [2]], which is saved by ExpBackward0, is at "
                   "version 1; expected version 0 instead.");
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

// Threads that must all arrive before any leaves: proof that they overlap.
// A wait that times out reports failure instead of hanging the test.
class Barrier {
 public:
  explicit Barrier(int count) : remaining_(count) {}
  bool arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mu_);
    if (--remaining_ == 0) all_arrived_.notify_all();
    return all_arrived_.wait_for(lock, std::chrono::seconds(30), [&] { return remaining_ == 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable all_arrived_;
  int remaining_;
};

// Identity whose backward waits at a barrier on the device of its input.
struct Rendezvous : autograd::Function<Rendezvous> {
  static Variable forward(autograd::AutogradContext* ctx, const Variable& x, Barrier* barrier) {
    ctx->saved_data["barrier"] = barrier;
    return x * 1.0;
  }
  static variable_list backward(autograd::AutogradContext* ctx, variable_list grads) {
    TORCHLET_CHECK(ctx->get<Barrier*>("barrier")->arrive_and_wait(),
                   "Rendezvous: the other device's node never arrived");
    return {grads[0], Variable()};
  }
};

// Identity whose backward throws, naming the device it ran on.
struct FailingBackward : autograd::Function<FailingBackward> {
  static Variable forward(autograd::AutogradContext*, const Variable& x) { return x * 1.0; }
  static variable_list backward(autograd::AutogradContext*, variable_list) {
    TORCHLET_CHECK(false, "FailingBackward failed on ", current_device());
    return {};
  }
};

// Identity whose backward gives its input no gradient.
struct NoInputGradient : autograd::Function<NoInputGradient> {
  static Variable forward(autograd::AutogradContext*, const Variable& x) { return x * 1.0; }
  static variable_list backward(autograd::AutogradContext*, variable_list) { return {Variable()}; }
};

TEST(EngineTest, AnUndefinedGradientForALeafLeavesItsGradUndefined) {
  Variable x = param({1, 2});
  Variable y = param({3, 4});
  (NoInputGradient::apply(x) + y).sum().backward();
  EXPECT_FALSE(x.grad().defined());
  EXPECT_TRUE(all_close(y.grad().data(), tensor({1.0, 1.0})));
}

TEST(EngineTest, AFreshLeafGradIsTheIncomingGradientWhenNothingElseHoldsIt) {
  Variable x = param({1, 2});
  const void* made = nullptr;
  x.register_hook([&made](const Variable& g) {
    Variable fresh(g.data() * 1.0);
    made = fresh.data().data_ptr();
    return fresh;
  });
  (x * 3.0).sum().backward();
  EXPECT_EQ(x.grad().data().data_ptr(), made);
  EXPECT_TRUE(all_close(x.grad().data(), tensor({3.0, 3.0})));
}

// Note [Serial backward]: a pass that never leaves the caller's device runs
// on the caller with the pass's state installed once.
TEST(EngineTest, ASerialPassRunsNodesWithGradModeOffAndRestoresTheCallers) {
  Variable x = param({1, 2});
  Variable y = x * 2.0;
  bool grad_mode_in_hook = true;
  y.register_hook([&](const Variable&) {
    grad_mode_in_hook = is_grad_enabled();
    return Variable();
  });
  y.sum().backward();
  EXPECT_FALSE(grad_mode_in_hook);
  EXPECT_TRUE(is_grad_enabled());
}

TEST(EngineTest, ASerialPassWithCreateGraphRunsNodesWithGradModeOn) {
  Variable x = param({1, 2});
  Variable y = x * x;
  bool grad_mode_in_hook = false;
  y.register_hook([&](const Variable&) {
    grad_mode_in_hook = is_grad_enabled();
    return Variable();
  });
  NoGradGuard caller_mode;  // the pass's mode, not the caller's, applies
  {
    EnableGradGuard record;
    Variable loss = y.sum();
    NoGradGuard again;
    loss.backward(Variable(), /*retain_graph=*/true, /*create_graph=*/true);
  }
  EXPECT_TRUE(grad_mode_in_hook);
  EXPECT_TRUE(x.grad().requires_grad());
  EXPECT_FALSE(is_grad_enabled());
  x.set_grad(Variable());  // the grad's graph holds x: break the cycle, as PyTorch warns
}

TEST(EngineTest, AnExceptionInASerialPassLeavesTheCallerUsable) {
  Variable x = param({3});
  EXPECT_THROW_MSG(FailingBackward::apply(x).sum().backward(), "FailingBackward failed on cpu:0");
  EXPECT_TRUE(is_grad_enabled());
  EXPECT_FALSE(x.grad().defined());
  (x * 4.0).sum().backward();
  EXPECT_EQ(x.grad().item<double>(), 4);
}

TEST(EngineTest, AGradientTheCallerStillHoldsIsCopiedIntoTheLeaf) {
  Variable x = param({1, 2});
  const Variable seed(tensor({5.0, 7.0}).to(kFloat64));
  x.backward(seed);
  Tensor(x.grad().data()).add_(1.0);  // in place on the leaf's grad only
  EXPECT_TRUE(all_close(seed.data(), tensor({5.0, 7.0})));
  EXPECT_TRUE(all_close(x.grad().data(), tensor({6.0, 8.0})));
}

TEST(EngineTest, OneGradientReachingTwoLeavesGivesEachItsOwnCopy) {
  Variable a = param({1, 2});
  Variable b = param({3, 4});
  (a + b).backward(Variable(tensor({1.0, 1.0})));
  Tensor(a.grad().data()).mul_(10.0);
  EXPECT_TRUE(all_close(b.grad().data(), tensor({1.0, 1.0})));
  EXPECT_TRUE(all_close(a.grad().data(), tensor({10.0, 10.0})));
}

TEST(EngineTest, AGradientThatIsAViewOfASharedBufferIsCopied) {
  Variable a = param({1, 2});
  Variable b = param({3, 4});
  // split's backward fills one buffer; each piece's gradient flows back as is.
  Variable both = stack({a, b});
  const std::vector<Variable> rows = both.unbind(0);
  (rows[0].sum() + rows[1].sum() * 2.0).backward();
  Tensor(a.grad().data()).mul_(10.0);
  EXPECT_TRUE(all_close(b.grad().data(), tensor({2.0, 2.0})));
}

// What a Linear layer's backward hands its weight and bias (a transposed
// product, a reduction reshaped by sum_to) is made as a view, whose base only
// the gradient holds: each leaf keeps the incoming gradient itself.
TEST(EngineTest, ALinearLayersParametersKeepTheirIncomingGradientsWithoutACopy) {
  Variable x = Variable(randn({5, 3}));
  Variable w = Variable(randn({4, 3}), true);
  Variable b = Variable(randn({4}), true);
  const void* w_incoming = nullptr;
  const void* b_incoming = nullptr;
  w.register_hook([&](const Variable& g) {
    w_incoming = g.data().data_ptr();
    return Variable();
  });
  b.register_hook([&](const Variable& g) {
    b_incoming = g.data().data_ptr();
    return Variable();
  });
  addmm(b, x, w.t()).sum().backward();
  EXPECT_EQ(w.grad().data().data_ptr(), w_incoming);
  EXPECT_EQ(b.grad().data().data_ptr(), b_incoming);
  EXPECT_TRUE(all_close(b.grad().data(), full({4}, 5.0)));
}

// The view base of a gradient that another handle still holds is shared:
// the leaf copies, and writing into its grad leaves the holder's tensor as
// it was.
TEST(EngineTest, AGradientWhoseViewBaseIsHeldElsewhereIsCopied) {
  Variable x = param({1, 2, 3, 4});
  const Variable seed(tensor({1.0, 2.0, 3.0, 4.0}).to(kFloat64).view({2, 2}));
  x.view({2, 2}).backward(seed);
  Tensor(x.grad().data()).mul_(10.0);
  EXPECT_TRUE(all_close(seed.data(), tensor({1.0, 2.0, 3.0, 4.0}).view({2, 2})));
}

// A Linear's weight enters the product as weight.t(): its gradient is made
// in that layout, so the weight's own gradient is contiguous (and kept
// without a copy).
TEST(EngineTest, TheGradientOfATransposedMatrixIsLaidOutAsItIs) {
  Variable x = Variable(randn({5, 3}).to(kFloat64));
  Variable w = Variable(randn({4, 3}).to(kFloat64), true);
  Variable b = Variable(randn({4}).to(kFloat64), true);
  const Variable wt = w.t();
  std::vector<int64_t> mm_strides, addmm_strides;
  wt.register_hook([&](const Variable& g) {
    addmm_strides.assign(g.data().strides().begin(), g.data().strides().end());
    return Variable();
  });
  addmm(b, x, wt).sum().backward();
  const Variable wt2 = w.t();
  wt2.register_hook([&](const Variable& g) {
    mm_strides.assign(g.data().strides().begin(), g.data().strides().end());
    return Variable();
  });
  x.mm(wt2).sum().backward();
  EXPECT_EQ(addmm_strides, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(mm_strides, (std::vector<int64_t>{1, 3}));
  EXPECT_TRUE(all_close(w.grad().data(), x.data().sum({0}, true).expand({4, 3}) * 2.0));
}

TEST(EngineTest, ASeedOfAnotherDtypeIsConvertedToTheOutputs) {
  Variable x = param({1, 2});
  (x * 2.0).backward(Variable(tensor({1.5f, 2.5f})));
  EXPECT_EQ(x.grad().dtype(), kFloat64);
  EXPECT_TRUE(all_close(x.grad().data(), tensor({3.0, 5.0}).to(kFloat64)));
  Variable leaf = param({1, 2});
  leaf.backward(Variable(tensor({4.0f, 6.0f})));
  EXPECT_TRUE(all_close(leaf.grad().data(), tensor({4.0, 6.0}).to(kFloat64)));
}

Variable param_on(Device device, std::initializer_list<double> v) {
  return Variable(param(v).data().to(device), true);
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

TEST_F(TwoDevices, NodesOfTwoDevicesRunAtTheSameTime) {
  Barrier barrier(2);
  Variable x0 = param_on(Device("cpu:0"), {1, 2});
  Variable x1 = param_on(Device("cpu:1"), {3});
  Variable y0 = Rendezvous::apply(x0, &barrier);
  Variable y1 = Rendezvous::apply(x1, &barrier);
  (y0.sum() + y1.sum().to(Device("cpu:0"))).backward();
  EXPECT_TRUE(all_close(x0.grad().data(), tensor({1.0, 1.0})));
  EXPECT_EQ(x1.grad().item<double>(), 1);
}

// A pass whose work for another device cannot be queued there (the task's
// allocation failed) fails with that error instead of waiting for it, and
// the next pass runs.
TEST_F(TwoDevices, ABackwardWhoseWorkCannotBeQueuedFailsAndTheNextRuns) {
  Variable x = param({1, 2});
  Variable y = (x.to(Device("cpu:1")) * 3.0).sum().to(Device("cpu:0"));
  ::torchlet::detail::fail_next_submits_for_testing(1);
  EXPECT_THROW(y.backward(), std::bad_alloc);
  ::torchlet::detail::fail_next_submits_for_testing(0);
  (x.to(Device("cpu:1")) * 3.0).sum().to(Device("cpu:0")).backward();
  EXPECT_TRUE(all_close(x.grad().data(), tensor({3.0, 3.0})));
}

TEST_F(TwoDevices, AnExceptionOnAnotherDevicesExecutorReachesTheCaller) {
  Variable x1 = param_on(Device("cpu:1"), {3});
  Variable y = FailingBackward::apply(x1).sum().to(Device("cpu:0"));
  EXPECT_THROW_MSG(y.backward(), "FailingBackward failed on cpu:1");
  Variable w = param_on(Device("cpu:1"), {2});
  (w * 4.0).sum().to(Device("cpu:0")).backward();
  EXPECT_EQ(w.grad().item<double>(), 4);
}

TEST_F(TwoDevices, BackwardRunsWithTheCallersGradModeOffOutsideCreateGraph) {
  Variable x = param({1});
  Variable on1 = x.to(Device("cpu:1"));
  std::atomic<bool> grad_mode_in_node{true};
  on1.register_hook([&](const Variable&) {
    grad_mode_in_node = is_grad_enabled();
    return Variable();
  });
  (on1 * 2.0).sum().to(Device("cpu:0")).backward();
  EXPECT_FALSE(grad_mode_in_node.load());
}

TEST_F(TwoDevices, ExecutorTasksRunInTheSubmittersGradMode) {
  bool enabled = true;
  {
    NoGradGuard no_grad;
    device_executor(Device("cpu:1")).submit([&] { enabled = is_grad_enabled(); }).get();
  }
  EXPECT_FALSE(enabled);
}

// Each executor runs a backward whose graph needs the other executor's
// device, both at once: the cpu:0 pass queues work behind the cpu:1 pass
// and the other way round. Waiting executors help with their queues, so
// both finish (without help, neither could).
TEST_F(TwoDevices, BackwardsOnTwoExecutorsThatNeedEachOtherBothFinish) {
  const Device cpu0("cpu:0"), cpu1("cpu:1");
  Variable xa = param_on(cpu0, {1, 2});
  Variable ya = (xa.to(cpu1) * 2.0).to(cpu0).sum();
  Variable xb = param_on(cpu1, {3});
  Variable yb = (xb.to(cpu0) * 5.0).to(cpu1).sum();
  std::promise<void> both_started;
  std::shared_future<void> go = both_started.get_future().share();
  std::atomic<int> started{0};
  auto backward_on = [&](Device device, Variable y) {
    return device_executor(device).submit([&, y] {
      if (++started == 2) both_started.set_value();
      go.wait();
      y.backward();
    });
  };
  std::future<void> a = backward_on(cpu0, ya);
  std::future<void> b = backward_on(cpu1, yb);
  ASSERT_EQ(a.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  ASSERT_EQ(b.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  a.get();
  b.get();
  EXPECT_TRUE(all_close(xa.grad().data(), tensor({2.0, 2.0})));
  EXPECT_EQ(xb.grad().item<double>(), 5);
}

// One thread reads histories (as every op does) while another rebases them
// with in-place writes; under TSan this proves the history lock.
TEST(EngineTest, ReadingHistoryWhileAnotherThreadRebasesItIsSafe) {
  Variable x = param({1, 2, 3, 4});
  Variable base = x * 1.0;
  Variable view = base.narrow(0, 0, 2);
  constexpr int kWrites = 200;
  std::promise<void> ready;
  std::shared_future<void> go = ready.get_future().share();
  std::thread writer([&] {
    go.wait();
    for (int i = 0; i < kWrites; ++i) base.mul_(1.0);
  });
  ready.set_value();
  int leaves = 0;
  for (int i = 0; i < kWrites; ++i) {
    leaves += base.is_leaf() + view.is_leaf();
    autograd::gradient_edge(base);
    base.output_nr();
  }
  writer.join();
  EXPECT_EQ(leaves, 0);
  base.sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), tensor({1.0, 1.0, 1.0, 1.0})));
}

}  // namespace
}  // namespace torchlet
