// Unfold and Fold: PyTorch's reprs character for character and their
// output, F.unfold and F.fold with fixed parameters.
#include "nn/fold.h"

#include <string>

#include "gtest/gtest.h"
#include "nn/nn.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

using testing::printed;

TEST(FoldLayerTest, ReprsShowParametersAsGiven) {
  EXPECT_EQ(printed(Unfold(2)), "Unfold(kernel_size=2, dilation=1, padding=0, stride=1)");
  EXPECT_EQ(printed(Unfold(UnfoldOptions({2, 3}).dilation(2).padding(1).stride({1, 2}))),
            "Unfold(kernel_size=(2, 3), dilation=2, padding=1, stride=(1, 2))");
  EXPECT_EQ(printed(Fold(FoldOptions({4, 5}, 2))),
            "Fold(output_size=(4, 5), kernel_size=2, dilation=1, padding=0, stride=1)");
  EXPECT_EQ(printed(Fold(FoldOptions(4, {2, 3}).stride(2))),
            "Fold(output_size=4, kernel_size=(2, 3), dilation=1, padding=0, stride=2)");
}

TEST(FoldLayerTest, LayersComputeFunctionalUnfoldAndFold) {
  manual_seed(0);
  const Variable x(randn({2, 3, 5, 6}));
  Unfold unfold(UnfoldOptions({2, 3}).padding(1).stride(2));
  const Variable columns = unfold(x);
  EXPECT_TRUE(testing::all_close(columns.data(),
                                 functional::unfold(x, {2, 3}, {1}, {1}, {2}).data()));
  Fold fold(FoldOptions({5, 6}, {2, 3}).padding(1).stride(2));
  EXPECT_TRUE(testing::all_close(fold(columns).data(),
                                 functional::fold(columns, {5, 6}, {2, 3}, {1}, {1}, {2}).data()));
  EXPECT_EQ(fold(columns).sizes(), IntArrayRef({2, 3, 5, 6}));
}

}  // namespace
}  // namespace torchlet::nn
