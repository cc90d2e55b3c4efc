// interpolate (nearest, nearest-exact, linear, bilinear, bicubic,
// trilinear, area), pixel_shuffle and pixel_unshuffle against PyTorch 1.13
// (nn/functional/testdata/pool_golden.txt, from tools/gen_pool_golden.py),
// their gradients by finite differences, and their errors.
#include "nn/functional/upsampling.h"

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
  return testing::GoldenFile::get("nn/functional/testdata/pool_golden.txt").at(name);
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

// A float32 case: the stored values are float32 ones, run in float32.
void check_case_f32(const std::string& name, const std::function<Variable(const Variable&)>& fn,
                    double tolerance = 1e-5) {
  SCOPED_TRACE(name);
  Variable x(stored(name + ".in.x").to(kFloat32), true);
  const Variable out = fn(x);
  EXPECT_EQ(out.dtype(), kFloat32);
  EXPECT_TRUE(testing::all_close(out.data().to(kFloat64), stored(name + ".out"), tolerance,
                                 tolerance))
      << "output";
  const variable_list grads =
      autograd::grad({out}, {x}, {Variable(stored(name + ".cot").to(kFloat32))});
  EXPECT_TRUE(testing::all_close(grads[0].data().to(kFloat64), stored(name + ".grad.x"),
                                 tolerance, tolerance))
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

constexpr F::InterpolateMode kLinear = F::InterpolateMode::kLinear;
constexpr F::InterpolateMode kTrilinear = F::InterpolateMode::kTrilinear;
constexpr F::InterpolateMode kBicubic = F::InterpolateMode::kBicubic;
constexpr F::InterpolateMode kArea = F::InterpolateMode::kArea;
constexpr F::InterpolateMode kExact = F::InterpolateMode::kNearestExact;

TEST(InterpolateGolden, LinearBySizeScaleAndCorners) {
  check_case("linear_size", interpolating(by_size({7}).mode(kLinear)), 1e-12);
  check_case("linear_corners", interpolating(by_size({6}).mode(kLinear).align_corners(true)),
             1e-12);
  check_case("linear_frac", interpolating(by_scale({1.7}).mode(kLinear)), 1e-12);
  check_case("linear_down", interpolating(by_size({3}).mode(kLinear)), 1e-12);
}

TEST(InterpolateGolden, TrilinearByScaleAndCorners) {
  check_case("trilinear_scale", interpolating(by_scale({1.5, 2, 0.7}).mode(kTrilinear)), 1e-12);
  check_case("trilinear_corners",
             interpolating(by_size({4, 5, 3}).mode(kTrilinear).align_corners(true)), 1e-12);
}

TEST(InterpolateGolden, BicubicWithAndWithoutAlignCorners) {
  check_case("bicubic_scale", interpolating(by_scale({2}).mode(kBicubic)), 1e-12);
  check_case("bicubic_corners", interpolating(by_size({5, 7}).mode(kBicubic).align_corners(true)),
             1e-12);
  check_case("bicubic_frac", interpolating(by_scale({1.7}).mode(kBicubic)), 1e-12);
  check_case("bicubic_down", interpolating(by_size({2, 3}).mode(kBicubic)), 1e-12);
}

TEST(InterpolateGolden, AreaIsAdaptiveAveragePooling) {
  check_case("area1d", interpolating(by_size({3}).mode(kArea)), 1e-12);
  check_case("area2d_scale", interpolating(by_scale({0.5}).mode(kArea)), 1e-12);
  check_case("area3d", interpolating(by_size({2, 3, 2}).mode(kArea)), 1e-12);
  check_case("area_up", interpolating(by_size({5, 4}).mode(kArea)), 1e-12);
}

TEST(InterpolateGolden, NearestExact) {
  check_case("exact1d", interpolating(by_size({7}).mode(kExact)));
  check_case("exact2d_frac", interpolating(by_scale({1.5}).mode(kExact)));
  check_case("exact2d_down", interpolating(by_size({2, 3}).mode(kExact)));
  check_case("exact3d", interpolating(by_size({3, 5, 4}).mode(kExact)));
  check_case("exact_scale", interpolating(by_scale({0.7}).mode(kExact)));
}

TEST(InterpolateGolden, RecomputeScaleFactorMapsBySizes) {
  check_case("linear_recompute",
             interpolating(by_scale({1.7}).mode(kLinear).recompute_scale_factor(true)), 1e-12);
  check_case("trilinear_recompute",
             interpolating(by_scale({1.5}).mode(kTrilinear).recompute_scale_factor(true)), 1e-12);
  check_case("bicubic_recompute",
             interpolating(by_scale({1.3, 0.6}).mode(kBicubic).recompute_scale_factor(true)),
             1e-12);
  check_case("near2d_recompute", interpolating(by_scale({1.5}).recompute_scale_factor(true)));
  // false is the default: the factors map the indices.
  check_case("linear_frac",
             interpolating(by_scale({1.7}).mode(kLinear).recompute_scale_factor(false)), 1e-12);
}

TEST(InterpolateGolden, LinearCopiesADimWhoseSizeIsUnchanged) {
  // scale_factor 1.1 keeps 4: PyTorch copies rather than map by 1 / 1.1.
  check_case("bilinear_same_size",
             interpolating(by_scale({1.1}).mode(F::InterpolateMode::kBilinear)), 1e-12);
}

TEST(InterpolateGolden, Float32) {
  check_case_f32("linear_f32", interpolating(by_scale({2.3}).mode(kLinear)));
  check_case_f32("trilinear_f32",
                 interpolating(by_size({3, 5, 4}).mode(kTrilinear).align_corners(true)));
  check_case_f32("bicubic_f32", interpolating(by_scale({1.6}).mode(kBicubic)));
  check_case_f32("bicubic_corners_f32",
                 interpolating(by_size({6, 4}).mode(kBicubic).align_corners(true)));
  check_case_f32("exact_f32", interpolating(by_size({5, 3}).mode(kExact)), 0);
  check_case_f32("area_f32", interpolating(by_size({3, 2}).mode(kArea)));
}

TEST(Interpolate, GradcheckNewModes) {
  const std::vector<std::pair<F::InterpolateFuncOptions, std::vector<int64_t>>> cases = {
      {by_size({7}).mode(kLinear), {2, 2, 4}},
      {by_scale({1.7}).mode(kLinear).align_corners(true), {1, 2, 5}},
      {by_size({2}).mode(kLinear), {1, 1, 5}},
      {by_scale({1.5, 2, 0.7}).mode(kTrilinear), {1, 2, 3, 2, 4}},
      {by_size({3, 2, 4}).mode(kTrilinear).align_corners(true), {1, 1, 2, 3, 2}},
      {by_scale({1.6}).mode(kBicubic), {1, 2, 3, 4}},
      {by_size({5, 2}).mode(kBicubic).align_corners(true), {2, 1, 3, 4}},
      {by_size({2, 3}).mode(kBicubic), {1, 1, 5, 6}},
      {by_scale({1.3}).mode(kBicubic).recompute_scale_factor(true), {1, 1, 3, 4}},
      {by_size({3}).mode(kArea), {1, 2, 7}},
      {by_size({2, 3}).mode(kArea), {1, 1, 5, 4}},
      {by_scale({0.7}).mode(kArea), {1, 1, 3, 4, 5}},
      {by_size({5}).mode(kExact), {1, 2, 3}},
      {by_scale({1.5}).mode(kExact), {1, 1, 3, 4}},
      {by_size({3, 2, 5}).mode(kExact), {1, 1, 2, 3, 3}}};
  for (const auto& [options, shape] : cases) {
    SCOPED_TRACE(F::interpolate_mode_name(options.mode_));
    const Variable x(randn(shape, kFloat64), true);
    const auto fn = [o = options](const variable_list& v) { return F::interpolate(v[0], o); };
    EXPECT_TRUE(testing::gradcheck(fn, {x}));
    EXPECT_TRUE(testing::gradgradcheck(fn, {x}));
  }
}

TEST(Interpolate, OutputSizes) {
  // PyTorch 1.13: floor(in * scale_factor) per dim.
  EXPECT_EQ(F::interpolate(Variable(randn({1, 1, 5})), by_scale({1.7}).mode(kLinear)).sizes(),
            IntArrayRef({1, 1, 8}));
  EXPECT_EQ(F::interpolate(Variable(randn({1, 1, 3, 4, 5})),
                           by_scale({1.5, 2, 0.7}).mode(kTrilinear))
                .sizes(),
            IntArrayRef({1, 1, 4, 8, 3}));
  EXPECT_EQ(F::interpolate(Variable(randn({2, 3, 4, 5})), by_size({7}).mode(kBicubic)).sizes(),
            IntArrayRef({2, 3, 7, 7}));
  EXPECT_EQ(F::interpolate(Variable(randn({1, 1, 5, 7})), by_scale({0.5}).mode(kArea)).sizes(),
            IntArrayRef({1, 1, 2, 3}));
}

TEST(Interpolate, GradFnNames) {
  const Variable x1(randn({1, 1, 4}), true), x2(randn({1, 1, 4, 4}), true),
      x3(randn({1, 1, 2, 2, 2}), true);
  EXPECT_EQ(F::interpolate(x1, by_size({5}).mode(kLinear)).grad_fn()->name(),
            "UpsampleLinear1DBackward0");
  EXPECT_EQ(F::interpolate(x3, by_size({3}).mode(kTrilinear)).grad_fn()->name(),
            "UpsampleTrilinear3DBackward0");
  EXPECT_EQ(F::interpolate(x2, by_size({5}).mode(kBicubic)).grad_fn()->name(),
            "UpsampleBicubic2DBackward0");
  EXPECT_EQ(F::interpolate(x2, by_size({5}).mode(kExact)).grad_fn()->name(),
            "UpsampleNearestExact2DBackward0");
  EXPECT_EQ(F::interpolate(x2, by_size({3}).mode(kArea)).grad_fn()->name(),
            "AdaptiveAvgPool2DBackward0");
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

TEST(InterpolateErrors, RankPerMode) {
  const Variable x3(randn({1, 1, 4})), x4(randn({1, 1, 4, 4})), x5(randn({1, 1, 2, 2, 2}));
  EXPECT_THROW_MSG(F::interpolate(x4, by_size({2}).mode(kLinear)),
                   "Got 4D input, but linear mode needs 3D input");
  EXPECT_THROW_MSG(F::interpolate(x5, by_size({2}).mode(kLinear)),
                   "Got 5D input, but linear mode needs 3D input");
  EXPECT_THROW_MSG(F::interpolate(x3, by_size({2}).mode(kTrilinear)),
                   "Got 3D input, but trilinear mode needs 5D input");
  EXPECT_THROW_MSG(F::interpolate(x4, by_size({2}).mode(kTrilinear)),
                   "Got 4D input, but trilinear mode needs 5D input");
  EXPECT_THROW_MSG(F::interpolate(x5, by_size({2}).mode(F::InterpolateMode::kBilinear)),
                   "Got 5D input, but bilinear mode needs 4D input");
  // PyTorch has no rank message of its own for bicubic.
  EXPECT_THROW_MSG(F::interpolate(x3, by_size({2}).mode(kBicubic)),
                   "Input Error: Only 3D, 4D and 5D input Tensors supported (got 3D) for the "
                   "modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                   "nearest-exact (got bicubic)");
  EXPECT_THROW_MSG(F::interpolate(Variable(randn({2, 4})), by_size({2}).mode(kExact)),
                   "Input Error: Only 3D, 4D and 5D input Tensors supported (got 2D) for the "
                   "modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                   "nearest-exact (got nearest-exact)");
}

TEST(InterpolateErrors, AlignCornersAndRecomputeScaleFactor) {
  const Variable x(randn({1, 1, 4, 4}));
  for (F::InterpolateMode mode : {kArea, kExact}) {
    EXPECT_THROW_MSG(F::interpolate(x, by_size({2}).mode(mode).align_corners(false)),
                     "align_corners option can only be set with the interpolating modes: linear "
                     "| bilinear | bicubic | trilinear");
  }
  // align_corners is checked before the sizes, as in PyTorch.
  EXPECT_THROW_MSG(F::interpolate(x, F::InterpolateFuncOptions().align_corners(true)),
                   "align_corners option can only be set");
  EXPECT_THROW_MSG(F::interpolate(x, by_size({2}).mode(kBicubic).recompute_scale_factor(true)),
                   "recompute_scale_factor is not meaningful with an explicit size.");
  // Allowed with size when false.
  EXPECT_EQ(F::interpolate(x, by_size({2}).mode(kBicubic).recompute_scale_factor(false)).sizes(),
            IntArrayRef({1, 1, 2, 2}));
  EXPECT_THROW_MSG(F::interpolate(Variable(randn({1, 1, 4})), by_scale({0.1}).mode(kLinear)),
                   "Input and output sizes should be greater than 0, but got input (W: 4) output "
                   "(W: 0)");
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
