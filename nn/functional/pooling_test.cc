// Max and average pooling: outputs, indices and gradients against PyTorch
// 1.13 (nn/functional/testdata/pool_golden.txt, from
// tools/gen_pool_golden.py), finite-difference gradients, and every error
// in PyTorch's words.
#include "nn/functional/pooling.h"

#include <cmath>
#include <limits>
#include <string>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "autograd/pool_ops.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

namespace F = nn::functional;
using nn::AvgPool1dOptions;
using nn::AvgPool2dOptions;
using nn::AvgPool3dOptions;
using nn::MaxPool1dOptions;
using nn::MaxPool2dOptions;
using nn::MaxPool3dOptions;
using testing::gradcheck;
using testing::gradgradcheck;

const testing::GoldenFile& golden() {
  return testing::GoldenFile::get("nn/functional/testdata/pool_golden.txt");
}

const Tensor& stored(const std::string& name) { return golden().at(name); }

using PoolFn = std::function<std::tuple<Variable, Tensor>(const Variable&)>;

// Runs `fn` on the case's input and compares output, indices (when stored)
// and the input's gradient with PyTorch's.
void check_case(const std::string& name, const PoolFn& fn) {
  SCOPED_TRACE(name);
  Variable x(stored(name + ".in.x"), true);
  auto [out, indices] = fn(x);
  EXPECT_TRUE(testing::all_close(out.data(), stored(name + ".out"), 1e-12, 1e-12)) << "output";
  if (golden().has(name + ".idx")) {
    ASSERT_TRUE(indices.defined());
    EXPECT_EQ(indices.dtype(), kInt64);
    EXPECT_TRUE(testing::all_close(indices, stored(name + ".idx"), 0, 0)) << "indices";
  }
  const variable_list grads = autograd::grad({out}, {x}, {Variable(stored(name + ".cot"))});
  EXPECT_TRUE(testing::all_close(grads[0].data(), stored(name + ".grad.x"), 1e-12, 1e-12))
      << "gradient";
}

PoolFn max2d(MaxPool2dOptions o) {
  return [o](const Variable& x) { return F::max_pool2d_with_indices(x, o); };
}
PoolFn max1d(MaxPool1dOptions o) {
  return [o](const Variable& x) { return F::max_pool1d_with_indices(x, o); };
}
PoolFn max3d(MaxPool3dOptions o) {
  return [o](const Variable& x) { return F::max_pool3d_with_indices(x, o); };
}
template <typename Options, typename Fn>
PoolFn avg(Options o, Fn fn) {
  return [o, fn](const Variable& x) { return std::tuple<Variable, Tensor>(fn(x, o), Tensor()); };
}

TEST(MaxPool2dGolden, DefaultStrideIsKernelSize) {
  check_case("mp2d_default", max2d(MaxPool2dOptions(2)));
}
TEST(MaxPool2dGolden, OddSizesDropTheLastRowAndColumn) {
  check_case("mp2d_odd", max2d(MaxPool2dOptions(2)));
}
TEST(MaxPool2dGolden, PaddingDilationAndCeilMode) {
  check_case("mp2d_pad_dil_ceil",
             max2d(MaxPool2dOptions(3).stride(2).padding(1).dilation(2).ceil_mode(true)));
}
TEST(MaxPool2dGolden, RectangularWindows) {
  check_case("mp2d_rect", max2d(MaxPool2dOptions({2, 3}).stride({1, 2}).padding({1, 0})));
}
TEST(MaxPool2dGolden, UnbatchedInput) {
  check_case("mp2d_unbatched", max2d(MaxPool2dOptions(3).stride(2).ceil_mode(true)));
}
TEST(MaxPool2dGolden, TiesKeepTheFirstMaximum) {
  check_case("mp2d_ties", max2d(MaxPool2dOptions(3).stride(1).padding(1)));
  check_case("mp2d_ties_2x2", max2d(MaxPool2dOptions(2)));
}
TEST(MaxPool2dGolden, NanPropagates) {
  check_case("mp2d_nan", max2d(MaxPool2dOptions(3).stride(2).padding(1)));
  check_case("mp2d_nan_2x2", max2d(MaxPool2dOptions(2)));
}
TEST(MaxPool1dGolden, PaddingDilationAndCeilMode) {
  check_case("mp1d", max1d(MaxPool1dOptions(3).stride(2).padding(1).dilation(2).ceil_mode(true)));
  check_case("mp1d_unbatched", max1d(MaxPool1dOptions(2)));
}
TEST(MaxPool3dGolden, MixedWindowPaddingDilationAndCeilMode) {
  check_case("mp3d", max3d(MaxPool3dOptions({2, 3, 2})
                               .stride({2, 1, 2})
                               .padding({1, 1, 0})
                               .dilation({1, 1, 2})
                               .ceil_mode(true)));
  check_case("mp3d_unbatched", max3d(MaxPool3dOptions(2)));
}

TEST(AvgPool2dGolden, DefaultStrideIsKernelSize) {
  check_case("ap2d_default", avg(AvgPool2dOptions(2), F::avg_pool2d));
}
TEST(AvgPool2dGolden, PaddingCountsByDefault) {
  check_case("ap2d_pad_ceil",
             avg(AvgPool2dOptions(3).stride(2).padding(1).ceil_mode(true), F::avg_pool2d));
}
TEST(AvgPool2dGolden, PaddingExcludedFromTheDivisor) {
  check_case("ap2d_exclude_pad", avg(AvgPool2dOptions(3).stride(2).padding(1).ceil_mode(true)
                                         .count_include_pad(false),
                                     F::avg_pool2d));
}
TEST(AvgPool2dGolden, DivisorOverride) {
  check_case("ap2d_divisor",
             avg(AvgPool2dOptions({2, 3}).stride({2, 1}).padding({1, 1}).divisor_override(5),
                 F::avg_pool2d));
}
TEST(AvgPool2dGolden, UnbatchedInput) {
  check_case("ap2d_unbatched", avg(AvgPool2dOptions(2).stride(1), F::avg_pool2d));
}
TEST(AvgPool1dGolden, ExcludePadCeilMode) {
  check_case("ap1d", avg(AvgPool1dOptions(3).stride(2).padding(1).ceil_mode(true)
                             .count_include_pad(false),
                         F::avg_pool1d));
}
TEST(AvgPool3dGolden, ExcludePadCeilModeAndDivisorOverride) {
  check_case("ap3d", avg(AvgPool3dOptions({2, 3, 3})
                             .stride({2, 2, 1})
                             .padding({1, 1, 0})
                             .ceil_mode(true)
                             .count_include_pad(false),
                         F::avg_pool3d));
  check_case("ap3d_divisor", avg(AvgPool3dOptions(2).divisor_override(3), F::avg_pool3d));
}

PoolFn adaptive_max1d(int64_t size) {
  return [size](const Variable& x) { return F::adaptive_max_pool1d_with_indices(x, size); };
}
PoolFn adaptive_max2d(nn::IntOrTuple size) {
  return [size](const Variable& x) { return F::adaptive_max_pool2d_with_indices(x, size); };
}
template <typename Fn>
PoolFn plain(Fn fn) {
  return [fn](const Variable& x) { return std::tuple<Variable, Tensor>(fn(x), Tensor()); };
}

TEST(AdaptivePoolGolden, AvgWindowsOverlapGrowAndShrink) {
  check_case("aap1d", plain([](const Variable& x) { return F::adaptive_avg_pool1d(x, 4); }));
  check_case("aap2d", plain([](const Variable& x) { return F::adaptive_avg_pool2d(x, {3, 4}); }));
  check_case("aap2d_unbatched",
             plain([](const Variable& x) { return F::adaptive_avg_pool2d(x, 3); }));
  check_case("aap3d",
             plain([](const Variable& x) { return F::adaptive_avg_pool3d(x, {2, 3, 2}); }));
}
TEST(AdaptivePoolGolden, MaxWithIndicesAndTies) {
  check_case("amp1d", adaptive_max1d(4));
  check_case("amp2d", adaptive_max2d({3, 4}));
  check_case("amp2d_ties", adaptive_max2d(3));
}

TEST(MaxUnpool2dGolden, DefaultAndGivenOutputSize) {
  const Tensor indices = stored("unpool.in.indices").to(kInt64);
  check_case("unpool", plain([indices](const Variable& x) {
               return F::max_unpool2d(x, indices, F::MaxUnpool2dFuncOptions(2));
             }));
  const Tensor odd_indices = stored("unpool_size.in.indices").to(kInt64);
  check_case("unpool_size", plain([odd_indices](const Variable& x) {
               return F::max_unpool2d(x, odd_indices,
                                      F::MaxUnpool2dFuncOptions(2).output_size({5, 5}));
             }));
}

TEST(LPPool2dGolden, IntegerAndFractionalNorms) {
  check_case("lp2", plain([](const Variable& x) {
               return F::lp_pool2d(x, nn::LPPool2dOptions(2, 2));
             }));
  check_case("lp1_5", plain([](const Variable& x) {
               return F::lp_pool2d(x, nn::LPPool2dOptions(1.5, {2, 3}).stride({1, 2}).ceil_mode(true));
             }));
}

// A float64 leaf with distinct values (no ties, so max pooling is
// differentiable at it).
Variable distinct_leaf(std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::sin(1.7 * i + 0.3) * 3 + 0.001 * i;
  return Variable(from_vector(v, shape), true);
}

TEST(PoolGradcheck, MaxPool2dStridedDilatedPaddedCeil) {
  const auto fn = [](const variable_list& x) {
    return F::max_pool2d(x[0], MaxPool2dOptions(3).stride(2).padding(1).dilation(2).ceil_mode(true));
  };
  EXPECT_TRUE(gradcheck(fn, {distinct_leaf({2, 2, 7, 6})}));
  EXPECT_TRUE(gradgradcheck(fn, {distinct_leaf({1, 2, 5, 5})}));
}
TEST(PoolGradcheck, MaxPool2dLenetWindowBatchOneAndUnbatched) {
  const auto fn = [](const variable_list& x) { return F::max_pool2d(x[0], MaxPool2dOptions(2)); };
  EXPECT_TRUE(gradcheck(fn, {distinct_leaf({1, 3, 6, 5})}));
  EXPECT_TRUE(gradcheck(fn, {distinct_leaf({3, 5, 4})}));
}
TEST(PoolGradcheck, MaxPool1dAnd3d) {
  EXPECT_TRUE(gradcheck(
      [](const variable_list& x) {
        return F::max_pool1d(x[0], MaxPool1dOptions(3).stride(2).padding(1).ceil_mode(true));
      },
      {distinct_leaf({2, 2, 9})}));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& x) {
        return F::max_pool3d(x[0], MaxPool3dOptions({2, 3, 2}).stride({1, 2, 2}).padding({1, 1, 0}));
      },
      {distinct_leaf({1, 2, 3, 5, 4})}));
}
TEST(PoolGradcheck, AvgPool2dEveryDivisorRule) {
  for (const AvgPool2dOptions& o :
       {AvgPool2dOptions(3).stride(2).padding(1).ceil_mode(true),
        AvgPool2dOptions(3).stride(2).padding(1).ceil_mode(true).count_include_pad(false),
        AvgPool2dOptions({2, 3}).stride({1, 2}).padding({1, 0}).divisor_override(4)}) {
    const auto fn = [o](const variable_list& x) { return F::avg_pool2d(x[0], o); };
    EXPECT_TRUE(gradcheck(fn, {distinct_leaf({2, 2, 7, 6})}));
    EXPECT_TRUE(gradgradcheck(fn, {distinct_leaf({1, 2, 5, 4})}));
  }
}
TEST(PoolGradcheck, AvgPool1dAnd3dUnbatched) {
  EXPECT_TRUE(gradcheck(
      [](const variable_list& x) {
        return F::avg_pool1d(x[0], AvgPool1dOptions(3).stride(2).padding(1).ceil_mode(true));
      },
      {distinct_leaf({3, 8})}));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& x) {
        return F::avg_pool3d(x[0], AvgPool3dOptions(2).stride(1).count_include_pad(false));
      },
      {distinct_leaf({2, 3, 4, 3})}));
}

const PoolGeometry kWindow2x2{2, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false};

TEST(PoolGradcheck, AdaptivePools) {
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return F::adaptive_avg_pool2d(x[0], {3, 2}); },
                        {distinct_leaf({2, 2, 7, 5})}));
  EXPECT_TRUE(gradgradcheck(
      [](const variable_list& x) { return F::adaptive_avg_pool1d(x[0], 3); }, {distinct_leaf({2, 7})}));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return F::adaptive_avg_pool3d(x[0], 2); },
                        {distinct_leaf({1, 3, 3, 5})}));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return F::adaptive_max_pool2d(x[0], {3, 4}); },
                        {distinct_leaf({1, 2, 7, 5})}));
  EXPECT_TRUE(gradgradcheck(
      [](const variable_list& x) { return F::adaptive_max_pool1d(x[0], 4); }, {distinct_leaf({2, 9})}));
}
TEST(PoolGradcheck, MaxUnpool2dAndLPPool2d) {
  const auto [pooled, indices] =
      F::max_pool2d_with_indices(Variable(randn({1, 2, 5, 6})), MaxPool2dOptions(2));
  const auto unpool = [idx = indices](const variable_list& x) {
    return F::max_unpool2d(x[0], idx, F::MaxUnpool2dFuncOptions(2).output_size({5, 6}));
  };
  EXPECT_TRUE(gradcheck(unpool, {distinct_leaf({1, 2, 2, 3})}));
  EXPECT_TRUE(gradgradcheck(unpool, {distinct_leaf({1, 2, 2, 3})}));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& x) {
        return F::lp_pool2d(x[0], nn::LPPool2dOptions(3, 2).stride(1).ceil_mode(true));
      },
      {distinct_leaf({1, 2, 4, 5})}));
}

TEST(MaxPool, ReturnsIndicesWhenAskedEvenWithoutGrad) {
  const Variable x(randn({1, 2, 4, 4}), true);
  NoGradGuard no_grad;
  const auto [out, indices] = F::max_pool2d_with_indices(x, MaxPool2dOptions(2));
  EXPECT_TRUE(indices.defined());
  EXPECT_FALSE(out.requires_grad());
  EXPECT_EQ(out.sizes(), IntArrayRef({1, 2, 2, 2}));
}

TEST(MaxPool, KernelSkipsIndicesWhenNotAsked) {
  const MaxPoolForward f = max_pool_forward("max_pool2d", randn({1, 2, 4, 4}), kWindow2x2, false);
  EXPECT_TRUE(f.output.defined());
  EXPECT_FALSE(f.indices.defined());
}

TEST(MaxPool, TrainingKeepsIndicesForBackwardButReturnsNone) {
  const Variable x(randn({1, 2, 4, 4}), true);
  const auto [out, indices] = max_pool("max_pool2d", x, kWindow2x2, /*return_indices=*/false);
  EXPECT_FALSE(indices.defined());
  ASSERT_TRUE(out.requires_grad());
  out.sum().backward();
  EXPECT_DOUBLE_EQ(x.grad().data().sum().item<double>(), 8.0);
}

TEST(MaxPool, WindowOfOnlyPaddingGivesMinusInfinityAndNoGradient) {
  // 1x1 input, kernel 2, dilation 2, padding 1: the window's taps are -1
  // and 1, both outside the input. PyTorch returns -inf with index 2.
  const Variable x(ones({1, 1, 1, 1}), true);
  const auto [out, indices] = F::max_pool2d_with_indices(
      x, MaxPool2dOptions(2).stride(1).padding(1).dilation(2));
  EXPECT_EQ(out.data().item<float>(), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(indices.item<int64_t>(), 2);
  out.backward(Variable(ones({1, 1, 1, 1})));
  EXPECT_EQ(x.grad().data().item<float>(), 0.0f);
}

TEST(MaxPool, EmptyBatchGivesEmptyOutput) {
  const Variable out = F::max_pool2d(Variable(zeros({0, 2, 4, 4})), MaxPool2dOptions(2));
  EXPECT_EQ(out.sizes(), IntArrayRef({0, 2, 2, 2}));
}

TEST(MaxPool, NonContiguousInputMatchesContiguous) {
  const Tensor x = randn({2, 3, 6, 6});
  const Tensor t = x.transpose(2, 3);
  EXPECT_TRUE(testing::all_close(F::max_pool2d(Variable(t), MaxPool2dOptions(2)).data(),
                                 F::max_pool2d(Variable(t.contiguous()), MaxPool2dOptions(2)).data(),
                                 0, 0));
}

// Float 2x2 pools take a vectorized loop (Note [AVX2 2x2 max pooling]),
// float64 the scalar one. Small integers make ties common and some NaNs
// propagate: values and indices must be the same, for rows of exactly 8
// windows, more than 8 (the last 8 overlapping the group before, after one
// and after two whole groups), fewer than 8, and an odd width whose last
// column no window reads.
TEST(MaxPool, VectorizedTwoByTwoMatchesScalarTiesAndNans) {
  manual_seed(4);
  for (const int64_t width : {16, 28, 40, 10, 11, 2}) {
    Tensor x = randint(0, 3, {2, 3, 6, width}).to(kFloat32);
    x.view({-1}).index_put_({randint(0, x.numel(), {7})},
                            std::numeric_limits<float>::quiet_NaN());
    const auto [out, indices] =
        F::max_pool2d_with_indices(Variable(x), MaxPool2dOptions(2));
    const auto [ref, ref_indices] =
        F::max_pool2d_with_indices(Variable(x.to(kFloat64)), MaxPool2dOptions(2));
    EXPECT_TRUE(testing::all_close(out.data(), ref.data().to(kFloat32), 0, 0)) << width;
    EXPECT_TRUE(testing::all_close(indices, ref_indices, 0, 0)) << width;
    EXPECT_TRUE(testing::all_close(F::max_pool2d(Variable(x), MaxPool2dOptions(2)).data(),
                                   out.data(), 0, 0))
        << width;
  }
}

TEST(PoolErrors, ArgumentTuplesOfTheWrongLength) {
  const Variable x(randn({1, 1, 4, 4}));
  EXPECT_THROW_MSG(F::max_pool2d(x, MaxPool2dOptions({2, 2, 2})),
                   "max_pool2d: kernel_size must either be a single int, or a tuple of two ints");
  EXPECT_THROW_MSG(F::max_pool2d(x, MaxPool2dOptions(2).stride({1, 1, 1})),
                   "max_pool2d: stride must either be omitted, a single int, or a tuple of two ints");
  EXPECT_THROW_MSG(F::max_pool2d(x, MaxPool2dOptions(2).padding({1, 1, 1})),
                   "max_pool2d: padding must be either be a single int, or a tuple of two ints");
  EXPECT_THROW_MSG(F::max_pool2d(x, MaxPool2dOptions(2).dilation({1, 1, 1})),
                   "max_pool2d: dilation must be either a single int, or a tuple of two ints");
  EXPECT_THROW_MSG(F::avg_pool2d(x, AvgPool2dOptions(2).padding({1, 1, 1})),
                   "avg_pool2d: padding must either be a single int, or a tuple of two ints");
  EXPECT_THROW_MSG(F::max_pool3d(Variable(randn({1, 1, 4, 4, 4})), MaxPool3dOptions({2, 2})),
                   "max_pool3d: kernel_size must either be a single int, or a tuple of three ints");
  EXPECT_THROW_MSG(F::avg_pool3d(Variable(randn({1, 1, 4, 4, 4})), AvgPool3dOptions({2, 2})),
                   "avg_pool3d: kernel_size must be a single int, or a tuple of three ints");
  EXPECT_THROW_MSG(F::max_pool1d(Variable(randn({1, 1, 4})), MaxPool1dOptions({2, 2})),
                   "max_pool1d() kernel_size must be an int, list of ints or tuple of ints of "
                   "size 1 but got size 2");
  EXPECT_THROW_MSG(F::avg_pool1d(Variable(randn({1, 1, 4})), AvgPool1dOptions({2, 2})),
                   "avg_pool1d() argument 'kernel_size' should contain one int (got 2)");
}

TEST(PoolErrors, PaddingAtMostHalfTheKernel) {
  EXPECT_THROW_MSG(F::max_pool2d(Variable(randn({1, 1, 4, 4})), MaxPool2dOptions(2).padding(2)),
                   "pad should be at most half of kernel size, but got pad=2 and kernel_size=2");
  EXPECT_THROW_MSG(F::avg_pool2d(Variable(randn({1, 1, 4, 4})), AvgPool2dOptions(2).padding(-1)),
                   "pad must be non-negative, but got pad: -1");
}

TEST(PoolErrors, StrideKernelAndDilationMustBePositive) {
  const Variable x(randn({1, 1, 4, 4}));
  EXPECT_THROW_MSG(F::max_pool2d(x, MaxPool2dOptions(2).stride(0)), "stride should not be zero");
  EXPECT_THROW_MSG(F::max_pool2d(x, MaxPool2dOptions(2).stride(-1)),
                   "stride should be greater than zero, but got dH: -1 dW: -1");
  EXPECT_THROW_MSG(F::max_pool2d(x, MaxPool2dOptions(2).dilation(0)),
                   "dilation should be greater than zero, but got dilationH: 0 dilationW: 0");
  EXPECT_THROW_MSG(F::max_pool2d(x, MaxPool2dOptions({0, 2}).stride(1)),
                   "kernel size should be greater than zero, but got kH: 0 kW: 2");
  EXPECT_THROW_MSG(F::max_pool3d(Variable(randn({1, 1, 4, 4, 4})), MaxPool3dOptions(2).dilation(0)),
                   "dilation should be greater than zero, but got dilationT: 0 dilationH: 0 "
                   "dilationW: 0");
}

TEST(PoolErrors, OutputTooSmall) {
  EXPECT_THROW_MSG(F::max_pool2d(Variable(randn({1, 2, 2})), MaxPool2dOptions(3)),
                   "Given input size: (1x2x2). Calculated output size: (1x0x0). Output size is "
                   "too small");
  EXPECT_THROW_MSG(F::avg_pool1d(Variable(randn({1, 1, 2})), AvgPool1dOptions(3)),
                   "Given input size: (1x1x2). Calculated output size: (1x1x0). Output size is "
                   "too small");
  EXPECT_THROW_MSG(F::max_pool3d(Variable(randn({1, 1, 2, 2, 2})), MaxPool3dOptions(3)),
                   "Given input size: (1x2x2x2). Calculated output size: (1x0x0x0). Output size "
                   "is too small");
  EXPECT_THROW_MSG(F::avg_pool3d(Variable(randn({1, 1, 2, 2, 2})), AvgPool3dOptions(3)),
                   "input image (T: 2 H: 2 W: 2) smaller than kernel size (kT: 3 kH: 3 kW: 3)");
}

TEST(PoolErrors, InputRank) {
  EXPECT_THROW_MSG(F::max_pool2d(Variable(randn({2, 2})), MaxPool2dOptions(1)),
                   "non-empty 3D or 4D (batch mode) tensor expected for input");
  EXPECT_THROW_MSG(F::avg_pool3d(Variable(randn({2, 2, 2})), AvgPool3dOptions(1)),
                   "non-empty 4D or 5D (batch mode) tensor expected for input");
  EXPECT_THROW_MSG(F::max_pool1d(Variable(randn({2})), MaxPool1dOptions(1)),
                   "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch "
                   "size for input, but got:[2]");
  EXPECT_THROW_MSG(F::avg_pool1d(Variable(randn({2})), AvgPool1dOptions(1)),
                   "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 "
                   "'self' (while checking arguments for avg_pool1d)");
}

TEST(PoolErrors, EmptyNonBatchDims) {
  EXPECT_THROW_MSG(F::max_pool2d(Variable(zeros({1, 0, 2, 2})), MaxPool2dOptions(1)),
                   "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
                   "input, but got:[1, 0, 2, 2]");
  EXPECT_THROW_MSG(F::avg_pool1d(Variable(zeros({1, 0, 2})), AvgPool1dOptions(1)),
                   "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
                   "input, but got:[1, 0, 1, 2]");
  EXPECT_THROW_MSG(F::max_pool3d(Variable(zeros({1, 0, 2, 2, 2})), MaxPool3dOptions(1)),
                   "max_pool3d_with_indices_out_cpu_template(): Expected input's non-batch "
                   "dimensions to have positive length, but input has a shape of [1, 0, 2, 2, 2] "
                   "and non-batch dimension 0 has length zero!");
}

TEST(PoolErrors, IntegerInputAndZeroDivisor) {
  EXPECT_THROW_MSG(F::max_pool2d(Variable(zeros({1, 1, 2, 2}, kInt64)), MaxPool2dOptions(2)),
                   "\"max_pool2d\" not implemented for 'Long'");
  EXPECT_THROW_MSG(F::avg_pool2d(Variable(randn({1, 1, 2, 2})), AvgPool2dOptions(2).divisor_override(0)),
                   "divisor must be not zero");
}

// int64 average pools as PyTorch 1.13's CPU kernels: an int64 result, the
// int64 sum divided with truncation toward zero.
std::vector<double> int_values(const Variable& out) {
  EXPECT_EQ(out.dtype(), kInt64);
  return testing::values(out.data());
}

TEST(IntegerAvgPool, AvgPool2dOfInt64IsTheTruncatedInt64Average) {
  const Variable x(arange(16).reshape({1, 1, 4, 4}));
  EXPECT_EQ(int_values(F::avg_pool2d(x, AvgPool2dOptions(2))), (std::vector<double>{2, 4, 10, 12}));
}

TEST(IntegerAvgPool, AvgPool1dOfInt64TruncatesNegativeAveragesTowardZero) {
  const Variable x(arange(-5, 7).reshape({1, 2, 6}));
  EXPECT_EQ(int_values(F::avg_pool1d(x, AvgPool1dOptions(2))),
            (std::vector<double>{-4, -2, 0, 1, 3, 5}));
}

TEST(IntegerAvgPool, AvgPool2dOfInt64DividesByThePaddedOrCoveredCount) {
  const Variable x(arange(-7, 9).reshape({1, 1, 4, 4}));
  EXPECT_EQ(int_values(F::avg_pool2d(x, AvgPool2dOptions(3).stride(1).padding(1))),
            (std::vector<double>{-2, -2, -2, -1, -1, -2, -1, 0, 1, 2, 3, 2, 1, 2, 3, 2}));
  EXPECT_EQ(int_values(F::avg_pool2d(
                x, AvgPool2dOptions(3).stride(1).padding(1).count_include_pad(false))),
            (std::vector<double>{-4, -4, -3, -2, -2, -2, -1, 0, 1, 2, 3, 3, 3, 4, 5, 5}));
}

TEST(IntegerAvgPool, AvgPool3dOfInt64TruncatesAndHonoursTheDivisorOverride) {
  const Variable x(from_vector<int64_t>(
      {-7, 2, -3, 5, -11, 0, 4, -1, -9, -13, 6, 3, -2, 8, -5, 1, -4, 7}, {1, 1, 2, 3, 3}));
  EXPECT_EQ(int_values(F::avg_pool3d(x, AvgPool3dOptions(2).stride(1))),
            (std::vector<double>{-1, 0, 0, -1}));
  EXPECT_EQ(int_values(F::avg_pool3d(x, AvgPool3dOptions(2).stride(1).divisor_override(3))),
            (std::vector<double>{-4, 0, 0, -5}));
}

TEST(IntegerAvgPool, AvgPoolRefusesOtherIntegerDtypesNamingPyTorchsKernel) {
  EXPECT_THROW_MSG(F::avg_pool1d(Variable(zeros({1, 2, 6}, kInt32)), AvgPool1dOptions(2)),
                   "\"avg_pool2d\" not implemented for 'Int'");
  EXPECT_THROW_MSG(F::avg_pool2d(Variable(zeros({1, 1, 4, 4}, kUInt8)), AvgPool2dOptions(2)),
                   "\"avg_pool2d\" not implemented for 'Byte'");
  EXPECT_THROW_MSG(F::avg_pool3d(Variable(zeros({1, 1, 2, 2, 4}, kBool)), AvgPool3dOptions(2)),
                   "\"avg_pool3d_out_frame\" not implemented for 'Bool'");
  EXPECT_THROW_MSG(F::avg_pool2d(Variable(zeros({1, 1, 4, 4}, kFloat16)), AvgPool2dOptions(2)),
                   "\"avg_pool2d\" not implemented for 'Half'");
}

TEST(IntegerAvgPool, AvgPoolChecksTheGeometryBeforeTheDtype) {
  EXPECT_THROW_MSG(F::avg_pool2d(Variable(zeros({1, 1, 4, 4}, kInt32)), AvgPool2dOptions(2).padding(2)),
                   "pad should be at most half of kernel size, but got pad=2 and kernel_size=2");
}

TEST(IntegerAvgPool, AdaptiveAvgPoolRefusesInt64NamingPyTorchsKernel) {
  const Variable x(arange(16).reshape({1, 1, 4, 4}));
  EXPECT_THROW_MSG(F::adaptive_avg_pool1d(Variable(arange(12).reshape({1, 2, 6})), 4),
                   "\"adaptive_avg_pool2d\" not implemented for 'Long'");
  EXPECT_THROW_MSG(F::adaptive_avg_pool2d(x, 2), "\"adaptive_avg_pool2d\" not implemented for 'Long'");
  EXPECT_THROW_MSG(F::adaptive_avg_pool3d(Variable(arange(16).reshape({1, 1, 2, 2, 4})), {1, 1, 3}),
                   "\"adaptive_avg_pool3d_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(F::adaptive_avg_pool2d(Variable(arange(4)), 2),
                   "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [4]");
}

TEST(AdaptivePoolErrors, OutputSizeArityAndSign) {
  const Variable x(randn({1, 1, 4, 4}));
  EXPECT_THROW_MSG(F::adaptive_avg_pool2d(x, {2, 2, 2}), "adaptive_avg_pool2d: output_size must be 2");
  EXPECT_THROW_MSG(F::adaptive_avg_pool3d(Variable(randn({1, 1, 4, 4, 4})), {2, 2}),
                   "adaptive_avg_pool3d: output_size must be 3");
  EXPECT_THROW_MSG(F::adaptive_avg_pool1d(Variable(randn({1, 1, 4})), {2, 2}),
                   "adaptive_avg_pool1d() argument 'output_size' should contain one int (got 2)");
  EXPECT_THROW_MSG(F::adaptive_max_pool2d(x, {2, 2, 2}),
                   "adaptive_max_pool2d(): internal error: output_size.size() must be 2");
  EXPECT_THROW_MSG(F::adaptive_avg_pool2d(x, -1),
                   "adaptive_avg_pool2d: elements of output_size must be greater than or equal to "
                   "0 but received {-1, -1}");
}

TEST(AdaptivePoolErrors, InputRankAndEmptyDims) {
  EXPECT_THROW_MSG(F::adaptive_avg_pool2d(Variable(randn({4, 4})), 2),
                   "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [4, 4]");
  EXPECT_THROW_MSG(F::adaptive_max_pool2d(Variable(randn({4, 4})), 2),
                   "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: [4, 4]");
  EXPECT_THROW_MSG(F::adaptive_avg_pool3d(Variable(randn({1, 4, 4})), 2),
                   "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got [1, 4, 4]");
  EXPECT_THROW_MSG(F::adaptive_max_pool1d(Variable(randn({4})), 2),
                   "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 "
                   "'self' (while checking arguments for adaptive_max_pool1d)");
  EXPECT_THROW_MSG(F::adaptive_avg_pool2d(Variable(randn({1, 1, 0, 4})), 2),
                   "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                   "dimensions, but input has sizes [1, 1, 0, 4] with dimension 2 being empty");
  EXPECT_THROW_MSG(F::adaptive_max_pool2d(Variable(randn({1, 0, 4, 4})), 2),
                   "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch "
                   "dimensions, but input has sizes [1, 0, 4, 4] with dimension 1 being empty");
}

TEST(AdaptivePool, EmptyChannelsAndZeroOutputSizeGiveEmptyOutputs) {
  EXPECT_EQ(F::adaptive_avg_pool2d(Variable(randn({1, 0, 4, 4})), 2).sizes(),
            IntArrayRef({1, 0, 2, 2}));
  EXPECT_EQ(F::adaptive_max_pool2d(Variable(randn({1, 1, 4, 4})), 0).sizes(),
            IntArrayRef({1, 1, 0, 0}));
}

TEST(MaxUnpool2dErrors, IndicesAndOutputSize) {
  const auto [pooled, indices] =
      F::max_pool2d_with_indices(Variable(randn({1, 1, 4, 4})), MaxPool2dOptions(2));
  const F::MaxUnpool2dFuncOptions options(2);
  EXPECT_THROW_MSG(F::max_unpool2d(pooled, indices + 100, options),
                   "Found an invalid max index: 1");
  EXPECT_THROW_MSG(F::max_unpool2d(pooled, indices.slice(2, 0, 1), options),
                   "Expected shape of indices to be same as that of the input tensor ([1, 1, 2, 2]) "
                   "but got indices tensor with shape: [1, 1, 1, 2]");
  EXPECT_THROW_MSG(F::max_unpool2d(pooled, indices.to(kInt32), options),
                   "elements in indices should be type int64 but got: Int");
  EXPECT_THROW_MSG(F::max_unpool2d(Variable(randn({2, 2})), indices, options),
                   "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with 2 "
                   "dimensions.");
  EXPECT_THROW_MSG(F::max_unpool2d(pooled, indices, F::MaxUnpool2dFuncOptions(2).output_size({7, 7})),
                   "invalid output_size \"(7, 7)\" (dim 0 must be between 2 and 6)");
  EXPECT_THROW_MSG(F::max_unpool2d(pooled, indices, F::MaxUnpool2dFuncOptions(2).output_size({1, 4, 4})),
                   "output_size should be a sequence containing 2 or 4 elements, but it has a "
                   "length of '3'");
}

TEST(MaxUnpool2dErrors, IntegerInputIsAnError) {
  const Tensor indices = zeros({1, 1, 2, 2}, kInt64);
  EXPECT_THROW_MSG(F::max_unpool2d(Variable(zeros({1, 1, 2, 2}, kInt64)), indices,
                                   F::MaxUnpool2dFuncOptions(2)),
                   "\"max_unpool2d\" not implemented for 'Long'");
}

// F::max_unpool2d always passes two output sizes (it checks the count
// itself): this check is reached through the tensor-level function.
TEST(MaxUnpool2dErrors, KernelRejectsAnOutputSizeOfThreeElements) {
  EXPECT_THROW_MSG(max_unpool2d_forward(randn({1, 1, 2, 2}), zeros({1, 1, 2, 2}, kInt64), {1, 4, 4}),
                   "There should be exactly two elements (height, width) in output_size, but got "
                   "3 elements.");
}

// The autograd backward always passes a gradient of the indices' shape:
// this check is reached through the tensor-level function.
TEST(MaxPoolBackwardErrors, GradOutputAndIndicesOfDifferentShapes) {
  EXPECT_THROW_MSG(max_pool_backward(zeros({1, 1, 2, 2}), zeros({1, 1, 1, 2}, kInt64), {1, 1, 4, 4}, 2),
                   "max_pool_backward: grad_output [1, 1, 2, 2] and indices [1, 1, 1, 2] differ "
                   "in shape");
}

TEST(MaxUnpool2dErrors, InvalidIndexMessageNamesTheOutputPlane) {
  const Variable x(randn({1, 1, 2, 2}));
  const Tensor indices = full({1, 1, 2, 2}, int64_t{16});
  EXPECT_THROW_MSG(F::max_unpool2d(x, indices, F::MaxUnpool2dFuncOptions(2)),
                   "Found an invalid max index: 16 (output volumes are of size 4x4");
  EXPECT_THROW_MSG(F::max_unpool2d(x, full({1, 1, 2, 2}, int64_t{-1}), F::MaxUnpool2dFuncOptions(2)),
                   "Found an invalid max index: -1 (output volumes are of size 4x4");
}

}  // namespace
}  // namespace torchlet
