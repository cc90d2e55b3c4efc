// searchsorted, bucketize, bincount and histc against PyTorch 1.13
// (tools/gen_reduction_golden.py).
#include "tensor/search.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::all_close;
using testing::transposed_copy;

const Tensor& expected(const std::string& name) {
  return testing::GoldenFile::get("tensor/testdata/statistics_golden.txt").at(name);
}

Tensor input(const std::string& name, DType dtype = kFloat64) {
  return expected("in_" + name).to(dtype);
}

::testing::AssertionResult matches(const Tensor& actual, const std::string& name,
                                   DType dtype) {
  if (actual.dtype() != dtype) {
    return ::testing::AssertionFailure() << name << ": dtype " << actual.dtype();
  }
  return all_close(actual.to(kFloat64), expected(name), 1e-6, 1e-6);
}

// ---- searchsorted and bucketize ------------------------------------------------

TEST(SearchsortedTest, LeftAndRightBounds) {
  for (DType dtype : {kFloat32, kFloat64, kInt64}) {
    const Tensor seq = input("seq", dtype), vals = input("vals", dtype);
    EXPECT_TRUE(matches(searchsorted(seq, vals), "searchsorted_left", kInt64));
    EXPECT_TRUE(matches(searchsorted(seq, vals, false, true), "searchsorted_right", kInt64));
    EXPECT_TRUE(matches(searchsorted(seq, transposed_copy(vals)),
                        "searchsorted_left", kInt64));
  }
}

TEST(SearchsortedTest, SideRightOverridesRight) {
  const Tensor seq = input("seq"), vals = input("vals");
  EXPECT_TRUE(matches(searchsorted(seq, vals, false, false, "right"), "searchsorted_side_right",
                      kInt64));
  EXPECT_TRUE(matches(searchsorted(seq, vals, false, false, "left"), "searchsorted_left", kInt64));
}

TEST(SearchsortedTest, BatchedSequences) {
  for (DType dtype : {kFloat32, kFloat64}) {
    const Tensor rows = input("rows", dtype), row_vals = input("row_vals", dtype);
    EXPECT_TRUE(matches(searchsorted(rows, row_vals), "searchsorted_batched", kInt64));
    EXPECT_TRUE(matches(searchsorted(transposed_copy(rows), row_vals, false, true),
                        "searchsorted_batched_right", kInt64));
  }
}

TEST(SearchsortedTest, SorterOrdersAnUnsortedSequence) {
  const Tensor unsorted = input("unsorted");
  EXPECT_TRUE(matches(searchsorted(unsorted, input("vals"), false, false, std::nullopt,
                                   unsorted.argsort()),
                      "searchsorted_sorter", kInt64));
}

TEST(SearchsortedTest, ScalarValuesAndInt32Results) {
  EXPECT_TRUE(matches(searchsorted(input("seq"), 3), "searchsorted_scalar", kInt64));
  EXPECT_TRUE(matches(searchsorted(input("seq", kFloat32), 3.0, false, true),
                      "searchsorted_scalar_right", kInt64));
  EXPECT_TRUE(matches(searchsorted(input("seq"), input("vals"), true), "searchsorted_left",
                      kInt32));
}

TEST(SearchsortedTest, MixedDtypesArePromoted) {
  const Tensor out = searchsorted(tensor({1, 3, 5}), tensor({3.5f, 6.0f}));
  EXPECT_EQ(out.to_vector<int64_t>(), std::vector<int64_t>({2, 3}));
}

TEST(SearchsortedTest, NaNGoesPastTheEnd) {
  const Tensor out = searchsorted(tensor({1.0f, 2.0f}), tensor({NAN}));
  EXPECT_EQ(out.item<int64_t>(), 2);
}

TEST(SearchsortedTest, EmptySequencesAndValues) {
  EXPECT_EQ(searchsorted(empty({0}), tensor({3.0f, 6.0f})).to_vector<int64_t>(),
            std::vector<int64_t>({0, 0}));
  EXPECT_EQ(searchsorted(empty({2, 0}), ones({2, 2})).to_vector<int64_t>(),
            std::vector<int64_t>({0, 0, 0, 0}));
  EXPECT_EQ(searchsorted(ones({2, 3}), ones({2, 0})).sizes(), IntArrayRef({2, 0}));
}

TEST(SearchsortedTest, Errors) {
  const Tensor seq = tensor({1.0f, 3.0f, 5.0f}), vals = tensor({3.0f, 6.0f});
  EXPECT_THROW_MSG(searchsorted(seq, vals, false, false, "foo"),
                   "torch.searchsorted(): side can only be 'left' or 'right' but got foo");
  EXPECT_THROW_MSG(searchsorted(seq, vals, false, true, "left"),
                   "torch.searchsorted(): side and right can't be set to opposites, got side of "
                   "left while right was True");
  EXPECT_THROW_MSG(searchsorted(seq, vals, false, false, std::nullopt, tensor({1, 2})),
                   "torch.searchsorted(): boundary and sorter must have the same size, but got "
                   "boundary tensor [3]and got sorter tensor [2]");
  EXPECT_THROW_MSG(searchsorted(seq, vals, false, false, std::nullopt,
                                tensor({1, 2, 0}).to(kInt32)),
                   "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype Int");
  EXPECT_THROW_MSG(searchsorted(seq, vals, false, false, std::nullopt, tensor({1, 2, 3})),
                   "torch.searchsorted(): sorter index out of range");
  EXPECT_THROW_MSG(searchsorted(seq.view({1, 3}), 3),
                   "torch.searchsorted(): input value can be a scalar only when boundaries tensor "
                   "dimension is 1, but we got boundaries tensor dim(2) and input value's dim(0) "
                   "numel(1)");
  EXPECT_THROW_MSG(searchsorted(scalar_tensor(1.0f), vals),
                   "torch.searchsorted(): boundaries tensor should have positive dimension, but "
                   "got 0 dimension");
  EXPECT_THROW_MSG(searchsorted(ones({2, 3}), ones({3, 2})),
                   "torch.searchsorted(): boundaries tensor should be 1 dimension or the first "
                   "N-1 dimensions of boundaries tensor and input value tensor must match, but we "
                   "got boundaries tensor [2, 3] and input value tensor [3, 2]");
  EXPECT_THROW_MSG(searchsorted(tensor({true}), tensor({true})),
                   "\"searchsorted_out_cpu\" not implemented for 'Bool'");
}

TEST(SearchsortedTest, RejectsTensorsOnOtherDevices) {
  set_cpu_device_count(2);
  const Tensor seq = tensor({1.0f, 3.0f}), elsewhere = tensor({1.0f}).to(Device("cpu:1"));
  EXPECT_THROW_MSG(searchsorted(seq, elsewhere),
                   "torch.searchsorted(): boundaries and input value tensors should have same "
                   "device type, but got boundaries tensor device type cpu");
  EXPECT_THROW_MSG(searchsorted(seq, seq, false, false, std::nullopt,
                                tensor({0, 1}).to(Device("cpu:1"))),
                   "torch.searchsorted(): sorter and boundary tensors should have same device type");
  EXPECT_EQ(searchsorted(seq.to(Device("cpu:1")), elsewhere).device(), Device("cpu:1"));
  set_cpu_device_count(1);
}

TEST(BucketizeTest, MatchesPyTorch) {
  for (DType dtype : {kFloat32, kFloat64, kInt64}) {
    const Tensor seq = input("seq", dtype), vals = input("vals", dtype);
    EXPECT_TRUE(matches(bucketize(vals, seq), "bucketize", kInt64));
    EXPECT_TRUE(matches(bucketize(vals, seq, false, true), "bucketize_right", kInt64));
  }
  EXPECT_EQ(bucketize(3, input("seq"), false, true).item<int64_t>(), 3);
  EXPECT_EQ(bucketize(3, input("seq"), true).dtype(), kInt32);
}

TEST(BucketizeTest, RejectsBatchedBoundaries) {
  EXPECT_THROW_MSG(bucketize(ones({2}), ones({1, 3})),
                   "boundaries tensor must be 1 dimension, but got dim(2)");
}

// ---- bincount -----------------------------------------------------------------------

TEST(BincountTest, CountsAndWeights) {
  const Tensor counts = input("counts", kInt64);
  EXPECT_TRUE(matches(counts.bincount(), "bincount", kInt64));
  EXPECT_TRUE(matches(bincount(counts.to(kInt32), Tensor(), 10), "bincount_minlength", kInt64));
  EXPECT_TRUE(matches(counts.bincount(input("weights")), "bincount_weights", kFloat64));
  EXPECT_TRUE(matches(counts.bincount(input("weights", kFloat32)), "bincount_weights", kFloat32));
}

TEST(BincountTest, IntegerWeightsCountInFloat64) {
  const Tensor out = tensor({1, 1, 3}).bincount(tensor({1, 1, 2}));
  EXPECT_EQ(out.dtype(), kFloat64);
  EXPECT_EQ(out.to_vector<double>(), std::vector<double>({0, 2, 0, 2}));
}

TEST(BincountTest, EmptyGivesMinlengthZeros) {
  const Tensor out = empty({0}, kInt64).bincount(Tensor(), 2);
  EXPECT_EQ(out.dtype(), kInt64);
  EXPECT_EQ(out.to_vector<int64_t>(), std::vector<int64_t>({0, 0}));
}

TEST(BincountTest, Errors) {
  EXPECT_THROW_MSG(tensor({1, -1, 3}).bincount(),
                   "bincount only supports 1-d non-negative integral inputs.");
  EXPECT_THROW_MSG(tensor({1}).view({1, 1}).bincount(),
                   "bincount only supports 1-d non-negative integral inputs.");
  EXPECT_THROW_MSG(tensor({1.0f}).bincount(), "\"bincount_cpu\" not implemented for 'Float'");
  EXPECT_THROW_MSG(tensor({true}).bincount(), "\"bincount_cpu\" not implemented for 'Bool'");
  EXPECT_THROW_MSG(tensor({1, 1}).bincount(Tensor(), -1), "minlength should be >= 0");
  EXPECT_THROW_MSG(tensor({1, 1, 3}).bincount(tensor({1.0f, 1.0f})),
                   "weights should be 1-d and have the same length as input");
}

// ---- histc --------------------------------------------------------------------------

TEST(HistcTest, MatchesPyTorch) {
  for (DType dtype : {kFloat32, kFloat64}) {
    const Tensor y = input("y", dtype);
    EXPECT_TRUE(matches(y.histc(5), "histc_y", dtype));
    EXPECT_TRUE(matches(transposed_copy(y).histc(4, -1, 1), "histc_y_range", dtype));
    EXPECT_TRUE(matches(histc(input("d", dtype), 7, 0, 0), "histc_d", dtype));
    EXPECT_TRUE(matches(input("x", dtype).nan_to_num(0).histc(3, -1, 4), "histc_x", dtype));
  }
}

TEST(HistcTest, EqualBoundsUseTheDataRange) {
  EXPECT_EQ(tensor({1.0f, 2, 3, 4}).histc(2, 2, 2).to_vector<float>(),
            std::vector<float>({2, 2}));
  EXPECT_EQ(tensor({1.0f, 1, 1}).histc(4).to_vector<float>(), std::vector<float>({0, 0, 3, 0}));
  EXPECT_EQ(empty({0}).histc(3).to_vector<float>(), std::vector<float>({0, 0, 0}));
}

TEST(HistcTest, SkipsNaNsAndValuesOutside) {
  EXPECT_EQ(tensor({-5.0f, NAN, 0.5f, 9.0f}).histc(2, 0, 1).to_vector<float>(),
            std::vector<float>({0, 1}));
}

TEST(HistcTest, Errors) {
  const Tensor t = tensor({1.0f, 2.0f});
  EXPECT_THROW_MSG(t.histc(4, 3, 1), "torch.histc: max must be larger than min");
  EXPECT_THROW_MSG(t.histc(0, 2, 1), "torch.histogram(): bins must be > 0, but got 0 for dimension 0");
  EXPECT_THROW_MSG(t.histc(3, 0, std::numeric_limits<double>::infinity()),
                   "torch.histc: range of [0, inf] is not finite");
  EXPECT_THROW_MSG(tensor({1, 2}).histc(3), "\"histogram_cpu\" not implemented for 'Long'");
}

}  // namespace
}  // namespace torchlet
