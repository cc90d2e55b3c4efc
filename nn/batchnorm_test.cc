// BatchNorm1d/2d/3d against PyTorch 1.13: running statistics after several
// training steps, eval outputs and a state_dict PyTorch saved
// (nn/testdata/norm_modules_golden.txt and batchnorm2d_state.safetensors,
// written by tools/gen_norm_golden.py); reprs, registration, modes and
// errors.
#include <string>
#include <vector>

#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/nn.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

using testing::all_close;

using testing::printed;

Tensor stored(const std::string& key) {
  return testing::GoldenFile::get("nn/testdata/norm_modules_golden.txt").at(key).to(kFloat32);
}

// Trains `module` on the case's stored steps, then compares its buffers
// and its eval output with PyTorch's.
template <typename M>
void check_training_steps(M& module, const std::string& c, int steps) {
  module->train();
  for (int i = 0; i < steps; ++i) module(Variable(stored(c + ".step" + std::to_string(i))));
  EXPECT_TRUE(all_close(module->running_mean.data(), stored(c + ".running_mean"), 1e-5, 1e-6));
  EXPECT_TRUE(all_close(module->running_var.data(), stored(c + ".running_var"), 1e-5, 1e-6));
  EXPECT_EQ(module->num_batches_tracked.data().template item<int64_t>(), steps);
  module->eval();
  const Variable out = module(Variable(stored(c + ".eval_in")));
  EXPECT_TRUE(all_close(out.data(), stored(c + ".eval_out"), 1e-4, 1e-5));
}

TEST(BatchNormModuleTest, BatchNorm1dRunningStatsMatchPyTorchAfterSteps) {
  BatchNorm1d bn(4);
  check_training_steps(bn, "bn1d", 3);
}

TEST(BatchNormModuleTest, MomentumNoneIsACumulativeAverage) {
  BatchNorm1d bn(BatchNorm1dOptions(3).momentum(std::nullopt));
  check_training_steps(bn, "bn1d_cumulative", 3);
}

TEST(BatchNormModuleTest, BatchNorm2dRunningStatsMatchPyTorchAfterSteps) {
  BatchNorm2d bn(BatchNorm2dOptions(3).momentum(0.2));
  check_training_steps(bn, "bn2d", 4);
}

TEST(BatchNormModuleTest, BatchNorm3dWithoutAffineMatchesPyTorchAfterSteps) {
  BatchNorm3d bn(BatchNorm3dOptions(2).affine(false));
  check_training_steps(bn, "bn3d_no_affine", 3);
}

TEST(BatchNormModuleTest, LoadsStateDictSavedByPyTorch) {
  BatchNorm2d bn(3);
  bn->load_state_dict(load("nn/testdata/batchnorm2d_state.safetensors"));
  EXPECT_EQ(bn->num_batches_tracked.data().item<int64_t>(), 2);
  EXPECT_EQ(bn->num_batches_tracked.dtype(), kInt64);
  bn->eval();
  const Variable out = bn(Variable(stored("loaded_bn2d.in")));
  EXPECT_TRUE(all_close(out.data(), stored("loaded_bn2d.out"), 1e-4, 1e-5));
}

TEST(BatchNormModuleTest, ReprsMatchPyTorch) {
  EXPECT_EQ(printed(BatchNorm2d(3)),
            "BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)");
  EXPECT_EQ(printed(BatchNorm2d(BatchNorm2dOptions(3).momentum(std::nullopt))),
            "BatchNorm2d(3, eps=1e-05, momentum=None, affine=True, track_running_stats=True)");
  EXPECT_EQ(printed(BatchNorm1d(BatchNorm1dOptions(3).affine(false).track_running_stats(false))),
            "BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False)");
  EXPECT_EQ(printed(BatchNorm3d(BatchNorm3dOptions(5).eps(1e-3).momentum(0.2))),
            "BatchNorm3d(5, eps=0.001, momentum=0.2, affine=True, track_running_stats=True)");
}

TEST(BatchNormModuleTest, RegistersPyTorchsStateDictKeysAndInitialValues) {
  BatchNorm2d bn(3);
  std::vector<std::string> keys;
  for (const auto& [key, value] : bn->state_dict()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"weight", "bias", "running_mean", "running_var",
                                            "num_batches_tracked"}));
  EXPECT_TRUE(all_close(bn->weight.data(), ones({3})));
  EXPECT_TRUE(all_close(bn->bias.data(), zeros({3})));
  EXPECT_TRUE(all_close(bn->running_mean.data(), zeros({3})));
  EXPECT_TRUE(all_close(bn->running_var.data(), ones({3})));
  EXPECT_EQ(bn->num_batches_tracked.dim(), 0);
  EXPECT_EQ(bn->num_batches_tracked.dtype(), kInt64);
  EXPECT_EQ(bn->parameters().size(), 2u);
}

TEST(BatchNormModuleTest, WithoutTrackingHasNoBuffersAndUsesBatchStatsInEval) {
  BatchNorm1d bn(BatchNorm1dOptions(2).affine(false).track_running_stats(false));
  EXPECT_TRUE(bn->buffers().empty());
  EXPECT_TRUE(bn->parameters().empty());
  EXPECT_TRUE(bn->state_dict().empty());
  bn->eval();
  const Variable out = bn(Variable(tensor({{1.0f, 2.0f}, {3.0f, 6.0f}})));
  EXPECT_TRUE(all_close(out.data(), tensor({{-1.0f, -1.0f}, {1.0f, 1.0f}}), 1e-4, 1e-4));
}

TEST(BatchNormModuleTest, RunningStatsUpdateShowsThroughEveryHandle) {
  BatchNorm1d bn(2);
  const Variable slot = bn->named_buffers()[0].second;
  const Tensor saved = bn->state_dict().at("running_mean");
  bn(Variable(tensor({{1.0f, 2.0f}, {3.0f, 6.0f}})));
  EXPECT_TRUE(all_close(slot.data(), tensor({0.2f, 0.4f})));
  EXPECT_TRUE(all_close(saved, tensor({0.2f, 0.4f})));
  EXPECT_EQ(bn->num_batches_tracked.data().item<int64_t>(), 1);
}

TEST(BatchNormModuleTest, EvalDoesNotCountBatches) {
  BatchNorm1d bn(2);
  bn->eval();
  bn(Variable(randn({3, 2})));
  EXPECT_EQ(bn->num_batches_tracked.data().item<int64_t>(), 0);
  EXPECT_TRUE(all_close(bn->running_mean.data(), zeros({2})));
}

TEST(BatchNormModuleTest, ResetRunningStatsRestoresInitialBuffers) {
  BatchNorm2d bn(2);
  bn(Variable(randn({2, 2, 3, 3})));
  bn->reset_running_stats();
  EXPECT_TRUE(all_close(bn->running_mean.data(), zeros({2})));
  EXPECT_TRUE(all_close(bn->running_var.data(), ones({2})));
  EXPECT_EQ(bn->num_batches_tracked.data().item<int64_t>(), 0);
}

TEST(BatchNormModuleTest, ResetParametersRestoresOnesAndZeros) {
  BatchNorm2d bn(2);
  Tensor weight = bn->weight.data(), bias = bn->bias.data();
  weight.fill_(3);
  bias.fill_(3);
  bn->reset_parameters();
  EXPECT_TRUE(all_close(bn->weight.data(), ones({2})));
  EXPECT_TRUE(all_close(bn->bias.data(), zeros({2})));
}

TEST(BatchNormModuleTest, CloneCopiesRunningStatsIntoNewStorage) {
  BatchNorm1d bn(2);
  bn(Variable(randn({4, 2})));
  const auto copy = std::dynamic_pointer_cast<BatchNorm1dImpl>(bn->clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_TRUE(all_close(copy->running_var.data(), bn->running_var.data()));
  EXPECT_FALSE(copy->running_var.data().shares_storage(bn->running_var.data()));
  EXPECT_EQ(copy->num_batches_tracked.data().item<int64_t>(), 1);
}

TEST(BatchNormModuleTest, GradientsReachWeightAndBias) {
  BatchNorm2d bn(2);
  bn->to(kFloat64);
  Variable x(randn({2, 2, 2, 3}, kFloat64), true);
  bn(x).pow(3).sum().backward();
  EXPECT_TRUE(bn->weight.grad().defined());
  EXPECT_TRUE(bn->bias.grad().defined());
  EXPECT_TRUE(x.grad().defined());
}

TEST(BatchNormModuleTest, WrongRankIsAnError) {
  EXPECT_THROW_MSG(BatchNorm2d(3)(Variable(randn({2, 3, 4}))), "expected 4D input (got 3D input)");
  EXPECT_THROW_MSG(BatchNorm1d(3)(Variable(randn({2, 3, 4, 5}))),
                   "expected 2D or 3D input (got 4D input)");
  EXPECT_THROW_MSG(BatchNorm3d(3)(Variable(randn({2, 3, 4}))), "expected 5D input (got 3D input)");
}

TEST(BatchNormModuleTest, WrongChannelCountIsAnError) {
  EXPECT_THROW_MSG(BatchNorm2d(4)(Variable(randn({2, 3, 4, 4}))),
                   "running_mean should contain 3 elements not 4");
}

TEST(BatchNormModuleTest, NegativeNumFeaturesIsAnError) {
  EXPECT_THROW_MSG(BatchNorm2d(-1), "Trying to create tensor with negative dimension -1: [-1]");
}

}  // namespace
}  // namespace torchlet::nn
