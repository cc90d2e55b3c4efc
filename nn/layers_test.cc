#include <string>

#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/module_golden.h"
#include "nn/nn.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

using testing::all_close;
using testing::gradcheck;
using testing::load_golden;

using testing::printed;

Variable leaf(std::vector<int64_t> shape) { return Variable(randn(shape, kFloat64), true); }

class LinearGoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(LinearGoldenTest, OutputAndGradientsMatchPyTorch) {
  auto golden = load_golden("nn/testdata/nn_golden.txt");
  const std::string c = GetParam();
  Linear layer(3, 4);
  layer->weight.set_data(golden[c + ".weight"].to(kFloat32));
  layer->bias.set_data(golden[c + ".bias"].to(kFloat32));
  Variable x(golden[c + ".x"].to(kFloat32), true);
  const Variable out = layer(x);
  out.backward(Variable(golden[c + ".cot"].to(kFloat32)));
  EXPECT_TRUE(all_close(out.data(), golden[c + ".out"]));
  EXPECT_TRUE(all_close(x.grad().data(), golden[c + ".grad_x"]));
  EXPECT_TRUE(all_close(layer->weight.grad().data(), golden[c + ".grad_weight"]));
  EXPECT_TRUE(all_close(layer->bias.grad().data(), golden[c + ".grad_bias"]));
}

INSTANTIATE_TEST_SUITE_P(Inputs, LinearGoldenTest, ::testing::Values("linear2d", "linear3d"));

TEST(LinearTest, PassesGradcheckForEveryInputRankWithAndWithoutBias) {
  for (const bool bias : {true, false}) {
    for (const std::vector<int64_t>& shape : {std::vector<int64_t>{4, 3}, {2, 2, 3}, {3}}) {
      // The layer's members are pointed at the checked leaves, so forward
      // differentiates with respect to them.
      Linear layer(3, 2, bias);
      EXPECT_TRUE(gradcheck(
          [&](const variable_list& in) {
            layer->weight = Parameter(in[1]);
            if (bias) layer->bias = Parameter(in[2]);
            return layer->forward(in[0]);
          },
          bias ? variable_list{leaf(shape), leaf({2, 3}), leaf({2})}
               : variable_list{leaf(shape), leaf({2, 3})}))
          << "bias=" << bias << " input " << shape_str(shape);
    }
  }
}

TEST(LinearTest, CallingTheLayerPassesGradcheckInItsInput) {
  Linear layer(3, 2);
  layer->to(kFloat64);
  EXPECT_TRUE(gradcheck([&](const variable_list& in) { return layer(in[0]); }, {leaf({4, 3})}));
}

TEST(LinearTest, WrongInputSizeIsRefusedAsPyTorch) {
  Linear layer(3, 4);
  EXPECT_THROW_MSG(layer(Variable(zeros({2, 5}))),
                   "mat1 and mat2 shapes cannot be multiplied (2x5 and 3x4)");
  EXPECT_THROW_MSG(layer(Variable(zeros({2, 3, 5}))),
                   "mat1 and mat2 shapes cannot be multiplied (6x5 and 3x4)");
}

TEST(LinearTest, NegativeFeaturesAreRefused) {
  EXPECT_THROW_MSG(Linear(-1, 4),
                   "Linear: in_features and out_features must be non-negative, got -1 and 4");
}

TEST(LayersTest, EmptyHolderRefusesAccess) {
  Linear none(nullptr);
  EXPECT_TRUE(none.is_empty());
  EXPECT_THROW_MSG(none->weight, "Accessing an empty ModuleHolder");
}

TEST(LayersTest, ReprsMatchPyTorch) {
  EXPECT_EQ(printed(Linear(3, 4)), "Linear(in_features=3, out_features=4, bias=True)");
  EXPECT_EQ(printed(Linear(3, 4, false)), "Linear(in_features=3, out_features=4, bias=False)");
  EXPECT_EQ(printed(Identity()), "Identity()");
  EXPECT_EQ(printed(Flatten()), "Flatten(start_dim=1, end_dim=-1)");
  EXPECT_EQ(printed(Unflatten(1, std::vector<int64_t>{2, 5})),
            "Unflatten(dim=1, unflattened_size=(2, 5))");
  EXPECT_EQ(printed(Unflatten(1, std::vector<int64_t>{5})),
            "Unflatten(dim=1, unflattened_size=(5,))");
  EXPECT_EQ(printed(ReLU()), "ReLU()");
  EXPECT_EQ(printed(ReLU(true)), "ReLU(inplace=True)");
  EXPECT_EQ(printed(Sigmoid()), "Sigmoid()");
  EXPECT_EQ(printed(Tanh()), "Tanh()");
  EXPECT_EQ(printed(Softmax(1)), "Softmax(dim=1)");
  EXPECT_EQ(printed(Softmax()), "Softmax(dim=None)");
  EXPECT_EQ(printed(LogSoftmax(-1)), "LogSoftmax(dim=-1)");
}

TEST(LayersTest, ActivationsEqualTheirVariableOps) {
  const Variable x(randn({3, 4}));
  EXPECT_TRUE(all_close(ReLU()(x).data(), x.relu().data()));
  EXPECT_TRUE(all_close(Sigmoid()(x).data(), x.sigmoid().data()));
  EXPECT_TRUE(all_close(Tanh()(x).data(), x.tanh().data()));
  EXPECT_TRUE(all_close(Softmax(0)(x).data(), x.softmax(0).data()));
  EXPECT_TRUE(all_close(LogSoftmax(1)(x).data(), x.log_softmax(1).data()));
  EXPECT_TRUE(Identity()(x).is_same(x));
}

TEST(LayersTest, SoftmaxWithoutDimUsesPyTorchsLegacyChoice) {
  const Variable matrix(randn({3, 4})), cube(randn({2, 3, 4})), vector(randn({5}));
  EXPECT_TRUE(all_close(Softmax()(matrix).data(), matrix.softmax(1).data()));
  EXPECT_TRUE(all_close(Softmax()(cube).data(), cube.softmax(0).data()));
  EXPECT_TRUE(all_close(LogSoftmax()(vector).data(), vector.log_softmax(0).data()));
}

TEST(LayersTest, InplaceReluOverwritesItsInput) {
  Variable x(tensor({-1.0, 2.0}));
  const Variable y = ReLU(true)(x);
  EXPECT_TRUE(y.is_same(x));
  EXPECT_TRUE(all_close(x.data(), tensor({0.0, 2.0})));
}

TEST(LayersTest, FlattenAndUnflattenReshape) {
  const Variable x(randn({2, 3, 4}));
  EXPECT_EQ(Flatten()(x).sizes(), IntArrayRef({2, 12}));
  EXPECT_EQ(Flatten(0, 1)(x).sizes(), IntArrayRef({6, 4}));
  EXPECT_EQ(Unflatten(2, std::vector<int64_t>{2, 2})(x).sizes(), IntArrayRef({2, 3, 2, 2}));
}

TEST(LayersTest, LayerGradientsPassGradcheck) {
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return Tanh()(in[0]); }, {leaf({2, 3})}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return Sigmoid()(in[0]); }, {leaf({2, 3})}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return Softmax(1)(in[0]); }, {leaf({2, 3})}));
  EXPECT_TRUE(
      gradcheck([](const variable_list& in) { return LogSoftmax(0)(in[0]); }, {leaf({2, 3})}));
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return Flatten()(in[0]); }, {leaf({2, 3, 2})}));
}

TEST(BilinearTest, OutputAndGradientsMatchPyTorch) {
  testing::ModuleCase golden("bilinear");
  Bilinear layer(2, 3, 4);
  layer->to(kFloat64);
  golden.bind("weight", layer->weight);
  golden.bind("bias", layer->bias);
  const Variable x1 = golden.leaf("x1");
  golden.check(layer(x1, golden.leaf("x2")));
}

TEST(BilinearTest, ReprsMatchPyTorch) {
  EXPECT_EQ(printed(Bilinear(2, 3, 4)), testing::pytorch_repr("bilinear_default"));
  EXPECT_EQ(printed(Bilinear(2, 3, 4, false)), testing::pytorch_repr("bilinear_no_bias"));
}

TEST(BilinearTest, StartsUniformWithinOneOverSqrtIn1Features) {
  manual_seed(0);
  Bilinear layer(16, 3, 200);
  const double bound = 0.25;
  for (const Tensor& t : {layer->weight.data(), layer->bias.data()}) {
    EXPECT_LE(t.abs().max().item<double>(), bound);
    EXPECT_GT(t.abs().max().item<double>(), 0.95 * bound);
  }
  EXPECT_EQ(layer->weight.sizes(), IntArrayRef({200, 16, 3}));
  EXPECT_FALSE(Bilinear(2, 3, 4, false)->bias.defined());
}

TEST(BilinearTest, PassesGradcheckInInputsWeightAndBias) {
  Bilinear layer(2, 3, 2);
  EXPECT_TRUE(gradcheck(
      [&](const variable_list& in) {
        layer->weight = Parameter(in[2]);
        layer->bias = Parameter(in[3]);
        return layer->forward(in[0], in[1]);
      },
      {leaf({4, 2}), leaf({4, 3}), leaf({2, 2, 3}), leaf({2})}));
}

TEST(BilinearTest, MismatchedInputIsRefused) {
  Bilinear layer(2, 3, 4);
  EXPECT_THROW_MSG(layer(Variable(zeros({5, 2})), Variable(zeros({5, 4}))),
                   "bilinear(): input2 size does not match weight size: got 4 but expected 3");
  EXPECT_THROW_MSG(Bilinear(2, -3, 4),
                   "Bilinear: in1_features, in2_features and out_features must be non-negative, "
                   "got 2, -3 and 4");
}

}  // namespace
}  // namespace torchlet::nn
