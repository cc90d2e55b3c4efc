// The nn tutorial's convolutional nets as the README shows them beside
// PyTorch: Conv2d-BatchNorm2d-ReLU built as a Sequential three ways, and the
// LeNet `Net` with `features` and `classifier` Sequentials trained with two
// parameter groups. The printed forms are PyTorch 1.13's.

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nn/nn.h"
#include "nn/optim/optim.h"
#include "tensor/test_util.h"

namespace torchlet::examples {
namespace {

using testing::all_close;

using testing::printed;

constexpr char kPositional[] =
    "Sequential(\n"
    "  (0): Conv2d(1, 20, kernel_size=(5, 5), stride=(1, 1))\n"
    "  (1): BatchNorm2d(20, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)\n"
    "  (2): ReLU()\n"
    ")";

constexpr char kNamed[] =
    "Sequential(\n"
    "  (conv1): Conv2d(1, 20, kernel_size=(5, 5), stride=(1, 1))\n"
    "  (bn1): BatchNorm2d(20, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)\n"
    "  (relu1): ReLU()\n"
    ")";

TEST(TutorialNetsTest, PositionalSequentialPrintsAsPyTorch) {
  nn::Sequential model(nn::Conv2d(1, 20, 5), nn::BatchNorm2d(20), nn::ReLU());
  EXPECT_EQ(printed(model), kPositional);
}

TEST(TutorialNetsTest, SequentialFromNamedModulesPrintsAsPyTorch) {
  nn::Sequential model(
      {{"conv1", nn::Conv2d(1, 20, 5)}, {"bn1", nn::BatchNorm2d(20)}, {"relu1", nn::ReLU()}});
  EXPECT_EQ(printed(model), kNamed);
}

TEST(TutorialNetsTest, SequentialBuiltWithAddModulePrintsAsPyTorch) {
  nn::Sequential model;
  model->add_module("conv1", nn::Conv2d(1, 20, 5));
  model->add_module("bn1", nn::BatchNorm2d(20));
  model->add_module("relu1", nn::ReLU());
  EXPECT_EQ(printed(model), kNamed);
}

TEST(TutorialNetsTest, ConvBatchNormReluKeepsTheSpatialShapeMinusTheKernel) {
  nn::Sequential model(nn::Conv2d(1, 20, 5), nn::BatchNorm2d(20), nn::ReLU());
  const Variable out = model->forward(Variable(randn({4, 1, 28, 28})));
  EXPECT_EQ(out.sizes(), IntArrayRef({4, 20, 24, 24}));
  EXPECT_EQ(out.data().min().item<float>(), 0.0f);
}

// class Net(nn.Module): features and classifier Sequentials; forward
// flattens between them.
class NetImpl : public nn::Module {
 public:
  NetImpl() {
    features = register_module(
        "features", nn::Sequential(nn::Conv2d(1, 6, 5), nn::ReLU(), nn::MaxPool2d(2),
                                   nn::Conv2d(6, 16, 5), nn::ReLU(), nn::MaxPool2d(2)));
    classifier = register_module(
        "classifier", nn::Sequential(nn::Linear(16 * 4 * 4, 120), nn::ReLU(),
                                     nn::Linear(120, 84), nn::ReLU(), nn::Linear(84, 10)));
  }
  Variable forward(const Variable& x) {
    const Variable f = features->forward(x);
    return classifier->forward(f.view({f.size(0), -1}));
  }
  nn::Sequential features{nullptr}, classifier{nullptr};
};
TORCHLET_MODULE(Net);

TEST(TutorialNetsTest, NetPrintsItsFeaturesAndClassifierAsPyTorch) {
  EXPECT_EQ(printed(Net()),
            "Net(\n"
            "  (features): Sequential(\n"
            "    (0): Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1))\n"
            "    (1): ReLU()\n"
            "    (2): MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)\n"
            "    (3): Conv2d(6, 16, kernel_size=(5, 5), stride=(1, 1))\n"
            "    (4): ReLU()\n"
            "    (5): MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)\n"
            "  )\n"
            "  (classifier): Sequential(\n"
            "    (0): Linear(in_features=256, out_features=120, bias=True)\n"
            "    (1): ReLU()\n"
            "    (2): Linear(in_features=120, out_features=84, bias=True)\n"
            "    (3): ReLU()\n"
            "    (4): Linear(in_features=84, out_features=10, bias=True)\n"
            "  )\n"
            ")");
}

TEST(TutorialNetsTest, NetNamesItsParametersBySequentialAndPosition) {
  Net net;
  std::vector<std::string> names;
  for (const auto& named : net->named_parameters()) names.push_back(named.first);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "features.0.weight", "features.0.bias", "features.3.weight",
                       "features.3.bias", "classifier.0.weight", "classifier.0.bias",
                       "classifier.2.weight", "classifier.2.bias", "classifier.4.weight",
                       "classifier.4.bias"}));
  EXPECT_EQ(net(Variable(randn({2, 1, 28, 28}))).sizes(), IntArrayRef({2, 10}));
}

// optim.SGD([{'params': net.features.parameters()},
//            {'params': net.classifier.parameters(), 'lr': 1e-3}],
//           lr=1e-2, momentum=0.9)
TEST(TutorialNetsTest, TwoParameterGroupsStepWithTheirOwnLearningRates) {
  manual_seed(0);
  Net net;
  optim::SGD optimizer({optim::ParamGroup(net->features->parameters()),
                        optim::ParamGroup(net->classifier->parameters(), {{"lr", 1e-3}})},
                       optim::SGDOptions(1e-2).momentum(0.9));
  ASSERT_EQ(optimizer.param_groups().size(), 2u);
  EXPECT_DOUBLE_EQ(optimizer.param_groups()[0].lr(), 1e-2);
  EXPECT_DOUBLE_EQ(optimizer.param_groups()[1].lr(), 1e-3);
  EXPECT_DOUBLE_EQ(optimizer.param_groups()[1].number("momentum"), 0.9);

  const Tensor conv_before = net->features->parameters()[0].data().clone();
  const Tensor fc_before = net->classifier->parameters()[0].data().clone();
  optimizer.zero_grad();
  nn::functional::cross_entropy(net(Variable(randn({8, 1, 28, 28}))),
                                Variable(randint(0, 10, {8})))
      .backward();
  const Tensor conv_grad = net->features->parameters()[0].grad().data();
  const Tensor fc_grad = net->classifier->parameters()[0].grad().data();
  optimizer.step();
  // The first step with momentum moves each parameter by lr * grad.
  EXPECT_TRUE(all_close(net->features->parameters()[0].data(), conv_before - conv_grad * 1e-2));
  EXPECT_TRUE(all_close(net->classifier->parameters()[0].data(), fc_before - fc_grad * 1e-3));
}

}  // namespace
}  // namespace torchlet::examples
