// Convolutions' gradients against finite differences in float64, to first
// and second order, their shapes and their checks with PyTorch's messages.
#include "nn/functional/conv.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "tensor/conv.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

namespace F = nn::functional;
using testing::gradcheck;
using testing::gradgradcheck;

Variable leaf(std::vector<int64_t> shape) {
  return Variable(randn(shape, TensorOptions(kFloat64)), true);
}

Variable float_input(std::vector<int64_t> shape) { return Variable(randn(shape)); }

/// A convolution of (input, weight), for the float32-against-float64 tests.
using ConvCall = std::function<Variable(const Variable&, const Variable&)>;

/// conv's output, input gradient and weight gradient in `dtype`, with
/// `grad` as the output's gradient.
std::vector<Tensor> conv_and_grads(DType dtype, const Tensor& x, const Tensor& w,
                                   const Tensor& grad, const ConvCall& conv) {
  const Variable xv(x.to(dtype), true), wv(w.to(dtype), true);
  const Variable out = conv(xv, wv);
  out.backward(Variable(grad.to(dtype)));
  return {out.data(), xv.grad().data(), wv.grad().data()};
}

/// Float32's output and gradients agree with float64's; `what` names the
/// case in a failure.
void expect_float32_agrees(const Tensor& x, const Tensor& w, const Tensor& grad,
                           const ConvCall& conv, const std::string& what) {
  const std::vector<Tensor> single = conv_and_grads(kFloat32, x, w, grad, conv);
  const std::vector<Tensor> ref = conv_and_grads(kFloat64, x, w, grad, conv);
  for (size_t i = 0; i < single.size(); ++i) {
    EXPECT_TRUE(testing::all_close(single[i], ref[i].to(kFloat32), 1e-4, 1e-3))
        << what << ", tensor " << i;
  }
}

class ConvGradTest : public ::testing::Test {
 protected:
  void SetUp() override { manual_seed(0); }
};

TEST_F(ConvGradTest, Conv2dPlainWithBias) {
  EXPECT_TRUE(gradcheck([](const variable_list& v) { return F::conv2d(v[0], v[1], v[2]); },
                        {leaf({2, 3, 5, 4}), leaf({2, 3, 3, 2}), leaf({2})}));
}

TEST_F(ConvGradTest, Conv2dStridedPaddedDilatedAsymmetricKernel) {
  EXPECT_TRUE(gradcheck(
      [](const variable_list& v) { return F::conv2d(v[0], v[1], v[2], {2, 3}, {1, 2}, {2, 1}); },
      {leaf({2, 2, 7, 8}), leaf({3, 2, 2, 3}), leaf({3})}));
}

TEST_F(ConvGradTest, Conv2dGroups) {
  EXPECT_TRUE(gradcheck(
      [](const variable_list& v) { return F::conv2d(v[0], v[1], v[2], {1}, 1, {1}, 2); },
      {leaf({2, 4, 4, 5}), leaf({6, 2, 3, 3}), leaf({6})}));
}

TEST_F(ConvGradTest, Conv2dDepthwiseStridedWithMultiplier) {
  EXPECT_TRUE(gradcheck(
      [](const variable_list& v) { return F::conv2d(v[0], v[1], v[2], {2}, 1, {1}, 3); },
      {leaf({2, 3, 7, 6}), leaf({6, 1, 3, 3}), leaf({6})}));
}

TEST_F(ConvGradTest, Conv2dPointwiseBatchOne) {
  EXPECT_TRUE(gradcheck([](const variable_list& v) { return F::conv2d(v[0], v[1]); },
                        {leaf({1, 3, 3, 4}), leaf({2, 3, 1, 1})}));
}

TEST_F(ConvGradTest, Conv2dUnbatchedAndSamePadding) {
  EXPECT_TRUE(gradcheck(
      [](const variable_list& v) { return F::conv2d(v[0], v[1], v[2], {1}, "same", {1, 2}); },
      {leaf({2, 5, 6}), leaf({2, 2, 4, 3}), leaf({2})}));
}

TEST_F(ConvGradTest, Conv1dStridedAndSame) {
  EXPECT_TRUE(gradcheck(
      [](const variable_list& v) { return F::conv1d(v[0], v[1], v[2], {2}, 1); },
      {leaf({2, 3, 9}), leaf({4, 3, 3}), leaf({4})}));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& v) { return F::conv1d(v[0], v[1], Variable(), {1}, "same"); },
      {leaf({1, 2, 7}), leaf({3, 2, 4})}));
}

TEST_F(ConvGradTest, Conv3dStridedPaddedAndDepthwise) {
  EXPECT_TRUE(gradcheck(
      [](const variable_list& v) { return F::conv3d(v[0], v[1], v[2], {1, 2, 1}, {1, 0, 1}); },
      {leaf({2, 2, 3, 5, 4}), leaf({2, 2, 2, 3, 2}), leaf({2})}));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& v) { return F::conv3d(v[0], v[1], Variable(), {1}, 1, {1, 2, 1}, 2); },
      {leaf({1, 2, 3, 4, 5}), leaf({2, 1, 2, 2, 3})}));
}

TEST_F(ConvGradTest, ConvTranspose2dStridedOutputPaddingGroupsDilation) {
  EXPECT_TRUE(gradcheck(
      [](const variable_list& v) {
        return F::conv_transpose2d(v[0], v[1], v[2], {2, 3}, {1, 0}, {1, 2}, 2, {2, 1});
      },
      {leaf({2, 4, 3, 4}), leaf({4, 2, 3, 2}), leaf({4})}));
}

TEST_F(ConvGradTest, ConvTranspose1dAnd3d) {
  EXPECT_TRUE(gradcheck(
      [](const variable_list& v) { return F::conv_transpose1d(v[0], v[1], v[2], {3}, {2}); },
      {leaf({2, 3, 5}), leaf({3, 2, 4}), leaf({2})}));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& v) {
        return F::conv_transpose3d(v[0], v[1], Variable(), {1, 2, 2}, {0}, {0, 1, 0});
      },
      {leaf({1, 2, 2, 3, 2}), leaf({2, 3, 2, 2, 3})}));
}

TEST_F(ConvGradTest, OutputPaddingBeyondStrideWithinDilation) {
  EXPECT_TRUE(gradcheck(
      [](const variable_list& v) {
        return F::conv_transpose2d(v[0], v[1], Variable(), {1}, {0}, {1}, 1, {2});
      },
      {leaf({1, 2, 3, 3}), leaf({2, 2, 2, 2})}));
}

TEST_F(ConvGradTest, Conv2dSecondOrder) {
  EXPECT_TRUE(gradgradcheck(
      [](const variable_list& v) { return F::conv2d(v[0], v[1], v[2], {2}, 1, {1}, 2); },
      {leaf({2, 4, 5, 4}), leaf({4, 2, 3, 2}), leaf({4})}));
}

TEST_F(ConvGradTest, DepthwiseAndTransposedSecondOrder) {
  EXPECT_TRUE(gradgradcheck(
      [](const variable_list& v) { return F::conv2d(v[0], v[1], Variable(), {1}, 1, {1}, 2); },
      {leaf({1, 2, 4, 4}), leaf({4, 1, 2, 3})}));
  EXPECT_TRUE(gradgradcheck(
      [](const variable_list& v) {
        return F::conv_transpose1d(v[0], v[1], v[2], {2}, {1}, {1});
      },
      {leaf({2, 2, 4}), leaf({2, 3, 3}), leaf({3})}));
}

TEST_F(ConvGradTest, UnfoldAndFoldToSecondOrder) {
  EXPECT_TRUE(gradcheck(
      [](const variable_list& v) { return F::unfold(v[0], {2, 3}, {2, 1}, {1}, {1, 2}); },
      {leaf({2, 2, 4, 5})}));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& v) { return F::fold(v[0], {4, 5}, {2, 2}, {1}, {1}, {2}); },
      {leaf({1, 8, 9})}));
  EXPECT_TRUE(gradgradcheck(
      [](const variable_list& v) { return F::unfold(v[0], {2}) * F::unfold(v[0], {2}); },
      {leaf({1, 2, 3, 3})}));
}

TEST(ConvTest, FoldOfUnfoldCountsEachPixelsBlocks) {
  const Variable x(ones({1, 1, 3, 3}));
  const Variable counts = F::fold(F::unfold(x, {2}), {3, 3}, {2});
  EXPECT_EQ(testing::values(counts.data()), (std::vector<double>{1, 2, 1, 2, 4, 2, 1, 2, 1}));
}

TEST(ConvTest, UnfoldChecksAreReported) {
  const Variable x = float_input({2, 3, 5, 5});
  EXPECT_THROW_MSG(F::unfold(float_input({1, 2, 3, 4, 5}), {2}),
                   "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
                   "non-zero dimensions for input, but got: [1, 2, 3, 4, 5]");
  EXPECT_THROW_MSG(F::unfold(x, {0}),
                   "kernel size should be greater than zero, but got kernel_height: 0 "
                   "kernel_width: 0");
  EXPECT_THROW_MSG(F::unfold(x, {2}, {1}, {0}, {0}),
                   "stride should be greater than zero, but got stride_height: 0 stride_width: 0");
  EXPECT_THROW_MSG(F::unfold(x, {2}, {0}),
                   "dilation should be greater than zero, but got dilation_height: 0 "
                   "dilation_width: 0");
  EXPECT_THROW_MSG(F::unfold(x, {2}, {1}, {-1}),
                   "padding should be non-negative, but got pad_height: -1 pad_width: -1");
  EXPECT_THROW_MSG(F::unfold(x, {7}),
                   "Given input with spatial size (5, 5), kernel_size=(7, 7), dilation=(1, 1), "
                   "padding=(0, 0), calculated shape of the array of sliding blocks as (-1, -1), "
                   "but its components must be at least one.");
  EXPECT_THROW_MSG(F::unfold(x, {2, 2, 2}), "It is expected kernel_size equals to 2, but got size 3");
}

TEST(ConvTest, FoldChecksAreReported) {
  EXPECT_THROW_MSG(F::fold(float_input({2, 11, 20}), {5, 6}, {2}),
                   "Expected size of input's dimension 1 to be divisible by the product of "
                   "kernel_size, but got input.size(1)=11 and kernel_size=(2, 2).");
  EXPECT_THROW_MSG(F::fold(float_input({2, 12, 21}), {5, 6}, {2}),
                   "Given output_size=(5, 6), kernel_size=(2, 2), dilation=(1, 1), padding=(0, "
                   "0), stride=(1, 1), expected size of input's dimension 2 to match the "
                   "calculated number of sliding blocks 4 * 5 = 20, but got input.size(2)=21.");
  EXPECT_THROW_MSG(F::fold(float_input({2, 12, 20, 1}), {5, 6}, {2}),
                   "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size "
                   "and non-zero dimensions for input, but got: [2, 12, 20, 1]");
}

TEST(ConvTest, FoldRejectsAnOutputSizeOfThreeDims) {
  EXPECT_THROW_MSG(F::fold(float_input({2, 12, 20}), {5, 6, 7}, {2}),
                   "It is expected output_size equals to 2, but got size 3");
}

// The autograd backward only asks for the weight gradient of an
// untransposed convolution, with a grad_output that fits: these checks are
// reached through the tensor-level function.
/// A 2-d convolution's parameters: stride 1, no padding, no dilation.
ConvParams plain_params_2d() {
  ConvParams params;
  params.stride = {1, 1};
  params.padding = {0, 0};
  params.dilation = {1, 1};
  params.output_padding = {0, 0};
  return params;
}

TEST(ConvTest, ConvolutionBackwardWeightRejectsTransposedParams) {
  ConvParams params = plain_params_2d();
  params.transposed = true;
  EXPECT_THROW_MSG(convolution_backward_weight(randn({1, 1, 4, 4}), randn({1, 1, 2, 2}),
                                               {1, 1, 3, 3}, params),
                   "convolution_backward_weight: expects the parameters of a convolution that "
                   "is not transposed");
}

TEST(ConvTest, ConvolutionBackwardWeightRejectsAGradOutputLargerThanTheOutput) {
  const ConvParams params = plain_params_2d();
  EXPECT_THROW_MSG(convolution_backward_weight(randn({1, 1, 4, 4}), randn({1, 1, 3, 3}),
                                               {1, 1, 3, 3}, params),
                   "convolution_backward: expected grad_output of size at most [1, 1, 2, 2], "
                   "got [1, 1, 3, 3]");
}

TEST(ConvTest, OutputShapesFollowPyTorch) {
  EXPECT_EQ(F::conv2d(float_input({64, 1, 28, 28}), float_input({6, 1, 5, 5}), Variable(), {1}, 2)
                .sizes(),
            IntArrayRef({64, 6, 28, 28}));
  EXPECT_EQ(F::conv2d(float_input({2, 3, 9, 8}), float_input({4, 3, 3, 3}), Variable(), {2}, 1)
                .sizes(),
            IntArrayRef({2, 4, 5, 4}));
  EXPECT_EQ(F::conv2d(float_input({3, 8, 8}), float_input({6, 3, 3, 3})).sizes(),
            IntArrayRef({6, 6, 6}));
  EXPECT_EQ(F::conv_transpose2d(float_input({3, 8, 8}), float_input({3, 2, 3, 3})).sizes(),
            IntArrayRef({2, 10, 10}));
  EXPECT_EQ(F::conv2d(float_input({0, 3, 8, 8}), float_input({6, 3, 3, 3})).sizes(),
            IntArrayRef({0, 6, 6, 6}));
}

TEST(ConvTest, Float32AgreesWithFloat64) {
  manual_seed(1);
  const Variable x = float_input({4, 8, 12, 11}), w = float_input({16, 8, 3, 3});
  const Variable b = float_input({16});
  const Variable out = F::conv2d(x, w, b, {1}, 1);
  const Variable ref = F::conv2d(Variable(x.data().to(kFloat64)), Variable(w.data().to(kFloat64)),
                                 Variable(b.data().to(kFloat64)), {1}, 1);
  EXPECT_TRUE(testing::all_close(out.data(), ref.data().to(kFloat32), 1e-4, 1e-4));
}

// Float convolutions take vector loops that float64 ones do not: im2col's
// rows move with masked loads at stride 1 (Note [Row tables]), with at most
// 16 output channels the products run in AVX2 tiles on one thread (Note
// [Small GEMMs]; more channels, or several threads per product, take
// Eigen), and where output rows fill 5/8 of their tiles the forward and
// the weight gradient read the input in place (Note [Implicit columns]:
// the forward for widths 10 and more here, the weight gradient of at most 8
// channels for widths 6 and more; width 4 and stride 2 take im2col), and
// with 9 to 16 channels both read it through tables at any width and
// stride (Notes [Transposed forward tiles], [Implicit weight gradient]).
// Output rows narrower than 8, of exactly 8, wider and not a multiple of 8,
// with and without padding, strided and dilated, partial tiles, a row
// stride other than the width's, on one thread and on all: the forward and
// both gradients agree with float64.
TEST(ConvTest, Float32VectorPathsAgreeWithFloat64ForwardAndBackward) {
  manual_seed(5);
  struct Case {
    int64_t cin, cout, size, kernel, stride, padding, dilation;
    int64_t stride_h = 0;  // 0: stride
  };
  for (const int threads : {1, 0}) {
    set_num_threads(threads);
    for (const Case& c : {Case{1, 6, 28, 5, 1, 2, 1}, Case{6, 16, 14, 5, 1, 0, 1},
                          Case{3, 4, 9, 2, 1, 0, 1}, Case{2, 3, 6, 3, 1, 1, 1},
                          Case{2, 3, 11, 3, 2, 1, 1}, Case{2, 2, 12, 3, 1, 2, 2},
                          Case{3, 20, 7, 3, 1, 1, 1}, Case{2, 5, 16, 3, 1, 0, 2},
                          Case{2, 3, 20, 3, 1, 1, 1}, Case{1, 7, 40, 3, 1, 1, 1},
                          Case{2, 4, 16, 3, 1, 1, 1, 2}, Case{2, 12, 16, 3, 1, 1, 1, 3},
                          Case{2, 3, 4, 3, 1, 1, 1}, Case{4, 9, 12, 5, 1, 2, 1},
                          Case{9, 8, 16, 3, 1, 1, 1}}) {
      const Tensor x = randn({2, c.cin, c.size, c.size});
      const Tensor w = randn({c.cout, c.cin, c.kernel, c.kernel});
      const int64_t stride_h = c.stride_h != 0 ? c.stride_h : c.stride;
      auto out_size = [&](int64_t stride) {
        return (c.size + 2 * c.padding - c.dilation * (c.kernel - 1) - 1) / stride + 1;
      };
      const Tensor grad = randn({2, c.cout, out_size(stride_h), out_size(c.stride)});
      std::ostringstream what;
      what << "threads " << threads << ", case " << c.cin << "->" << c.cout << " " << c.size
           << " k" << c.kernel << " s" << stride_h << "," << c.stride << " p" << c.padding
           << " d" << c.dilation;
      expect_float32_agrees(
          x, w, grad,
          [&](const Variable& xv, const Variable& wv) {
            return F::conv2d(xv, wv, Variable(), {stride_h, c.stride}, c.padding, {c.dilation});
          },
          what.str());
    }
  }
  set_num_threads(0);
}

// The table-read tiles of 9 to 16 channels (Notes [Implicit weight
// gradient] and [Transposed forward tiles]) and col2im by input row (Note
// [Column sums by input row]) in three dims (kernel depth 3, stride and
// padding along it) and in one, on one thread and on all: float agrees
// with float64, forward and both gradients.
TEST(ConvTest, Float32TiledPathsAgreeWithFloat64In3dAnd1d) {
  manual_seed(10);
  for (const int threads : {1, 0}) {
    set_num_threads(threads);
    const Tensor b3 = randn({12}), b1 = randn({14});
    expect_float32_agrees(
        randn({2, 3, 6, 7, 9}), randn({12, 3, 3, 2, 3}), randn({2, 12, 3, 8, 9}),
        [&](const Variable& x, const Variable& w) {
          return F::conv3d(x, w, Variable(b3.to(x.dtype())), {2, 1, 1}, {1, 1, 1});
        },
        "conv3d");
    expect_float32_agrees(
        randn({3, 5, 30}), randn({14, 5, 4}), randn({3, 14, 15}),
        [&](const Variable& x, const Variable& w) {
          return F::conv1d(x, w, Variable(b1.to(x.dtype())), {2}, 1);
        },
        "conv1d");
    // Rows of 14: the input gradient by input row (Note [Input gradient by
    // input row]).
    expect_float32_agrees(
        randn({2, 5, 14}), randn({7, 5, 3}), randn({2, 7, 14}),
        [&](const Variable& x, const Variable& w) { return F::conv1d(x, w, Variable(), {1}, 1); },
        "conv1d by input row");
  }
  set_num_threads(0);
}

// The weight gradient's dot tiles end a run of 28 with the 8 elements before
// its end, zeroing in both operands the lanes already summed (Note [Small
// GEMMs]): an infinite input there still gives the infinite gradient
// float64 gives, not 0 x inf = NaN.
TEST(ConvTest, Float32WeightGradientOfAnInfiniteInputIsInfiniteNotNan) {
  manual_seed(9);
  Tensor x = randn({2, 1, 28, 28});
  x.select(0, 1).select(0, 0).select(0, 5).select(0, 22).fill_(
      std::numeric_limits<float>::infinity());  // sample 1, row 5, column 22
  const Tensor w = randn({6, 1, 5, 5}), grad = randn({2, 6, 28, 28});
  const ConvCall conv = [](const Variable& xv, const Variable& wv) {
    return F::conv2d(xv, wv, Variable(), {1}, 2);
  };
  const Tensor single = conv_and_grads(kFloat32, x, w, grad, conv)[2];
  const Tensor ref = conv_and_grads(kFloat64, x, w, grad, conv)[2];
  EXPECT_GT(isinf(ref).sum().item<int64_t>(), 0);
  EXPECT_TRUE(testing::all_close(single, ref.to(kFloat32), 1e-4, 1e-3));
}

// Groups select their own weights, input planes and tap offsets in the
// vector paths (Note [Implicit columns] with 3 channels per group, Note
// [Weight gradient tiles] with 12): float agrees with float64.
TEST(ConvTest, Float32GroupedVectorPathsAgreeWithFloat64) {
  manual_seed(6);
  for (const int64_t cout : {6, 24}) {
    const Tensor x = randn({4, 4, 12, 12}), w = randn({cout, 2, 3, 3});
    const Tensor grad = randn({4, cout, 12, 12});
    expect_float32_agrees(
        x, w, grad,
        [](const Variable& xv, const Variable& wv) {
          return F::conv2d(xv, wv, Variable(), {1}, 1, {1}, 2);
        },
        std::to_string(cout) + " channels");
  }
}

// With 9 to 16 output channels per group, the float forward and weight
// gradient read the input through tables of tap and window offsets instead
// of im2col's matrix (Notes [Transposed forward tiles] and [Implicit weight
// gradient]), and col2im sums the input gradient's columns by input row
// (Note [Column sums by input row]), except where input rows fit one tile
// (Note [Input gradient by input row]). Each result is a chain of fused
// multiply-adds in a fixed order: the forward from the bias over (c, kh,
// kw); the weight gradient from 0 over the samples and then the output
// positions; the input gradient's columns from 0 over the output channels,
// summed over (kh, kw), or by input row each element from 0 over (kh, o,
// kw) for the kh whose output row exists, the taps beyond the row's ends
// multiplying zeros. On one thread that is exactly these loops, bit for
// bit: LeNet's second layer (by input row), a strided, padded, dilated,
// grouped case with partial tiles, two padded ones with odd channel
// counts, and a padded one by input row with 9 channels (tiles of 6 and 3).
TEST(ConvTest, Float32TiledPathsSumInOrderBitForBit) {
  manual_seed(8);
  struct Case {
    int64_t batch, cin, cout, size, kernel, stride, padding, dilation, groups;
  };
  set_num_threads(1);
  // The last two sum the input gradient's columns of an odd number of
  // channels (two planes at a time and one alone) into rows of 7 and of 20.
  for (const Case& c : {Case{3, 6, 16, 14, 5, 1, 0, 1, 1}, Case{2, 4, 24, 9, 3, 2, 2, 2, 2},
                        Case{2, 3, 16, 7, 5, 1, 2, 1, 1}, Case{2, 5, 12, 20, 5, 1, 1, 1, 1},
                        Case{2, 9, 10, 12, 3, 1, 1, 1, 1}}) {
    const int64_t out = (c.size + 2 * c.padding - c.dilation * (c.kernel - 1) - 1) / c.stride + 1;
    const int64_t cin_g = c.cin / c.groups, cout_g = c.cout / c.groups;
    const Tensor x = randn({c.batch, c.cin, c.size, c.size});
    const Tensor w = randn({c.cout, cin_g, c.kernel, c.kernel}), b = randn({c.cout});
    const Tensor gy = randn({c.batch, c.cout, out, out});
    const Variable xv(x, true), wv(w, true);
    const Variable y =
        F::conv2d(xv, wv, Variable(b), {c.stride}, c.padding, {c.dilation}, c.groups);
    y.backward(Variable(gy));
    const float* xs = static_cast<const float*>(x.data_ptr());
    const float* ws = static_cast<const float*>(w.data_ptr());
    const float* bs = static_cast<const float*>(b.data_ptr());
    const float* gs = static_cast<const float*>(gy.data_ptr());
    // The input position a tap of an output position reads, or -1 in the padding.
    auto input_at = [&](int64_t o, int64_t k) {
      const int64_t i = o * c.stride - c.padding + k * c.dilation;
      return i >= 0 && i < c.size ? i : -1;
    };
    auto x_at = [&](int64_t n, int64_t ch, int64_t ih, int64_t iw) {
      return ih < 0 || iw < 0 ? 0.0f : xs[((n * c.cin + ch) * c.size + ih) * c.size + iw];
    };
    std::vector<float> want_y(static_cast<size_t>(y.numel()));
    std::vector<float> want_gw(static_cast<size_t>(w.numel()));
    std::vector<float> want_gx(static_cast<size_t>(x.numel()), 0.0f);
    for (int64_t n = 0; n < c.batch; ++n) {
      for (int64_t oc = 0; oc < c.cout; ++oc) {
        const int64_t first = oc / cout_g * cin_g;
        for (int64_t oh = 0; oh < out; ++oh) {
          for (int64_t ow = 0; ow < out; ++ow) {
            float acc = bs[oc];
            for (int64_t ci = 0; ci < cin_g; ++ci) {
              for (int64_t kh = 0; kh < c.kernel; ++kh) {
                for (int64_t kw = 0; kw < c.kernel; ++kw) {
                  acc = std::fma(x_at(n, first + ci, input_at(oh, kh), input_at(ow, kw)),
                                 ws[((oc * cin_g + ci) * c.kernel + kh) * c.kernel + kw], acc);
                }
              }
            }
            want_y[static_cast<size_t>(((n * c.cout + oc) * out + oh) * out + ow)] = acc;
          }
        }
      }
    }
    for (int64_t oc = 0; oc < c.cout; ++oc) {
      const int64_t first = oc / cout_g * cin_g;
      for (int64_t ci = 0; ci < cin_g; ++ci) {
        for (int64_t kh = 0; kh < c.kernel; ++kh) {
          for (int64_t kw = 0; kw < c.kernel; ++kw) {
            float acc = 0.0f;
            for (int64_t n = 0; n < c.batch; ++n) {
              for (int64_t oh = 0; oh < out; ++oh) {
                for (int64_t ow = 0; ow < out; ++ow) {
                  acc = std::fma(x_at(n, first + ci, input_at(oh, kh), input_at(ow, kw)),
                                 gs[((n * c.cout + oc) * out + oh) * out + ow], acc);
                }
              }
            }
            want_gw[static_cast<size_t>(((oc * cin_g + ci) * c.kernel + kh) * c.kernel + kw)] =
                0.0f + acc;
          }
        }
      }
    }
    const bool by_input_row = c.stride == 1 && c.dilation == 1 && c.groups == 1 &&
                              c.size <= 16 && out >= 10;
    // The output-gradient element an input position takes through a tap, or
    // 0 beyond the output's edges.
    auto gy_at = [&](int64_t n, int64_t oc, int64_t oh, int64_t ow) {
      return oh < 0 || oh >= out || ow < 0 || ow >= out
                 ? 0.0f
                 : gs[((n * c.cout + oc) * out + oh) * out + ow];
    };
    for (int64_t n = 0; by_input_row && n < c.batch; ++n) {
      for (int64_t ch = 0; ch < c.cin; ++ch) {
        for (int64_t ih = 0; ih < c.size; ++ih) {
          for (int64_t iw = 0; iw < c.size; ++iw) {
            float acc = 0.0f;
            for (int64_t kh = 0; kh < c.kernel; ++kh) {
              const int64_t oh = ih + c.padding - kh;
              if (oh < 0 || oh >= out) continue;
              for (int64_t oc = 0; oc < c.cout; ++oc) {
                for (int64_t kw = 0; kw < c.kernel; ++kw) {
                  acc = std::fma(ws[((oc * c.cin + ch) * c.kernel + kh) * c.kernel + kw],
                                 gy_at(n, oc, oh, iw + c.padding - kw), acc);
                }
              }
            }
            want_gx[static_cast<size_t>(((n * c.cin + ch) * c.size + ih) * c.size + iw)] = acc;
          }
        }
      }
    }
    for (int64_t n = 0; !by_input_row && n < c.batch; ++n) {
      for (int64_t ch = 0; ch < c.cin; ++ch) {
        const int64_t grp = ch / cin_g, ci = ch % cin_g;
        for (int64_t kh = 0; kh < c.kernel; ++kh) {
          for (int64_t kw = 0; kw < c.kernel; ++kw) {
            for (int64_t oh = 0; oh < out; ++oh) {
              for (int64_t ow = 0; ow < out; ++ow) {
                const int64_t ih = input_at(oh, kh), iw = input_at(ow, kw);
                if (ih < 0 || iw < 0) continue;
                float column = 0.0f;
                for (int64_t o = 0; o < cout_g; ++o) {
                  const int64_t oc = grp * cout_g + o;
                  column = std::fma(ws[((oc * cin_g + ci) * c.kernel + kh) * c.kernel + kw],
                                    gs[((n * c.cout + oc) * out + oh) * out + ow], column);
                }
                want_gx[static_cast<size_t>(((n * c.cin + ch) * c.size + ih) * c.size + iw)] +=
                    column;
              }
            }
          }
        }
      }
    }
    auto mismatches = [](const Tensor& got, const std::vector<float>& want) {
      const Tensor dense = got.contiguous();
      return std::memcmp(dense.data_ptr(), want.data(), want.size() * sizeof(float)) != 0;
    };
    EXPECT_FALSE(mismatches(y.data(), want_y)) << c.cin << "->" << c.cout << " forward";
    EXPECT_FALSE(mismatches(wv.grad().data(), want_gw)) << c.cin << "->" << c.cout << " weight";
    EXPECT_FALSE(mismatches(xv.grad().data(), want_gx)) << c.cin << "->" << c.cout << " input";
  }
  set_num_threads(0);
}

// With at most 8 output channels the float forward reads the input in place
// through tables, each output row a tile's 16 columns (Note [Implicit
// columns]); with AVX-512 and at most 6 channels two output rows at a time
// (Note [Tiles in pairs]). Each output is one chain of fused multiply-adds
// from its bias over (c, kh, kw), on one thread exactly this loop, bit for
// bit: LeNet's first layer (28 rows, a partial second tile of 12 columns),
// an odd number of output rows (the last one alone), and 4 channels with
// padding and dilation.
TEST(ConvTest, Float32ForwardOfFewChannelsSumsInOrderBitForBit) {
  manual_seed(9);
  struct Case {
    int64_t cin, cout, height, width, kernel, padding, dilation;
  };
  set_num_threads(1);
  for (const Case& c : {Case{1, 6, 28, 28, 5, 2, 1}, Case{2, 5, 13, 14, 3, 0, 1},
                        Case{3, 4, 12, 26, 3, 2, 2}}) {
    const int64_t oh_n = c.height + 2 * c.padding - c.dilation * (c.kernel - 1);
    const int64_t ow_n = c.width + 2 * c.padding - c.dilation * (c.kernel - 1);
    const Tensor x = randn({2, c.cin, c.height, c.width});
    const Tensor w = randn({c.cout, c.cin, c.kernel, c.kernel}), b = randn({c.cout});
    const Tensor y = F::conv2d(Variable(x), Variable(w), Variable(b), {1}, c.padding,
                               {c.dilation})
                         .data()
                         .contiguous();
    ASSERT_EQ(y.sizes(), (std::vector<int64_t>{2, c.cout, oh_n, ow_n}));
    const float* xs = static_cast<const float*>(x.data_ptr());
    const float* ws = static_cast<const float*>(w.data_ptr());
    const float* bs = static_cast<const float*>(b.data_ptr());
    std::vector<float> want(static_cast<size_t>(y.numel()));
    for (int64_t n = 0; n < 2; ++n) {
      for (int64_t oc = 0; oc < c.cout; ++oc) {
        for (int64_t oh = 0; oh < oh_n; ++oh) {
          for (int64_t ow = 0; ow < ow_n; ++ow) {
            float acc = bs[oc];
            for (int64_t ci = 0; ci < c.cin; ++ci) {
              for (int64_t kh = 0; kh < c.kernel; ++kh) {
                for (int64_t kw = 0; kw < c.kernel; ++kw) {
                  const int64_t ih = oh - c.padding + kh * c.dilation;
                  const int64_t iw = ow - c.padding + kw * c.dilation;
                  const bool inside = ih >= 0 && ih < c.height && iw >= 0 && iw < c.width;
                  const float xv =
                      inside ? xs[((n * c.cin + ci) * c.height + ih) * c.width + iw] : 0.0f;
                  acc = std::fma(xv, ws[((oc * c.cin + ci) * c.kernel + kh) * c.kernel + kw], acc);
                }
              }
            }
            want[static_cast<size_t>(((n * c.cout + oc) * oh_n + oh) * ow_n + ow)] = acc;
          }
        }
      }
    }
    EXPECT_EQ(std::memcmp(y.data_ptr(), want.data(), want.size() * sizeof(float)), 0)
        << c.cin << "->" << c.cout << " on " << c.height << "x" << c.width;
  }
  set_num_threads(0);
}

// A float 3x3 convolution with stride 1, one group and at least 16
// channels in and out takes Winograd's F(2x2, 3x3) forward (Note [Winograd
// convolution]): odd and even output sizes (a partial last tile), no, one
// and two pixels of padding, with and without bias, several blocks of tile
// rows per sample (60 rows), a 3-d convolution with a kernel depth of 1, on
// one thread and on all: the forward and the input gradient (the same
// algorithm over the flipped kernel, padded by 2 - p) agree with float64,
// whose loops are im2col + GEMM.
TEST(ConvTest, Float32WinogradAgreesWithFloat64) {
  manual_seed(7);
  struct Case {
    int64_t batch, cin, cout, height, width, padding;
    bool bias;
  };
  for (const int threads : {1, 0}) {
    set_num_threads(threads);
    for (const Case& c : {Case{2, 16, 16, 8, 8, 1, true}, Case{1, 17, 24, 7, 9, 0, false},
                          Case{3, 16, 20, 5, 6, 2, true}, Case{1, 32, 16, 60, 13, 1, true},
                          Case{2, 16, 16, 3, 3, 1, false}, Case{1, 16, 18, 4, 30, 0, true}}) {
      const Tensor x = randn({c.batch, c.cin, c.height, c.width});
      const Tensor w = randn({c.cout, c.cin, 3, 3});
      const Tensor b = c.bias ? randn({c.cout}) : Tensor();
      const int64_t oh = c.height + 2 * c.padding - 2, ow = c.width + 2 * c.padding - 2;
      const Tensor grad = randn({c.batch, c.cout, oh, ow});
      auto run = [&](DType dtype) {
        const Variable xv(x.to(dtype), true);
        const Variable out = F::conv2d(xv, Variable(w.to(dtype)),
                                       c.bias ? Variable(b.to(dtype)) : Variable(), {1}, c.padding);
        out.backward(Variable(grad.to(dtype)));
        return std::vector<Tensor>{out.data(), xv.grad().data()};
      };
      const std::vector<Tensor> single = run(kFloat32), ref = run(kFloat64);
      for (size_t i = 0; i < single.size(); ++i) {
        EXPECT_TRUE(testing::all_close(single[i], ref[i].to(kFloat32), 1e-4, 1e-3))
            << "threads " << threads << ", " << c.cin << "->" << c.cout << " " << c.height << "x"
            << c.width << " p" << c.padding << ", tensor " << i;
      }
    }
  }
  set_num_threads(0);
  const Tensor x = randn({2, 16, 1, 9, 7}), w = randn({16, 16, 1, 3, 3});
  const Tensor out = F::conv3d(Variable(x), Variable(w), Variable(), {1}, {0, 1, 1}).data();
  const Tensor ref = F::conv3d(Variable(x.to(kFloat64)), Variable(w.to(kFloat64)), Variable(),
                               {1}, {0, 1, 1})
                         .data();
  EXPECT_TRUE(testing::all_close(out, ref.to(kFloat32), 1e-4, 1e-3));
}

// A float depthwise 3x3 convolution with stride 1 keeps its weights in
// registers and computes two output rows at once (depthwise3x3_avx2 in
// tensor/cpu/conv_kernels.cc): odd and even output heights (a last row
// alone), widths below, at and above a vector of 8, padding 0 to 2, a
// channel multiplier, with and without bias: it agrees with float64, whose
// loops go tap by tap.
TEST(ConvTest, Float32Depthwise3x3AgreesWithFloat64) {
  manual_seed(8);
  struct Case {
    int64_t channels, multiplier, height, width, padding;
    bool bias;
  };
  for (const Case& c : {Case{4, 1, 7, 5, 1, true}, Case{3, 2, 10, 8, 0, false},
                        Case{2, 1, 9, 19, 2, true}, Case{5, 1, 3, 3, 1, false},
                        Case{2, 3, 16, 56, 1, true}}) {
    const Tensor x = randn({2, c.channels, c.height, c.width});
    const Tensor w = randn({c.channels * c.multiplier, 1, 3, 3});
    const Tensor b = c.bias ? randn({c.channels * c.multiplier}) : Tensor();
    auto run = [&](DType dtype) {
      return F::conv2d(Variable(x.to(dtype)), Variable(w.to(dtype)),
                       c.bias ? Variable(b.to(dtype)) : Variable(), {1}, c.padding, {1},
                       c.channels)
          .data();
    };
    EXPECT_TRUE(testing::all_close(run(kFloat32), run(kFloat64).to(kFloat32), 1e-5, 1e-4))
        << c.channels << "x" << c.multiplier << " channels, " << c.height << "x" << c.width
        << " p" << c.padding;
  }
}

TEST(ConvTest, BatchedSamplesMatchOneByOne) {
  manual_seed(2);
  const Variable x = float_input({5, 4, 7, 7}), w = float_input({6, 4, 3, 3});
  const Variable out = F::conv2d(x, w, Variable(), {1}, 1);
  for (int64_t n = 0; n < 5; ++n) {
    const Variable one = F::conv2d(Variable(x.data().select(0, n)), w, Variable(), {1}, 1);
    EXPECT_TRUE(testing::all_close(out.data().select(0, n), one.data(), 1e-5, 1e-5));
  }
}

TEST(ConvTest, NonContiguousInputIsRead) {
  manual_seed(3);
  const Tensor base = randn({2, 6, 5, 3});
  const Variable x(base.permute({0, 1, 3, 2}));
  const Variable w = float_input({2, 6, 2, 2});
  EXPECT_TRUE(testing::all_close(F::conv2d(x, w).data(),
                                 F::conv2d(Variable(x.data().contiguous()), w).data()));
}

TEST(ConvTest, WrongInputRankNamesTheOp) {
  EXPECT_THROW_MSG(F::conv2d(float_input({1, 28, 28, 1, 1}), float_input({6, 1, 5, 5})),
                   "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of "
                   "size: [1, 28, 28, 1, 1]");
  EXPECT_THROW_MSG(F::conv1d(float_input({2, 3, 8, 8}), float_input({6, 3, 3})),
                   "Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of "
                   "size: [2, 3, 8, 8]");
  EXPECT_THROW_MSG(F::conv_transpose2d(float_input({1, 3, 8, 8, 8}), float_input({3, 2, 3, 3})),
                   "Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got "
                   "input of size: [1, 3, 8, 8, 8]");
}

TEST(ConvTest, ChannelMismatchIsReported) {
  EXPECT_THROW_MSG(F::conv2d(float_input({64, 3, 28, 28}), float_input({6, 1, 5, 5})),
                   "Given groups=1, weight of size [6, 1, 5, 5], expected input[64, 3, 28, 28] to "
                   "have 1 channels, but got 3 channels instead");
  EXPECT_THROW_MSG(F::conv_transpose2d(float_input({2, 3, 8, 8}), float_input({4, 2, 3, 3})),
                   "Given transposed=1, weight of size [4, 2, 3, 3], expected input[2, 3, 8, 8] "
                   "to have 4 channels, but got 3 channels instead");
}

TEST(ConvTest, KernelLargerThanPaddedInputIsReported) {
  EXPECT_THROW_MSG(F::conv2d(float_input({1, 1, 2, 2}), float_input({6, 1, 5, 5})),
                   "Calculated padded input size per channel: (2 x 2). Kernel size: (5 x 5). "
                   "Kernel size can't be greater than actual input size");
}

TEST(ConvTest, TransposedOutputTooSmallIsReported) {
  EXPECT_THROW_MSG(F::conv_transpose2d(float_input({1, 3, 1, 1}), float_input({3, 3, 3, 3}),
                                       Variable(), {1}, {2}),
                   "Given input size per channel: (1 x 1). Calculated output size per channel: "
                   "(-1 x -1). Output size is too small");
}

TEST(ConvTest, BadParametersAreReported) {
  const Variable x = float_input({2, 3, 8, 8}), w = float_input({6, 3, 3, 3});
  EXPECT_THROW_MSG(F::conv2d(x, w, Variable(), {0}), "non-positive stride is not supported");
  EXPECT_THROW_MSG(F::conv2d(x, w, Variable(), {1}, -1), "negative padding is not supported");
  EXPECT_THROW_MSG(F::conv2d(x, w, Variable(), {1}, 0, {0}),
                   "non-positive dilation is not supported");
  EXPECT_THROW_MSG(F::conv2d(x, w, Variable(), {1}, 0, {1}, 0),
                   "non-positive groups is not supported");
  EXPECT_THROW_MSG(F::conv2d(x, w, Variable(), {1, 1, 1}),
                   "expected stride to be a single integer value or a list of 2 values to match "
                   "the convolution dimensions, but got stride=[1, 1, 1]");
  EXPECT_THROW_MSG(F::conv2d(x, w, Variable(), {1}, {1, 2, 3}),
                   "expected padding to be a single integer value or a list of 2 values to match "
                   "the convolution dimensions, but got padding=[1, 2, 3]");
  EXPECT_THROW_MSG(F::conv_transpose2d(x, float_input({3, 2, 3, 3}), Variable(), {2}, {0}, {-1}),
                   "negative output_padding is not supported");
}

TEST(ConvTest, WeightShapeErrorsAreReported) {
  const Variable x = float_input({2, 3, 8, 8});
  EXPECT_THROW_MSG(F::conv1d(float_input({2, 3, 8}), float_input({6, 3})),
                   "weight should have at least three dimensions");
  EXPECT_THROW_MSG(F::conv2d(x, float_input({6, 1, 3, 3}), Variable(), {1}, 0, {1}, 4),
                   "Given groups=4, expected weight to be divisible by 4 at dimension 0, but got "
                   "weight of size [[6, 1, 3, 3]] instead");
  EXPECT_THROW_MSG(F::conv2d(x, float_input({0, 3, 3, 3})),
                   "Given groups=1, expected weight to be at least 1 at dimension 0, but got "
                   "weight of size [0, 3, 3, 3] instead");
  EXPECT_THROW_MSG(F::conv3d(float_input({1, 3, 8, 8, 8}), float_input({6, 3, 3, 3})),
                   "Expected 4-dimensional input for 4-dimensional weight [6, 3, 3, 3], but got "
                   "5-dimensional input of size [1, 3, 8, 8, 8] instead");
}

TEST(ConvTest, BiasShapeErrorsAreReported) {
  const Variable x = float_input({2, 3, 8, 8});
  EXPECT_THROW_MSG(F::conv2d(x, float_input({6, 3, 3, 3}), float_input({5})),
                   "Given weight of size [6, 3, 3, 3], expected bias to be 1-dimensional with 6 "
                   "elements, but got bias of size [5] instead");
  EXPECT_THROW_MSG(F::conv_transpose2d(x, float_input({3, 2, 3, 3}), float_input({3})),
                   "Given transposed=1, weight of size [3, 2, 3, 3], expected bias to be "
                   "1-dimensional with 2 elements, but got bias of size [3] instead");
}

TEST(ConvTest, DtypeMismatchesAreReported) {
  const Variable x = float_input({2, 3, 8, 8});
  const Variable doubles(randn({2, 3, 8, 8}, TensorOptions(kFloat64)));
  // PyTorch 1.13's CPU messages: the bias is checked first, with its own.
  EXPECT_THROW_MSG(F::conv2d(x, Variable(randn({6, 3, 3, 3}, TensorOptions(kFloat64)))),
                   "expected scalar type Float but found Double");
  EXPECT_THROW_MSG(F::conv2d(doubles, float_input({6, 3, 3, 3})),
                   "expected scalar type Double but found Float");
  EXPECT_THROW_MSG(F::conv1d(Variable(randn({1, 3, 8}, TensorOptions(kFloat64))),
                             float_input({6, 3, 3})),
                   "expected scalar type Double but found Float");
  EXPECT_THROW_MSG(F::conv2d(x, float_input({6, 3, 3, 3}),
                             Variable(randn({6}, TensorOptions(kFloat64)))),
                   "Input type (float) and bias type (double) should be the same");
  EXPECT_THROW_MSG(F::conv2d(doubles, float_input({6, 3, 3, 3}), float_input({6})),
                   "Input type (double) and bias type (float) should be the same");
  EXPECT_THROW_MSG(F::conv2d(Variable(ones({1, 3, 8, 8}, TensorOptions(kInt64))),
                             float_input({6, 3, 3, 3})),
                   "expected scalar type Long but found Float");
  EXPECT_THROW_MSG(F::conv2d(Variable(ones({1, 3, 8, 8}, TensorOptions(kInt64))),
                             float_input({6, 3, 3, 3}), float_input({6})),
                   "Input type (long int) and bias type (float) should be the same");
  // A transposed convolution has no bias message of its own.
  EXPECT_THROW_MSG(F::conv_transpose2d(doubles, float_input({3, 2, 3, 3}), float_input({2})),
                   "expected scalar type Double but found Float");
  EXPECT_THROW_MSG(F::conv_transpose2d(x, float_input({3, 2, 3, 3}),
                                       Variable(randn({2}, TensorOptions(kFloat64)))),
                   "expected scalar type Float but found Double");
  EXPECT_THROW_MSG(F::conv2d(Variable(ones({1, 1, 3, 3}, TensorOptions(kInt64))),
                             Variable(ones({1, 1, 1, 1}, TensorOptions(kInt64)))),
                   "convolution: expected a floating-point input, got int64");
}

TEST(ConvTest, PaddingStringsAreChecked) {
  const Variable x = float_input({2, 3, 8, 8}), w = float_input({6, 3, 3, 3});
  EXPECT_THROW_MSG(F::conv2d(x, w, Variable(), {2}, "same"),
                   "padding='same' is not supported for strided convolutions");
  EXPECT_THROW_MSG(F::conv2d(x, w, Variable(), {1}, "foo"), "Invalid padding string: 'foo'");
  EXPECT_EQ(F::conv2d(x, w, Variable(), {1}, "valid").sizes(), IntArrayRef({2, 6, 6, 6}));
  EXPECT_EQ(F::conv2d(x, w, Variable(), {1}, "same").sizes(), IntArrayRef({2, 6, 8, 8}));
}

TEST(ConvTest, OutputPaddingMustFitStrideOrDilation) {
  EXPECT_THROW_MSG(F::conv_transpose2d(float_input({2, 3, 8, 8}), float_input({3, 2, 3, 3}),
                                       Variable(), {2}, {0}, {2}),
                   "output padding must be smaller than either stride or dilation, but got "
                   "output_padding_height: 2 output_padding_width: 2 stride_height: 2 "
                   "stride_width: 2 dilation_height: 1 dilation_width: 1");
}

TEST(ConvTest, MixedDevicesAreReported) {
  set_cpu_device_count(2);
  const Variable x(randn({1, 1, 4, 4}, Device(kCPU, 1)));
  EXPECT_THROW_MSG(F::conv2d(x, float_input({1, 1, 3, 3})),
                   "Expected all tensors to be on the same device");
  set_cpu_device_count(1);
}

}  // namespace
}  // namespace torchlet
