// The pooling modules: reprs as PyTorch prints them, forward through the
// functional ops, and clone.
#include "nn/pooling.h"

#include <sstream>
#include <vector>

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

TEST(PoolingModules, UpsampleNewModesReprAndForward) {
  namespace F = nn::functional;
  EXPECT_EQ(
      repr(nn::Upsample(nn::UpsampleOptions().size(4).mode(F::InterpolateMode::kNearestExact))),
      "Upsample(size=4, mode=nearest-exact)");
  EXPECT_EQ(repr(nn::Upsample(nn::UpsampleOptions().scale_factor(1.5).mode(
                F::InterpolateMode::kTrilinear))),
            "Upsample(scale_factor=1.5, mode=trilinear)");
  EXPECT_EQ(repr(nn::Upsample(nn::UpsampleOptions().size({3, 4}).mode(F::InterpolateMode::kArea))),
            "Upsample(size=(3, 4), mode=area)");
  const Variable x(randn({1, 2, 3, 4}));
  nn::Upsample up(nn::UpsampleOptions()
                      .scale_factor(1.7)
                      .mode(F::InterpolateMode::kBicubic)
                      .align_corners(false)
                      .recompute_scale_factor(true));
  EXPECT_TRUE(testing::all_close(up(x).data(),
                                 F::interpolate(x, F::InterpolateFuncOptions()
                                                       .scale_factor({1.7})
                                                       .mode(F::InterpolateMode::kBicubic)
                                                       .recompute_scale_factor(true))
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

TEST(PoolingModules, MaxPool1dForwardIsMaxPool1d) {
  manual_seed(0);
  const Variable x(randn({2, 3, 11}));
  const nn::MaxPool1dOptions options =
      nn::MaxPool1dOptions(3).stride(2).padding(1).dilation(2).ceil_mode(true);
  nn::MaxPool1d pool(options);
  EXPECT_TRUE(
      testing::all_close(pool(x).data(), nn::functional::max_pool1d(x, options).data(), 0, 0));
  const auto [out, indices] = pool->forward_with_indices(x);
  const auto [expected_out, expected_indices] = nn::functional::max_pool1d_with_indices(x, options);
  EXPECT_TRUE(testing::all_close(out.data(), expected_out.data(), 0, 0));
  EXPECT_TRUE(testing::all_close(indices, expected_indices, 0, 0));
}

TEST(PoolingModules, MaxPool1dTakesEachPaddedWindowsMaximum) {
  // Windows [-1, 1], [1, 3], [3, 5], [5, 7] of 3 1 4 1 5 9 2 (padding -inf).
  nn::MaxPool1d pool(nn::MaxPool1dOptions(3).stride(2).padding(1));
  const auto [out, indices] =
      pool->forward_with_indices(Variable(tensor({{{3., 1., 4., 1., 5., 9., 2.}}})));
  EXPECT_EQ(testing::values(out.data()), std::vector<double>({3, 4, 9, 9}));
  EXPECT_EQ(testing::values(indices), std::vector<double>({0, 2, 5, 5}));
}

TEST(PoolingModules, MaxPool3dForwardIsMaxPool3d) {
  manual_seed(1);
  const Variable x(randn({2, 3, 4, 7, 9}));
  const nn::MaxPool3dOptions options =
      nn::MaxPool3dOptions({2, 3, 3}).stride({1, 2, 2}).padding({0, 1, 1}).dilation({1, 1, 2});
  nn::MaxPool3d pool(options);
  EXPECT_TRUE(
      testing::all_close(pool(x).data(), nn::functional::max_pool3d(x, options).data(), 0, 0));
  const auto [out, indices] = pool->forward_with_indices(x);
  const auto [expected_out, expected_indices] = nn::functional::max_pool3d_with_indices(x, options);
  EXPECT_TRUE(testing::all_close(out.data(), expected_out.data(), 0, 0));
  EXPECT_TRUE(testing::all_close(indices, expected_indices, 0, 0));
}

TEST(PoolingModules, MaxPool3dTakesEachCubesMaximum) {
  // x[d, h, w] = 8d + 4h + w: the 2x2x2 cubes end at 13 (w = 1) and 15 (w = 3).
  nn::MaxPool3d pool(2);
  const auto [out, indices] = pool->forward_with_indices(
      Variable(arange(16, TensorOptions(kFloat32)).view({1, 1, 2, 2, 4})));
  EXPECT_EQ(out.sizes(), IntArrayRef({1, 1, 1, 1, 2}));
  EXPECT_EQ(testing::values(out.data()), std::vector<double>({13, 15}));
  EXPECT_EQ(testing::values(indices), std::vector<double>({13, 15}));
}

TEST(PoolingModules, AvgPool1dForwardIsAvgPool1d) {
  manual_seed(2);
  const Variable x(randn({2, 3, 10}));
  const nn::AvgPool1dOptions options =
      nn::AvgPool1dOptions(3).stride(2).padding(1).ceil_mode(true).count_include_pad(false);
  EXPECT_TRUE(testing::all_close(nn::AvgPool1d(options)(x).data(),
                                 nn::functional::avg_pool1d(x, options).data(), 0, 0));
}

TEST(PoolingModules, AvgPool1dWithoutPaddingInTheCountAveragesTheRealElements) {
  // Windows [-1, 1], [1, 3], [3, 5], [5, 7] of 3 1 4 1 5 9 2: the padding
  // is neither summed nor counted.
  nn::AvgPool1d pool(nn::AvgPool1dOptions(3).stride(2).padding(1).count_include_pad(false));
  EXPECT_EQ(testing::values(pool(Variable(tensor({{{3., 1., 4., 1., 5., 9., 2.}}}))).data()),
            std::vector<double>({2, 2, 5, 5.5}));
}

TEST(PoolingModules, AvgPool3dForwardIsAvgPool3d) {
  manual_seed(3);
  const Variable x(randn({2, 3, 4, 7, 9}));
  const nn::AvgPool3dOptions options =
      nn::AvgPool3dOptions({2, 3, 2}).stride({1, 2, 2}).padding({1, 1, 0}).divisor_override(5);
  EXPECT_TRUE(testing::all_close(nn::AvgPool3d(options)(x).data(),
                                 nn::functional::avg_pool3d(x, options).data(), 0, 0));
}

TEST(PoolingModules, AvgPool3dAveragesEachCube) {
  // x[d, h, w] = 8d + 4h + w: the cubes' means are 4 + 2 + 0.5 and 4 + 2 + 2.5.
  nn::AvgPool3d pool(2);
  EXPECT_EQ(testing::values(
                pool(Variable(arange(16, TensorOptions(kFloat32)).view({1, 1, 2, 2, 4}))).data()),
            std::vector<double>({6.5, 8.5}));
}

TEST(PoolingModules, AdaptiveAvgPool1dForwardIsAdaptiveAvgPool1d) {
  manual_seed(4);
  const Variable x(randn({2, 3, 7}));
  EXPECT_TRUE(testing::all_close(nn::AdaptiveAvgPool1d(4)(x).data(),
                                 nn::functional::adaptive_avg_pool1d(x, 4).data(), 0, 0));
}

TEST(PoolingModules, AdaptiveAvgPool1dAveragesOverlappingWindows) {
  // 6 -> 4: windows [0, 2), [1, 3), [3, 5), [4, 6) of 0 1 2 3 4 5.
  nn::AdaptiveAvgPool1d pool(4);
  EXPECT_EQ(
      testing::values(pool(Variable(arange(6, TensorOptions(kFloat32)).view({1, 1, 6}))).data()),
      std::vector<double>({0.5, 1.5, 3.5, 4.5}));
}

TEST(PoolingModules, AdaptiveAvgPool3dForwardIsAdaptiveAvgPool3d) {
  manual_seed(5);
  const Variable x(randn({2, 3, 5, 7, 3}));
  nn::AdaptiveAvgPool3d pool(nn::AdaptiveAvgPool3dOptions({2, 3, 2}));
  EXPECT_TRUE(testing::all_close(
      pool(x).data(),
      nn::functional::adaptive_avg_pool3d(x, nn::AdaptiveAvgPool3dOptions({2, 3, 2})).data(), 0,
      0));
}

TEST(PoolingModules, AdaptiveAvgPool3dAveragesEachWindow) {
  // x[d, h, w] = 8d + 4h + w, W 4 -> 3: w windows [0, 2), [1, 3), [2, 4)
  // over all of d and h, means 4 + 2 + 0.5, 1.5, 2.5.
  nn::AdaptiveAvgPool3d pool(nn::AdaptiveAvgPool3dOptions({1, 1, 3}));
  EXPECT_EQ(testing::values(
                pool(Variable(arange(16, TensorOptions(kFloat32)).view({1, 1, 2, 2, 4}))).data()),
            std::vector<double>({6.5, 7.5, 8.5}));
}

TEST(PoolingModules, AdaptiveMaxPool1dForwardIsAdaptiveMaxPool1d) {
  manual_seed(6);
  const Variable x(randn({2, 3, 8}));
  nn::AdaptiveMaxPool1d pool(3);
  EXPECT_TRUE(
      testing::all_close(pool(x).data(), nn::functional::adaptive_max_pool1d(x, 3).data(), 0, 0));
  const auto [out, indices] = pool->forward_with_indices(x);
  const auto [expected_out, expected_indices] =
      nn::functional::adaptive_max_pool1d_with_indices(x, 3);
  EXPECT_TRUE(testing::all_close(out.data(), expected_out.data(), 0, 0));
  EXPECT_TRUE(testing::all_close(indices, expected_indices, 0, 0));
}

TEST(PoolingModules, AdaptiveMaxPool1dTakesEachWindowsMaximum) {
  // 6 -> 4: windows [0, 2), [1, 3), [3, 5), [4, 6) of 3 1 4 1 5 9.
  nn::AdaptiveMaxPool1d pool(4);
  const auto [out, indices] =
      pool->forward_with_indices(Variable(tensor({{{3., 1., 4., 1., 5., 9.}}})));
  EXPECT_EQ(testing::values(out.data()), std::vector<double>({3, 4, 5, 9}));
  EXPECT_EQ(testing::values(indices), std::vector<double>({0, 2, 4, 5}));
}

TEST(PoolingModules, PixelShuffleForwardIsPixelShuffle) {
  manual_seed(7);
  const Variable x(randn({2, 8, 3, 4}));
  EXPECT_TRUE(testing::all_close(nn::PixelShuffle(2)(x).data(),
                                 nn::functional::pixel_shuffle(x, 2).data(), 0, 0));
}

TEST(PoolingModules, PixelUnshuffleForwardIsPixelUnshuffle) {
  manual_seed(8);
  const Variable x(randn({2, 2, 6, 4}));
  EXPECT_TRUE(testing::all_close(nn::PixelUnshuffle(2)(x).data(),
                                 nn::functional::pixel_unshuffle(x, 2).data(), 0, 0));
}

TEST(PoolingModules, PixelUnshuffleInvertsPixelShuffle) {
  manual_seed(9);
  const Variable x(randn({2, 9, 2, 3}));
  EXPECT_TRUE(
      testing::all_close(nn::PixelUnshuffle(3)(nn::PixelShuffle(3)(x)).data(), x.data(), 0, 0));
  const Variable y(randn({2, 1, 6, 9}));
  EXPECT_TRUE(
      testing::all_close(nn::PixelShuffle(3)(nn::PixelUnshuffle(3)(y)).data(), y.data(), 0, 0));
}

TEST(PoolingModules, PixelShuffleMovesChannelsIntoBlocks) {
  // out[0, 0, 2h + i, 2w + j] = in[0, 2i + j, h, w], in[c, h, w] = 4c + 2h + w.
  const Variable x(arange(16, TensorOptions(kFloat32)).view({1, 4, 2, 2}));
  const Variable out = nn::PixelShuffle(2)(x);
  EXPECT_EQ(out.sizes(), IntArrayRef({1, 1, 4, 4}));
  EXPECT_EQ(testing::values(out.data()),
            std::vector<double>({0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15}));
  EXPECT_EQ(out.data()[0][0][1][2].item<double>(), 9);  // in[0, 2, 0, 1]: i = 1, j = 0
}

TEST(PoolingModules, UpsampleNearestForwardIsInterpolate) {
  manual_seed(10);
  const Variable x(randn({1, 2, 3, 4}));
  nn::Upsample by_scale(nn::UpsampleOptions().scale_factor(2));
  EXPECT_TRUE(testing::all_close(
      by_scale(x).data(),
      nn::functional::interpolate(x, nn::functional::InterpolateFuncOptions().scale_factor({2}))
          .data(),
      0, 0));
  nn::Upsample by_size(nn::UpsampleOptions().size({5, 7}));
  EXPECT_TRUE(testing::all_close(
      by_size(x).data(),
      nn::functional::interpolate(x, nn::functional::InterpolateFuncOptions().size({5, 7})).data(),
      0, 0));
}

TEST(PoolingModules, UpsampleNearestRepeatsEachPixel) {
  nn::Upsample up(nn::UpsampleOptions().scale_factor(2));
  EXPECT_EQ(testing::values(up(Variable(tensor({{{{0., 1.}, {2., 3.}}}}))).data()),
            std::vector<double>({0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3}));
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
