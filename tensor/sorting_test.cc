#include "tensor/sorting.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <tuple>

#include "gtest/gtest.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::all_close;
using testing::values;
using Vec = std::vector<double>;
using Pair = std::tuple<Tensor, Tensor>;

// Golden results exported from PyTorch by tools/gen_index_golden.py.
const testing::GoldenFile& golden() {
  return testing::GoldenFile::get("tensor/testdata/index_golden.txt");
}

// 4x5 float32 with distinct values: x.flatten()[i] = ((7 * i) % 20 - 9.5) / 2.
Tensor x() {
  std::vector<float> v;
  for (int i = 0; i < 20; ++i) v.push_back(((7 * i) % 20 - 9.5f) / 2);
  return from_vector(v, {4, 5});
}

// Contiguous, transposed and step-sliced forms holding the same values.
std::vector<Tensor> layouts(const Tensor& t) {
  return {t, testing::transposed_copy(t), testing::strided_copy(t)};
}

// Ops returning (values, indices), compared with golden `<name>_values` and `<name>_indices`.
const std::map<std::string, std::function<Pair(const Tensor&)>>& pair_cases() {
  static const auto* cases = new std::map<std::string, std::function<Pair(const Tensor&)>>{
      {"sort_d0", [](const Tensor& t) { return t.sort(0); }},
      {"sort_d1_desc", [](const Tensor& t) { return t.sort(1, /*descending=*/true); }},
      {"topk_k3_d1", [](const Tensor& t) { return t.topk(3, 1); }},
      {"topk_k2_d0_smallest", [](const Tensor& t) { return t.topk(2, 0, /*largest=*/false); }},
      {"kthvalue_k2_d0_keepdim", [](const Tensor& t) { return t.kthvalue(2, 0, true); }},
      {"kthvalue_k3_d1", [](const Tensor& t) { return t.kthvalue(3, 1); }},
  };
  return *cases;
}

TEST(SortingGolden, ValuesAndIndicesMatchPyTorchOnEveryLayout) {
  for (const auto& [name, op] : pair_cases()) {
    for (const Tensor& input : layouts(x())) {
      const auto [v, i] = op(input);
      EXPECT_EQ(v.dtype(), kFloat32) << name;
      EXPECT_EQ(i.dtype(), kInt64) << name;
      EXPECT_TRUE(all_close(v, golden().at(name + "_values"))) << name;
      EXPECT_TRUE(all_close(i, golden().at(name + "_indices"), 0, 0)) << name;
    }
  }
}

TEST(SortingGolden, ArgsortAndNonzeroMatchPyTorchOnEveryLayout) {
  for (const Tensor& input : layouts(x())) {
    EXPECT_TRUE(all_close(input.argsort(0, true), golden().at("argsort_d0_desc"), 0, 0));
    EXPECT_TRUE(all_close((input > 1).nonzero(), golden().at("nonzero_gt1"), 0, 0));
  }
}

TEST(Sort, EachDimAndDirectionOrdersLanesAndIndicesPointBack) {
  const Tensor t = tensor({{3, 1, 2}, {0, 5, 4}});
  const std::vector<std::tuple<int64_t, bool, Vec, Vec>> cases = {
      {0, false, {0, 1, 2, 3, 5, 4}, {1, 0, 0, 0, 1, 1}},
      {1, false, {1, 2, 3, 0, 4, 5}, {1, 2, 0, 0, 2, 1}},
      {-1, true, {3, 2, 1, 5, 4, 0}, {0, 2, 1, 1, 2, 0}},
      {-2, true, {3, 5, 4, 0, 1, 2}, {0, 1, 1, 1, 0, 0}},
  };
  for (const auto& [dim, descending, want_values, want_indices] : cases) {
    const auto [v, i] = t.sort(dim, descending);
    EXPECT_EQ(v.dtype(), kInt64);
    EXPECT_EQ(values(v), want_values) << dim << descending;
    EXPECT_EQ(values(i), want_indices) << dim << descending;
    EXPECT_EQ(values(t.gather(dim, i)), want_values) << dim << descending;
  }
}

TEST(Sort, StableKeepsEqualElementsInOriginalOrder) {
  const Tensor t = tensor({1.0, 3.0, 3.0, 2.0, 3.0, 1.0});
  for (const Tensor& input : {t, testing::strided_copy(t.view({1, 6})).view({6})}) {
    EXPECT_EQ(values(std::get<1>(input.sort(0, false, /*stable=*/true))), (Vec{0, 5, 3, 1, 2, 4}));
    EXPECT_EQ(values(std::get<1>(input.sort(0, true, /*stable=*/true))), (Vec{1, 2, 4, 3, 0, 5}));
  }
}

TEST(Sort, NanSortsLastAscendingAndFirstDescending) {
  const Tensor t = tensor({2.0, NAN, 1.0, NAN});
  const auto [up, up_index] = t.sort(0, false, true);
  EXPECT_EQ(values(up_index), (Vec{2, 0, 1, 3}));
  EXPECT_TRUE(all_close(up, tensor({1.0, 2.0, NAN, NAN})));
  const auto [down, down_index] = t.sort(0, true, true);
  EXPECT_EQ(values(down_index), (Vec{1, 3, 0, 2}));
  EXPECT_TRUE(all_close(down, tensor({NAN, NAN, 2.0, 1.0})));
}

// A long lane (radix-sorted) in each dtype, with ties, NaNs, signed zeros
// and infinities, against a stable sort of the same values with NaN largest.
TEST(Sort, LongLanesOfEveryDtypeMatchAStableSortWithNanLargest) {
  const std::vector<double> pool = {3, -2, 0, 7, -0.0, 1e6, -1e6, 5, INFINITY, -INFINITY, NAN};
  for (DType dtype : {kFloat32, kFloat64, kInt32, kInt64, kUInt8, kBool}) {
    const bool floating = dtype == kFloat32 || dtype == kFloat64;
    std::vector<double> lane;
    for (int i = 0; i < 1000; ++i) {
      double v = pool[(i * 7 + i / 13) % (floating ? pool.size() : 8)];
      if (dtype == kUInt8) v = std::fabs(v) > 255 ? 200 : std::fabs(v);
      if (dtype == kInt64 && std::fabs(v) == 1e6) v *= 4.0e12;  // past 32 bits
      if (dtype == kBool) v = v > 0;
      lane.push_back(v);
    }
    const Tensor t = from_vector(lane, {static_cast<int64_t>(lane.size())}).to(dtype);
    for (bool descending : {false, true}) {
      std::vector<int64_t> expected(lane.size());
      std::iota(expected.begin(), expected.end(), 0);
      auto less = [&](int64_t i, int64_t j) {
        const double a = lane[i], b = lane[j];
        if (descending) return !std::isnan(b) && (std::isnan(a) || b < a);
        return !std::isnan(a) && (std::isnan(b) || a < b);
      };
      std::stable_sort(expected.begin(), expected.end(), less);
      const auto [v, i] = t.sort(0, descending);
      const std::vector<double> got = values(i);
      ASSERT_EQ(got.size(), expected.size());
      for (size_t j = 0; j < expected.size(); ++j) {
        ASSERT_EQ(got[j], static_cast<double>(expected[j]))
            << scalar_type_name(dtype) << (descending ? " descending" : "") << " at " << j;
      }
      EXPECT_TRUE(all_close(v, t.index_select(0, i)));
      const auto [top, top_index] = t.topk(10, 0, /*largest=*/descending);
      EXPECT_EQ(values(top_index), std::vector<double>(got.begin(), got.begin() + 10))
          << scalar_type_name(dtype);
    }
  }
}

TEST(Sort, NegativeZeroEqualsZeroAndKeepsItsPlace) {
  std::vector<double> lane;
  for (int i = 0; i < 200; ++i) lane.push_back(i % 2 ? 0.0 : -0.0);
  const auto [v, i] = from_vector(lane, {200}).to(kFloat32).sort(0);
  std::vector<double> order(lane.size());
  std::iota(order.begin(), order.end(), 0.0);
  EXPECT_EQ(values(i), order);
  EXPECT_TRUE(std::signbit(v[0].item<double>()));
  EXPECT_FALSE(std::signbit(v[1].item<double>()));
}

TEST(Sort, ExpandedInputSortsEveryCopyOfTheLane) {
  const Tensor row = tensor({2.0, -1.0, 0.5});
  const auto [v, i] = row.unsqueeze(0).expand({3, 3}).sort(1);
  EXPECT_EQ(values(v), (Vec{-1, 0.5, 2, -1, 0.5, 2, -1, 0.5, 2}));
  EXPECT_EQ(values(i), (Vec{1, 2, 0, 1, 2, 0, 1, 2, 0}));
  EXPECT_EQ(values(std::get<1>(row.unsqueeze(1).expand({3, 2}).sort(0))), (Vec{1, 1, 2, 2, 0, 0}));
}

TEST(Sort, ZeroSizeDimsAndScalars) {
  for (const SizeVec& shape : {SizeVec{0, 3}, SizeVec{3, 0}}) {
    for (int64_t dim : {0, 1}) {
      const auto [v, i] = zeros(shape).sort(dim);
      EXPECT_EQ(v.sizes(), IntArrayRef(shape));
      EXPECT_EQ(i.sizes(), IntArrayRef(shape));
    }
  }
  const auto [v, i] = scalar_tensor(5.0).sort();
  EXPECT_EQ(v.dim(), 0);
  EXPECT_EQ(v.item<double>(), 5.0);
  EXPECT_EQ(i.item<int64_t>(), 0);
}

TEST(Sort, DimOutOfRangeThrows) {
  EXPECT_THROW_MSG(zeros({2, 2}).sort(2),
                   "sort: Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  EXPECT_THROW_MSG(zeros({2, 2}).sort(-3), "but got -3)");
  EXPECT_THROW_MSG(scalar_tensor(1.0).sort(1),
                   "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  EXPECT_THROW_MSG(zeros({2, 2}).argsort(2), "Dimension out of range");
}

TEST(Argsort, EqualsTheIndicesOfSort) {
  for (const Tensor& input : layouts(x())) {
    for (int64_t dim : {0, 1}) {
      for (bool descending : {false, true}) {
        EXPECT_EQ(values(input.argsort(dim, descending)),
                  values(std::get<1>(input.sort(dim, descending))));
      }
    }
  }
}

TEST(Topk, TiesKeepTheLowerIndexFirst) {
  // PyTorch leaves the order of tied indices unspecified; torchlet keeps the
  // lower index first, like a stable sort.
  const Tensor t = tensor({1.0, 3.0, 3.0, 2.0, 3.0, 1.0});
  const auto [big, big_index] = t.topk(2);
  EXPECT_EQ(values(big), (Vec{3, 3}));
  EXPECT_EQ(values(big_index), (Vec{1, 2}));
  const auto [small, small_index] = t.topk(3, 0, /*largest=*/false);
  EXPECT_EQ(values(small), (Vec{1, 1, 2}));
  EXPECT_EQ(values(small_index), (Vec{0, 5, 3}));
}

TEST(Topk, NanCountsAsTheLargestValue) {
  const Tensor t = tensor({2.0, NAN, 1.0});
  const auto [big, big_index] = t.topk(2);
  EXPECT_TRUE(all_close(big, tensor({NAN, 2.0})));
  EXPECT_EQ(values(big_index), (Vec{1, 0}));
  EXPECT_EQ(values(std::get<1>(t.topk(2, 0, false))), (Vec{2, 0}));
}

TEST(Topk, ZeroSizeDimsAndScalars) {
  EXPECT_EQ(std::get<0>(zeros({3, 0}).topk(0)).sizes(), IntArrayRef({3, 0}));
  EXPECT_EQ(std::get<1>(zeros({0, 3}).topk(2)).sizes(), IntArrayRef({0, 2}));
  EXPECT_EQ(std::get<0>(zeros({0, 3}).topk(0, 0)).sizes(), IntArrayRef({0, 3}));
  const auto [v, i] = scalar_tensor(5.0).topk(1);
  EXPECT_EQ(v.dim(), 0);
  EXPECT_EQ(i.item<int64_t>(), 0);
}

TEST(Topk, KOutOfRangeThrows) {
  EXPECT_THROW_MSG(x().topk(6), "topk(): selected index k out of range");
  EXPECT_THROW_MSG(x().topk(-1), "topk(): selected index k out of range");
  EXPECT_THROW_MSG(zeros({3, 0}).topk(1), "topk(): selected index k out of range");
  EXPECT_THROW_MSG(x().topk(1, 2), "Dimension out of range");
}

TEST(Kthvalue, KeepdimKeepsTheReducedDim) {
  const Tensor t = tensor({{3, 1, 2}, {0, 5, 4}});
  const auto [v, i] = t.kthvalue(2, 1, /*keepdim=*/true);
  EXPECT_EQ(v.sizes(), IntArrayRef({2, 1}));
  EXPECT_EQ(values(v), (Vec{2, 4}));
  EXPECT_EQ(values(i), (Vec{2, 2}));
  const auto [v0, i0] = t.kthvalue(1, 0);
  EXPECT_EQ(v0.sizes(), IntArrayRef({3}));
  EXPECT_EQ(values(v0), (Vec{0, 1, 2}));
  EXPECT_EQ(values(i0), (Vec{1, 0, 0}));
  EXPECT_EQ(std::get<0>(scalar_tensor(5.0).kthvalue(1, 0, true)).dim(), 0);
}

TEST(Kthvalue, NanIsTheLargestValue) {
  const auto [v, i] = tensor({2.0, NAN, 1.0}).kthvalue(3);
  EXPECT_TRUE(std::isnan(v.item<double>()));
  EXPECT_EQ(i.item<int64_t>(), 1);
}

TEST(Kthvalue, ZeroSizeDims) {
  EXPECT_EQ(std::get<0>(zeros({0, 3}).kthvalue(1)).sizes(), IntArrayRef({0}));
  EXPECT_EQ(std::get<1>(zeros({0, 3}).kthvalue(2, 1, true)).sizes(), IntArrayRef({0, 1}));
  EXPECT_THROW_MSG(zeros({0, 3}).kthvalue(1, 0),
                   "kthvalue(): Expected reduction dim 0 to have non-zero size.");
}

TEST(Kthvalue, KOutOfRangeThrows) {
  EXPECT_THROW_MSG(zeros({2, 3}).kthvalue(4),
                   "kthvalue(): selected number k out of range for dimension 1");
  EXPECT_THROW_MSG(zeros({2, 3}).kthvalue(0, -2),
                   "kthvalue(): selected number k out of range for dimension 0");
  EXPECT_THROW_MSG(zeros({2, 3}).kthvalue(1, 2), "Dimension out of range");
}

TEST(Nonzero, ShapeIsCountByNdim) {
  const Tensor t = tensor({{0, 1}, {2, 0}});
  EXPECT_EQ(values(t.nonzero()), (Vec{0, 1, 1, 0}));
  EXPECT_EQ(t.nonzero().dtype(), kInt64);
  EXPECT_EQ(values(tensor({{{0.0, 1.5}}, {{-1.0, 0.0}}}).nonzero()), (Vec{0, 0, 1, 1, 0, 0}));
  EXPECT_EQ(values(tensor({false, true, true}).nonzero()), (Vec{1, 2}));
  EXPECT_EQ(zeros({2, 3}).nonzero().sizes(), IntArrayRef({0, 2}));
  EXPECT_EQ(zeros({0, 3}).nonzero().sizes(), IntArrayRef({0, 2}));
  EXPECT_EQ(scalar_tensor(5.0).nonzero().sizes(), IntArrayRef({1, 0}));
  EXPECT_EQ(scalar_tensor(0.0).nonzero().sizes(), IntArrayRef({0, 0}));
}

TEST(Nonzero, NonContiguousInputsListRowMajorPositionsOfTheView) {
  const Tensor t = tensor({{0, 1}, {2, 0}});
  EXPECT_EQ(values(t.t().nonzero()), (Vec{0, 1, 1, 0}));
  EXPECT_EQ(values(testing::strided_copy(t).nonzero()), (Vec{0, 1, 1, 0}));
  EXPECT_EQ(values(tensor({0, 3}).unsqueeze(0).expand({2, 2}).nonzero()), (Vec{0, 1, 1, 1}));
}

TEST(Unique, SortedWithInverseAndCounts) {
  const Tensor t = tensor({{3, 1}, {3, 2}});
  const auto [v, inverse, counts] = unique(t, true, true, true);
  EXPECT_EQ(v.dtype(), kInt64);
  EXPECT_EQ(values(v), (Vec{1, 2, 3}));
  EXPECT_EQ(inverse.sizes(), IntArrayRef({2, 2}));
  EXPECT_EQ(values(inverse), (Vec{2, 0, 2, 1}));
  EXPECT_EQ(values(counts), (Vec{1, 1, 2}));
  EXPECT_EQ(values(std::get<0>(unique(t.t()))), (Vec{1, 2, 3}));
  EXPECT_EQ(values(std::get<1>(unique(t.t(), true, true))), (Vec{2, 2, 0, 1}));
}

TEST(Unique, UnrequestedResultsAreUndefinedAndEmptyInputsWork) {
  const auto [v, inverse, counts] = unique(tensor({2.5, -1.0, 2.5}));
  EXPECT_EQ(values(v), (Vec{-1, 2.5}));
  EXPECT_FALSE(inverse.defined());
  EXPECT_FALSE(counts.defined());
  const auto [ev, einv, ecounts] = unique(zeros({0, 2}), true, true, true);
  EXPECT_EQ(ev.sizes(), IntArrayRef({0}));
  EXPECT_EQ(einv.sizes(), IntArrayRef({0, 2}));
  EXPECT_EQ(ecounts.sizes(), IntArrayRef({0}));
}

}  // namespace
}  // namespace torchlet
