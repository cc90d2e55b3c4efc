// replicate(): kept replicas re-bound on every call (Note [Kept replicas]),
// on 2, 3 and 4 CPU devices.
#include "parallel/replicate.h"

#include <atomic>
#include <string>
#include <utility>

#include "parallel/testing.h"
#include "tensor/test_util.h"

namespace torchlet::parallel {
namespace {

using ::torchlet::testing::all_close;
using testing::BufferNet;
using testing::leaf;

class ReplicateTest : public testing::OnDevices {};

TEST_P(ReplicateTest, ReplicasLiveOnTheirDevicesWithTheModulesValues) {
  nn::Linear fc(3, 2);
  const auto replicas = replicate(fc, devices());
  ASSERT_EQ(replicas.size(), devices().size());
  for (size_t d = 0; d < replicas.size(); ++d) {
    EXPECT_EQ(replicas[d]->weight.device(), devices()[d]);
    EXPECT_TRUE(all_close(replicas[d]->weight.data().to(Device(kCPU, 0)), fc->weight.data()));
    EXPECT_NE(replicas[d].get(), fc.get());
  }
}

TEST_P(ReplicateTest, FirstReplicaSharesStorageOthersShareNothing) {
  BufferNet net;
  const auto replicas = replicate(net, devices());
  EXPECT_TRUE(replicas[0]->fc->weight.data().shares_storage(net->fc->weight.data()));
  EXPECT_TRUE(replicas[0]->running.data().shares_storage(net->running.data()));
  for (size_t a = 1; a < replicas.size(); ++a) {
    EXPECT_FALSE(replicas[a]->fc->weight.data().shares_storage(net->fc->weight.data()));
    for (size_t b = 0; b < a; ++b) {
      EXPECT_FALSE(replicas[a]->running.data().shares_storage(replicas[b]->running.data()));
    }
  }
}

/// Weak handles of `replicas` (which do not count as holding them).
template <typename M>
std::vector<std::weak_ptr<M>> weak(const std::vector<std::shared_ptr<M>>& replicas) {
  return std::vector<std::weak_ptr<M>>(replicas.begin(), replicas.end());
}

TEST_P(ReplicateTest, ReplicasAreKeptAcrossCalls) {
  nn::Linear fc(3, 2);
  std::vector<Variable> weights;
  std::vector<std::weak_ptr<nn::LinearImpl>> first;
  {
    const auto replicas = replicate(fc, devices());
    first = weak(replicas);
    for (const auto& r : replicas) weights.push_back(r->weight);
  }
  const auto second = replicate(fc, devices());
  for (size_t d = 0; d < second.size(); ++d) {
    EXPECT_EQ(first[d].lock(), second[d]);
    EXPECT_TRUE(weights[d].is_same(second[d]->weight));
  }
}

TEST_P(ReplicateTest, ReplicasStillHeldAreNotReboundByALaterCall) {
  nn::Linear fc(3, 2);
  const auto held = replicate(fc, devices());
  const autograd::Node* held_broadcast = held[1]->weight.grad_fn().get();
  std::vector<std::weak_ptr<nn::LinearImpl>> later;
  {
    const auto replicas = replicate(fc, devices());
    for (size_t d = 0; d < replicas.size(); ++d) EXPECT_NE(replicas[d], held[d]);
    later = weak(replicas);
  }
  EXPECT_EQ(held[1]->weight.grad_fn().get(), held_broadcast);  // still bound to its own call's
  // With both sets free, a third call takes one of them, not a third set.
  const auto third = replicate(fc, devices());
  EXPECT_EQ(third[1], later[1].lock());
}

TEST_P(ReplicateTest, DestroyingTheModuleFreesItsKeptReplicas) {
  std::vector<std::weak_ptr<nn::LinearImpl>> kept;
  {
    nn::Linear fc(3, 2);
    for (const auto& replica : replicate(fc, devices())) kept.push_back(replica);
  }
  // No other replicate() call since, which might have dropped them.
  for (const auto& replica : kept) EXPECT_TRUE(replica.expired());
}

TEST_P(ReplicateTest, AGraphStillAliveKeepsItsSetFromTheNextCall) {
  // Backward would read the replicas' parameters while the next call
  // re-bound them, from another thread perhaps.
  nn::Linear fc(3, 2);
  const Variable x(randn({4, 3}));
  Variable y;
  std::vector<std::weak_ptr<nn::LinearImpl>> first;
  {
    const auto replicas = replicate(fc, devices());
    first = weak(replicas);
    y = replicas[1]->forward(x.to(devices()[1]));
  }
  std::vector<std::weak_ptr<nn::LinearImpl>> second = weak(replicate(fc, devices()));
  EXPECT_NE(second[1].lock(), first[1].lock());
  y.sum().backward();
  y = Variable();  // the graph is gone: its set is free again
  const auto third = replicate(fc, devices());
  EXPECT_TRUE(third[1] == first[1].lock() || third[1] == second[1].lock());
}

TEST_P(ReplicateTest, ACloneKeepsReplicasOfItsOwn) {
  nn::Linear fc(3, 2);
  const auto originals = weak(replicate(fc, devices()));
  const auto copy = std::dynamic_pointer_cast<nn::LinearImpl>(fc->clone());
  const auto clones = replicate(copy, devices());
  const auto again = replicate(fc, devices());
  for (size_t d = 0; d < again.size(); ++d) {
    EXPECT_NE(clones[d], again[d]);
    EXPECT_EQ(again[d], originals[d].lock());  // the clone's did not replace them
  }
}

/// A Linear whose reset() throws once the countdown reaches zero (clone()
/// calls reset() on each copy).
class FailingCloneImpl : public nn::Cloneable<FailingCloneImpl> {
 public:
  FailingCloneImpl() { reset(); }
  void reset() override {
    TORCHLET_CHECK(countdown-- != 0, "clone failed");
    fc = register_module("fc", nn::Linear(3, 2));
  }
  Variable forward(const Variable& x) { return fc(x); }
  nn::Linear fc{nullptr};
  static inline int countdown = -1;  // never
};
TORCHLET_MODULE(FailingClone);

TEST_P(ReplicateTest, AReplicaThatFailedToBuildIsBuiltAgainNextCall) {
  FailingClone net;
  replicate(net, devices());
  net->to(kFloat64);
  FailingCloneImpl::countdown = 1;  // the second device's clone throws
  EXPECT_THROW_MSG(replicate(net, devices()), "clone failed");
  FailingCloneImpl::countdown = -1;
  net->to(kFloat32);  // what the set was last built for
  const auto replicas = replicate(net, devices());
  ASSERT_EQ(replicas.size(), devices().size());
  const Variable x(randn({2, 3}));
  EXPECT_TRUE(all_close(replicas.back()->forward(x.to(devices().back())).data().to(devices()[0]),
                        net->forward(x).data()));
}

/// The registrations of `module` named `a` and `b`, duplicates kept.
std::pair<Variable, Variable> slots_named(const nn::Module& module, const std::string& a,
                                          const std::string& b) {
  std::vector<nn::Module::NamedVariable> all =
      module.named_parameters(/*recurse=*/true, /*remove_duplicate=*/false);
  for (auto& named : module.named_buffers(/*recurse=*/true, /*remove_duplicate=*/false)) {
    all.push_back(std::move(named));
  }
  Variable first, second;
  for (const auto& [name, v] : all) {
    if (name == a) first = v;
    if (name == b) second = v;
  }
  return {first, second};
}

TEST_P(ReplicateTest, ASharedSubmodulesCopiesInAReplicaAreBoundToOneParameter) {
  const nn::Linear shared(3, 3);
  nn::Sequential seq(shared, nn::Tanh(), shared);
  const auto replicas = replicate(seq, devices());
  const Variable x(randn({2, 3}));
  for (size_t d = 0; d < replicas.size(); ++d) {
    const auto [first, second] = slots_named(*replicas[d], "0.weight", "2.weight");
    EXPECT_TRUE(first.data().shares_storage(second.data()));
    EXPECT_EQ(first.grad_fn(), second.grad_fn());
    EXPECT_EQ(first.output_nr(), second.output_nr());
    EXPECT_TRUE(all_close(replicas[d]->forward(x.to(devices()[d])).data().to(devices()[0]),
                          seq->forward(x).data()));
  }
}

TEST_P(ReplicateTest, ASharedParametersGradientSumsOverItsUsesAndReplicas) {
  nn::ParameterList list;
  const Variable p(zeros({2}), true);
  list->append(p);
  list->append(p);
  const auto replicas = replicate(list, devices());
  Variable loss;
  for (const auto& r : replicas) {
    const auto [first, second] = slots_named(*r, "0", "1");
    EXPECT_TRUE(first.data().shares_storage(second.data()));
    const Variable term = (first.sum() + second.sum()).to(devices()[0]);
    loss = loss.defined() ? loss + term : term;
  }
  loss.backward();
  EXPECT_TRUE(all_close(p.grad().data(), full({2}, 2.0 * count())));
}

TEST_P(ReplicateTest, ASharedBuffersCopiesInAReplicaAreOneTensor) {
  const nn::BatchNorm1d bn(3);
  nn::Sequential seq(bn, bn);
  const auto replicas = replicate(seq, devices());
  for (size_t d = 0; d < replicas.size(); ++d) {
    const auto [first, second] = slots_named(*replicas[d], "0.running_mean", "1.running_mean");
    EXPECT_TRUE(first.data().shares_storage(second.data()));
    EXPECT_EQ(first.data().device(), devices()[d]);
  }
}

TEST_P(ReplicateTest, TheCopiesOfASharedSubmoduleRunItsHooksAndMirrorItsMode) {
  const nn::Linear shared(3, 3);
  nn::Sequential seq(shared, nn::Tanh(), shared);
  std::atomic<int> calls{0};
  shared->register_forward_hook(
      [&calls](nn::Module&, const Variable&, Variable&) { calls.fetch_add(1); });
  shared->eval();
  const auto replicas = replicate(seq, devices());
  for (size_t d = 0; d < replicas.size(); ++d) {
    for (const auto& m : replicas[d]->modules()) EXPECT_EQ(m->is_training(), m->name() != "Linear");
    nn::call(*replicas[d], Variable(randn({2, 3}).to(devices()[d])));
  }
  EXPECT_EQ(calls.load(), 2 * count());
}

/// Registers `count` parameters, or two that are one when `tie` is set,
/// as reset() finds those members.
class RegistersByMembersImpl : public nn::Cloneable<RegistersByMembersImpl> {
 public:
  RegistersByMembersImpl() { reset(); }
  void reset() override {
    for (int i = 0; i < count; ++i) {
      const Variable p = register_parameter("p" + std::to_string(i), zeros({1}));
      if (tie) register_parameter("tied", p);
    }
  }
  Variable forward(const Variable& x) { return x; }
  int count = 1;
  bool tie = false;
};
TORCHLET_MODULE(RegistersByMembers);

TEST_P(ReplicateTest, ACloneRegisteringOtherThanTheOriginalIsRefusedNamingBoth) {
  RegistersByMembers net;
  net->count = 2;
  EXPECT_THROW_MSG(replicate(net, devices()),
                   "replicate: the clone of RegistersByMembers does not register the "
                   "submodules, parameters and buffers the original does (1 modules and 1 "
                   "parameters and buffers, against 1 and 2 in the clone)");
}

TEST_P(ReplicateTest, ACloneSharingWhatTheOriginalDoesNotIsRefusedNamingBoth) {
  RegistersByMembers net;
  net->register_parameter("tied", zeros({1}));
  net->tie = true;
  EXPECT_THROW_MSG(replicate(net, devices()),
                   "replicate: the clone of RegistersByMembers shares one parameter or buffer "
                   "between 'p0' and 'tied', which the original does not");
}

/// A Linear whose output is divided by a plain member.
class TemperedImpl : public nn::Cloneable<TemperedImpl> {
 public:
  TemperedImpl() { reset(); }
  void reset() override { fc = register_module("fc", nn::Linear(3, 2)); }
  Variable forward(const Variable& x) { return fc(x) / temperature; }
  nn::Linear fc{nullptr};
  double temperature = 1;
};
TORCHLET_MODULE(Tempered);

TEST_P(ReplicateTest, PlainMembersAreThoseOfTheBuildUntilTheReplicasAreDropped) {
  Tempered net;
  const Variable x(randn({2, 3}));
  const auto last_replica_output = [&] {
    const auto replicas = replicate(net, devices());
    return replicas.back()->forward(x.to(devices().back())).data().to(devices()[0]);
  };
  const Tensor at_one = last_replica_output();
  net->temperature = 10;
  EXPECT_TRUE(all_close(last_replica_output(), at_one));  // kept: still 1
  drop_replicas(net);
  EXPECT_TRUE(all_close(last_replica_output(), net->forward(x).data()));
}

TEST_P(ReplicateTest, DropReplicasRejectsANullModule) {
  EXPECT_THROW_MSG(drop_replicas(nullptr), "drop_replicas: the module is null");
}

TEST_P(ReplicateTest, ReplicasSeeTheModulesNewValuesEachCall) {
  nn::Linear fc(3, 2);
  replicate(fc, devices());
  {
    NoGradGuard no_grad;
    Tensor w = fc->weight.data();
    w.fill_(0.25);
  }
  const auto replicas = replicate(fc, devices());
  EXPECT_TRUE(all_close(replicas.back()->weight.data().to(Device(kCPU, 0)), full({2, 3}, 0.25)));
}

TEST_P(ReplicateTest, AShapeChangeRebuildsTheReplicas) {
  nn::Linear fc(3, 2);
  const auto first = weak(replicate(fc, devices()));
  fc->weight.set_data(zeros({4, 3}));
  const auto second = replicate(fc, devices());
  EXPECT_TRUE(first[1].expired());  // rebuilt, not another set
  EXPECT_EQ(second[1]->weight.sizes(), IntArrayRef({4, 3}));
}

TEST_P(ReplicateTest, ANewSubmoduleRebuildsTheReplicas) {
  nn::Sequential seq(nn::Linear(3, 4));
  const nn::Linear extra(4, 2);  // built before: only push_back registers
  replicate(seq.ptr(), devices());
  const auto first = weak(replicate(seq.ptr(), devices()));  // nothing changed since the build
  seq->push_back(extra);
  const auto second = replicate(seq.ptr(), devices());
  EXPECT_TRUE(first[1].expired());
  ASSERT_EQ(second[1]->size(), 2u);
  const Variable x(randn({1, 3}));
  EXPECT_TRUE(all_close(second[1]->forward(x.to(devices()[1])).data().to(devices()[0]),
                        seq->forward(x).data()));
}

TEST_P(ReplicateTest, AReplacedChildRebuildsTheReplicas) {
  nn::ModuleDict dict({{"act", nn::ReLU()}});
  const nn::Tanh tanh;
  replicate(dict.ptr(), devices());
  replicate(dict.ptr(), devices());
  dict->insert("act", tanh);
  const auto replicas = replicate(dict.ptr(), devices());
  EXPECT_EQ((*replicas[1])["act"]->name(), "Tanh");
}

TEST_P(ReplicateTest, ANewParameterRebuildsTheReplicas) {
  nn::ParameterList list;
  list->append(zeros({2}));
  const Variable added(full({1}, 2.0));
  replicate(list.ptr(), devices());
  replicate(list.ptr(), devices());
  list->append(added);
  const auto replicas = replicate(list.ptr(), devices());
  const std::vector<Variable> params = replicas[1]->parameters();
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params[1].device(), devices()[1]);
  EXPECT_TRUE(all_close(params[1].data().to(devices()[0]), full({1}, 2.0)));
}

TEST_P(ReplicateTest, RegistrationsElsewhereKeepTheReplicas) {
  nn::Linear fc(3, 2);
  replicate(fc, devices());
  const auto first = weak(replicate(fc, devices()));
  nn::Linear unrelated(5, 5);
  const auto second = replicate(fc, devices());
  EXPECT_EQ(first[1].lock(), second[1]);
}

TEST_P(ReplicateTest, ADeviceListChangeRebuildsTheReplicas) {
  nn::Linear fc(3, 2);
  replicate(fc, devices());
  const auto fewer = replicate(fc, {devices()[0], devices()[1]});
  EXPECT_EQ(fewer.size(), 2u);
  EXPECT_THROW_MSG(replicate(fc, {devices()[1], devices()[0]}),
                   "All tensors must be on devices[0]: cpu:1, but tensor 0 is on cpu:0");
  fc->to(devices()[1]);
  const auto reversed = replicate(fc, {devices()[1], devices()[0]});
  EXPECT_EQ(reversed[0]->weight.device(), devices()[1]);
  EXPECT_EQ(reversed[1]->weight.device(), devices()[0]);
}

TEST_P(ReplicateTest, ReplicaParametersAreConnectedByBroadcast) {
  nn::Linear fc(3, 2);
  const auto replicas = replicate(fc, devices());
  EXPECT_FALSE(replicas[1]->weight.is_leaf());
  EXPECT_EQ(replicas[1]->weight.grad_fn()->name(), "BroadcastBackward");
  Variable loss;
  for (const auto& r : replicas) {
    const Variable x(ones({1, 3}).to(r->weight.device()));
    const Variable term = r->forward(x).sum().to(Device(kCPU, 0));
    loss = loss.defined() ? loss + term : term;
  }
  loss.backward();
  EXPECT_TRUE(all_close(fc->weight.grad().data(), full({2, 3}, double(count()))));
  EXPECT_TRUE(all_close(fc->bias.grad().data(), full({2}, double(count()))));
}

TEST_P(ReplicateTest, DetachedReplicasAreNotConnected) {
  nn::Linear fc(3, 2);
  const auto replicas = replicate(fc, devices(), /*detach=*/true);
  for (const auto& r : replicas) {
    EXPECT_FALSE(r->weight.requires_grad());
    EXPECT_TRUE(r->weight.is_leaf());
  }
  EXPECT_TRUE(replicas[0]->weight.data().shares_storage(fc->weight.data()));
}

TEST_P(ReplicateTest, BuffersAreCopiedWithoutGrad) {
  BufferNet net;
  const auto replicas = replicate(net, devices());
  EXPECT_FALSE(replicas[1]->running.requires_grad());
  EXPECT_EQ(replicas[1]->running.device(), devices()[1]);
}

TEST_P(ReplicateTest, ReplicaParametersAreItsOwn) {
  BufferNet net;
  const auto replicas = replicate(net, devices());
  const std::vector<Variable> params = replicas[1]->parameters();
  ASSERT_EQ(params.size(), 2u);
  EXPECT_TRUE(params[0].is_same(replicas[1]->fc->weight));
  EXPECT_EQ(params[0].device(), devices()[1]);
}

TEST_P(ReplicateTest, TrainingFlagsAreMirroredEachCall) {
  BufferNet net;
  replicate(net, devices());
  net->fc->eval();
  auto replicas = replicate(net, devices());
  EXPECT_TRUE(replicas[1]->is_training());
  EXPECT_FALSE(replicas[1]->fc->is_training());
  net->eval();
  replicas = replicate(net, devices());
  EXPECT_FALSE(replicas.back()->is_training());
}

TEST_P(ReplicateTest, HooksOfTheOriginalRunInEveryReplica) {
  nn::Linear fc(3, 2);
  replicate(fc, devices());
  std::atomic<int> calls{0};
  fc->register_forward_hook(
      [&calls](nn::Module&, const Variable&, Variable&) { calls.fetch_add(1); });
  for (const auto& r : replicate(fc, devices())) {
    nn::call(*r, Variable(ones({1, 3}).to(r->weight.device())));
  }
  EXPECT_EQ(calls.load(), count());
}

TEST_P(ReplicateTest, NoDevicesGiveNoReplicas) {
  nn::Linear fc(3, 2);
  EXPECT_TRUE(replicate(fc, {}).empty());
}

TEST_P(ReplicateTest, RejectsMissingDevices) {
  nn::Linear fc(3, 2);
  EXPECT_THROW_MSG(replicate(fc, {Device(kCPU, count())}),
                   "replicate: device cpu:" + std::to_string(count()) + " does not exist");
}

/// A subclass of Linear that does not derive Cloneable itself: its
/// clone() is Linear's, which makes a plain Linear.
class ScaledLinearImpl : public nn::LinearImpl {
 public:
  ScaledLinearImpl() : nn::LinearImpl(3, 2) {}
};

TEST_P(ReplicateTest, RejectsACloneOfAnotherClass) {
  const auto net = std::make_shared<ScaledLinearImpl>();
  EXPECT_THROW_MSG(replicate(net, devices()),
                   "replicate: clone() of ScaledLinear returned a module of another class");
}

INSTANTIATE_TEST_SUITE_P(Devices, ReplicateTest, ::testing::Values(2, 3, 4),
                         ::testing::PrintToStringParamName());

}  // namespace
}  // namespace torchlet::parallel
