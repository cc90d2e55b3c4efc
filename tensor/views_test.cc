#include "gtest/gtest.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::values;

Tensor grid() { return arange(12).view({3, 4}); }

TEST(ViewsTest, ViewSharesStorage) {
  Tensor a = grid();
  Tensor v = a.view({4, 3});
  EXPECT_TRUE(v.shares_storage(a));
  v.fill_(0);
  EXPECT_EQ(values(a), std::vector<double>(12, 0.0));
}

TEST(ViewsTest, ViewInfersOneDimension) {
  EXPECT_EQ(grid().view({-1, 6}).sizes(), IntArrayRef({2, 6}));
  EXPECT_THROW_MSG(grid().view({-1, -1}), "view: only one dimension can be inferred");
}

TEST(ViewsTest, ViewOfWrongSizeIsAnError) {
  EXPECT_THROW_MSG(grid().view({5, 3}), "view: shape '[5, 3]' is invalid for input of size 12");
}

TEST(ViewsTest, ViewAcrossNonContiguousStridesIsAnError) {
  EXPECT_THROW_MSG(grid().t().view({12}), "view size is not compatible with input tensor's size and "
                                          "stride");
}

TEST(ViewsTest, ViewOfTransposedSplitDimWorks) {
  Tensor v = grid().t().view({2, 2, 3});
  EXPECT_EQ(v.sizes(), IntArrayRef({2, 2, 3}));
  EXPECT_EQ(v.strides(), IntArrayRef({2, 1, 4}));
}

TEST(ViewsTest, ViewRejectsANegativeDimensionOtherThanMinusOne) {
  EXPECT_THROW_MSG(grid().view({-2, 6}), "view: invalid shape dimension -2");
}

TEST(ViewsTest, ViewCannotInferADimensionBesideAZeroSize) {
  EXPECT_THROW_MSG(zeros({0, 3}).view({0, -1}),
                   "view: cannot reshape tensor of 0 elements into shape [0, -1] because the "
                   "unspecified dimension size -1 can be any value and is ambiguous");
}

TEST(ViewsTest, ReshapeCopiesOnlyWhenItMust) {
  Tensor a = grid();
  EXPECT_TRUE(a.reshape({6, 2}).shares_storage(a));
  Tensor r = a.t().reshape({12});
  EXPECT_FALSE(r.shares_storage(a));
  EXPECT_EQ(values(r), (std::vector<double>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
}

TEST(ViewsTest, PermuteReordersDims) {
  Tensor a = arange(24).view({2, 3, 4});
  Tensor p = a.permute({2, 0, 1});
  EXPECT_EQ(p.sizes(), IntArrayRef({4, 2, 3}));
  EXPECT_EQ(p.strides(), IntArrayRef({1, 12, 4}));
  EXPECT_THROW_MSG(a.permute({0, 1}),
                   "permute: number of dims don't match in permute (the tensor has 3 dims, got "
                   "[0, 1])");
  EXPECT_THROW_MSG(a.permute({0, 1, 1}), "permute: repeated dim in permute (got [0, 1, 1])");
}

TEST(ViewsTest, TransposeAndT) {
  EXPECT_EQ(values(grid().t().contiguous().select(0, 1)), (std::vector<double>{1, 5, 9}));
  EXPECT_EQ(grid().transpose(0, -1).sizes(), IntArrayRef({4, 3}));
  EXPECT_THROW_MSG(zeros({2, 2, 2}).t(), "t() expects a tensor with <= 2 dimensions, but self is 3D");
}

// Note [Transposing copies]: large transposed and permuted sources are
// copied in tiles; every element lands where the element-wise copy puts it,
// for every element size, sizes that are not a multiple of the tile, batch
// dims, and sources that are also offset or stepped.
TEST(ViewsTest, ContiguousOfALargeTransposedOrPermutedTensorKeepsEveryElement) {
  set_num_threads(2);
  for (DType dtype : {kFloat32, kFloat64, kInt64, kFloat16, kUInt8, kBool}) {
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{33, 100}, {130, 17}, {64, 64}}) {
      const Tensor base = arange(rows * cols, kFloat64).remainder(251.0).view({rows, cols});
      const Tensor a = base.to(dtype);
      const std::vector<double> in = values(a);
      std::vector<double> expected(rows * cols);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) expected[c * rows + r] = in[r * cols + c];
      }
      const Tensor t = a.t().contiguous();
      EXPECT_TRUE(t.is_contiguous());
      EXPECT_EQ(values(t), expected) << dtype << " " << rows << "x" << cols;
    }
    // A batch of transposes, and a source that is offset and stepped too.
    const Tensor cube = arange(3 * 80 * 50, kFloat64).remainder(251.0).view({3, 80, 50}).to(dtype);
    EXPECT_EQ(values(cube.permute({0, 2, 1}).contiguous()),
              values(cube.permute({0, 2, 1}).to(kFloat64).contiguous()))
        << dtype;
    EXPECT_EQ(values(cube.permute({2, 0, 1}).contiguous()),
              values(cube.permute({2, 0, 1}).to(kFloat64).contiguous()))
        << dtype;
    const Tensor stepped = cube.select(0, 1).narrow(0, 3, 70).slice(1, 1, 50, 2).t();
    EXPECT_EQ(values(stepped.contiguous()), values(stepped.to(kFloat64).contiguous())) << dtype;
  }
  set_num_threads(0);
}

TEST(ViewsTest, NarrowSelectsARange) {
  EXPECT_EQ(values(grid().narrow(1, 1, 2)), (std::vector<double>{1, 2, 5, 6, 9, 10}));
  EXPECT_THROW_MSG(grid().narrow(1, 3, 2), "narrow: start (3) + length (2) exceeds dimension size (4).");
}

TEST(ViewsTest, NarrowRejectsAStartOutOfRange) {
  EXPECT_THROW_MSG(grid().narrow(1, 5, 0),
                   "narrow: start out of range (expected to be in range of [-4, 4], but got 5)");
  EXPECT_THROW_MSG(grid().narrow(1, -5, 0),
                   "narrow: start out of range (expected to be in range of [-4, 4], but got -5)");
}

TEST(ViewsTest, NarrowRejectsANegativeLength) {
  EXPECT_THROW_MSG(grid().narrow(1, 0, -1), "narrow: narrow(): length must be non-negative.");
}

TEST(ViewsTest, SelectDropsADim) {
  EXPECT_EQ(values(grid().select(1, -1)), (std::vector<double>{3, 7, 11}));
  EXPECT_THROW_MSG(grid().select(0, 3), "select: index 3 out of range for tensor of size [3, 4] at "
                                        "dimension 0");
}

TEST(ViewsTest, SliceWithStepAndPythonClamping) {
  EXPECT_EQ(values(grid().slice(1, 0, std::nullopt, 2)), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(values(grid().slice(0, -2, 100)), (std::vector<double>{4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(grid().slice(0, 5, 10).size(0), 0);
  EXPECT_THROW_MSG(grid().slice(0, 0, 2, 0), "slice: slice step must be positive, got 0");
}

TEST(ViewsTest, SliceOfAZeroDimTensorIsAnError) {
  EXPECT_THROW_MSG(scalar_tensor(3.0).slice(0, 0, 1),
                   "slice: slice() cannot be applied to a 0-dim tensor.");
}

TEST(ViewsTest, UnsqueezeAndSqueeze) {
  Tensor a = zeros({3, 1, 2});
  EXPECT_EQ(a.unsqueeze(0).sizes(), IntArrayRef({1, 3, 1, 2}));
  EXPECT_EQ(a.unsqueeze(-1).sizes(), IntArrayRef({3, 1, 2, 1}));
  EXPECT_EQ(a.squeeze().sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(a.squeeze(1).sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(a.squeeze(0).sizes(), IntArrayRef({3, 1, 2}));
  EXPECT_THROW_MSG(a.unsqueeze(4), "unsqueeze: Dimension out of range (expected to be in range of "
                                   "[-4, 3], but got 4)");
}

TEST(ViewsTest, ExpandUsesZeroStrides) {
  Tensor e = tensor({1, 2, 3}).expand({2, 3});
  EXPECT_EQ(e.strides(), IntArrayRef({0, 1}));
  EXPECT_EQ(values(e), (std::vector<double>{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(zeros({2, 1}).expand({-1, 4}).sizes(), IntArrayRef({2, 4}));
  EXPECT_EQ(zeros({3}).expand_as(zeros({2, 3})).sizes(), IntArrayRef({2, 3}));
}

TEST(ViewsTest, ExpandToIncompatibleSizeIsAnError) {
  EXPECT_THROW_MSG(zeros({2, 3}).expand({2, 4}),
                   "expand: The expanded size of the tensor (4) must match the existing size (3) "
                   "at non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [2, 3]");
  EXPECT_THROW_MSG(zeros({2, 3}).expand({3}), "expand: the number of sizes provided (1) must be "
                                              "greater or equal to the number of dimensions");
}

TEST(ViewsTest, ExpandRejectsMinusOneInANewLeadingDimension) {
  EXPECT_THROW_MSG(zeros({3}).expand({-1, 3}),
                   "expand: The expanded size of the tensor (-1) isn't allowed in a leading, "
                   "non-existing dimension 0");
}

TEST(ViewsTest, FlattenAndUnflatten) {
  Tensor a = zeros({2, 3, 4});
  EXPECT_EQ(a.flatten().sizes(), IntArrayRef({24}));
  EXPECT_EQ(a.flatten(1).sizes(), IntArrayRef({2, 12}));
  EXPECT_EQ(a.flatten(1).unflatten(1, {3, -1}).sizes(), IntArrayRef({2, 3, 4}));
  EXPECT_EQ(scalar_tensor(1.0).flatten().sizes(), IntArrayRef({1}));
  EXPECT_THROW_MSG(a.flatten(2, 1), "flatten() has invalid args: start_dim cannot come after end_dim");
  EXPECT_THROW_MSG(a.unflatten(1, {2, 2}), "unflatten: shape '[2, 2]' is invalid for input of size 3");
}

TEST(ViewsTest, UnflattenRejectsEmptySizes) {
  EXPECT_THROW_MSG(zeros({2, 3}).unflatten(1, IntArrayRef()), "unflatten: sizes must be non-empty");
}

TEST(ViewsTest, ChunkSplitAndUnbind) {
  Tensor a = arange(5);
  std::vector<Tensor> c = a.chunk(2);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(values(c[1]), (std::vector<double>{3, 4}));
  std::vector<Tensor> s = a.split(2);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(values(s[2]), (std::vector<double>{4}));
  std::vector<Tensor> w = a.split_with_sizes({1, 4});
  EXPECT_EQ(w[1].numel(), 4);
  std::vector<Tensor> u = grid().unbind(1);
  ASSERT_EQ(u.size(), 4u);
  EXPECT_EQ(values(u[2]), (std::vector<double>{2, 6, 10}));
}

TEST(ViewsTest, ChunkAndSplitErrors) {
  EXPECT_THROW_MSG(arange(5).chunk(0), "chunk expects `chunks` to be greater than 0, got: 0");
  EXPECT_THROW_MSG(arange(5).split(-1), "split expects split_size be non-negative");
  EXPECT_THROW_MSG(arange(5).split_with_sizes({2, 2}),
                   "split_with_sizes: expects split_sizes to sum exactly to 5");
}

TEST(ViewsTest, ChunkAndSplitRejectZeroDimTensors) {
  const Tensor s = scalar_tensor(3.0);
  EXPECT_THROW_MSG(s.chunk(2), "chunk: chunk expects at least a 1-dimensional tensor");
  EXPECT_THROW_MSG(s.split(1), "split: split expects at least a 1-dimensional tensor");
  EXPECT_THROW_MSG(s.split_with_sizes({1}),
                   "split_with_sizes: expects at least a 1-dimensional tensor");
}

TEST(ViewsTest, SplitRejectsAZeroSplitSizeOfANonEmptyDimension) {
  EXPECT_THROW_MSG(arange(5).split(0), "split: split_size can only be 0 if dimension size is 0, "
                                       "but got dimension size of 5");
}

TEST(ViewsTest, SplitWithSizesRejectsNegativeSizes) {
  EXPECT_THROW_MSG(arange(5).split_with_sizes({-1, 6}),
                   "split_with_sizes: expects split_sizes have only non-negative entries, but got "
                   "split_sizes=[-1, 6]");
}

TEST(ViewsTest, AsStridedChecksBounds) {
  Tensor a = arange(6);
  EXPECT_EQ(values(a.as_strided({2, 2}, {3, 1})), (std::vector<double>{0, 1, 3, 4}));
  EXPECT_THROW_MSG(a.as_strided({2, 2}, {5, 1}), "out of bounds for storage of 6 elements");
}

TEST(ViewsTest, AsStridedRejectsStridesOfAnotherLength) {
  EXPECT_THROW_MSG(arange(6).as_strided({2, 2}, {1}),
                   "as_strided: mismatch in length of strides and shape ([2, 2] and [1])");
}

TEST(ViewsTest, AsStridedRejectsANegativeStorageOffset) {
  EXPECT_THROW_MSG(arange(6).as_strided({2}, {1}, -1),
                   "as_strided: Tensor: invalid storage offset -1");
}

TEST(ViewsTest, AsStridedRejectsNegativeStrides) {
  EXPECT_THROW_MSG(arange(6).as_strided({2, 2}, {3, -1}),
                   "as_strided: negative strides are not supported: [3, -1]");
}

TEST(ViewsTest, ZeroDimTensorViews) {
  Tensor s = scalar_tensor(3.0);
  EXPECT_EQ(s.view({1, 1}).sizes(), IntArrayRef({1, 1}));
  EXPECT_EQ(s.unsqueeze(0).sizes(), IntArrayRef({1}));
  EXPECT_THROW_MSG(s.select(0, 0), "select() cannot be applied to a 0-dim tensor");
}

}  // namespace
}  // namespace torchlet
