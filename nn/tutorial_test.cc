// The seed tutorial's nn steps, each as the README shows it beside PyTorch.


#include "gtest/gtest.h"
#include "nn/nn.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

using testing::all_close;

using testing::printed;

// class Linear(nn.Module): w [in, out], b [out], forward(x) = x.mm(w) + b.expand_as(x)
class MyLinearImpl : public Module {
 public:
  MyLinearImpl(int64_t in, int64_t out) {
    w = register_parameter("w", randn({in, out}));
    b = register_parameter("b", randn({out}));
  }
  Variable forward(const Variable& x) {
    Variable y = x.mm(w);
    return y + b.expand_as(y);
  }
  Parameter w, b;
};
TORCHLET_MODULE(MyLinear);

class PerceptronImpl : public Module {
 public:
  PerceptronImpl(int64_t in, int64_t hidden, int64_t out) {
    layer1 = register_module("layer1", MyLinear(in, hidden));
    layer2 = register_module("layer2", MyLinear(hidden, out));
  }
  Variable forward(const Variable& x) { return layer2(layer1(x).sigmoid()); }
  MyLinear layer1{nullptr}, layer2{nullptr};
};
TORCHLET_MODULE(Perceptron);

class MyModuleImpl : public Module {
 public:
  MyModuleImpl() {
    param1 = register_parameter("param1", randn({3, 4}));
    submodel1 = register_module("submodel1", Linear(3, 4));
  }
  Parameter param1;
  Linear submodel1{nullptr};
};
TORCHLET_MODULE(MyModule);

TEST(TutorialTest, CallingACustomLinearComputesXWPlusB) {
  MyLinear layer(3, 4);
  Variable input(randn({2, 3}));
  Variable output = layer(input);
  EXPECT_EQ(output.sizes(), IntArrayRef({2, 4}));
  EXPECT_TRUE(all_close(output.data(), input.data().mm(layer->w.data()) + layer->b.data()));
}

TEST(TutorialTest, PerceptronNamesItsParametersByLayer) {
  Perceptron net(3, 4, 1);
  std::vector<std::string> names;
  std::vector<std::string> shapes;
  for (const auto& [name, p] : net->named_parameters()) {
    names.push_back(name);
    shapes.push_back(shape_str(p.sizes()));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"layer1.w", "layer1.b", "layer2.w", "layer2.b"}));
  EXPECT_EQ(shapes, (std::vector<std::string>{"[3, 4]", "[4]", "[4, 1]", "[1]"}));
  EXPECT_EQ(net(Variable(randn({5, 3}))).sizes(), IntArrayRef({5, 1}));
}

TEST(TutorialTest, OwnParameterComesBeforeTheChildsParameters) {
  MyModule net;
  std::vector<std::string> names;
  for (const auto& named : net->named_parameters()) names.push_back(named.first);
  EXPECT_EQ(names, (std::vector<std::string>{"param1", "submodel1.weight", "submodel1.bias"}));
}

TEST(TutorialTest, PrintingAParameterSaysParameterContaining) {
  Parameter p(tensor({{1.0, 2.0}, {3.0, 4.0}}));
  EXPECT_EQ(printed(p),
            "Parameter containing:\ntensor([[1., 2.],\n        [3., 4.]], requires_grad=True)");
  EXPECT_EQ(printed(Parameter(tensor({1.0, 2.0}), false)),
            "Parameter containing:\ntensor([1., 2.])");
}

TEST(TutorialTest, NamedModulesStartWithTheModuleItself) {
  MyModule net;
  const auto modules = net->named_modules();
  ASSERT_EQ(modules.size(), 2u);
  EXPECT_EQ(modules[0].first, "");
  EXPECT_EQ(modules[0].second.get(), net.get());
  EXPECT_EQ(modules[1].first, "submodel1");
  EXPECT_EQ(modules[1].second.get(), net->submodel1.get());
  EXPECT_EQ(printed(net),
            "MyModule(\n  (submodel1): Linear(in_features=3, out_features=4, bias=True)\n)");
}

TEST(TutorialTest, TrainAndEvalFlipEverySubmodule) {
  MyModule net;
  net->eval();
  EXPECT_FALSE(net->is_training());
  EXPECT_FALSE(net->submodel1->is_training());
  net->train();
  EXPECT_TRUE(net->is_training());
  EXPECT_TRUE(net->submodel1->is_training());
}

TEST(TutorialTest, SequentialBuiltThreeWaysPrintsAsPyTorch) {
  Sequential added;
  added->add_module("conv", Linear(3, 4));
  added->add_module("relu", ReLU());
  Sequential positional(Linear(3, 4), ReLU());
  Sequential named({{"fc", Linear(3, 4)}, {"act", ReLU(true)}});
  EXPECT_EQ(printed(added),
            "Sequential(\n  (conv): Linear(in_features=3, out_features=4, bias=True)\n"
            "  (relu): ReLU()\n)");
  EXPECT_EQ(printed(positional),
            "Sequential(\n  (0): Linear(in_features=3, out_features=4, bias=True)\n"
            "  (1): ReLU()\n)");
  EXPECT_EQ(printed(named),
            "Sequential(\n  (fc): Linear(in_features=3, out_features=4, bias=True)\n"
            "  (act): ReLU(inplace=True)\n)");
}

TEST(TutorialTest, SequentialIndexedByPositionAndByName) {
  Sequential seq({{"fc", Linear(3, 4)}, {"act", ReLU()}});
  EXPECT_EQ(seq[0], seq["fc"]);
  EXPECT_EQ(printed(*seq[-1]), "ReLU()");
  EXPECT_EQ(seq->ptr<LinearImpl>(0)->out_features(), 4);
}

TEST(TutorialTest, ModuleListIteratedAndIndexed) {
  ModuleList list(Linear(3, 4), ReLU(), Linear(4, 2));
  std::vector<std::string> names;
  for (const auto& module : *list) names.push_back(module->name());
  EXPECT_EQ(names, (std::vector<std::string>{"Linear", "ReLU", "Linear"}));
  EXPECT_EQ(list[1]->name(), "ReLU");
  EXPECT_EQ(printed(list),
            "ModuleList(\n  (0): Linear(in_features=3, out_features=4, bias=True)\n"
            "  (1): ReLU()\n  (2): Linear(in_features=4, out_features=2, bias=True)\n)");
}

TEST(TutorialTest, ReplacingAWeightAndBackwardWithTheOutputAsGradient) {
  Linear layer(3, 1, false);
  layer->weight.set_data(tensor({1.0, 2.0, 3.0}).view({1, 3}));
  Variable input(tensor({{1.0, 1.0, 1.0}, {0.0, 1.0, 0.0}}), true);
  Variable output = layer(input);
  output.backward(output);
  // output = [6, 2]; d(sum(output * output_const))/dW = output^T x.
  EXPECT_TRUE(all_close(output.data(), tensor({{6.0}, {2.0}})));
  EXPECT_TRUE(all_close(layer->weight.grad().data(), tensor({{6.0, 8.0, 6.0}})));
  EXPECT_TRUE(all_close(input.grad().data(), tensor({{6.0, 12.0, 18.0}, {2.0, 4.0, 6.0}})));
}

}  // namespace
}  // namespace torchlet::nn
