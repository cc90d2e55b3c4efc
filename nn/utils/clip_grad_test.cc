#include "nn/utils/clip_grad.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/test_util.h"

namespace torchlet::nn::utils {
namespace {

const testing::GoldenFile& golden() {
  return testing::GoldenFile::get("nn/utils/testdata/utils_golden.txt");
}

// Two parameters holding PyTorch's gradients (float32).
std::vector<Variable> parameters_with_grads() {
  Variable a(zeros({3}), true), b(zeros({2, 2}), true);
  a.set_grad(Variable(golden().at("grad.a").to(kFloat32)));
  b.set_grad(Variable(golden().at("grad.b").to(kFloat32)));
  return {a, b};
}

void expect_grads(const std::vector<Variable>& params, const std::string& name) {
  EXPECT_TRUE(testing::all_close(params[0].grad().data(), golden().at(name + ".a"))) << name;
  EXPECT_TRUE(testing::all_close(params[1].grad().data(), golden().at(name + ".b"))) << name;
}

TEST(ClipGradNormTest, ScalesAsPyTorchForEveryNormType) {
  const std::vector<std::pair<std::string, double>> norms = {
      {"2", 2.0}, {"1", 1.0}, {"3", 3.0}, {"inf", std::numeric_limits<double>::infinity()}};
  for (const auto& [label, p] : norms) {
    const std::vector<Variable> params = parameters_with_grads();
    const double total = clip_grad_norm_(params, 1.0, p);
    EXPECT_NEAR(total, golden().at("norm." + label + ".total").item<double>(), 1e-5) << label;
    expect_grads(params, "norm." + label);
  }
}

TEST(ClipGradNormTest, LeavesGradientsBelowMaxNormUnchanged) {
  const std::vector<Variable> params = parameters_with_grads();
  EXPECT_NEAR(clip_grad_norm_(params, 100.0), golden().at("norm.large.total").item<double>(),
              1e-5);
  expect_grads(params, "norm.large");
}

TEST(ClipGradNormTest, SkipsParametersWithoutGradients) {
  std::vector<Variable> params = parameters_with_grads();
  params.push_back(Variable(zeros({5}), true));
  clip_grad_norm_(params, 1.0);
  expect_grads(params, "norm.2");
  EXPECT_FALSE(params[2].grad().defined());
}

TEST(ClipGradNormTest, WithoutAnyGradientIsZero) {
  EXPECT_EQ(clip_grad_norm_({Variable(zeros({2}), true)}, 1.0), 0.0);
  EXPECT_EQ(clip_grad_norm_(std::vector<Variable>{}, 1.0), 0.0);
}

TEST(ClipGradNormTest, TakesASingleParameter) {
  Variable a(zeros({2}), true);
  a.set_grad(Variable(tensor({3.0f, 4.0f})));
  EXPECT_NEAR(clip_grad_norm_(a, 1.0), 5.0, 1e-6);
  EXPECT_NEAR(a.grad().data().norm().item<double>(), 1.0, 1e-5);
}

TEST(ClipGradNormTest, NonFiniteNormIsAnErrorWhenAskedAsPyTorch) {
  Variable a(zeros({2}), true);
  a.set_grad(Variable(tensor({std::nanf(""), 1.0f})));
  EXPECT_THROW_MSG(clip_grad_norm_(a, 1.0, 2.0, /*error_if_nonfinite=*/true),
                   "The total norm of order 2.0 for gradients from `parameters` is non-finite, so "
                   "it cannot be clipped. To disable this error and scale the gradients by the "
                   "non-finite norm anyway, set `error_if_nonfinite=False`");
  EXPECT_EQ(testing::values(a.grad().data())[1], 1.0) << "nothing was scaled";
  a.set_grad(Variable(tensor({INFINITY, 1.0f})));
  EXPECT_THROW_MSG(clip_grad_norm_(a, 1.0, INFINITY, true), "The total norm of order inf for");
}

TEST(ClipGradNormTest, NonFiniteNormScalesAnywayByDefault) {
  Variable a(zeros({2}), true);
  a.set_grad(Variable(tensor({INFINITY, 1.0f})));
  EXPECT_TRUE(std::isinf(clip_grad_norm_(a, 1.0)));
  EXPECT_EQ(testing::values(a.grad().data())[1], 0.0);
}

TEST(ClipGradValueTest, ClampsEveryGradientAsPyTorch) {
  const std::vector<Variable> params = parameters_with_grads();
  clip_grad_value_(params, 0.5);
  expect_grads(params, "value");
}

}  // namespace
}  // namespace torchlet::nn::utils
