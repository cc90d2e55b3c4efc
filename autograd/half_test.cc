// Variables of float16 and bfloat16: forward and backward through
// elementwise ops, reductions and matrix products, with gradients in the
// inputs' dtypes. (Formulas are checked in float64 by gradcheck_test.cc;
// here the reduced-precision results are compared with the same graph run
// in float32 and rounded.)
#include <string>

#include "autograd/autograd.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::all_close;

// The gradient of f at `x` (a float32 tensor) computed in dtype `d`.
template <typename F>
Tensor gradient_in(DType d, const Tensor& x, F f) {
  const Variable v(x.to(d), true);
  f(v).backward();
  return v.grad().data();
}

class HalfAutogradTest : public ::testing::TestWithParam<DType> {
 protected:
  DType dtype() const { return GetParam(); }
  // A few roundings of the dtype, relative, plus a little absolute slack
  // for gradients near zero.
  double rtol() const { return dtype() == kFloat16 ? 4e-3 : 3e-2; }
  double atol() const { return dtype() == kFloat16 ? 1e-3 : 1e-2; }

  template <typename F>
  void expect_matches_float32(const std::string& what, F f) const {
    const Tensor x = (linspace(-2, 2, 12).reshape({3, 4}) * 0.9);
    const Tensor grad = gradient_in(dtype(), x, f);
    EXPECT_EQ(grad.dtype(), dtype()) << what;
    EXPECT_TRUE(all_close(grad, gradient_in(kFloat32, x, f), rtol(), atol())) << what;
  }
};

TEST_P(HalfAutogradTest, ElementwiseGradientsKeepTheDtype) {
  expect_matches_float32("mul exp", [](const Variable& v) { return (v * v + v.exp()).sum(); });
  expect_matches_float32("tanh sigmoid",
                         [](const Variable& v) { return (v.tanh() * v.sigmoid()).sum(); });
  expect_matches_float32("relu div", [](const Variable& v) { return (v.relu() / 3.0).sum(); });
}

TEST_P(HalfAutogradTest, ReductionGradientsKeepTheDtype) {
  expect_matches_float32("mean", [](const Variable& v) { return (v * v).mean(); });
  expect_matches_float32("softmax", [](const Variable& v) {
    return (v.softmax(1) * Variable(arange(4).to(v.dtype()))).sum();
  });
  expect_matches_float32("log_softmax", [](const Variable& v) {
    return v.log_softmax(0).select(0, 1).sum();
  });
  expect_matches_float32("sum dim", [](const Variable& v) { return (v.sum({1}) * v.sum({1})).sum(); });
}

TEST_P(HalfAutogradTest, MatmulGradientsKeepTheDtype) {
  expect_matches_float32("matmul", [](const Variable& v) { return matmul(v, v.t()).sum(); });
}

TEST_P(HalfAutogradTest, MixedDtypeGradientsReturnToEachInputsDtype) {
  const Variable a(ones({2}, dtype()), true);
  const Variable b(full({2}, 3.0), true);  // float32
  const Variable out = a * b;
  EXPECT_EQ(out.dtype(), kFloat32);
  out.sum().backward();
  EXPECT_EQ(a.grad().dtype(), dtype());
  EXPECT_EQ(testing::values(a.grad().data()), (std::vector<double>{3, 3}));
  EXPECT_EQ(b.grad().dtype(), kFloat32);
}

TEST_P(HalfAutogradTest, ToDtypeBackwardConvertsTheGradientBack) {
  const Variable x(tensor({0.1, 2.0}), true);
  (x.to(dtype()) * 2.0).sum().backward();
  EXPECT_EQ(x.grad().dtype(), kFloat32);
  EXPECT_EQ(testing::values(x.grad().data()), (std::vector<double>{2, 2}));
}

INSTANTIATE_TEST_SUITE_P(ReducedFloatingTypes, HalfAutogradTest,
                         ::testing::Values(kFloat16, kBFloat16),
                         [](const ::testing::TestParamInfo<DType>& info) {
                           return std::string(dtype_name(info.param));
                         });

}  // namespace
}  // namespace torchlet
