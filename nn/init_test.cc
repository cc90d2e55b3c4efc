#include <cmath>
#include <string>

#include "gtest/gtest.h"
#include "nn/nn.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

using testing::all_close;
using testing::load_golden;

class InitTest : public ::testing::Test {
 protected:
  void SetUp() override { manual_seed(0); }
  std::map<std::string, Tensor> golden_ = load_golden("nn/testdata/nn_golden.txt");
};

double mean_of(const Variable& v) { return v.data().to(kFloat64).mean().item<double>(); }
double std_of(const Variable& v) { return v.data().to(kFloat64).std().item<double>(); }
double max_abs(const Variable& v) { return v.data().abs().max().item<double>(); }

TEST_F(InitTest, CalculateGainMatchesPyTorch) {
  for (const char* name : {"linear", "conv2d", "sigmoid", "tanh", "relu", "leaky_relu", "selu"}) {
    EXPECT_NEAR(init::calculate_gain(name), golden_["gain." + std::string(name)].item<double>(),
                1e-8)
        << name;
  }
  EXPECT_NEAR(init::calculate_gain("leaky_relu", 0.2),
              golden_["gain.leaky_relu_0.2"].item<double>(), 1e-8);
  EXPECT_THROW_MSG(init::calculate_gain("foo"), "Unsupported nonlinearity foo");
}

TEST_F(InitTest, FansMatchPyTorch) {
  for (const auto& [name, shape] : std::vector<std::pair<std::string, std::vector<int64_t>>>{
           {"4x3", {4, 3}}, {"64x32x3x3", {64, 32, 3, 3}}, {"5x2x7", {5, 2, 7}}}) {
    const auto [fan_in, fan_out] = init::calculate_fan_in_and_fan_out(Variable(torchlet::empty(shape)));
    EXPECT_TRUE(all_close(from_vector<double>({static_cast<double>(fan_in),
                                               static_cast<double>(fan_out)}),
                          golden_["fans." + name]))
        << name;
  }
  EXPECT_THROW_MSG(init::calculate_fan_in_and_fan_out(Variable(empty({3}))),
                   "Fan in and fan out can not be computed for tensor with fewer than 2 "
                   "dimensions");
}

TEST_F(InitTest, UniformAndNormalHaveTheAskedMoments) {
  Variable u(empty({200, 100}));
  init::uniform_(u, -2, 4);
  EXPECT_NEAR(mean_of(u), 1, 0.05);
  EXPECT_NEAR(std_of(u), 6 / std::sqrt(12.0), 0.03);
  EXPECT_GE(u.data().min().item<double>(), -2);
  EXPECT_LT(u.data().max().item<double>(), 4);
  Variable n(empty({200, 100}));
  init::normal_(n, 3, 0.5);
  EXPECT_NEAR(mean_of(n), 3, 0.02);
  EXPECT_NEAR(std_of(n), 0.5, 0.01);
}

TEST_F(InitTest, ConstantOnesZerosAndEye) {
  Variable v(empty({2, 3}));
  EXPECT_TRUE(all_close(init::constant_(v, 2.5).data(), full({2, 3}, 2.5)));
  EXPECT_TRUE(all_close(init::ones_(v).data(), ones({2, 3})));
  EXPECT_TRUE(all_close(init::zeros_(v).data(), zeros({2, 3})));
  EXPECT_TRUE(all_close(init::eye_(v).data(), eye(2, 3)));
  EXPECT_THROW_MSG(init::eye_(Variable(empty({3}))), "Only tensors with 2 dimensions are supported");
}

TEST_F(InitTest, InitWritesInPlaceWithoutRecordingOnAParameter) {
  Parameter p(empty({4, 3}));
  const Variable same = init::xavier_uniform_(p);
  EXPECT_TRUE(same.is_same(p));
  EXPECT_TRUE(p.is_leaf());
  EXPECT_TRUE(p.requires_grad());
}

TEST_F(InitTest, UndefinedTensorIsRefused) {
  EXPECT_THROW_MSG(init::uniform_(Variable()), "nn.init.uniform_: the tensor is undefined");
  EXPECT_THROW_MSG(init::xavier_normal_(Variable()),
                   "nn.init.calculate_fan_in_and_fan_out: the tensor is undefined");
}

TEST_F(InitTest, XavierUsesFanInPlusFanOut) {
  Variable w(empty({300, 200}));
  const double std = 1.5 * std::sqrt(2.0 / 500);
  init::xavier_uniform_(w, 1.5);
  EXPECT_LE(max_abs(w), std::sqrt(3.0) * std);
  EXPECT_NEAR(std_of(w), std, std * 0.02);
  init::xavier_normal_(w, 1.5);
  EXPECT_NEAR(std_of(w), std, std * 0.02);
  EXPECT_NEAR(mean_of(w), 0, std * 0.02);
}

TEST_F(InitTest, KaimingUsesTheGainOverTheChosenFan) {
  Variable w(empty({64, 32, 3, 3}));
  init::kaiming_uniform_(w, 0, "fan_in", "relu");
  const double bound = std::sqrt(2.0) * std::sqrt(3.0 / 288);
  EXPECT_LE(max_abs(w), bound);
  EXPECT_NEAR(std_of(w), bound / std::sqrt(3.0), bound * 0.02);
  init::kaiming_normal_(w, 0, "fan_out", "relu");
  EXPECT_NEAR(std_of(w), std::sqrt(2.0 / 576), std::sqrt(2.0 / 576) * 0.02);
  EXPECT_THROW_MSG(init::kaiming_uniform_(w, 0, "fan_x"),
                   "Mode fan_x not supported, please use one of ['fan_in', 'fan_out']");
  EXPECT_THROW_MSG(init::kaiming_normal_(Variable(empty({3}))),
                   "Fan in and fan out can not be computed");
  Variable none(empty({0, 3}));
  EXPECT_TRUE(init::kaiming_uniform_(none).is_same(none));
}

TEST_F(InitTest, TruncNormalStaysInBoundsWithTheTruncatedMoments) {
  Variable w(empty({200, 100}));
  init::trunc_normal_(w, 0, 1, -1, 2);
  EXPECT_GE(w.data().min().item<double>(), -1);
  EXPECT_LE(w.data().max().item<double>(), 2);
  // Moments of N(0, 1) truncated to [-1, 2]: mean (phi(-1) - phi(2)) / Z.
  const double phi_a = std::exp(-0.5) / std::sqrt(2 * M_PI), phi_b = std::exp(-2.0) / std::sqrt(2 * M_PI);
  const double z = (std::erf(2 / std::sqrt(2.0)) - std::erf(-1 / std::sqrt(2.0))) / 2;
  const double mean = (phi_a - phi_b) / z;
  const double var = 1 + (-1 * phi_a - 2 * phi_b) / z - mean * mean;
  EXPECT_NEAR(mean_of(w), mean, 0.02);
  EXPECT_NEAR(std_of(w), std::sqrt(var), 0.02);
}

TEST_F(InitTest, OrthogonalGivesOrthonormalRowsOrColumns) {
  Variable tall(empty({6, 3}));
  init::orthogonal_(tall);
  EXPECT_TRUE(all_close(tall.data().t().mm(tall.data()), eye(3), 1e-5, 1e-5));
  Variable wide(empty({2, 3, 2}));
  init::orthogonal_(wide, 2);
  const Tensor flat = wide.data().reshape({2, 6});
  EXPECT_TRUE(all_close(flat.mm(flat.t()), eye(2) * 4, 1e-5, 1e-5));
  EXPECT_THROW_MSG(init::orthogonal_(Variable(empty({3}))),
                   "Only tensors with 2 or more dimensions are supported");
}

TEST_F(InitTest, LinearDefaultBoundsMatchPyTorch) {
  for (const auto& [in, out] : std::vector<std::pair<int64_t, int64_t>>{{3, 4}, {100, 10}}) {
    Linear layer(in, out);
    const Tensor bounds = golden_["bound.linear." + std::to_string(in) + "x" + std::to_string(out)];
    const std::vector<double> b = bounds.to_vector<double>();
    EXPECT_LE(max_abs(layer->weight), b[0]);
    EXPECT_LE(max_abs(layer->bias), b[1]);
  }
  Linear big(400, 300);
  EXPECT_NEAR(std_of(big->weight), 1 / std::sqrt(400.0 * 3), 0.001);
}

}  // namespace
}  // namespace torchlet::nn
