// The convolution layers: options, parameters and their initialization,
// PyTorch's reprs character for character, outputs and gradients against
// PyTorch (nn/testdata/conv_golden.txt from tools/gen_conv_golden.py, the
// layers' drawn weights stored), and the options' checks.
#include "nn/conv.h"

#include <cmath>
#include <string>

#include "gtest/gtest.h"
#include "nn/nn.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

using testing::all_close;

using testing::printed;

// Sets the layer's weights to the case's, runs it on the case's input and
// compares the output and the gradients of input, weight and bias.
template <typename Layer>
void check_golden(Layer& layer, const std::string& name) {
  SCOPED_TRACE(name);
  const auto& g = testing::GoldenFile::get("nn/testdata/conv_golden.txt");
  layer->weight.set_data(g.at(name + ".in.weight").to(kFloat32));
  if (layer->bias.defined()) layer->bias.set_data(g.at(name + ".in.bias").to(kFloat32));
  Variable x(g.at(name + ".in.x").to(kFloat32), true);
  const Variable out = layer(x);
  out.backward(Variable(g.at(name + ".cot").to(kFloat32)));
  EXPECT_TRUE(all_close(out.data(), g.at(name + ".out"), 1e-4, 1e-4));
  EXPECT_TRUE(all_close(x.grad().data(), g.at(name + ".grad.x"), 1e-4, 1e-4));
  EXPECT_TRUE(all_close(layer->weight.grad().data(), g.at(name + ".grad.weight"), 1e-4, 1e-4));
  if (layer->bias.defined()) {
    EXPECT_TRUE(all_close(layer->bias.grad().data(), g.at(name + ".grad.bias"), 1e-4, 1e-4));
  }
}

TEST(ConvLayerTest, Conv2dMatchesPyTorch) {
  Conv2d layer(Conv2dOptions(3, 4, 3).stride(2).padding(1));
  check_golden(layer, "Conv2d");
}

TEST(ConvLayerTest, Conv2dSamePaddingWithoutBiasMatchesPyTorch) {
  Conv2d layer(Conv2dOptions(2, 4, {2, 3}).padding("same").groups(2).bias(false));
  check_golden(layer, "Conv2d_same_nobias");
}

TEST(ConvLayerTest, Conv1dAndConv3dMatchPyTorch) {
  Conv1d conv1(Conv1dOptions(2, 3, 3).dilation(2));
  check_golden(conv1, "Conv1d");
  Conv3d conv3(Conv3dOptions(2, 2, 2).stride({1, 1, 2}));
  check_golden(conv3, "Conv3d");
}

TEST(ConvLayerTest, ConvTransposeOutputSizeChoosesOutputPadding) {
  manual_seed(5);
  ConvTranspose2d t2(ConvTranspose2dOptions(2, 3, 3).stride(2).padding(1));
  const Variable x(randn({1, 2, 3, 3}));
  EXPECT_EQ(t2->forward(x, {5, 5}).sizes(), IntArrayRef({1, 3, 5, 5}));
  // The whole shape: batch and channel sizes are ignored.
  const Variable y = t2->forward(x, {1, 3, 5, 6});
  EXPECT_EQ(y.sizes(), IntArrayRef({1, 3, 5, 6}));
  const Variable expected =
      functional::conv_transpose2d(x, t2->weight, t2->bias, {2}, {1}, {0, 1});
  EXPECT_TRUE(all_close(y.data(), expected.data(), 0, 0));
  ConvTranspose1d t1(ConvTranspose1dOptions(2, 3, 3).stride(3).dilation(2));
  EXPECT_EQ(t1->forward(Variable(randn({2, 4})), {16}).sizes(), IntArrayRef({3, 16}));
  ConvTranspose3d t3(ConvTranspose3dOptions(1, 1, 2).stride({1, 2, 3}));
  EXPECT_EQ(t3->forward(Variable(randn({1, 1, 2, 2, 2})), {3, 5, 6}).sizes(),
            IntArrayRef({1, 1, 3, 5, 6}));
}

TEST(ConvLayerTest, ConvTransposeOutputSizeErrors) {
  ConvTranspose2d t2(ConvTranspose2dOptions(2, 3, 3).stride(2).padding(1));
  const Variable x(randn({1, 2, 3, 3}));
  EXPECT_THROW_MSG(t2->forward(x, {7, 7}),
                   "requested an output size of [7, 7], but valid sizes range from [5, 5] to "
                   "[6, 6] (for an input of torch.Size([3, 3]))");
  EXPECT_THROW_MSG(t2->forward(x, {4, 5, 6}),
                   "ConvTranspose2D: for 4D input, output_size must have 2 or 4 elements (got 3)");
  ConvTranspose1d t1(ConvTranspose1dOptions(2, 3, 3).stride(3).dilation(2));
  // PyTorch names the sizes from dim 2 even for unbatched input.
  EXPECT_THROW_MSG(t1->forward(Variable(randn({2, 4})), {17}),
                   "requested an output size of [17], but valid sizes range from [14] to [16] "
                   "(for an input of torch.Size([]))");
}

TEST(ConvLayerTest, ConvTransposeLayersMatchPyTorch) {
  ConvTranspose2d t2(ConvTranspose2dOptions(3, 4, 3).stride(2).padding(1).output_padding(1));
  check_golden(t2, "ConvTranspose2d");
  ConvTranspose1d t1(ConvTranspose1dOptions(2, 4, 2).groups(2).bias(false));
  check_golden(t1, "ConvTranspose1d");
  ConvTranspose3d t3(ConvTranspose3dOptions(2, 1, 2).stride(2));
  check_golden(t3, "ConvTranspose3d");
}

TEST(ConvLayerTest, PaddingModesPadWithFunctionalPadFirst) {
  Conv2d reflect(Conv2dOptions(2, 3, 3).padding({1, 2}).padding_mode("reflect"));
  check_golden(reflect, "Conv2d_reflect");
  Conv2d replicate(Conv2dOptions(2, 2, {2, 3}).padding("same").padding_mode("replicate"));
  check_golden(replicate, "Conv2d_replicate_same");
  Conv1d circular(Conv1dOptions(2, 2, 3).padding(2).dilation(2).padding_mode("circular"));
  check_golden(circular, "Conv1d_circular");
  Conv3d circular3(Conv3dOptions(1, 2, 3).padding(1).padding_mode("circular"));
  check_golden(circular3, "Conv3d_circular");
}

TEST(ConvLayerTest, ReprsArePyTorchs) {
  EXPECT_EQ(printed(Conv2d(3, 3, 3)), "Conv2d(3, 3, kernel_size=(3, 3), stride=(1, 1))");
  EXPECT_EQ(printed(Conv2d(Conv2dOptions(1, 6, 5).padding(2))),
            "Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1), padding=(2, 2))");
  EXPECT_EQ(printed(Conv2d(Conv2dOptions(4, 4, 3).padding("same").groups(2))),
            "Conv2d(4, 4, kernel_size=(3, 3), stride=(1, 1), padding=same, groups=2)");
  EXPECT_EQ(printed(Conv1d(Conv1dOptions(3, 3, 3).padding("valid"))),
            "Conv1d(3, 3, kernel_size=(3,), stride=(1,), padding=valid)");
  EXPECT_EQ(printed(ConvTranspose2d(ConvTranspose2dOptions(3, 4, 3).stride(2).output_padding(1))),
            "ConvTranspose2d(3, 4, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1))");
  EXPECT_EQ(printed(Conv3d(Conv3dOptions(2, 2, {1, 2, 3}))),
            "Conv3d(2, 2, kernel_size=(1, 2, 3), stride=(1, 1, 1))");
  EXPECT_EQ(printed(Conv2d(Conv2dOptions(1, 6, 5).bias(false).dilation(2).padding(2))),
            "Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1), padding=(2, 2), dilation=(2, 2), "
            "bias=False)");
  EXPECT_EQ(printed(Conv2d(Conv2dOptions(1, 6, 5).bias(false).padding(2).padding_mode("reflect"))),
            "Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1), padding=(2, 2), bias=False, "
            "padding_mode=reflect)");
}

TEST(ConvLayerTest, ConvTranspose1dAnd3dReprsArePyTorchs) {
  EXPECT_EQ(printed(ConvTranspose1d(ConvTranspose1dOptions(2, 4, 3).stride(2))),
            "ConvTranspose1d(2, 4, kernel_size=(3,), stride=(2,))");
  EXPECT_EQ(printed(ConvTranspose1d(ConvTranspose1dOptions(2, 4, 3)
                                        .stride(2)
                                        .padding(1)
                                        .output_padding(1)
                                        .dilation(2)
                                        .groups(2)
                                        .bias(false))),
            "ConvTranspose1d(2, 4, kernel_size=(3,), stride=(2,), padding=(1,), dilation=(2,), "
            "output_padding=(1,), groups=2, bias=False)");
  EXPECT_EQ(printed(ConvTranspose3d(ConvTranspose3dOptions(2, 1, 2).stride(2))),
            "ConvTranspose3d(2, 1, kernel_size=(2, 2, 2), stride=(2, 2, 2))");
  EXPECT_EQ(printed(ConvTranspose3d(ConvTranspose3dOptions(2, 4, {1, 2, 3})
                                        .stride({1, 2, 1})
                                        .padding({0, 1, 0})
                                        .output_padding({0, 1, 0}))),
            "ConvTranspose3d(2, 4, kernel_size=(1, 2, 3), stride=(1, 2, 1), padding=(0, 1, 0), "
            "output_padding=(0, 1, 0))");
}

TEST(ConvLayerTest, ParametersHavePyTorchsShapesAndNames) {
  Conv2d conv(Conv2dOptions(4, 6, {3, 2}).groups(2));
  EXPECT_EQ(conv->weight.sizes(), IntArrayRef({6, 2, 3, 2}));
  EXPECT_EQ(conv->bias.sizes(), IntArrayRef({6}));
  ConvTranspose2d transposed(ConvTranspose2dOptions(4, 6, 3).groups(2));
  EXPECT_EQ(transposed->weight.sizes(), IntArrayRef({4, 3, 3, 3}));
  const auto named = conv->named_parameters();
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[0].first, "weight");
  EXPECT_EQ(named[1].first, "bias");
  EXPECT_EQ(Conv2d(Conv2dOptions(1, 2, 3).bias(false))->named_parameters().size(), 1u);
}

TEST(ConvLayerTest, InitializationIsWithinPyTorchsBounds) {
  manual_seed(0);
  Conv2d conv(Conv2dOptions(8, 16, 3));
  // kaiming_uniform_(a = sqrt(5)) on fan_in 72 bounds the weight by
  // 1 / sqrt(72); the bias is uniform on the same bound.
  const double bound = 1 / std::sqrt(72.0);
  EXPECT_LE(conv->weight.data().abs().max().item<double>(), bound);
  EXPECT_GT(conv->weight.data().abs().max().item<double>(), 0.9 * bound);
  EXPECT_LE(conv->bias.data().abs().max().item<double>(), bound);
  EXPECT_GT(conv->bias.data().abs().max().item<double>(), 0.5 * bound);
}

TEST(ConvLayerTest, UnbatchedInputGivesUnbatchedOutput) {
  Conv2d conv(Conv2dOptions(1, 6, 5).padding(2));
  EXPECT_EQ(conv(Variable(randn({1, 28, 28}))).sizes(), IntArrayRef({6, 28, 28}));
  EXPECT_EQ(conv(Variable(randn({64, 1, 28, 28}))).sizes(), IntArrayRef({64, 6, 28, 28}));
}

TEST(ConvLayerTest, CloneCopiesWeightsIntoNewParameters) {
  Conv2d conv(Conv2dOptions(2, 3, 3).padding(1));
  const auto copy = std::dynamic_pointer_cast<Conv2dImpl>(conv->clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_TRUE(all_close(copy->weight.data(), conv->weight.data()));
  EXPECT_NE(copy->weight.data().data_ptr(), conv->weight.data().data_ptr());
  EXPECT_EQ(printed(*copy), printed(*conv));
}

TEST(ConvLayerTest, OptionsAreChecked) {
  EXPECT_THROW_MSG(Conv2d(Conv2dOptions(3, 4, 3).groups(2)),
                   "in_channels must be divisible by groups");
  EXPECT_THROW_MSG(Conv2d(Conv2dOptions(4, 3, 3).groups(2)),
                   "out_channels must be divisible by groups");
  EXPECT_THROW_MSG(Conv2d(Conv2dOptions(4, 4, 3).groups(0)), "groups must be a positive integer");
  EXPECT_THROW_MSG(Conv2d(Conv2dOptions(4, 4, 3).padding_mode("foo")),
                   "padding_mode must be one of {'reflect', 'circular', 'replicate', 'zeros'}, "
                   "but got padding_mode='foo'");
  EXPECT_THROW_MSG(Conv2d(Conv2dOptions(4, 4, 3).stride(2).padding("same")),
                   "padding='same' is not supported for strided convolutions");
  EXPECT_THROW_MSG(Conv2d(Conv2dOptions(4, 4, 3).padding("foo")),
                   "Invalid padding string 'foo', should be one of {'valid', 'same'}");
  EXPECT_THROW_MSG(ConvTranspose2d(ConvTranspose2dOptions(4, 4, 3).padding_mode("reflect")),
                   "Only \"zeros\" padding mode is supported for ConvTranspose2d");
  EXPECT_THROW_MSG(Conv2d(Conv2dOptions(4, 4, {1, 2, 3})), "expected 2 values, got 3");
}

TEST(ConvLayerTest, ConvTransposePaddingMustBeNumbers) {
  EXPECT_THROW_MSG(ConvTranspose2d(ConvTranspose2dOptions(4, 4, 3).padding("same")),
                   "ConvTranspose2d: padding must be numbers, got padding='same'");
  EXPECT_THROW_MSG(ConvTranspose1d(ConvTranspose1dOptions(4, 4, 3).padding("valid")),
                   "ConvTranspose1d: padding must be numbers, got padding='valid'");
  EXPECT_THROW_MSG(ConvTranspose3d(ConvTranspose3dOptions(4, 4, 3).padding("same")),
                   "ConvTranspose3d: padding must be numbers, got padding='same'");
}

TEST(ConvLayerTest, PaddingOfTheWrongLengthIsRejected) {
  EXPECT_THROW_MSG(Conv2d(Conv2dOptions(4, 4, 3).padding({1, 2, 3})),
                   "Conv2d: expected padding to be a single integer value or a list of 2 values, "
                   "but got padding=[1, 2, 3]");
  EXPECT_THROW_MSG(ConvTranspose1d(ConvTranspose1dOptions(4, 4, 3).padding({1, 1})),
                   "ConvTranspose1d: expected padding to be a single integer value or a list of 1 "
                   "values, but got padding=[1, 1]");
}

TEST(ConvLayerTest, ForwardReportsPyTorchsInputErrors) {
  Conv2d conv(Conv2dOptions(1, 6, 5));
  EXPECT_THROW_MSG(conv(Variable(randn({64, 3, 28, 28}))),
                   "Given groups=1, weight of size [6, 1, 5, 5], expected input[64, 3, 28, 28] to "
                   "have 1 channels, but got 3 channels instead");
  EXPECT_THROW_MSG(conv(Variable(randn({1, 28, 28, 1, 1}))),
                   "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of "
                   "size: [1, 28, 28, 1, 1]");
}

}  // namespace
}  // namespace torchlet::nn
