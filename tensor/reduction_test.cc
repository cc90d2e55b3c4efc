#include "tensor/reduction.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/parallel.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::all_close;
using testing::values;
using Vec = std::vector<double>;
using In = const Tensor&;
// A braced single dim would pick var(bool unbiased)/std(bool): spell it out.
using Dims = IntArrayRef;
constexpr double kInf = std::numeric_limits<double>::infinity();

// Golden results exported from PyTorch by tools/gen_reduction_golden.py.
const testing::GoldenFile& golden() {
  return testing::GoldenFile::get("tensor/testdata/reduction_golden.txt");
}

// The generator's inputs: a non-monotone polynomial of a linspace (so the
// arg-reductions are not trivial), and rows of huge and infinite values.
Tensor wavy(In t) { return t * t * t - t * 3; }
Tensor a2() { return wavy(linspace(-2, 3, 12).view({3, 4})); }
Tensor z3() { return wavy(linspace(-2, 3, 24).view({2, 3, 4})); }
Tensor big() {
  return tensor({{1000, 999, 998, 1}, {-kInf, -kInf, -kInf, -kInf}, {-1000, 0, 1, 2}});
}
Tensor soft() { return tensor({{1000, 999, 998, 1}, {-1000, 0, 1, 2}, {-kInf, 0, 1, -kInf}}); }

// all_close, with infinities required to match exactly.
::testing::AssertionResult matches(In actual, In expected, double rtol = 1e-5,
                                   double atol = 1e-6) {
  Vec x = values(actual), e = values(expected);
  for (size_t i = 0; i < x.size() && x.size() == e.size(); ++i) {
    if (std::isinf(e[i]) && x[i] == e[i]) x[i] = e[i] = 0;
  }
  return all_close(from_vector(x, actual.sizes()), from_vector(e, expected.sizes()), rtol, atol);
}

// A copy of `t` whose dims are laid out in reverse order (the transposed
// form, for any rank).
Tensor reversed_copy(In t) {
  SizeVec order;
  for (int64_t d = t.dim() - 1; d >= 0; --d) order.push_back(d);
  return t.permute(order).contiguous().permute(order);
}

// Every op runs on contiguous, reversed-layout and step-sliced forms.
std::vector<Tensor> layouts(In t) { return {t, reversed_copy(t), testing::strided_copy(t)}; }
const char* const kLayoutNames[] = {"contiguous", "reversed", "step-sliced"};

struct Case {
  const char* name;     // golden name; its prefix names the op
  Tensor (*input)();
  Tensor (*op)(In);
};

#define OP(...) [](In t) { return __VA_ARGS__; }
const std::vector<Case>& cases() {
  static const auto* c = new std::vector<Case>{
      {"sum_all", a2, OP(t.sum())}, {"sum_d0", a2, OP(t.sum({0}))},
      {"sum_d1_keep", a2, OP(t.sum({1}, true))}, {"sum_z_02_keep", z3, OP(t.sum({0, 2}, true))},
      {"mean_all", a2, OP(t.mean())}, {"mean_d1", a2, OP(t.mean({1}))},
      {"mean_z_m1_0", z3, OP(t.mean({-1, 0}))}, {"prod_all", a2, OP(t.prod())},
      {"prod_d0", a2, OP(t.prod(0))}, {"prod_d1_keep", a2, OP(t.prod(1, true))},
      {"max_d1_values", a2, OP(std::get<0>(t.max(1)))},
      {"max_d1_indices", a2, OP(std::get<1>(t.max(1)))},
      {"min_d0_keep_values", a2, OP(std::get<0>(t.min(0, true)))},
      {"min_d0_keep_indices", a2, OP(std::get<1>(t.min(0, true)))}, {"max_all", a2, OP(t.max())},
      {"min_all", a2, OP(t.min())}, {"amax_z_01", z3, OP(t.amax({0, 1}))},
      {"amin_z_12_keep", z3, OP(t.amin({1, 2}, true))}, {"amax_z_20", z3, OP(t.amax({2, 0}))},
      {"argmax_all", a2, OP(t.argmax())}, {"argmax_d0", a2, OP(t.argmax(0))},
      {"argmin_d1_keep", a2, OP(t.argmin(1, true))}, {"argmin_all", a2, OP(t.argmin())},
      {"argmax_z_d2", z3, OP(t.argmax(2))}, {"var_all", a2, OP(t.var())},
      {"var_all_biased", a2, OP(t.var(false))}, {"var_d1", a2, OP(t.var({1}))},
      {"var_d0_biased_keep", a2, OP(t.var({0}, false, true))}, {"std_all", a2, OP(t.std())},
      {"std_d1_biased", a2, OP(t.std({1}, false))}, {"var_z_02", z3, OP(t.var({0, 2}))},
      {"std_z_12_keep", z3, OP(t.std({1, 2}, true, true))}, {"norm_p1", a2, OP(t.norm(1))},
      {"norm_p2", a2, OP(t.norm())}, {"norm_inf", a2, OP(t.norm(kInf))},
      {"norm_p3", a2, OP(t.norm(3))}, {"norm_p2_d1", a2, OP(t.norm(2, {1}))},
      {"norm_p3_d0_keep", a2, OP(t.norm(3, {0}, true))}, {"norm_inf_d1", a2, OP(t.norm(kInf, {1}))},
      {"norm_p1_z_12", z3, OP(t.norm(1, {1, 2}))}, {"logsumexp_d1", a2, OP(t.logsumexp({1}))},
      {"logsumexp_d0_keep", a2, OP(t.logsumexp({0}, true))},
      {"logsumexp_z_02", z3, OP(t.logsumexp({0, 2}))},
      {"logsumexp_big_d1", big, OP(t.logsumexp({1}))},
      {"logsumexp_big_d0", big, OP(t.logsumexp({0}))}, {"softmax_d0", a2, OP(t.softmax(0))},
      {"softmax_d1", a2, OP(t.softmax(1))}, {"softmax_z_d1", z3, OP(t.softmax(1))},
      {"softmax_soft_d0", soft, OP(t.softmax(0))}, {"softmax_soft_d1", soft, OP(t.softmax(-1))},
      {"log_softmax_d0", a2, OP(t.log_softmax(0))}, {"log_softmax_d1", a2, OP(t.log_softmax(1))},
      {"log_softmax_soft_d0", soft, OP(t.log_softmax(-2))},
      {"log_softmax_soft_d1", soft, OP(t.log_softmax(1))}, {"cumsum_d0", a2, OP(t.cumsum(0))},
      {"cumsum_d1", a2, OP(t.cumsum(1))}, {"cumsum_z_d2", z3, OP(t.cumsum(-1))},
      {"cumprod_d0", a2, OP(t.cumprod(0))}, {"cumprod_d1", a2, OP(t.cumprod(1))},
      {"all_all", a2, OP((t > -3).all())}, {"all_d1", a2, OP((t > -1).all(1))},
      {"any_all", a2, OP((t > 20).any())}, {"any_d0_keep", a2, OP((t > 1.5).any(0, true))},
  };
  return *c;
}
#undef OP

// Checks every case whose name starts with `prefix` against PyTorch on each
// layout, and on an expanded (stride-0) input against its contiguous copy.
void expect_matches_pytorch(const std::string& prefix) {
  int checked = 0;
  for (const Case& c : cases()) {
    if (std::string(c.name).rfind(prefix, 0) != 0) continue;
    ++checked;
    const std::vector<Tensor> inputs = layouts(c.input());
    for (size_t i = 0; i < inputs.size(); ++i) {
      EXPECT_TRUE(matches(c.op(inputs[i]), golden().at(c.name))) << c.name << ", " << kLayoutNames[i];
    }
    const Tensor expanded = inputs[0].select(0, 0).unsqueeze(0).expand(inputs[0].sizes());
    EXPECT_TRUE(matches(c.op(expanded), c.op(expanded.contiguous()))) << c.name << ", expanded";
  }
  EXPECT_GT(checked, 0) << "no cases for " << prefix;
}

TEST(Var, BracedIntIsADimListNotUnbiased) {
  const Tensor t = tensor({{1.0, 2.0, 4.0}, {3.0, 5.0, 9.0}});
  EXPECT_EQ(t.var({1}).sizes(), IntArrayRef({2}));
  EXPECT_EQ(t.std(1, true, true).sizes(), IntArrayRef({2, 1}));
  EXPECT_TRUE(all_close(t.var(false), t.var({0, 1}, false)));
  EXPECT_TRUE(all_close(t.std(-1), t.std({1})));
}

// A contiguous float tensor summed over dim 0 (a bias's gradient) takes a
// path of its own; its result is still the general reduction's for
// that layout, bit for bit: each column accumulated row by row in double
// from zero, then rounded to the dtype.
TEST(Sum, OverTheFirstDimOfAContiguousTensorAccumulatesEachColumnInOrder) {
  manual_seed(3);
  set_num_threads(2);  // the large shapes split their columns across threads
  for (DType dtype : {kFloat32, kFloat64}) {
    for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{
             {8, 16}, {37, 3}, {5, 3, 7}, {2, 130}, {1, 5}, {128, 515}, {300, 4, 70}}) {
      const Tensor t = (randn(shape) * 1000.0).to(dtype);
      const std::vector<double> in = values(t);
      const int64_t rows = shape[0], cols = t.numel() / rows;
      std::vector<double> expected(cols);
      for (int64_t j = 0; j < cols; ++j) {
        double acc = 0;
        for (int64_t i = 0; i < rows; ++i) acc += in[i * cols + j];
        expected[j] = dtype == kFloat32 ? static_cast<double>(static_cast<float>(acc)) : acc;
      }
      for (bool keepdim : {false, true}) {
        std::vector<int64_t> out_shape(shape.begin() + 1, shape.end());
        if (keepdim) out_shape.insert(out_shape.begin(), 1);
        for (int64_t dim : {int64_t{0}, -t.dim()}) {
          const Tensor sum = t.sum({dim}, keepdim);
          EXPECT_EQ(sum.sizes(), IntArrayRef(out_shape));
          EXPECT_EQ(sum.dtype(), dtype);
          EXPECT_EQ(values(sum), expected) << shape_str(shape) << " keepdim=" << keepdim;
        }
      }
    }
  }
  set_num_threads(0);
}

// The leading-dim path also takes rows that are one row repeated (stride 0)
// and rows that are each one value expanded (a `sum()`'s gradient expanded
// back over a Linear layer's output, summed into the bias's gradient); a
// layout it does not take (every other column) goes the general way. Each
// gives the double loop's result over the tensor's values, bit for bit.
TEST(Sum, OverTheFirstDimOfAnExpandedOrStridedTensorAccumulatesEachColumnInOrder) {
  manual_seed(4);
  set_num_threads(2);
  for (DType dtype : {kFloat32, kFloat64}) {
    const Tensor row = (randn({1, 300}) * 1000.0).to(dtype);
    const Tensor column = (randn({129, 1}) * 1000.0).to(dtype);
    const Tensor scalar = (randn({}) * 1000.0).to(dtype);
    const Tensor wide = (randn({7, 10}) * 1000.0).to(dtype);
    for (const Tensor& t :
         {row.expand({129, 300}), column.expand({129, 300}), scalar.expand({129, 3, 300}),
          column.view({129, 1, 1}).expand({129, 2, 4}), wide.slice(1, 0, 10, 2)}) {
      const std::vector<double> in = values(t.contiguous());
      const int64_t rows = t.size(0), cols = t.numel() / rows;
      std::vector<double> expected(cols);
      for (int64_t j = 0; j < cols; ++j) {
        double acc = 0;
        for (int64_t i = 0; i < rows; ++i) acc += in[i * cols + j];
        expected[j] = dtype == kFloat32 ? static_cast<double>(static_cast<float>(acc)) : acc;
      }
      const Tensor sum = t.sum({0});
      EXPECT_EQ(sum.sizes(), t.sizes().subspan(1));
      EXPECT_EQ(values(sum), expected)
          << shape_str(t.sizes()) << " strides " << shape_str(t.strides());
    }
  }
  set_num_threads(0);
}

// sum() of a small contiguous float tensor skips the general reduction's
// plan; the result is still the general path's, bit for bit.
TEST(Sum, OfEveryElementOfASmallContiguousTensorIsTheGeneralPathsResult) {
  manual_seed(6);
  for (DType dtype : {kFloat32, kFloat64}) {
    for (const std::vector<int64_t>& shape :
         std::vector<std::vector<int64_t>>{{1}, {8}, {3, 7}, {40, 50}, {3, 1000, 5}}) {
      const Tensor t = (randn(shape) * 1000.0).to(dtype);
      std::vector<int64_t> all(shape.size());
      for (size_t d = 0; d < all.size(); ++d) all[d] = static_cast<int64_t>(d);
      const Tensor fast = t.sum(), general = t.sum(all, false);
      EXPECT_EQ(fast.dim(), 0);
      EXPECT_EQ(fast.dtype(), dtype);
      EXPECT_EQ(values(fast), values(general)) << shape_str(shape);
    }
  }
}

TEST(Sum, OverAllAndGivenDimsWithKeepdimMatchesPyTorch) { expect_matches_pytorch("sum_"); }
TEST(Mean, OverAllAndGivenDimsMatchesPyTorch) { expect_matches_pytorch("mean_"); }
TEST(Prod, OverAllAndOneDimMatchesPyTorch) { expect_matches_pytorch("prod_"); }
TEST(Max, ValuesAndIndicesAlongADimMatchPyTorch) { expect_matches_pytorch("max_"); }
TEST(Min, ValuesAndIndicesAlongADimMatchPyTorch) { expect_matches_pytorch("min_"); }
TEST(Amax, OverSeveralDimsMatchesPyTorch) { expect_matches_pytorch("amax_"); }
TEST(Amin, OverSeveralDimsWithKeepdimMatchesPyTorch) { expect_matches_pytorch("amin_"); }
TEST(Argmax, FlattenedAndAlongADimMatchesPyTorch) { expect_matches_pytorch("argmax_"); }
TEST(Argmin, FlattenedAndAlongADimMatchesPyTorch) { expect_matches_pytorch("argmin_"); }
TEST(Var, BiasedAndUnbiasedMatchPyTorch) { expect_matches_pytorch("var_"); }
TEST(Std, BiasedAndUnbiasedMatchPyTorch) { expect_matches_pytorch("std_"); }
TEST(Norm, OrdersOneTwoThreeAndInfOverAllAndDimsMatchPyTorch) { expect_matches_pytorch("norm_"); }
TEST(Logsumexp, MatchesPyTorchIncludingHugeValuesAndMinusInfRows) {
  expect_matches_pytorch("logsumexp_");
}
TEST(Softmax, AlongEachDimMatchesPyTorchIncludingHugeAndInfValues) {
  expect_matches_pytorch("softmax_");
}
TEST(LogSoftmax, AlongEachDimMatchesPyTorchIncludingHugeAndInfValues) {
  expect_matches_pytorch("log_softmax_");
}
TEST(Cumsum, AlongEachDimMatchesPyTorch) { expect_matches_pytorch("cumsum_"); }
TEST(Cumprod, AlongEachDimMatchesPyTorch) { expect_matches_pytorch("cumprod_"); }
TEST(All, OverAllAndAlongADimMatchesPyTorch) { expect_matches_pytorch("all_"); }
TEST(Any, OverAllAndAlongADimMatchesPyTorch) { expect_matches_pytorch("any_"); }

TEST(FreeFunctions, MatchTheMethodForms) {
  const Tensor t = a2();
  EXPECT_TRUE(matches(sum(t, {0}, true), t.sum({0}, true)));
  EXPECT_TRUE(matches(mean(t, {1}), t.mean({1})));
  EXPECT_TRUE(matches(softmax(t, 0), golden().at("softmax_d0")));
  EXPECT_TRUE(matches(log_softmax(t, 1), golden().at("log_softmax_d1")));
  EXPECT_TRUE(matches(logsumexp(t, {1}), golden().at("logsumexp_d1")));
  EXPECT_TRUE(matches(cumsum(t, 1), golden().at("cumsum_d1")));
  EXPECT_TRUE(matches(cumprod(t, 0), golden().at("cumprod_d0")));
}

// ---- Dtypes ------------------------------------------------------------------

TEST(Sum, IntegerAndBoolInputsGiveInt64) {
  for (DType d : {kInt32, kInt64, kUInt8, kBool}) {
    const Tensor s = tensor({1, 0, 1}, d).sum();
    EXPECT_EQ(s.dtype(), kInt64) << d;
    EXPECT_EQ(s.item<int64_t>(), 2) << d;
    EXPECT_EQ(tensor({{1, 1}}, d).prod(1).dtype(), kInt64) << d;
  }
  EXPECT_EQ(tensor({200, 100}, kUInt8).sum().item<int64_t>(), 300);  // no uint8 overflow
}

TEST(Sum, DtypeArgumentCastsTheInputFirst) {
  const Tensor f64 = tensor({1, 2}).sum(kFloat64);
  EXPECT_EQ(f64.dtype(), kFloat64);
  EXPECT_EQ(f64.item<double>(), 3);
  EXPECT_EQ(sum(tensor({{1, 2}}), {1}, false, kFloat64).dtype(), kFloat64);
  EXPECT_EQ(tensor({1.5, 2.5}).sum(kInt64).item<int64_t>(), 3);  // 1 + 2
  const Tensor i32 = tensor({1, 2}).sum(kInt32);
  EXPECT_EQ(i32.dtype(), kInt32);
  EXPECT_EQ(i32.item<int64_t>(), 3);
}

TEST(AllAny, Uint8GivesUint8AndOtherDtypesGiveBool) {
  const Tensor u = tensor({{1, 0}, {1, 1}}, kUInt8);
  EXPECT_EQ(u.all().dtype(), kUInt8);
  EXPECT_EQ(values(u.all(0)), (Vec{1, 0}));
  EXPECT_EQ(u.any(1, true).dtype(), kUInt8);
  EXPECT_EQ(u.any(1, true).sizes(), (SizeVec{2, 1}));
  for (DType d : {kInt32, kInt64, kFloat32, kBool}) {
    EXPECT_EQ(tensor({1, 0}, d).all().dtype(), kBool) << d;
    EXPECT_EQ(tensor({1, 0}, d).any(0).dtype(), kBool) << d;
  }
  EXPECT_TRUE(tensor({NAN, 1.0f}).all().item<bool>());  // NaN is nonzero
}

TEST(Cumsum, IntegerAndBoolInputsAccumulateInInt64) {
  EXPECT_EQ(tensor({1, 2}, kInt32).cumsum(0).dtype(), kInt64);
  EXPECT_EQ(values(tensor({true, false, true}).cumsum(0)), (Vec{1, 1, 2}));
  const Tensor p = tensor({16, 16, 16}, kUInt8).cumprod(0);
  EXPECT_EQ(p.dtype(), kInt64);
  EXPECT_EQ(values(p), (Vec{16, 256, 4096}));
}

TEST(Logsumexp, IntegerInputGivesFloat32) {
  const Tensor l = tensor({1, 2}).logsumexp({0});
  EXPECT_EQ(l.dtype(), kFloat32);
  EXPECT_NEAR(l.item<double>(), std::log(std::exp(1.0) + std::exp(2.0)), 1e-6);
}

TEST(Reduction, ValuesKeepTheInputDtypeAndIndicesAreInt64) {
  const Tensor d = a2().to(kFloat64), i = tensor({{3, 1}, {2, 5}}, kInt32);
  for (const Tensor& t : {d, i}) {
    EXPECT_EQ(std::get<0>(t.max(1)).dtype(), t.dtype());
    EXPECT_EQ(std::get<1>(t.min(0)).dtype(), kInt64);
    EXPECT_EQ(t.amax({0}).dtype(), t.dtype());
    EXPECT_EQ(t.argmin().dtype(), kInt64);
  }
  for (const Tensor& t : {d.var(), d.std(Dims{0}), d.norm(), d.mean(), d.softmax(0), d.logsumexp({1})}) {
    EXPECT_EQ(t.dtype(), kFloat64);
  }
  EXPECT_EQ(values(i.max()), (Vec{5}));
}

// ---- Zero-size and 0-dim inputs ------------------------------------------------

TEST(Reduction, EmptyInputsGiveTheIdentity) {
  const Tensor e = zeros({0});
  EXPECT_EQ(e.sum().item<double>(), 0);
  EXPECT_EQ(e.prod().item<double>(), 1);
  EXPECT_TRUE(std::isnan(e.mean().item<double>()));
  EXPECT_TRUE(std::isnan(e.var().item<double>()));
  EXPECT_EQ(e.norm().item<double>(), 0);
  EXPECT_EQ(e.logsumexp({0}).item<double>(), -kInf);
  EXPECT_TRUE(e.all().item<bool>());
  EXPECT_FALSE(e.any().item<bool>());
  EXPECT_EQ(zeros({0}, kInt32).sum().dtype(), kInt64);
  const Tensor rows = zeros({0, 3});
  EXPECT_EQ(values(rows.sum({0})), (Vec{0, 0, 0}));
  EXPECT_EQ(rows.sum({1}, true).sizes(), (SizeVec{0, 1}));
  EXPECT_TRUE(std::isnan(values(rows.mean({0}))[2]));
  EXPECT_EQ(rows.softmax(0).sizes(), (SizeVec{0, 3}));
  EXPECT_EQ(rows.cumsum(0).sizes(), (SizeVec{0, 3}));
}

TEST(Amax, OverANonEmptyDimOfAnEmptyTensorGivesAnEmptyResult) {
  const Tensor e = zeros({2, 0});
  EXPECT_EQ(e.amax({0}).sizes(), (SizeVec{0}));
  EXPECT_EQ(e.amin({0}, true).sizes(), (SizeVec{1, 0}));
  const auto [v, i] = e.max(0);
  EXPECT_EQ(v.sizes(), (SizeVec{0}));
  EXPECT_EQ(i.sizes(), (SizeVec{0}));
  EXPECT_EQ(e.argmin(0).sizes(), (SizeVec{0}));
}

TEST(Amax, OverAZeroSizeDimThrows) {
  EXPECT_THROW_MSG(zeros({2, 0}).amax({1}), "amax(): Expected reduction dim 1 to have non-zero size.");
  EXPECT_THROW_MSG(zeros({2, 0}).amin({0, 1}), "amin(): Expected reduction dim 1 to have non-zero size.");
}

TEST(Reduction, ZeroDimInputsReduceTheirElementAndStayZeroDim) {
  const Tensor s = scalar_tensor(3.0f);
  for (const Tensor& r : {s.sum({0}), s.sum({-1}, true), s.mean({0}, true), s.amax({0}, true),
                          s.argmax(0, true), s.argmax(std::nullopt, true), std::get<0>(s.max(0)),
                          s.logsumexp({0}, true), s.cumsum(0), s.softmax(0), s.norm(2, {0})}) {
    EXPECT_EQ(r.dim(), 0);
  }
  EXPECT_EQ(s.sum({0}).item<double>(), 3);
  EXPECT_EQ(std::get<1>(s.max(0, true)).item<int64_t>(), 0);
  EXPECT_EQ(s.softmax(0).item<double>(), 1);
  EXPECT_TRUE(std::isnan(s.var().item<double>()));
  EXPECT_THROW_MSG(s.sum({1}), "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
}

// ---- Ties and NaN ------------------------------------------------------------------

TEST(Argmax, TiesGiveTheFirstIndex) {
  const Tensor t = tensor({{1.0, 3.0, 3.0, 0.0}, {2.0, 2.0, 2.0, 2.0}});
  for (const Tensor& input : layouts(t)) {
    EXPECT_EQ(values(input.argmax(1)), (Vec{1, 0}));
    EXPECT_EQ(values(std::get<1>(input.max(1))), (Vec{1, 0}));
    EXPECT_EQ(values(input.argmin(1)), (Vec{3, 0}));
    EXPECT_EQ(values(std::get<1>(input.min(1))), (Vec{3, 0}));
    EXPECT_EQ(input.argmax().item<int64_t>(), 1);
  }
  EXPECT_EQ(values(tensor({{4, 7, 7}}).expand({3, 3}).argmax(0)), (Vec{0, 0, 0}));
}

TEST(Argmax, WithoutDimKeepdimKeepsEveryDimAsOne) {
  const Tensor r = a2().argmax(std::nullopt, true);
  EXPECT_EQ(r.sizes(), (SizeVec{1, 1}));
  EXPECT_EQ(r.item<int64_t>(), 11);
}

TEST(Max, NanPropagatesAndArgmaxPointsAtTheFirstNan) {
  const Tensor t = tensor({1.0f, NAN, 3.0f, NAN});
  for (const Tensor& r : {t.max(), t.min(), t.amax(), t.amin({0}), std::get<0>(t.max(0))}) {
    EXPECT_TRUE(std::isnan(r.item<double>()));
  }
  EXPECT_EQ(t.argmax().item<int64_t>(), 1);
  EXPECT_EQ(t.argmin().item<int64_t>(), 1);
  EXPECT_EQ(std::get<1>(t.max(0)).item<int64_t>(), 1);
  const Tensor rows = tensor({{NAN, 5.0f}, {2.0f, NAN}, {1.0f, 4.0f}}).t();  // columns hold the NaNs
  EXPECT_EQ(values(rows.argmax(1)), (Vec{0, 1}));
  EXPECT_TRUE(std::isnan(values(rows.amax({1}))[1]));
  EXPECT_TRUE(std::isnan(rows.norm(kInf).item<double>()));
}

// ---- Large inputs: multithreaded, chunked accumulation ---------------------------

struct Moments {
  double sum = 0, l1 = 0, var = 0;
};
// Sum, sum of |x| and unbiased variance, in double, of v[begin], v[begin + step], ...
Moments moments(const Vec& v, size_t begin, size_t end, size_t step = 1) {
  Moments m;
  size_t n = 0;
  for (size_t i = begin; i < end; i += step, ++n) m.sum += v[i], m.l1 += std::abs(v[i]);
  for (size_t i = begin; i < end; i += step) m.var += std::pow(v[i] - m.sum / n, 2) / (n - 1);
  return m;
}

TEST(Reduction, LargeSumAndVarMatchDoubleOnEveryThreadCount) {
  // 1000 x 1024: runs of the transposed view straddle the chunk boundaries.
  const int64_t n = 1000 * 1024;
  const Tensor t = linspace(-1, 3, n);
  const Vec v = values(t);
  const Moments all = moments(v, 0, n), half0 = moments(v, 0, n / 2), half1 = moments(v, n / 2, n);
  for (int threads : {1, 4}) {
    set_num_threads(threads);
    for (const Tensor& input : {t, t.view({1000, 1024}).t(), testing::strided_copy(t)}) {
      EXPECT_NEAR(input.sum().item<double>(), all.sum, 1e-6 * all.l1) << threads;
      EXPECT_NEAR(input.var().item<double>(), all.var, 1e-6 * all.var) << threads;
      EXPECT_NEAR(input.std().item<double>(), std::sqrt(all.var), 1e-6) << threads;
    }
    // Float32 sums are good to about 1e-7 of the sum of |x| (PyTorch's too).
    const Vec halves = values(t.view({2, n / 2}).sum({1}));
    EXPECT_NEAR(halves[0], half0.sum, 1e-6 * half0.l1) << threads;
    EXPECT_NEAR(halves[1], half1.sum, 1e-6 * half1.l1) << threads;
    EXPECT_TRUE(all_close(t.view({2, n / 2}).var(Dims{1}), tensor({half0.var, half1.var}), 1e-6));
    const Moments col = moments(v, 5, n, 1024);  // a column read with stride 1024
    EXPECT_NEAR(values(t.view({1000, 1024}).sum({0}))[5], col.sum, 1e-6 * col.l1);
  }
  set_num_threads(0);
}

TEST(Argmax, LargeInputsGiveTheFirstMaximumAcrossChunks) {
  const int64_t n = int64_t{1} << 20;
  std::vector<float> v(n, 0.0f);
  v[1000] = v[900000] = 1;
  for (int threads : {1, 4}) {
    set_num_threads(threads);
    const Tensor t = from_vector(v, {n});
    EXPECT_EQ(t.argmax().item<int64_t>(), 1000);
    EXPECT_EQ(std::get<1>(t.max(0)).item<int64_t>(), 1000);
    EXPECT_EQ(t.argmin().item<int64_t>(), 0);
    EXPECT_EQ(t.amax().item<double>(), 1);
    EXPECT_EQ(t.sum().item<double>(), 2);
    EXPECT_EQ(t.to(kInt32).sum().item<int64_t>(), 2);
    EXPECT_TRUE(t.any().item<bool>());
    EXPECT_FALSE(t.all().item<bool>());
  }
  v[700000] = NAN;
  const Tensor nan = from_vector(v, {n});
  EXPECT_EQ(nan.argmax().item<int64_t>(), 700000);
  EXPECT_TRUE(std::isnan(nan.amax().item<double>()));
  set_num_threads(0);
}

// ---- Errors ------------------------------------------------------------------------

TEST(ReductionErrors, DuplicateDims) {
  const Tensor t = a2();
  EXPECT_THROW_MSG(t.sum({0, 0}), "dim 0 appears multiple times in the list of dims");
  EXPECT_THROW_MSG(t.mean({0, -2}), "dim 0 appears multiple times in the list of dims");
  EXPECT_THROW_MSG(t.amax({1, -1}), "dim 1 appears multiple times in the list of dims");
  EXPECT_THROW_MSG(t.var({1, 1}), "dim 1 appears multiple times in the list of dims");
  EXPECT_THROW_MSG(t.norm(2, {0, 0}), "dim 0 appears multiple times in the list of dims");
  EXPECT_THROW_MSG(t.logsumexp({1, 1}), "dim 1 appears multiple times in the list of dims");
}

TEST(ReductionErrors, DimOutOfRange) {
  const Tensor t = a2();
  const char* msg = "Dimension out of range (expected to be in range of [-2, 1], but got ";
  EXPECT_THROW_MSG(t.sum({2}), msg);
  EXPECT_THROW_MSG(t.prod(-3), msg);
  EXPECT_THROW_MSG(t.max(2), msg);
  EXPECT_THROW_MSG(t.argmin(-3), msg);
  EXPECT_THROW_MSG(t.std(Dims{2}), msg);
  EXPECT_THROW_MSG(t.all(2), msg);
  EXPECT_THROW_MSG(t.softmax(2), msg);
  EXPECT_THROW_MSG(t.cumsum(-3), msg);
}

TEST(ReductionErrors, FloatingOnlyOpsRejectIntegers) {
  const Tensor i = tensor({1, 2});
  EXPECT_THROW_MSG(i.mean(),
                   "mean(): could not infer output dtype. Input dtype must be either a floating "
                   "point or complex dtype. Got: Long");
  EXPECT_THROW_MSG(i.var(), "var: std and var only support floating point dtypes, got int64");
  EXPECT_THROW_MSG(i.std(Dims{0}),
                   "std: std and var only support floating point dtypes, got int64");
  EXPECT_THROW_MSG(i.norm(),
                   "norm(): input dtype should be either floating point or complex. Got Long "
                   "instead.");
  EXPECT_THROW_MSG(i.softmax(0), "expected a floating-point dtype");
  EXPECT_THROW_MSG(i.log_softmax(0), "expected a floating-point dtype");
}

TEST(ReductionErrors, ExtremaOfEmptyInputsNeedANonEmptyDim) {
  const Tensor e = zeros({0});
  EXPECT_THROW_MSG(e.max(), "max(): Expected reduction dim to be specified for input.numel() == 0");
  EXPECT_THROW_MSG(e.min(), "min(): Expected reduction dim to be specified for input.numel() == 0");
  EXPECT_THROW_MSG(e.amax(), "amax(): Expected reduction dim to be specified for input.numel() == 0");
  EXPECT_THROW_MSG(e.argmax(), "argmax(): Expected reduction dim to be specified");
  EXPECT_THROW_MSG(e.max(0), "max(): Expected reduction dim 0 to have non-zero size");
  EXPECT_THROW_MSG(zeros({2, 0}).argmin(1), "argmin(): Expected reduction dim 1 to have non-zero size");
}

TEST(ReductionErrors, UndefinedTensor) {
  const Tensor u;
  const char* msg = "expected a defined tensor but got an undefined one";
  EXPECT_THROW_MSG(u.sum(), msg);
  EXPECT_THROW_MSG(u.mean(), msg);
  EXPECT_THROW_MSG(u.max(), msg);
  EXPECT_THROW_MSG(u.argmax(), msg);
  EXPECT_THROW_MSG(u.var(), msg);
  EXPECT_THROW_MSG(u.norm(), msg);
  EXPECT_THROW_MSG(u.logsumexp({0}), msg);
  EXPECT_THROW_MSG(u.all(), msg);
  EXPECT_THROW_MSG(u.softmax(0), msg);
  EXPECT_THROW_MSG(u.cumprod(0), msg);
}

}  // namespace
}  // namespace torchlet

namespace torchlet {
namespace {

TEST(SoftmaxBackwardTest, MatchesTheComposedFormulaAlongEachDim) {
  manual_seed(3);
  const Tensor x = randn({3, 5}, kFloat64), g = randn({3, 5}, kFloat64);
  for (int64_t dim : {0, 1, -1}) {
    const Tensor y = x.softmax(dim);
    EXPECT_TRUE(testing::all_close(softmax_backward(g, y, dim), y * (g - (g * y).sum({dim}, true))));
    const Tensor ly = x.log_softmax(dim);
    EXPECT_TRUE(testing::all_close(log_softmax_backward(g, ly, dim),
                                   g - ly.exp() * g.sum({dim}, true)));
  }
}

TEST(SoftmaxBackwardTest, NonContiguousGradient) {
  manual_seed(4);
  const Tensor x = randn({4, 3}), g = randn({3, 4}).t();
  const Tensor y = x.softmax(1);
  EXPECT_TRUE(testing::all_close(softmax_backward(g, y, 1), y * (g - (g * y).sum({1}, true)), 1e-5));
}

TEST(SoftmaxBackwardTest, MismatchedShapesNameTheOp) {
  EXPECT_THROW_MSG(softmax_backward(ones({2, 3}), ones({3, 2}), 1),
                   "softmax_backward: grad (float32 [2, 3]) and output (float32 [3, 2]) must match");
}

}  // namespace
}  // namespace torchlet
