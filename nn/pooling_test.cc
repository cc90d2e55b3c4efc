// The pooling modules: reprs as PyTorch prints them, forward through the
// functional ops, and clone.
#include "nn/pooling.h"

#include <sstream>

#include "nn/sequential.h"
#include "nn/upsampling.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

template <typename M>
std::string repr(const M& module) {
  std::ostringstream out;
  out << module;
  return out.str();
}

TEST(PoolingModules, MaxPoolReprsMatchPyTorch) {
  EXPECT_EQ(repr(nn::MaxPool2d(nn::MaxPool2dOptions(2).stride(2))),
            "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)");
  EXPECT_EQ(repr(nn::MaxPool2d(2)),
            "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)");
  EXPECT_EQ(repr(nn::MaxPool2d(nn::MaxPool2dOptions({2, 3}).stride(1))),
            "MaxPool2d(kernel_size=(2, 3), stride=1, padding=0, dilation=1, ceil_mode=False)");
  EXPECT_EQ(repr(nn::MaxPool2d(nn::MaxPool2dOptions(2).ceil_mode(true))),
            "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=True)");
  EXPECT_EQ(repr(nn::MaxPool1d(2)),
            "MaxPool1d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)");
  EXPECT_EQ(repr(nn::MaxPool3d(2)),
            "MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)");
}

TEST(PoolingModules, AvgPoolReprsMatchPyTorch) {
  EXPECT_EQ(repr(nn::AvgPool2d(nn::AvgPool2dOptions(2).stride(2))),
            "AvgPool2d(kernel_size=2, stride=2, padding=0)");
  EXPECT_EQ(repr(nn::AvgPool2d(
                nn::AvgPool2dOptions(2).ceil_mode(true).count_include_pad(false).divisor_override(3))),
            "AvgPool2d(kernel_size=2, stride=2, padding=0)");
  EXPECT_EQ(repr(nn::AvgPool2d(nn::AvgPool2dOptions({2, 3}).stride({1, 2}).padding(1))),
            "AvgPool2d(kernel_size=(2, 3), stride=(1, 2), padding=1)");
  EXPECT_EQ(repr(nn::AvgPool1d(2)), "AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))");
  EXPECT_EQ(repr(nn::AvgPool3d(2)), "AvgPool3d(kernel_size=2, stride=2, padding=0)");
}

TEST(PoolingModules, AdaptiveUnpoolAndLPPoolReprsMatchPyTorch) {
  EXPECT_EQ(repr(nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({2, 3}))),
            "AdaptiveAvgPool2d(output_size=(2, 3))");
  EXPECT_EQ(repr(nn::AdaptiveAvgPool2d(2)), "AdaptiveAvgPool2d(output_size=2)");
  EXPECT_EQ(repr(nn::AdaptiveAvgPool1d(3)), "AdaptiveAvgPool1d(output_size=3)");
  EXPECT_EQ(repr(nn::AdaptiveAvgPool3d(2)), "AdaptiveAvgPool3d(output_size=2)");
  EXPECT_EQ(repr(nn::AdaptiveMaxPool2d(2)), "AdaptiveMaxPool2d(output_size=2)");
  EXPECT_EQ(repr(nn::AdaptiveMaxPool1d(2)), "AdaptiveMaxPool1d(output_size=2)");
  EXPECT_EQ(repr(nn::MaxUnpool2d(nn::MaxUnpool2dOptions(2))),
            "MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))");
  EXPECT_EQ(repr(nn::LPPool2d(nn::LPPool2dOptions(2, 3))),
            "LPPool2d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)");
  EXPECT_EQ(repr(nn::LPPool2d(nn::LPPool2dOptions(2.5, 3).stride(2))),
            "LPPool2d(norm_type=2.5, kernel_size=3, stride=2, ceil_mode=False)");
  EXPECT_EQ(repr(nn::LPPool2d(nn::LPPool2dOptions(2.0, 3))),
            "LPPool2d(norm_type=2.0, kernel_size=3, stride=None, ceil_mode=False)");
}

TEST(PoolingModules, UpsampleReprsMatchPyTorch) {
  EXPECT_EQ(repr(nn::Upsample(nn::UpsampleOptions().scale_factor(2))),
            "Upsample(scale_factor=2.0, mode=nearest)");
  EXPECT_EQ(repr(nn::Upsample(nn::UpsampleOptions().scale_factor({2, 3}))),
            "Upsample(scale_factor=(2.0, 3.0), mode=nearest)");
  EXPECT_EQ(repr(nn::Upsample(nn::UpsampleOptions()
                                  .size({3, 4})
                                  .mode(nn::functional::InterpolateMode::kBilinear)
                                  .align_corners(true))),
            "Upsample(size=(3, 4), mode=bilinear)");
  EXPECT_EQ(repr(nn::Upsample(nn::UpsampleOptions().size(4))), "Upsample(size=4, mode=nearest)");
  EXPECT_EQ(repr(nn::Upsample(nn::UpsampleOptions().scale_factor(1.5))),
            "Upsample(scale_factor=1.5, mode=nearest)");
}

TEST(PoolingModules, UpsampleForwardIsInterpolate) {
  const Variable x(randn({1, 2, 3, 4}));
  nn::Upsample up(nn::UpsampleOptions().scale_factor(2).mode(nn::functional::InterpolateMode::kBilinear));
  EXPECT_TRUE(testing::all_close(
      up(x).data(),
      nn::functional::interpolate(x, nn::functional::InterpolateFuncOptions()
                                         .scale_factor({2})
                                         .mode(nn::functional::InterpolateMode::kBilinear))
          .data(),
      0, 0));
}

TEST(PoolingModules, PixelShuffleReprsMatchPyTorch) {
  EXPECT_EQ(repr(nn::PixelShuffle(2)), "PixelShuffle(upscale_factor=2)");
  EXPECT_EQ(repr(nn::PixelUnshuffle(2)), "PixelUnshuffle(downscale_factor=2)");
}

TEST(PoolingModules, UnpoolInvertsPoolWhereTheMaximaWere) {
  nn::MaxPool2d pool(2);
  nn::MaxUnpool2d unpool(nn::MaxUnpool2dOptions(2));
  const Variable x(randn({1, 2, 4, 4}));
  const auto [pooled, indices] = pool->forward_with_indices(x);
  const Variable restored = unpool(pooled, indices);
  EXPECT_TRUE(testing::all_close(pool(restored).data(), pooled.data(), 0, 0));
  EXPECT_EQ(unpool(pooled, indices, std::vector<int64_t>{5, 5}).sizes(),
            IntArrayRef({1, 2, 5, 5}));
}

TEST(PoolingModules, AdaptiveAndShuffleForwardShapes) {
  const Variable x(randn({2, 4, 7, 6}));
  EXPECT_EQ(nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({3, 2}))(x).sizes(),
            IntArrayRef({2, 4, 3, 2}));
  EXPECT_EQ(nn::AdaptiveMaxPool2d(1)(x).sizes(), IntArrayRef({2, 4, 1, 1}));
  EXPECT_EQ(nn::LPPool2d(nn::LPPool2dOptions(2, 2))(x).sizes(), IntArrayRef({2, 4, 3, 3}));
  EXPECT_EQ(nn::PixelShuffle(2)(x).sizes(), IntArrayRef({2, 1, 14, 12}));
  EXPECT_EQ(nn::PixelUnshuffle(2)(Variable(randn({2, 1, 4, 6}))).sizes(),
            IntArrayRef({2, 4, 2, 3}));
}

TEST(PoolingModules, ForwardIsTheFunctionalOp) {
  const Variable x(randn({2, 3, 6, 6}));
  nn::MaxPool2d max_pool(nn::MaxPool2dOptions(3).stride(2).padding(1));
  EXPECT_TRUE(testing::all_close(
      max_pool(x).data(),
      nn::functional::max_pool2d(x, nn::MaxPool2dOptions(3).stride(2).padding(1)).data(), 0, 0));
  nn::AvgPool2d avg_pool(nn::AvgPool2dOptions(2).count_include_pad(false));
  EXPECT_TRUE(testing::all_close(
      avg_pool(x).data(),
      nn::functional::avg_pool2d(x, nn::AvgPool2dOptions(2).count_include_pad(false)).data(), 0,
      0));
}

TEST(PoolingModules, ForwardWithIndicesReturnsThem) {
  nn::MaxPool2d pool(2);
  const auto [out, indices] = pool->forward_with_indices(Variable(randn({1, 1, 4, 4})));
  EXPECT_EQ(out.sizes(), IntArrayRef({1, 1, 2, 2}));
  ASSERT_TRUE(indices.defined());
  EXPECT_EQ(indices.sizes(), IntArrayRef({1, 1, 2, 2}));
}

TEST(PoolingModules, CloneKeepsOptionsAndNoParameters) {
  nn::MaxPool2d pool(nn::MaxPool2dOptions(3).stride(1).dilation(2));
  auto copy = std::dynamic_pointer_cast<nn::MaxPool2dImpl>(pool->clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(repr(*copy), repr(pool));
  EXPECT_TRUE(copy->parameters().empty());
}

TEST(PoolingModules, RunInsideSequential) {
  nn::Sequential net(nn::MaxPool2d(2), nn::AvgPool2d(2));
  EXPECT_EQ(net->forward(Variable(randn({1, 2, 8, 8}))).sizes(), IntArrayRef({1, 2, 2, 2}));
}

}  // namespace
}  // namespace torchlet
