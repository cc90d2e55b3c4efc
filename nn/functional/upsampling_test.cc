// pixel_shuffle and pixel_unshuffle against PyTorch 1.13
// (nn/functional/testdata/pool_golden.txt, from tools/gen_pool_golden.py),
// their gradients by finite differences, and their errors.
#include "nn/functional/upsampling.h"

#include <map>
#include <string>

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

void check_case(const std::string& name, const std::function<Variable(const Variable&)>& fn) {
  SCOPED_TRACE(name);
  Variable x(stored(name + ".in.x"), true);
  const Variable out = fn(x);
  EXPECT_TRUE(testing::all_close(out.data(), stored(name + ".out"), 0, 0)) << "output";
  const variable_list grads = autograd::grad({out}, {x}, {Variable(stored(name + ".cot"))});
  EXPECT_TRUE(testing::all_close(grads[0].data(), stored(name + ".grad.x"), 0, 0)) << "gradient";
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
