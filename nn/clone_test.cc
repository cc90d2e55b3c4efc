#include <string>

#include "gtest/gtest.h"
#include "nn/nn.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

using testing::all_close;

class NetImpl : public Cloneable<NetImpl> {
 public:
  explicit NetImpl(int64_t hidden = 4) : hidden_(hidden) { reset(); }
  void reset() override {
    scale = register_parameter("scale", ones({1}));
    fc = register_module("fc", Linear(3, hidden_));
    seq = register_module("seq", Sequential(Linear(hidden_, 2), Tanh()));
    steps = register_buffer("steps", zeros({1}));
  }
  Variable forward(const Variable& x) { return seq(fc(x)) * scale; }

  Parameter scale;
  Linear fc{nullptr};
  Sequential seq{nullptr};
  Variable steps;

 private:
  int64_t hidden_;
};
TORCHLET_MODULE(Net);

void expect_same_values(const Module& a, const Module& b) {
  const StateDict sa = a.state_dict(), sb = b.state_dict();
  ASSERT_EQ(sa.keys(), sb.keys());
  for (const auto& [name, value] : sa) EXPECT_TRUE(all_close(value, sb.at(name))) << name;
}

TEST(CloneTest, CloneHasEqualValuesInNewTensors) {
  Net net(5);
  auto copy = std::dynamic_pointer_cast<NetImpl>(net->clone());
  ASSERT_NE(copy, nullptr);
  expect_same_values(*net, *copy);
  for (size_t i = 0; i < net->slots().size(); ++i) {
    EXPECT_FALSE(net->slots()[i].variable.is_same(copy->slots()[i].variable));
    EXPECT_FALSE(net->slots()[i].variable.data().shares_storage(copy->slots()[i].variable.data()));
  }
  EXPECT_EQ(copy->repr(), net->repr());
}

TEST(CloneTest, ClonesMembersAreItsRegisteredSlots) {
  Net net;
  auto copy = std::dynamic_pointer_cast<NetImpl>(net->clone());
  EXPECT_TRUE(copy->get_parameter("fc.weight").is_same(copy->fc->weight));
  EXPECT_TRUE(copy->get_parameter("scale").is_same(copy->scale));
  EXPECT_TRUE(copy->get_buffer("steps").is_same(copy->steps));
  EXPECT_EQ(copy->get_submodule("seq").get(), copy->seq.get());
}

TEST(CloneTest, CloneIsIndependentOfTheOriginal) {
  Net net;
  Net copy(std::dynamic_pointer_cast<NetImpl>(net->clone()));
  const Tensor before = net->fc->weight.data().clone();
  copy->fc->weight.set_data(zeros({4, 3}));
  {
    NoGradGuard no_grad;
    copy->scale.mul_(3);
  }
  EXPECT_TRUE(all_close(net->fc->weight.data(), before));
  EXPECT_TRUE(all_close(net->scale.data(), ones({1})));
  const Variable x(randn({2, 3}));
  copy(x).sum().backward();
  EXPECT_FALSE(net->fc->weight.grad().defined());
}

TEST(CloneTest, CloneComputesTheSameOutput) {
  Net net;
  auto copy = std::dynamic_pointer_cast<NetImpl>(net->clone());
  const Variable x(randn({2, 3}));
  EXPECT_TRUE(all_close(net(x).data(), Net(copy)(x).data()));
}

TEST(CloneTest, CloneCopiesGradientsTrainingModeAndHooks) {
  Net net;
  net(Variable(randn({2, 3}))).sum().backward();
  net->eval();
  int calls = 0;
  net->register_forward_hook([&](Module&, const Variable&, Variable&) { ++calls; });
  Net copy(std::dynamic_pointer_cast<NetImpl>(net->clone()));
  EXPECT_TRUE(all_close(copy->fc->weight.grad().data(), net->fc->weight.grad().data()));
  EXPECT_FALSE(copy->is_training());
  EXPECT_FALSE(copy->fc->is_training());
  copy(Variable(randn({1, 3})));
  EXPECT_EQ(calls, 1);
}

TEST(CloneTest, CloneWithoutGradientsCopiesValuesButNoGradient) {
  Net net;
  net(Variable(randn({2, 3}))).sum().backward();
  ParameterList list({Variable(ones({2}))});
  list[0].set_grad(Variable(full({2}, 3.0)));
  std::shared_ptr<Module> net_copy, list_copy;
  {
    const detail::CloneWithoutGradients without_gradients;
    net_copy = net->clone();    // Cloneable modules copy their registered state
    list_copy = list->clone();  // containers deep-copy their registries
  }
  expect_same_values(*net, *net_copy);
  ASSERT_EQ(list_copy->parameters().size(), 1u);
  EXPECT_TRUE(all_close(list_copy->parameters()[0].data(), ones({2})));
  for (const Variable& p : net_copy->parameters()) EXPECT_FALSE(p.grad().defined());
  EXPECT_FALSE(list_copy->parameters()[0].grad().defined());
  EXPECT_TRUE(net->fc->weight.grad().defined());
  // Outside the scope clone() copies gradients again.
  EXPECT_TRUE(net->clone()->get_parameter("fc.weight").grad().defined());
}

TEST(CloneTest, CloneToDeviceMovesEverything) {
  set_cpu_device_count(2);
  Net net;
  auto copy = net->clone(Device("cpu:1"));
  for (const Slot& slot : copy->slots()) EXPECT_EQ(slot.variable.device(), Device("cpu:1"));
  for (const Slot& slot : net->slots()) EXPECT_EQ(slot.variable.device(), Device("cpu:0"));
  EXPECT_TRUE(all_close(copy->get_parameter("fc.weight").data().to(Device("cpu:0")),
                        net->fc->weight.data()));
}

TEST(CloneTest, ContainersCloneTheirElements) {
  Sequential seq(Linear(2, 2), ReLU());
  auto copy = std::dynamic_pointer_cast<SequentialImpl>(seq->clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_NE(copy->ptr<LinearImpl>(0).get(), seq->ptr<LinearImpl>(0).get());
  expect_same_values(*seq, *copy);
  const Variable x(randn({3, 2}));
  EXPECT_TRUE(all_close(Sequential(copy)(x).data(), seq(x).data()));
  ParameterList list({Variable(ones({2}))});
  list[0].set_grad(Variable(full({2}, 3.0)));
  auto list_copy = std::dynamic_pointer_cast<ParameterListImpl>(list->clone());
  EXPECT_FALSE((*list_copy)[0].is_same(list[0]));
  EXPECT_TRUE((*list_copy)[0].requires_grad());
  EXPECT_TRUE(all_close((*list_copy)[0].grad().data(), full({2}, 3.0)));
}

TEST(CloneTest, ModuleNotDerivedFromCloneableRefusesToClone) {
  struct Plain : Module {};
  Plain plain;
  EXPECT_THROW_MSG(plain.clone(), "clone: Plain does not support clone(); derive it from "
                                  "nn::Cloneable<Plain> and register its members in reset()");
  Module parent;
  parent.register_module("plain", std::make_shared<Plain>());
  struct Holder : Cloneable<Holder> {
    Holder() { reset(); }
    void reset() override { child = register_module("plain", std::make_shared<Plain>()); }
    std::shared_ptr<Plain> child;
  };
  Holder holder;
  EXPECT_THROW_MSG(holder.clone(), "clone: Plain does not support clone()");
}

/// Registers one member, of the kind given, on its first reset() only: a
/// copy's reset() registers nothing.
struct Fickle : Cloneable<Fickle> {
  enum class Member { kParameter, kBuffer, kModule };
  explicit Fickle(Member member) : member_(member) { reset(); }
  void reset() override {
    if (!first_) return;
    first_ = false;
    switch (member_) {
      case Member::kParameter: register_parameter("a", zeros({1})); break;
      case Member::kBuffer: register_buffer("running", zeros({1})); break;
      case Member::kModule: register_module("fc", Linear(2, 3)); break;
    }
  }
  Member member_;
  bool first_ = true;
};

TEST(CloneTest, ResetThatSkipsAParameterIsReported) {
  Fickle fickle(Fickle::Member::kParameter);
  EXPECT_THROW_MSG(fickle.clone(), "clone: reset() of Fickle did not register parameter `a`");
}

TEST(CloneTest, ResetThatSkipsABufferIsReported) {
  Fickle fickle(Fickle::Member::kBuffer);
  EXPECT_THROW_MSG(fickle.clone(), "clone: reset() of Fickle did not register buffer `running`");
}

TEST(CloneTest, ResetThatSkipsASubmoduleIsReported) {
  Fickle fickle(Fickle::Member::kModule);
  EXPECT_THROW_MSG(fickle.clone(), "clone: reset() of Fickle did not register module `fc`");
}

}  // namespace
}  // namespace torchlet::nn
