// pixel_shuffle and pixel_unshuffle against PyTorch 1.13
// (nn/functional/testdata/pool_golden.txt, from tools/gen_pool_golden.py),
// their gradients by finite differences, and their errors.
#include "nn/functional/upsampling.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

namespace F = nn::functional;

const Tensor& stored(const std::string& name) {
  static const auto* cases = new std::map<std::string, Tensor>(
      testing::load_golden("nn/functional/testdata/pool_golden.txt"));
  const auto it = cases->find(name);
  if (it == cases->end()) {
    ADD_FAILURE() << "no golden entry " << name;
    static const Tensor missing = zeros({0});
    return missing;
  }
  return it->second;
}

void check_case(const std::string& name, const std::function<Variable(const Variable&)>& fn,
                double tolerance = 0) {
  SCOPED_TRACE(name);
  Variable x(stored(name + ".in.x"), true);
  const Variable out = fn(x);
  EXPECT_TRUE(testing::all_close(out.data(), stored(name + ".out"), tolerance, tolerance))
      << "output";
  const variable_list grads = autograd::grad({out}, {x}, {Variable(stored(name + ".cot"))});
  EXPECT_TRUE(testing::all_close(grads[0].data(), stored(name + ".grad.x"), tolerance, tolerance))
      << "gradient";
}

F::InterpolateFuncOptions by_size(std::vector<int64_t> size) {
  return F::InterpolateFuncOptions().size(std::move(size));
}
F::InterpolateFuncOptions by_scale(std::vector<double> scale) {
  return F::InterpolateFuncOptions().scale_factor(std::move(scale));
}
std::function<Variable(const Variable&)> interpolating(F::InterpolateFuncOptions options) {
  return [options](const Variable& x) { return F::interpolate(x, options); };
}

TEST(InterpolateGolden, Nearest1dBySizeAndScale) {
  check_case("near1d_size", interpolating(by_size({7})));
  check_case("near1d_scale", interpolating(by_scale({2})));
}
TEST(InterpolateGolden, Nearest2dByScaleSizeAndShrinking) {
  check_case("near2d_scale", interpolating(by_scale({2, 3})));
  check_case("near2d_frac", interpolating(by_scale({1.5})));
  check_case("near2d_size", interpolating(by_size({5, 7})));
  check_case("near2d_down", interpolating(by_size({2, 3})));
}
TEST(InterpolateGolden, Nearest3dBySize) {
  check_case("near3d_size", interpolating(by_size({3, 5, 4})));
}
TEST(InterpolateGolden, BilinearWithAndWithoutAlignCorners) {
  const F::InterpolateMode bilinear = F::InterpolateMode::kBilinear;
  check_case("bilinear_scale", interpolating(by_scale({2}).mode(bilinear)), 1e-12);
  check_case("bilinear_corners", interpolating(by_size({5, 7}).mode(bilinear).align_corners(true)),
             1e-12);
  check_case("bilinear_down", interpolating(by_size({2, 3}).mode(bilinear)), 1e-12);
  check_case("bilinear_frac", interpolating(by_scale({1.7}).mode(bilinear)), 1e-12);
}

TEST(Interpolate, GradcheckEveryMode) {
  const F::InterpolateMode bilinear = F::InterpolateMode::kBilinear;
  const std::vector<std::pair<F::InterpolateFuncOptions, std::vector<int64_t>>> cases = {
      {by_size({5}), {1, 2, 3}},
      {by_scale({1.5, 2}), {1, 2, 3, 4}},
      {by_size({3, 4, 2}), {1, 2, 2, 3, 3}},
      {by_size({5, 4}).mode(bilinear), {2, 1, 3, 4}},
      {by_scale({1.7}).mode(bilinear).align_corners(true), {1, 2, 3, 4}},
      {by_size({2, 2}).mode(bilinear), {1, 1, 5, 3}}};
  for (const auto& [options, shape] : cases) {
    const Variable x(randn(shape, kFloat64), true);
    const auto fn = [o = options](const variable_list& v) { return F::interpolate(v[0], o); };
    EXPECT_TRUE(testing::gradcheck(fn, {x}));
    EXPECT_TRUE(testing::gradgradcheck(fn, {x}));
  }
}

TEST(InterpolateErrors, SizeAndScaleFactor) {
  const Variable x(randn({1, 1, 4, 4}));
  EXPECT_THROW_MSG(F::interpolate(x, F::InterpolateFuncOptions()),
                   "either size or scale_factor should be defined");
  EXPECT_THROW_MSG(F::interpolate(x, by_size({2}).scale_factor({2})),
                   "only one of size or scale_factor should be defined");
  EXPECT_THROW_MSG(F::interpolate(x, by_size({2, 2, 2})),
                   "Input and output must have the same number of spatial dimensions, but got "
                   "input with spatial dimensions of [4, 4] and output size of (2, 2, 2). Please "
                   "provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, "
                   "o2, ...,oK) format.");
  EXPECT_THROW_MSG(F::interpolate(x, by_scale({2, 2, 2})),
                   "Input and scale_factor must have the same number of spatial dimensions, but "
                   "got input with spatial dimensions of [4, 4] and scale_factor of shape (2.0, "
                   "2.0, 2.0).");
  EXPECT_THROW_MSG(F::interpolate(x, by_size({0})),
                   "Input and output sizes should be greater than 0, but got input (H: 4, W: 4) "
                   "output (H: 0, W: 0)");
  EXPECT_THROW_MSG(F::interpolate(Variable(randn({1, 1, 4})), by_scale({0.1})),
                   "Input and output sizes should be greater than 0, but got input (W: 4) output "
                   "(W: 0)");
}

TEST(InterpolateErrors, ModeAndRank) {
  EXPECT_THROW_MSG(F::interpolate(Variable(randn({1, 1, 4, 4})), by_size({2}).align_corners(true)),
                   "align_corners option can only be set with the interpolating modes: linear | "
                   "bilinear | bicubic | trilinear");
  EXPECT_THROW_MSG(
      F::interpolate(Variable(randn({1, 1, 4})), by_scale({2}).mode(F::InterpolateMode::kBilinear)),
      "Got 3D input, but bilinear mode needs 4D input");
  EXPECT_THROW_MSG(F::interpolate(Variable(randn({4, 4})), by_size({2})),
                   "Input Error: Only 3D, 4D and 5D input Tensors supported (got 2D) for the "
                   "modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                   "nearest-exact (got nearest)");
}

TEST(PixelShuffleGolden, ExtraBatchDim) {
  check_case("shuffle", [](const Variable& x) { return F::pixel_shuffle(x, 2); });
}

TEST(PixelShuffleGolden, UnshuffleUnbatched) {
  check_case("unshuffle", [](const Variable& x) { return F::pixel_unshuffle(x, 3); });
}

TEST(PixelShuffle, UnshuffleInvertsShuffle) {
  const Variable x(randn({2, 8, 3, 5}));
  EXPECT_TRUE(testing::all_close(F::pixel_unshuffle(F::pixel_shuffle(x, 2), 2).data(), x.data(),
                                 0, 0));
}

TEST(PixelShuffle, Gradcheck) {
  const Variable x(randn({1, 4, 2, 3}, kFloat64), true);
  EXPECT_TRUE(testing::gradcheck(
      [](const variable_list& v) { return F::pixel_shuffle(v[0], 2); }, {x}));
  const Variable y(randn({3, 4, 6}, kFloat64), true);
  EXPECT_TRUE(testing::gradcheck(
      [](const variable_list& v) { return F::pixel_unshuffle(v[0], 2); }, {y}));
}

TEST(PixelShuffleErrors, ShuffleMessages) {
  EXPECT_THROW_MSG(F::pixel_shuffle(Variable(randn({2, 2})), 2),
                   "pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                   "2 dimension(s)");
  EXPECT_THROW_MSG(F::pixel_shuffle(Variable(randn({1, 4, 2, 2})), 0),
                   "pixel_shuffle expects a positive upscale_factor, but got 0");
  EXPECT_THROW_MSG(F::pixel_shuffle(Variable(randn({1, 5, 2, 2})), 2),
                   "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
                   "square of upscale_factor, but input.size(-3)=5 is not divisible by 4");
}

TEST(PixelShuffleErrors, UnshuffleMessages) {
  EXPECT_THROW_MSG(F::pixel_unshuffle(Variable(randn({2, 2})), 2),
                   "pixel_unshuffle expects input to have at least 3 dimensions, but got input "
                   "with 2 dimension(s)");
  EXPECT_THROW_MSG(F::pixel_unshuffle(Variable(randn({1, 1, 4, 4})), 0),
                   "pixel_unshuffle expects a positive downscale_factor, but got 0");
  EXPECT_THROW_MSG(F::pixel_unshuffle(Variable(randn({1, 1, 3, 4})), 2),
                   "pixel_unshuffle expects height to be divisible by downscale_factor, but "
                   "input.size(-2)=3 is not divisible by 2");
  EXPECT_THROW_MSG(F::pixel_unshuffle(Variable(randn({1, 1, 4, 3})), 2),
                   "pixel_unshuffle expects width to be divisible by downscale_factor, but "
                   "input.size(-1)=3 is not divisible by 2");
}

}  // namespace
}  // namespace torchlet
