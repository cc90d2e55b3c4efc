#include <vector>

#include "gtest/gtest.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using indexing::Ellipsis;
using indexing::None;
using indexing::Slice;
using testing::values;

// [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
Tensor grid() { return arange(12).view({3, 4}); }

std::vector<int64_t> shape_of(const Tensor& t) {
  return std::vector<int64_t>(t.sizes().begin(), t.sizes().end());
}

// ---- Basic indexing -----------------------------------------------------------

TEST(IndexTest, IntegerSelectsARow) {
  const Tensor r = grid().index({1});
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{4}));
  EXPECT_EQ(values(r), (std::vector<double>{4, 5, 6, 7}));
}

TEST(IndexTest, TwoIntegersSelectAScalar) {
  const Tensor r = grid().index({2, 1});
  EXPECT_EQ(r.dim(), 0);
  EXPECT_EQ(r.item<int64_t>(), 9);
}

TEST(IndexTest, NegativeIntegerCountsFromTheEnd) {
  EXPECT_EQ(values(grid().index({-1})), (std::vector<double>{8, 9, 10, 11}));
  EXPECT_EQ(grid().index({0, -2}).item<int64_t>(), 2);
}

TEST(IndexTest, SliceWithStep) {
  const Tensor r = grid().index({Slice(), Slice(1, None, 2)});
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(values(r), (std::vector<double>{1, 3, 5, 7, 9, 11}));
}

TEST(IndexTest, SliceClampsOutOfRangeBounds) {
  EXPECT_EQ(values(grid().index({Slice(-10, 10), 0})), (std::vector<double>{0, 4, 8}));
  EXPECT_EQ(grid().index({Slice(5, 10)}).size(0), 0);
}

TEST(IndexTest, NoneInsertsASizeOneAxis) {
  const Tensor r = grid().index({None, Slice(), None});
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{1, 3, 1, 4}));
  EXPECT_EQ(values(r), values(grid()));
}

TEST(IndexTest, EllipsisExpandsToTheRemainingDims) {
  const Tensor t = arange(24).view({2, 3, 4});
  const Tensor r = t.index({Ellipsis, 1});
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values(r), (std::vector<double>{1, 5, 9, 13, 17, 21}));
}

TEST(IndexTest, EllipsisCanMatchNoDims) {
  const Tensor r = grid().index({1, Ellipsis, 2});
  EXPECT_EQ(r.item<int64_t>(), 6);
}

TEST(IndexTest, CombinationOfIntegerSliceNoneAndEllipsis) {
  const Tensor t = arange(24).view({2, 3, 4});
  const Tensor r = t.index({1, None, Ellipsis, Slice(None, None, 3)});
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(values(r), (std::vector<double>{12, 15, 16, 19, 20, 23}));
}

TEST(IndexTest, EmptyIndexReturnsTheWholeTensor) {
  EXPECT_EQ(values(grid().index(std::vector<TensorIndex>{})), values(grid()));
}

TEST(IndexTest, BasicIndexingReturnsAViewSharingStorage) {
  Tensor t = grid();
  Tensor row = t.index({1, Slice(1, 3)});
  EXPECT_TRUE(row.shares_storage(t));
  row.fill_(-1);
  EXPECT_EQ(values(t.index({1})), (std::vector<double>{4, -1, -1, 7}));
}

TEST(IndexTest, WorksOnNonContiguousInput) {
  const Tensor t = grid().t();  // [4, 3]
  EXPECT_EQ(values(t.index({1})), (std::vector<double>{1, 5, 9}));
  EXPECT_EQ(values(t.index({Slice(None, None, 2), -1})), (std::vector<double>{8, 10}));
}

// ---- Tensor indices -------------------------------------------------------------

TEST(IndexTest, Int64TensorIndexGathersRows) {
  const Tensor r = grid().index({tensor({2, 0, 2})});
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(values(r), (std::vector<double>{8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11}));
}

TEST(IndexTest, Int64TensorIndexWrapsNegativeValues) {
  EXPECT_EQ(values(grid().index({Slice(), tensor({-1})})), (std::vector<double>{3, 7, 11}));
}

TEST(IndexTest, TwoDimensionalIndexReplacesAMiddleDimInPlace) {
  const Tensor t = arange(24).view({2, 3, 4});
  const Tensor r = t.index({Slice(), tensor({{0, 2}, {1, 1}})});
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{2, 2, 2, 4}));
  EXPECT_EQ(values(r.index({1, 0, 1})), values(t.index({1, 2})));
  EXPECT_EQ(values(r.index({0, 1, 0})), values(t.index({0, 1})));
}

TEST(IndexTest, TensorIndexAfterBasicIndices) {
  const Tensor t = arange(24).view({2, 3, 4});
  const Tensor r = t.index({1, None, Slice(), tensor({3, 0})});
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(values(r), (std::vector<double>{15, 12, 19, 16, 23, 20}));
}

TEST(IndexTest, TensorIndexReturnsACopy) {
  Tensor t = grid();
  Tensor r = t.index({tensor({0})});
  EXPECT_FALSE(r.shares_storage(t));
  r.fill_(-1);
  EXPECT_EQ(t.index({0, 0}).item<int64_t>(), 0);
}

TEST(IndexTest, TensorIndexOnNonContiguousInput) {
  const Tensor t = grid().t();  // [4, 3]
  EXPECT_EQ(values(t.index({tensor({3, 0}), 1})), (std::vector<double>{7, 4}));
}

TEST(IndexTest, BoolMaskSelectsTruePositions) {
  const Tensor mask = tensor({{true, false, false, true},
                              {false, false, false, false},
                              {false, true, false, false}});
  const Tensor r = grid().index({mask});
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{3}));
  EXPECT_EQ(values(r), (std::vector<double>{0, 3, 9}));
}

TEST(IndexTest, BoolMaskOnOneDimKeepsTheOthers) {
  const Tensor r = grid().index({Slice(), tensor({true, false, true, false})});
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(values(r), (std::vector<double>{0, 2, 4, 6, 8, 10}));
}

TEST(IndexTest, AllFalseMaskGivesAnEmptyResult) {
  const Tensor r = grid().index({tensor({false, false, false})});
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{0, 4}));
}

// ---- index_put_ ---------------------------------------------------------------------

TEST(IndexPutTest, ScalarFillsTheSelection) {
  Tensor t = grid();
  t.index_put_({Slice(), 0}, 100);
  EXPECT_EQ(values(t.index({Slice(), 0})), (std::vector<double>{100, 100, 100}));
  EXPECT_EQ(values(t.index({0})), (std::vector<double>{100, 1, 2, 3}));
}

TEST(IndexPutTest, TensorValueBroadcastsToTheSelection) {
  Tensor t = zeros({3, 4});
  t.index_put_({Slice(0, 2)}, tensor({1.0, 2.0, 3.0, 4.0}));
  EXPECT_EQ(values(t), (std::vector<double>{1, 2, 3, 4, 1, 2, 3, 4, 0, 0, 0, 0}));
}

TEST(IndexPutTest, WritesThroughNonContiguousTensor) {
  Tensor base = grid();
  Tensor t = base.t();  // [4, 3]
  t.index_put_({1}, -1);
  EXPECT_EQ(values(base.index({Slice(), 1})), (std::vector<double>{-1, -1, -1}));
}

TEST(IndexPutTest, TensorIndexWritesSelectedRows) {
  Tensor t = grid();
  t.index_put_({tensor({2, 0})}, tensor({{-1}, {-2}}));
  EXPECT_EQ(values(t.index({0})), (std::vector<double>{-2, -2, -2, -2}));
  EXPECT_EQ(values(t.index({1})), (std::vector<double>{4, 5, 6, 7}));
  EXPECT_EQ(values(t.index({2})), (std::vector<double>{-1, -1, -1, -1}));
}

TEST(IndexPutTest, TensorIndexWithScalarValue) {
  Tensor t = grid();
  t.index_put_({Slice(), tensor({1, 3})}, 0);
  EXPECT_EQ(values(t), (std::vector<double>{0, 0, 2, 0, 4, 0, 6, 0, 8, 0, 10, 0}));
}

TEST(IndexPutTest, BoolMaskWritesTruePositions) {
  Tensor t = grid();
  t.index_put_({tensor({{true, false, false, false},
                        {false, false, false, false},
                        {false, false, false, true}})},
               tensor({-5, -6}));
  EXPECT_EQ(values(t), (std::vector<double>{-5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, -6}));
}

TEST(IndexPutTest, ValueConvertsToTheTensorDtype) {
  Tensor t = zeros({2, 2});
  t.index_put_({tensor({1})}, tensor({{3, 4}}));
  EXPECT_EQ(t.dtype(), kFloat32);
  EXPECT_EQ(values(t), (std::vector<double>{0, 0, 3, 4}));
}

TEST(IndexPutTest, BasicPathBumpsVersion) {
  Tensor t = grid();
  const uint32_t before = t.version();
  t.index_put_({0}, 1);
  EXPECT_GT(t.version(), before);
  const uint32_t middle = t.version();
  t.index_put_({1}, tensor({1, 2, 3, 4}));
  EXPECT_GT(t.version(), middle);
}

TEST(IndexPutTest, TensorIndexPathBumpsVersion) {
  Tensor t = grid();
  const uint32_t before = t.version();
  t.index_put_({tensor({0})}, 1);
  EXPECT_GT(t.version(), before);
}

TEST(IndexPutTest, ValueAliasingTheTensorIsReadBeforeWriting) {
  Tensor t = arange(4);
  t.index_put_({tensor({1, 2, 3})}, t.index({Slice(0, 3)}));
  EXPECT_EQ(values(t), (std::vector<double>{0, 0, 1, 2}));
}

TEST(IndexPutTest, AccumulateAddsEveryValueAtRepeatedIndices) {
  Tensor t = zeros({3});
  t.index_put_({tensor({0, 2, 0, 0})}, tensor({1.0, 2.0, 3.0, 4.0}), /*accumulate=*/true);
  EXPECT_EQ(values(t), (std::vector<double>{8, 0, 2}));
}

TEST(IndexPutTest, AccumulateWithoutTensorIndexAddsToTheView) {
  Tensor t = grid();
  t.index_put_({Slice(), 1}, tensor({10.0, 20.0, 30.0}), /*accumulate=*/true);
  EXPECT_EQ(values(t.index({Slice(), 1})), (std::vector<double>{11, 25, 39}));
}

TEST(IndexPutTest, AccumulateOnBoolIsLogicalOr) {
  Tensor t = tensor({false, true, false});
  t.index_put_({tensor({0, 1})}, tensor({true, false}), /*accumulate=*/true);
  EXPECT_EQ(t.to_vector<bool>(), (std::vector<bool>{true, true, false}));
}

// ---- Errors ---------------------------------------------------------------------------

TEST(IndexErrorTest, IntegerOutOfRange) {
  EXPECT_THROW_MSG(grid().index({5}),
                   "index: index 5 is out of bounds for dimension 0 with size 3");
  EXPECT_THROW_MSG(grid().index({0, -5}),
                   "index: index -5 is out of bounds for dimension 1 with size 4");
}

TEST(IndexErrorTest, TooManyIndices) {
  EXPECT_THROW_MSG(grid().index({0, 0, 0}), "index: too many indices for tensor of dimension 2");
}

TEST(IndexErrorTest, IndexingAZeroDimTensor) {
  EXPECT_THROW_MSG(scalar_tensor(1).index({0}),
                   "index: too many indices for tensor of dimension 0");
}

TEST(IndexErrorTest, MoreThanOneEllipsis) {
  EXPECT_THROW_MSG(grid().index({Ellipsis, Ellipsis}),
                   "index: an index can only have a single ellipsis ('...')");
}

TEST(IndexErrorTest, NonPositiveSliceStep) {
  EXPECT_THROW_MSG(grid().index({Slice(None, None, 0)}),
                   "index: slice step must be positive, got 0 (tensor of shape [3, 4])");
  EXPECT_THROW_MSG(grid().index({Slice(None, None, -1)}), "index: slice step must be positive");
}

TEST(IndexErrorTest, MoreThanOneTensorIndex) {
  EXPECT_THROW_MSG(grid().index({tensor({0}), tensor({1})}),
                   "index: only one tensor index is supported, got 2");
}

TEST(IndexErrorTest, TensorIndexOutOfBounds) {
  EXPECT_THROW_MSG(arange(3).index({tensor({0, 5})}),
                   "index: index 5 is out of bounds for dimension 0 with size 3");
  EXPECT_THROW_MSG(grid().index({Slice(), tensor({-5})}),
                   "index: index -5 is out of bounds for dimension 1 with size 4 (tensor of shape "
                   "[3, 4])");
}

TEST(IndexErrorTest, TensorIndexOfUnsupportedDtype) {
  EXPECT_THROW_MSG(grid().index({tensor({0.0})}),
                   "index: tensors used as indices must be int64 or bool tensors, got a float32");
}

TEST(IndexErrorTest, UndefinedTensorIndex) {
  EXPECT_THROW_MSG(grid().index({Tensor()}), "index: expected a defined tensor");
}

TEST(IndexErrorTest, MaskShapeMismatch) {
  EXPECT_THROW_MSG(grid().index({tensor({true, false})}),
                   "index: the shape of the mask [2] does not match the shape [3]");
}

TEST(IndexErrorTest, MaskWithTooManyDims) {
  EXPECT_THROW_MSG(grid().index({tensor({{{true}}})}),
                   "index: too many indices for tensor of dimension 2");
}

TEST(IndexPutErrorTest, ValueDoesNotBroadcast) {
  Tensor t = grid();
  EXPECT_THROW_MSG(t.index_put_({0}, tensor({1, 2, 3})),
                   "index_put_: shape mismatch: value tensor of shape [3] cannot be broadcast to "
                   "indexing result of shape [4]");
  EXPECT_THROW_MSG(t.index_put_({tensor({0, 1})}, zeros({3, 4})),
                   "index_put_: shape mismatch: value tensor of shape [3, 4] cannot be broadcast "
                   "to indexing result of shape [2, 4]");
}

TEST(IndexPutErrorTest, IndexErrorsNameIndexPut) {
  Tensor t = grid();
  EXPECT_THROW_MSG(t.index_put_({5}, 0), "index_put_: index 5 is out of bounds for dimension 0 with size 3");
  EXPECT_THROW_MSG(t.index_put_({tensor({9})}, 0),
                   "index_put_: index 9 is out of bounds for dimension 0 with size 3");
  EXPECT_THROW_MSG(t.index_put_({0, 0, 0}, 0),
                   "index_put_: too many indices for tensor of dimension 2");
  EXPECT_THROW_MSG(t.index_put_({tensor({0}), tensor({0})}, 0),
                   "index_put_: only one tensor index is supported");
}

TEST(IndexPutErrorTest, UndefinedValue) {
  Tensor t = grid();
  EXPECT_THROW_MSG(t.index_put_({0}, Tensor()), "index_put_: expected a defined tensor");
}

TEST(IndexPutErrorTest, ExpandedTensorIsRejected) {
  Tensor t = arange(3).expand({2, 3});
  EXPECT_THROW_MSG(t.index_put_({Slice()}, 1),
                   "index_put_: unsupported operation: more than one element of the written-to");
  EXPECT_THROW_MSG(t.index_put_({tensor({0})}, 1),
                   "index_put_: unsupported operation: more than one element of the written-to");
}

TEST(IndexPutErrorTest, FailedWriteLeavesTensorAndVersionUnchanged) {
  Tensor t = grid();
  const uint32_t before = t.version();
  EXPECT_THROW_MSG(t.index_put_({tensor({0, 7})}, 1), "index_put_: index 7 is out of bounds");
  EXPECT_EQ(t.version(), before);
  EXPECT_EQ(values(t), values(grid()));
}

}  // namespace
}  // namespace torchlet
