// The padding layers: PyTorch's reprs character for character and their
// output, F.pad with fixed amounts.
#include "nn/padding.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nn/nn.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

using testing::printed;

TEST(PaddingLayerTest, ReprsArePyTorchs) {
  EXPECT_EQ(printed(ZeroPad2d(2)), "ZeroPad2d((2, 2, 2, 2))");
  EXPECT_EQ(printed(ZeroPad2d(ZeroPad2dOptions({1, 2, 3, 4}))), "ZeroPad2d((1, 2, 3, 4))");
  EXPECT_EQ(printed(ReflectionPad2d(1)), "ReflectionPad2d((1, 1, 1, 1))");
  EXPECT_EQ(printed(ReplicationPad2d(ReplicationPad2dOptions({1, 0, 2, 0}))), "ReplicationPad2d((1, 0, 2, 0))");
  EXPECT_EQ(printed(ReflectionPad1d(2)), "ReflectionPad1d((2, 2))");
  EXPECT_EQ(printed(ReplicationPad3d(1)), "ReplicationPad3d((1, 1, 1, 1, 1, 1))");
  EXPECT_EQ(printed(ConstantPad2d(1, 3.5)), "ConstantPad2d(padding=(1, 1, 1, 1), value=3.5)");
  EXPECT_EQ(printed(ConstantPad1d(2, 1.0)), "ConstantPad1d(padding=(2, 2), value=1.0)");
  EXPECT_EQ(printed(ReflectionPad3d(1)), "ReflectionPad3d((1, 1, 1, 1, 1, 1))");
}

TEST(PaddingLayerTest, LayersPadAsFunctionalPad) {
  manual_seed(0);
  const Variable x(randn({2, 3, 4, 5}));
  EXPECT_TRUE(testing::all_close(ZeroPad2d(ZeroPad2dOptions({1, 2, 0, 3}))(x).data(),
                                 functional::pad(x, {1, 2, 0, 3}).data()));
  EXPECT_TRUE(testing::all_close(ReflectionPad2d(2)(x).data(),
                                 functional::pad(x, {2, 2, 2, 2}, "reflect").data()));
  EXPECT_TRUE(testing::all_close(ReplicationPad1d(ReplicationPad1dOptions({3, 1}))(x.view({6, 4, 5})).data(),
                                 functional::pad(x.view({6, 4, 5}), {3, 1}, "replicate").data()));
  EXPECT_TRUE(testing::all_close(ConstantPad3d(1, -2)(x).data(),
                                 functional::pad(x, {1, 1, 1, 1, 1, 1}, "constant", -2).data()));
  EXPECT_EQ(ZeroPad2d(1)(x).sizes(), IntArrayRef({2, 3, 6, 7}));
}

TEST(PaddingLayerTest, ReplicationPad2dIsReplicatePad) {
  manual_seed(1);
  const Variable x(randn({2, 3, 4, 5}));
  EXPECT_TRUE(testing::all_close(ReplicationPad2d(ReplicationPad2dOptions({1, 0, 2, 3}))(x).data(),
                                 functional::pad(x, {1, 0, 2, 3}, "replicate").data(), 0, 0));
  EXPECT_TRUE(testing::all_close(ReplicationPad2d(2)(x).data(),
                                 functional::pad(x, {2, 2, 2, 2}, "replicate").data(), 0, 0));
}

TEST(PaddingLayerTest, ReplicationPad2dRepeatsTheEdges) {
  // (left, right, top, bottom) = (1, 0, 2, 0) around [[0, 1], [2, 3]].
  const Variable out = ReplicationPad2d(ReplicationPad2dOptions({1, 0, 2, 0}))(
      Variable(tensor({{{{0., 1.}, {2., 3.}}}})));
  EXPECT_EQ(out.sizes(), IntArrayRef({1, 1, 4, 3}));
  EXPECT_EQ(testing::values(out.data()), std::vector<double>({0, 0, 1, 0, 0, 1, 0, 0, 1, 2, 2, 3}));
}

TEST(PaddingLayerTest, WrongNumberOfAmountsIsReported) {
  EXPECT_THROW_MSG(ZeroPad2d(ZeroPad2dOptions({1, 2, 3})), "expected 4 values, got 3");
}

}  // namespace
}  // namespace torchlet::nn
