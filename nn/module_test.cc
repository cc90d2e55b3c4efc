#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nn/nn.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

using testing::all_close;

std::vector<std::string> names_of(const std::vector<Module::NamedVariable>& named) {
  std::vector<std::string> names;
  for (const auto& entry : named) names.push_back(entry.first);
  return names;
}

std::vector<std::string> names_of(const std::vector<Module::NamedModule>& named) {
  std::vector<std::string> names;
  for (const auto& entry : named) names.push_back(entry.first);
  return names;
}

class NetImpl : public Cloneable<NetImpl> {
 public:
  NetImpl() { reset(); }
  void reset() override {
    scale = register_parameter("scale", ones({1}));
    fc = register_module("fc", Linear(3, 4));
    steps = register_buffer("steps", zeros({1}));
    seq = register_module("seq", Sequential(Linear(4, 4), ReLU()));
    cache = register_buffer("cache", zeros({2}), /*persistent=*/false);
  }
  Variable forward(const Variable& x) { return seq(fc(x)) * scale; }

  Parameter scale;
  Linear fc{nullptr};
  Variable steps;
  Sequential seq{nullptr};
  Variable cache;
};
TORCHLET_MODULE(Net);

TEST(ModuleTest, NamedParametersFollowRegistrationThenChildrenDepthFirst) {
  Net net;
  EXPECT_EQ(names_of(net->named_parameters()),
            (std::vector<std::string>{"scale", "fc.weight", "fc.bias", "seq.0.weight",
                                      "seq.0.bias"}));
  EXPECT_EQ(names_of(net->named_parameters(/*recurse=*/false)),
            (std::vector<std::string>{"scale"}));
  EXPECT_EQ(net->parameters().size(), 5u);
}

TEST(ModuleTest, NamedBuffersIncludeNonPersistentOnes) {
  Net net;
  EXPECT_EQ(names_of(net->named_buffers()), (std::vector<std::string>{"steps", "cache"}));
  EXPECT_EQ(net->buffers().size(), 2u);
}

TEST(ModuleTest, NamedChildrenAndModulesInOrder) {
  Net net;
  EXPECT_EQ(names_of(net->named_children()), (std::vector<std::string>{"fc", "seq"}));
  EXPECT_EQ(names_of(net->named_modules()),
            (std::vector<std::string>{"", "fc", "seq", "seq.0", "seq.1"}));
  EXPECT_EQ(names_of(net->named_modules("net")),
            (std::vector<std::string>{"net", "net.fc", "net.seq", "net.seq.0", "net.seq.1"}));
  EXPECT_EQ(net->children().size(), 2u);
  EXPECT_EQ(net->modules().size(), 5u);
}

TEST(ModuleTest, RegisteredHandleIsTheMembersVariable) {
  Net net;
  EXPECT_TRUE(net->get_parameter("fc.weight").is_same(net->fc->weight));
  EXPECT_TRUE(net->get_buffer("steps").is_same(net->steps));
  net->fc->weight.set_data(zeros({4, 3}));
  EXPECT_TRUE(all_close(net->named_parameters()[1].second.data(), zeros({4, 3})));
}

TEST(ModuleTest, SharedParameterAppearsOnceButStateDictKeepsBothKeys) {
  Module root;
  Linear a(3, 3);
  auto tied = std::make_shared<Module>();
  tied->register_parameter("w", a->weight);
  root.register_module("a", a.ptr());
  root.register_module("tied", tied);
  EXPECT_EQ(names_of(root.named_parameters()),
            (std::vector<std::string>{"a.weight", "a.bias"}));
  EXPECT_EQ(root.state_dict().keys(),
            (std::vector<std::string>{"a.weight", "a.bias", "tied.w"}));
}

TEST(ModuleTest, SharedSubmoduleAppearsOnceInNamedModules) {
  Module root;
  Linear shared(2, 2);
  root.register_module("first", shared.ptr());
  root.register_module("second", shared.ptr());
  EXPECT_EQ(names_of(root.named_modules()), (std::vector<std::string>{"", "first"}));
  EXPECT_EQ(names_of(root.named_parameters()),
            (std::vector<std::string>{"first.weight", "first.bias"}));
  EXPECT_EQ(root.state_dict().size(), 4u);
}

TEST(ModuleTest, KeepingDuplicatesListsEachRegistrationOfASharedSubmodule) {
  Module root;
  Linear shared(2, 2);
  root.register_module("first", shared.ptr());
  root.register_module("second", shared.ptr());
  EXPECT_EQ(names_of(root.named_modules("", /*remove_duplicate=*/false)),
            (std::vector<std::string>{"", "first", "second"}));
  EXPECT_EQ(names_of(root.named_parameters(/*recurse=*/true, /*remove_duplicate=*/false)),
            (std::vector<std::string>{"first.weight", "first.bias", "second.weight",
                                      "second.bias"}));
}

TEST(ModuleTest, KeepingDuplicatesListsEachNameOfASharedParameterAndBuffer) {
  Module m;
  const Variable w = m.register_parameter("w", ones({2}));
  m.register_parameter("v", w);
  const Variable b = m.register_buffer("b", zeros({2}));
  m.register_buffer("c", b);
  EXPECT_EQ(names_of(m.named_parameters(/*recurse=*/false, /*remove_duplicate=*/false)),
            (std::vector<std::string>{"w", "v"}));
  EXPECT_EQ(names_of(m.named_buffers(/*recurse=*/true, /*remove_duplicate=*/false)),
            (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(names_of(m.named_buffers()), (std::vector<std::string>{"b"}));
}

TEST(ModuleTest, RegisteringAModuleBelowItselfIsRefused) {
  auto root = std::make_shared<Module>("Root");
  auto child = std::make_shared<Module>("Child");
  root->register_module("child", child);
  EXPECT_THROW_MSG(child->register_module("loop", root),
                   "register_module: cannot register Root as 'loop' of Child, which is one of "
                   "its submodules");
  EXPECT_THROW_MSG(root->register_module("me", root),
                   "register_module: cannot register Root as 'me' of Root, which is that module "
                   "itself");
  EXPECT_EQ(child->named_children().size(), 0u);
}

TEST(ModuleTest, UndefinedParameterIsSkipped) {
  Linear fc(3, 4, /*bias=*/false);
  EXPECT_FALSE(fc->bias.defined());
  EXPECT_EQ(names_of(fc->named_parameters()), (std::vector<std::string>{"weight"}));
  EXPECT_EQ(fc->state_dict().keys(), (std::vector<std::string>{"weight"}));
}

TEST(ModuleTest, RegistrationRefusesDottedEmptyAndTakenNames) {
  Net net;
  EXPECT_THROW_MSG(net->register_parameter("a.b", zeros({1})),
                   "parameter name can't contain \".\"");
  EXPECT_THROW_MSG(net->register_parameter("", zeros({1})),
                   "parameter name can't be empty string \"\"");
  EXPECT_THROW_MSG(net->register_buffer("a.b", zeros({1})), "buffer name can't contain \".\"");
  EXPECT_THROW_MSG(net->register_buffer("", zeros({1})), "buffer name can't be empty string \"\"");
  EXPECT_THROW_MSG(net->register_module("a.b", Linear(1, 1)),
                   "module name can't contain \".\", got: a.b");
  EXPECT_THROW_MSG(net->register_module("", Linear(1, 1)),
                   "module name can't be empty string \"\"");
  EXPECT_THROW_MSG(net->register_parameter("fc", zeros({1})), "attribute 'fc' already exists");
  EXPECT_THROW_MSG(net->register_buffer("scale", zeros({1})), "attribute 'scale' already exists");
  EXPECT_THROW_MSG(net->register_module("steps", Linear(1, 1)),
                   "attribute 'steps' already exists");
  EXPECT_THROW_MSG(net->register_module("training", Linear(1, 1)),
                   "attribute 'training' already exists");
}

TEST(ModuleTest, RegisteringANonLeafParameterIsRefused) {
  Module m;
  const Variable x(ones({2}), true);
  EXPECT_THROW_MSG(m.register_parameter("p", x * 2),
                   "Cannot assign non-leaf Tensor to parameter 'p'. Model parameters must be "
                   "created explicitly. To express 'p' as a function of another Tensor, compute "
                   "the value in the forward() method.");
}

TEST(ModuleTest, RegisteringANullModuleIsRefused) {
  Module m;
  EXPECT_THROW_MSG(m.register_module("fc", std::shared_ptr<LinearImpl>()),
                   "register_module: module 'fc' is null");
}

TEST(ModuleTest, RegisteredParameterRequiresGradAndBufferDoesNot) {
  Net net;
  EXPECT_TRUE(net->scale.requires_grad());
  EXPECT_FALSE(net->steps.requires_grad());
  Module m;
  EXPECT_FALSE(m.register_parameter("frozen", zeros({2}), false).requires_grad());
}

TEST(ModuleTest, LookupByDottedName) {
  Net net;
  EXPECT_EQ(net->get_submodule("seq.0").get(), net->seq[0].get());
  EXPECT_EQ(net->get_submodule("").get(), net.get());
  EXPECT_TRUE(net->get_parameter("seq.0.bias").is_same(net->seq->ptr<LinearImpl>(0)->bias));
  EXPECT_TRUE(net->get_parameter("scale").is_same(net->scale));
  EXPECT_TRUE(net->get_buffer("cache").is_same(net->cache));
}

TEST(ModuleTest, LookupErrorsAreWordedAsPyTorch) {
  Net net;
  EXPECT_THROW_MSG(net->get_submodule("fc2"), "Net has no attribute `fc2`");
  EXPECT_THROW_MSG(net->get_submodule("fc.weight"), "`weight` is not an nn.Module");
  EXPECT_THROW_MSG(net->get_parameter("fc.w"), "Linear has no attribute `w`");
  EXPECT_THROW_MSG(net->get_parameter("fc"), "`fc` is not an nn.Parameter");
  EXPECT_THROW_MSG(net->get_buffer("fc.weight"), "`weight` is not a buffer");
  EXPECT_THROW_MSG(net->get_buffer("x.y"), "Net has no attribute `x`");
}

TEST(ModuleTest, TrainAndEvalAreRecursive) {
  Net net;
  net->eval();
  for (const auto& module : net->modules()) EXPECT_FALSE(module->is_training());
  net->train(true);
  for (const auto& module : net->modules()) EXPECT_TRUE(module->is_training());
}

TEST(ModuleTest, ApplyVisitsChildrenBeforeTheModule) {
  Net net;
  std::vector<std::string> order;
  net->apply([&](Module& m) { order.push_back(m.name()); });
  EXPECT_EQ(order, (std::vector<std::string>{"Linear", "Linear", "ReLU", "Sequential", "Net"}));
}

TEST(ModuleTest, RequiresGradFlipsEveryParameter) {
  Net net;
  net->requires_grad_(false);
  for (const Variable& p : net->parameters()) EXPECT_FALSE(p.requires_grad());
  net->requires_grad_(true);
  for (const Variable& p : net->parameters()) EXPECT_TRUE(p.requires_grad());
}

TEST(ModuleTest, ZeroGradSetsToNoneOrZeroes) {
  Net net;
  net(Variable(randn({2, 3}))).sum().backward();
  ASSERT_TRUE(net->fc->weight.grad().defined());
  net->zero_grad(/*set_to_none=*/false);
  EXPECT_TRUE(all_close(net->fc->weight.grad().data(), zeros({4, 3})));
  net->zero_grad();
  for (const Variable& p : net->parameters()) EXPECT_FALSE(p.grad().defined());
}

TEST(ModuleTest, ToDeviceMovesParametersGradsAndBuffersKeepingIdentity) {
  set_cpu_device_count(2);
  Net net;
  net(Variable(randn({2, 3}))).sum().backward();
  const Variable weight = net->fc->weight;
  const Tensor before = weight.data().clone();
  net->to(Device("cpu:1"));
  EXPECT_TRUE(net->fc->weight.is_same(weight));
  for (const Slot& slot : net->slots()) EXPECT_EQ(slot.variable.device(), Device("cpu:1"));
  EXPECT_EQ(weight.grad().device(), Device("cpu:1"));
  EXPECT_TRUE(all_close(weight.data().to(Device("cpu:0")), before));
  const Variable out = net(Variable(randn({2, 3}, Device("cpu:1"))));
  EXPECT_EQ(out.device(), Device("cpu:1"));
}

TEST(ModuleTest, ToDtypeConvertsFloatingTensorsKeepingIdentity) {
  Net net;
  const Variable scale = net->scale;
  net->to(kFloat64);
  EXPECT_TRUE(net->scale.is_same(scale));
  for (const Slot& slot : net->slots()) EXPECT_EQ(slot.variable.dtype(), kFloat64);
}

TEST(ModuleTest, ToAnIntegralDtypeThrowsNamingItAsPyTorch) {
  Net net;
  EXPECT_THROW_MSG(net->to(kInt64),
                   "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                   "dtype=torch.int64");
  EXPECT_THROW_MSG(net->to(kBool),
                   "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                   "dtype=torch.bool");
}

TEST(ModuleTest, SlotsListParametersThenBuffersInAFixedOrder) {
  Net net;
  std::vector<std::string> names;
  for (const Slot& slot : net->slots()) names.push_back(slot.name + (slot.is_buffer ? "*" : ""));
  EXPECT_EQ(names, (std::vector<std::string>{"scale", "fc.weight", "fc.bias", "seq.0.weight",
                                             "seq.0.bias", "steps*", "cache*"}));
}

TEST(ModuleTest, RegistryGenerationChangesWithEveryRegistration) {
  Net net;
  uint64_t last = Module::registry_generation();
  const auto changed = [&last] {
    const uint64_t now = Module::registry_generation();
    const bool moved = now != last;
    last = now;
    return moved;
  };
  net->register_parameter("extra", zeros({2}));
  EXPECT_TRUE(changed()) << "register_parameter";
  net->register_buffer("count", zeros({1}));
  EXPECT_TRUE(changed()) << "register_buffer";
  net->register_module("head", Linear(4, 2));
  EXPECT_TRUE(changed()) << "register_module";
  ModuleDict dict;
  dict->insert("a", ReLU());
  changed();
  dict->insert("a", Tanh());
  EXPECT_TRUE(changed()) << "replacing a child";
  dict->pop("a");
  EXPECT_TRUE(changed()) << "dropping a child";
  Net fresh;
  changed();
  const std::shared_ptr<Module> copy = fresh->clone();
  EXPECT_TRUE(changed()) << "clone";
}

TEST(ModuleTest, RegistryGenerationKeepsThroughUseAndDataChanges) {
  Net net;
  const uint64_t before = Module::registry_generation();
  net(Variable(ones({2, 3})));
  net->fc->weight.set_data(zeros({4, 3}));
  net->to(kFloat64);
  net->eval();
  net->zero_grad();
  net->load_state_dict(net->state_dict());
  (void)net->slots();
  EXPECT_EQ(Module::registry_generation(), before);
}

TEST(ModuleTest, UserModulePrintsItsClassNameAndChildren) {
  Net net;
  std::ostringstream out;
  out << net;
  EXPECT_EQ(out.str(),
            "Net(\n"
            "  (fc): Linear(in_features=3, out_features=4, bias=True)\n"
            "  (seq): Sequential(\n"
            "    (0): Linear(in_features=4, out_features=4, bias=True)\n"
            "    (1): ReLU()\n"
            "  )\n"
            ")");
}

TEST(ModuleTest, ModuleWithoutChildrenPrintsEmptyParentheses) {
  struct Empty : Module {};
  Empty empty;
  EXPECT_EQ(empty.repr(), "Empty()");
  Module named("Custom");
  EXPECT_EQ(named.repr(), "Custom()");
}

// PyTorch splits extra_repr at every '\n' (str.split): a trailing newline
// leaves an empty last line, so the text no longer fits on one line.
TEST(ModuleTest, ExtraReprEndingInANewlineKeepsItsEmptyLastLineAsPyTorch) {
  struct E : Module {
    std::string extra_repr() const override { return "one\n"; }
  };
  EXPECT_EQ(E().repr(), "E(\n  one\n  \n)");
}

TEST(ModuleTest, ExtraReprEmptyLinesAreKeptBeforeTheChildrenAsPyTorch) {
  struct E : Module {
    E() { register_module("r", ReLU()); }
    std::string extra_repr() const override { return "\none\n\ntwo\n"; }
  };
  EXPECT_EQ(E().repr(), "E(\n  \n  one\n  \n  two\n  \n  (r): ReLU()\n)");
}

TEST(ModuleTest, ForwardWithManyInputsNoneAndNonTensorArguments) {
  struct Mixed : Module {
    std::tuple<Variable, int64_t> forward(const Variable& a, const Variable& b, int64_t k) {
      return {a * b * static_cast<double>(k), k + 1};
    }
  };
  struct Constant : Module {
    std::map<std::string, Variable> forward() { return {{"one", Variable(ones({1}))}}; }
  };
  Mixed mixed;
  auto [product, next] = call(mixed, Variable(full({2}, 2.0)), Variable(full({2}, 3.0)), 2);
  EXPECT_TRUE(all_close(product.data(), full({2}, 12.0)));
  EXPECT_EQ(next, 3);
  Constant constant;
  EXPECT_TRUE(all_close(call(constant).at("one").data(), ones({1})));
}

}  // namespace
}  // namespace torchlet::nn
