// The convolutions, unfold, fold and F.pad against PyTorch 1.13 in float32: output and every
// input's gradient, from nn/functional/testdata/conv_golden.txt
// (tools/gen_conv_golden.py stores the inputs, so each case is the same call
// on the same values).
#include <string>
#include <utility>
#include <vector>

#include "autograd/autograd.h"
#include "nn/functional/conv.h"
#include "nn/functional/pad.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

namespace F = nn::functional;

const Tensor& stored(const std::string& name) {
  return testing::GoldenFile::get("nn/functional/testdata/conv_golden.txt").at(name);
}

// One case: its inputs as float32 leaves; check() compares the output and
// each leaf's gradient for the stored seed.
class GoldenCase {
 public:
  explicit GoldenCase(std::string name) : name_(std::move(name)) {}

  Variable leaf(const std::string& input) {
    leaves_.emplace_back(input, Variable(stored(name_ + ".in." + input).to(kFloat32), true));
    return leaves_.back().second;
  }

  void check(const Variable& out) const {
    SCOPED_TRACE(name_);
    EXPECT_TRUE(testing::all_close(out.data(), stored(name_ + ".out"), kRtol, kAtol)) << "output";
    variable_list inputs;
    for (const auto& [input, v] : leaves_) inputs.push_back(v);
    const variable_list grads =
        autograd::grad({out}, inputs, {Variable(stored(name_ + ".cot").to(kFloat32))});
    for (size_t i = 0; i < leaves_.size(); ++i) {
      EXPECT_TRUE(testing::all_close(grads[i].data(), stored(name_ + ".grad." + leaves_[i].first),
                                     kRtol, kAtol))
          << "gradient of " << leaves_[i].first;
    }
  }

 private:
  static constexpr double kRtol = 1e-4;
  static constexpr double kAtol = 1e-4;
  std::string name_;
  std::vector<std::pair<std::string, Variable>> leaves_;
};

TEST(ConvGoldenTest, Conv2dPlain) {
  GoldenCase c("conv2d_plain");
  const Variable x = c.leaf("x"), w = c.leaf("w");
  c.check(F::conv2d(x, w, c.leaf("b")));
}

TEST(ConvGoldenTest, Conv2dStridedPaddedDilatedGrouped) {
  GoldenCase c("conv2d_strided");
  const Variable x = c.leaf("x"), w = c.leaf("w");
  c.check(F::conv2d(x, w, c.leaf("b"), {2, 1}, {1, 2}, {2, 1}, 2));
}

TEST(ConvGoldenTest, Conv2dDepthwise) {
  GoldenCase c("conv2d_depthwise");
  const Variable x = c.leaf("x"), w = c.leaf("w");
  c.check(F::conv2d(x, w, c.leaf("b"), {2}, 1, {1}, 3));
}

TEST(ConvGoldenTest, Conv2dPointwise) {
  GoldenCase c("conv2d_pointwise");
  const Variable x = c.leaf("x");
  c.check(F::conv2d(x, c.leaf("w")));
}

TEST(ConvGoldenTest, Conv2dUnbatched) {
  GoldenCase c("conv2d_unbatched");
  const Variable x = c.leaf("x"), w = c.leaf("w");
  c.check(F::conv2d(x, w, c.leaf("b"), {1}, 1));
}

TEST(ConvGoldenTest, Conv2dSameWithEvenKernelAndValid) {
  GoldenCase same("conv2d_same");
  const Variable x = same.leaf("x"), w = same.leaf("w");
  same.check(F::conv2d(x, w, same.leaf("b"), {1}, "same", {1, 2}));
  GoldenCase valid("conv2d_valid");
  const Variable xv = valid.leaf("x");
  valid.check(F::conv2d(xv, valid.leaf("w"), Variable(), {1}, "valid"));
}

TEST(ConvGoldenTest, Conv1dStridedAndSameGrouped) {
  GoldenCase c("conv1d");
  const Variable x = c.leaf("x"), w = c.leaf("w");
  c.check(F::conv1d(x, w, c.leaf("b"), {2}, 1));
  GoldenCase same("conv1d_same");
  const Variable xs = same.leaf("x");
  same.check(F::conv1d(xs, same.leaf("w"), Variable(), {1}, "same", {1}, 2));
}

TEST(ConvGoldenTest, Conv3dStridedAndDepthwise) {
  GoldenCase c("conv3d");
  const Variable x = c.leaf("x"), w = c.leaf("w");
  c.check(F::conv3d(x, w, c.leaf("b"), {1, 2, 1}, {1, 0, 1}));
  GoldenCase dw("conv3d_depthwise");
  const Variable xd = dw.leaf("x");
  dw.check(F::conv3d(xd, dw.leaf("w"), Variable(), {1}, 1, {1, 2, 1}, 2));
}

TEST(ConvGoldenTest, ConvTranspose2d) {
  GoldenCase c("conv_transpose2d");
  const Variable x = c.leaf("x"), w = c.leaf("w");
  c.check(F::conv_transpose2d(x, w, c.leaf("b"), {2}, {1}, {1}));
  GoldenCase g("conv_transpose2d_groups");
  const Variable xg = g.leaf("x");
  g.check(F::conv_transpose2d(xg, g.leaf("w"), Variable(), {2, 3}, {1, 0}, {1, 2}, 2, {2, 1}));
  GoldenCase u("conv_transpose2d_unbatched");
  const Variable xu = u.leaf("x");
  u.check(F::conv_transpose2d(xu, u.leaf("w"), Variable(), {1}, {1}));
}

TEST(ConvGoldenTest, ConvTranspose1dAnd3d) {
  GoldenCase c1("conv_transpose1d");
  const Variable x = c1.leaf("x"), w = c1.leaf("w");
  c1.check(F::conv_transpose1d(x, w, c1.leaf("b"), {3}, {2}));
  GoldenCase c3("conv_transpose3d");
  const Variable x3 = c3.leaf("x");
  c3.check(F::conv_transpose3d(x3, c3.leaf("w"), Variable(), {1, 2, 2}, {0}, {0, 1, 0}));
}

TEST(ConvGoldenTest, UnfoldBatchedAndUnbatched) {
  GoldenCase c("unfold");
  c.check(F::unfold(c.leaf("x"), {2, 3}, {2, 1}, {1}, {1, 2}));
  GoldenCase u("unfold_unbatched");
  u.check(F::unfold(u.leaf("x"), {2}));
}

TEST(ConvGoldenTest, FoldBatchedAndUnbatched) {
  GoldenCase c("fold");
  c.check(F::fold(c.leaf("x"), {5, 6}, {2, 3}, {1, 2}, {1, 0}, {2, 1}));
  GoldenCase u("fold_unbatched");
  u.check(F::fold(u.leaf("x"), {4}, {2}, {1}, {0}, {2}));
}

TEST(PadGoldenTest, ConstantWithNegativeAmounts) {
  GoldenCase c("pad_constant");
  c.check(F::pad(c.leaf("x"), {1, 2, -1, 1}, "constant", 0.5));
}

TEST(PadGoldenTest, Reflect1d2d3d) {
  GoldenCase c1("pad_reflect1d");
  c1.check(F::pad(c1.leaf("x"), {2, 3}, "reflect"));
  GoldenCase c2("pad_reflect2d");
  c2.check(F::pad(c2.leaf("x"), {2, 1, 3, 0}, "reflect"));
  GoldenCase c3("pad_reflect3d");
  c3.check(F::pad(c3.leaf("x"), {1, 2, 0, 2, 1, 1}, "reflect"));
}

TEST(PadGoldenTest, Replicate1d2d3d) {
  GoldenCase c1("pad_replicate1d");
  c1.check(F::pad(c1.leaf("x"), {-1, 2}, "replicate"));
  GoldenCase c2("pad_replicate2d");
  c2.check(F::pad(c2.leaf("x"), {2, 0, 1, 3}, "replicate"));
  GoldenCase c3("pad_replicate3d");
  c3.check(F::pad(c3.leaf("x"), {1, 1, 2, 0, 0, 1}, "replicate"));
}

TEST(PadGoldenTest, Circular1d2d3d) {
  GoldenCase c1("pad_circular1d");
  c1.check(F::pad(c1.leaf("x"), {2, -1}, "circular"));
  GoldenCase c2("pad_circular2d");
  c2.check(F::pad(c2.leaf("x"), {1, 2, 3, 0}, "circular"));
  GoldenCase c3("pad_circular3d");
  c3.check(F::pad(c3.leaf("x"), {1, 0, 2, 1, 1, 1}, "circular"));
}

}  // namespace
}  // namespace torchlet
