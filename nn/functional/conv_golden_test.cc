// The convolutions against PyTorch 1.13 in float32: output and every
// input's gradient, from nn/functional/testdata/conv_golden.txt
// (tools/gen_conv_golden.py stores the inputs, so each case is the same call
// on the same values).
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "autograd/autograd.h"
#include "nn/functional/conv.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

namespace F = nn::functional;

const std::map<std::string, Tensor>& golden() {
  static const auto* cases = new std::map<std::string, Tensor>(
      testing::load_golden("nn/functional/testdata/conv_golden.txt"));
  return *cases;
}

Tensor stored(const std::string& name) {
  const auto it = golden().find(name);
  if (it == golden().end()) {
    ADD_FAILURE() << "no golden entry " << name;
    return zeros({0});
  }
  return it->second;
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

}  // namespace
}  // namespace torchlet
