#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "nn/nn.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

using testing::all_close;
using testing::load_golden;
using testing::values;

Variable constant(double value, std::vector<int64_t> shape = {2}) {
  return Variable(full(shape, value));
}

TEST(HooksTest, PreHooksRunInRegistrationOrderAndMayReplaceTheInput) {
  Identity layer;
  std::vector<int> order;
  layer->register_forward_pre_hook([&](Module&, Variable& x) {
    order.push_back(1);
    x = x + 1;
  });
  layer->register_forward_pre_hook([&](Module&, Variable& x) {
    order.push_back(2);
    x = x * 10;
  });
  const Variable out = layer(constant(1));
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_TRUE(all_close(out.data(), full({2}, 20.0)));
}

TEST(HooksTest, ForwardHooksSeeInputsAndMayReplaceTheOutput) {
  ReLU layer;
  std::vector<double> seen;
  layer->register_forward_hook([&](Module& m, const Variable& in, Variable& out) {
    EXPECT_EQ(m.name(), "ReLU");
    seen.push_back(in.data().sum().item<double>());
    out = out * 3;
  });
  layer->register_forward_hook([&](Module&, const Variable&, Variable& out) { out = out + 1; });
  const Variable out = layer(constant(2));
  EXPECT_EQ(seen, (std::vector<double>{4}));
  EXPECT_TRUE(all_close(out.data(), full({2}, 7.0)));
}

TEST(HooksTest, CallingForwardDirectlySkipsHooks) {
  Identity layer;
  int calls = 0;
  layer->register_forward_pre_hook([&](Module&, Variable&) { ++calls; });
  layer->forward(constant(1));
  EXPECT_EQ(calls, 0);
  layer(constant(1));
  EXPECT_EQ(calls, 1);
}

TEST(HooksTest, RemovedHookNoLongerRuns) {
  Identity layer;
  int first = 0, second = 0;
  RemovableHandle handle = layer->register_forward_pre_hook([&](Module&, Variable&) { ++first; });
  layer->register_forward_pre_hook([&](Module&, Variable&) { ++second; });
  handle.remove();
  handle.remove();
  layer(constant(1));
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, 1);
}

TEST(HooksTest, HandleOutlivingItsModuleRemovesNothing) {
  RemovableHandle handle;
  {
    Identity layer;
    handle = layer->register_forward_pre_hook([](Module&, Variable&) {});
  }
  handle.remove();
}

TEST(HooksTest, ThrowingHookPropagatesAndLeavesTheModuleUsable) {
  Linear layer(2, 2);
  bool fail = true;
  layer->register_forward_hook([&](Module&, const Variable&, Variable&) {
    if (fail) throw std::runtime_error("hook failed");
  });
  EXPECT_THROW(layer(constant(1, {1, 2})), std::runtime_error);
  fail = false;
  EXPECT_EQ(layer(constant(1, {1, 2})).sizes(), IntArrayRef({1, 2}));
}

TEST(HooksTest, HooksRunOnSequentialElementsAndUserModules) {
  Sequential seq(Linear(2, 2), ReLU());
  int inner = 0, outer = 0;
  seq[1]->register_forward_hook([&](Module&, const Variable&, Variable&) { ++inner; });
  seq->register_forward_hook([&](Module&, const Variable&, Variable&) { ++outer; });
  seq(constant(1, {1, 2}));
  EXPECT_EQ(inner, 1);
  EXPECT_EQ(outer, 1);
}

TEST(HooksTest, HooksOnForwardWithSeveralAndNonTensorInputs) {
  struct Scale : Module {
    Variable forward(const Variable& x, double factor) { return x * factor; }
  };
  Scale scale;
  scale.register_forward_pre_hook([](Module&, Variable&, double& factor) { factor = 5; });
  scale.register_forward_hook(
      [](Module&, const Variable&, const double& factor, Variable& out) { out = out + factor; });
  EXPECT_TRUE(all_close(call(scale, constant(1), 2.0).data(), full({2}, 10.0)));
}

TEST(HooksTest, ArgumentsAreConvertedToForwardsParameterTypes) {
  Identity layer;
  int calls = 0;
  layer->register_forward_pre_hook([&](Module&, Variable&) { ++calls; });
  const Parameter p(ones({2}));
  EXPECT_TRUE(layer(p).is_same(p));
  EXPECT_EQ(calls, 1);
}

TEST(HooksTest, HookMayRemoveItselfWhileRunning) {
  Identity layer;
  int calls = 0;
  RemovableHandle handle;
  handle = layer->register_forward_pre_hook([&](Module&, Variable&) {
    ++calls;
    handle.remove();
  });
  layer(constant(1));
  layer(constant(1));
  EXPECT_EQ(calls, 1);
}

TEST(HooksTest, HookWhoseSignatureDoesNotFitTheCallThrows) {
  Identity layer;
  layer->register_forward_pre_hook([](Module&, Variable&, int&) {});
  EXPECT_THROW_MSG(layer(constant(1)), "Identity: a forward pre-hook taking inputs "
                                       "std::tuple<torchlet::Variable, int> does not fit a call "
                                       "with inputs std::tuple<torchlet::Variable>");
}

TEST(HooksTest, ForwardHookWithAWrongOutputTypeThrows) {
  Identity layer;
  layer->register_forward_hook([](Module&, const Variable&, Tensor&) {});
  EXPECT_THROW_MSG(layer(constant(1)), "Identity: a forward hook taking an output "
                                       "torchlet::Tensor does not fit a forward returning "
                                       "torchlet::Variable");
}

TEST(HooksTest, HooksRunConcurrentlyWhileOthersAreRegistered) {
  Linear layer(4, 4);
  std::atomic<int> calls{0};
  layer->register_forward_hook([&](Module&, const Variable&, Variable&) { ++calls; });
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) layer(Variable(ones({1, 4})));
    });
  }
  for (int i = 0; i < 50; ++i) {
    layer->register_forward_pre_hook([](Module&, Variable&) {}).remove();
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(calls.load(), 200);
}

class MulAddImpl : public Cloneable<MulAddImpl> {
 public:
  void reset() override {}
  Variable forward(const Variable& a, const Variable& b) { return a * b + a; }
};
TORCHLET_MODULE(MulAdd);

TEST(HooksTest, FullBackwardHookSeesAndReplacesGradInputAsPyTorch) {
  auto golden = load_golden("nn/testdata/nn_golden.txt");
  MulAdd module;
  variable_list seen_input, seen_output;
  module->register_full_backward_hook(
      [&](Module&, variable_list& grad_input, const variable_list& grad_output) {
        seen_input = grad_input;
        seen_output = grad_output;
        for (Variable& g : grad_input) g = g * 2;
      });
  Variable a(golden["hook.a"].to(kFloat32), true), b(golden["hook.b"].to(kFloat32), true);
  module(a, b).backward(Variable(golden["hook.cot"].to(kFloat32)));
  ASSERT_EQ(seen_input.size(), 2u);
  ASSERT_EQ(seen_output.size(), 1u);
  EXPECT_TRUE(all_close(seen_input[0].data(), golden["hook.grad_input0"]));
  EXPECT_TRUE(all_close(seen_input[1].data(), golden["hook.grad_input1"]));
  EXPECT_TRUE(all_close(seen_output[0].data(), golden["hook.grad_output0"]));
  EXPECT_TRUE(all_close(a.grad().data(), golden["hook.grad_a"]));
  EXPECT_TRUE(all_close(b.grad().data(), golden["hook.grad_b"]));
}

TEST(HooksTest, FullBackwardHookGetsUndefinedGradForInputsWithoutGrad) {
  Linear layer(3, 2);
  variable_list seen_input, seen_output;
  layer->register_full_backward_hook(
      [&](Module&, variable_list& grad_input, const variable_list& grad_output) {
        seen_input = grad_input;
        seen_output = grad_output;
      });
  layer(Variable(ones({1, 3}))).sum().backward();
  ASSERT_EQ(seen_input.size(), 1u);
  EXPECT_FALSE(seen_input[0].defined());
  ASSERT_EQ(seen_output.size(), 1u);
  EXPECT_TRUE(all_close(seen_output[0].data(), ones({1, 2})));
  EXPECT_TRUE(layer->weight.grad().defined());
}

class TwoInputsImpl : public Cloneable<TwoInputsImpl> {
 public:
  void reset() override {}
  Variable forward(const Variable& x, const Variable& y) { return x * 2 + y * 3; }
};
TORCHLET_MODULE(TwoInputs);

class FirstOfTwoImpl : public Cloneable<FirstOfTwoImpl> {
 public:
  void reset() override {}
  Variable forward(const Variable& x, const Variable& y) {
    (void)y;
    return x * 2;
  }
};
TORCHLET_MODULE(FirstOfTwo);

// PyTorch 1.13 (materialized grads of BackwardHookFunction): once some input
// requires grad, an input that does not gets zeros, not None.
TEST(HooksTest, FullBackwardHookGetsZerosForAnInputNotRequiringGrad) {
  TwoInputs module;
  variable_list seen_input;
  module->register_full_backward_hook(
      [&](Module&, variable_list& grad_input, const variable_list&) { seen_input = grad_input; });
  Variable x(ones({2}), true), y(ones({2}));
  module(x, y).sum().backward();
  ASSERT_EQ(seen_input.size(), 2u);
  EXPECT_EQ(values(seen_input[0].data()), (std::vector<double>{2, 2}));
  ASSERT_TRUE(seen_input[1].defined());
  EXPECT_EQ(seen_input[1].sizes(), (SizeVec{2}));
  EXPECT_EQ(values(seen_input[1].data()), (std::vector<double>{0, 0}));
}

// An integer input's zeros keep its dtype (PyTorch 1.13 prints [0, 0]).
TEST(HooksTest, FullBackwardHookGetsZerosOfTheInputsDtypeForAnIntegerInput) {
  TwoInputs module;
  variable_list seen_input;
  module->register_full_backward_hook(
      [&](Module&, variable_list& grad_input, const variable_list&) { seen_input = grad_input; });
  Variable x(ones({2}), true), y(ones({2}, kInt64));
  module(x, y).sum().backward();
  ASSERT_EQ(seen_input.size(), 2u);
  ASSERT_TRUE(seen_input[1].defined());
  EXPECT_EQ(seen_input[1].dtype(), kInt64);
  EXPECT_EQ(values(seen_input[1].data()), (std::vector<double>{0, 0}));
}

// An input that requires grad but that the output does not depend on gets
// zeros in grad_input, and they reach its .grad (PyTorch 1.13: y.grad is
// tensor([0., 0.])).
TEST(HooksTest, FullBackwardHookGetsZerosForAnInputTheOutputDoesNotUse) {
  FirstOfTwo module;
  variable_list seen_input;
  module->register_full_backward_hook(
      [&](Module&, variable_list& grad_input, const variable_list&) { seen_input = grad_input; });
  Variable x(ones({2}), true), y(ones({2}), true);
  module(x, y).sum().backward();
  ASSERT_EQ(seen_input.size(), 2u);
  EXPECT_EQ(values(seen_input[0].data()), (std::vector<double>{2, 2}));
  ASSERT_TRUE(seen_input[1].defined());
  EXPECT_EQ(values(seen_input[1].data()), (std::vector<double>{0, 0}));
  ASSERT_TRUE(y.grad().defined());
  EXPECT_EQ(values(y.grad().data()), (std::vector<double>{0, 0}));
}

// A hook setting a grad_input to undefined (None) leaves that input no grad.
TEST(HooksTest, FullBackwardHookMayDropAnInputsGradient) {
  TwoInputs module;
  module->register_full_backward_hook(
      [](Module&, variable_list& grad_input, const variable_list&) { grad_input[1] = Variable(); });
  Variable x(ones({2}), true), y(ones({2}), true);
  module(x, y).sum().backward();
  EXPECT_EQ(values(x.grad().data()), (std::vector<double>{2, 2}));
  EXPECT_FALSE(y.grad().defined());
}

TEST(HooksTest, FullBackwardHookSeesEveryOutputOfATuple) {
  struct Split : Module {
    std::tuple<Variable, Variable> forward(const Variable& x) { return {x * 2, x * 3}; }
  };
  Split split;
  variable_list seen_input, seen_output;
  split.register_full_backward_hook(
      [&](Module&, variable_list& grad_input, const variable_list& grad_output) {
        seen_input = grad_input;
        seen_output = grad_output;
      });
  Variable x(ones({2}), true);
  const auto [doubled, tripled] = call(split, x);
  (doubled.sum() + tripled.sum() * 2).backward();
  ASSERT_EQ(seen_output.size(), 2u);
  EXPECT_TRUE(all_close(seen_output[0].data(), ones({2})));
  EXPECT_TRUE(all_close(seen_output[1].data(), full({2}, 2.0)));
  ASSERT_EQ(seen_input.size(), 1u);
  EXPECT_TRUE(all_close(seen_input[0].data(), full({2}, 8.0)));
  EXPECT_TRUE(all_close(x.grad().data(), full({2}, 8.0)));
}

TEST(HooksTest, RemovedBackwardHookNoLongerRuns) {
  Linear layer(3, 2);
  int calls = 0;
  auto handle = layer->register_full_backward_hook(
      [&](Module&, variable_list&, const variable_list&) { ++calls; });
  Variable x(ones({1, 3}), true);
  layer(x).sum().backward();
  handle.remove();
  layer(x).sum().backward();
  EXPECT_EQ(calls, 1);
}

TEST(HooksTest, BackwardHookChangingTheNumberOfGradientsThrows) {
  Linear layer(3, 2);
  layer->register_full_backward_hook(
      [](Module&, variable_list& grad_input, const variable_list&) { grad_input.clear(); });
  EXPECT_THROW_MSG(layer(Variable(ones({1, 3}), true)).sum().backward(),
                   "Backward hook returned an invalid number of grad_input, got 0, but expected 1");
}

TEST(HooksTest, BackwardHookOnAModuleReturningNoVariableThrows) {
  struct Count : Module {
    int64_t forward(const Variable& x) { return x.numel(); }
  };
  Count count;
  count.register_full_backward_hook([](Module&, variable_list&, const variable_list&) {});
  EXPECT_THROW_MSG(call(count, Variable(ones({2}))),
                   "Count: full backward hooks need forward to return a Variable or a std::tuple "
                   "holding Variables, not long");
}

}  // namespace
}  // namespace torchlet::nn
