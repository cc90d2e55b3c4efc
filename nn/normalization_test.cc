// InstanceNorm1d/2d/3d, GroupNorm and LocalResponseNorm: running statistics
// and eval outputs against PyTorch 1.13 (nn/testdata/norm_modules_golden.txt,
// written by tools/gen_norm_golden.py), reprs, registration and errors.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nn/nn.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

using testing::all_close;
namespace F = functional;

using testing::printed;

Tensor stored(const std::string& key) {
  return testing::GoldenFile::get("nn/testdata/norm_modules_golden.txt").at(key).to(kFloat32);
}

template <typename M>
void check_training_steps(M& module, const std::string& c) {
  module->train();
  for (int i = 0; i < 3; ++i) module(Variable(stored(c + ".step" + std::to_string(i))));
  EXPECT_TRUE(all_close(module->running_mean.data(), stored(c + ".running_mean"), 1e-5, 1e-6));
  EXPECT_TRUE(all_close(module->running_var.data(), stored(c + ".running_var"), 1e-5, 1e-6));
  EXPECT_EQ(module->num_batches_tracked.data().template item<int64_t>(), 0);
  module->eval();
  const Variable out = module(Variable(stored(c + ".eval_in")));
  EXPECT_TRUE(all_close(out.data(), stored(c + ".eval_out"), 1e-4, 1e-5));
}

TEST(InstanceNormModuleTest, TrackedRunningStatsMatchPyTorchAfterSteps) {
  InstanceNorm1d norm(InstanceNorm1dOptions(3).affine(true).track_running_stats(true));
  check_training_steps(norm, "in1d_tracked");
}

TEST(InstanceNormModuleTest, UnbatchedInputMatchesPyTorch) {
  InstanceNorm2d norm(InstanceNorm2dOptions(2).track_running_stats(true).momentum(0.3));
  check_training_steps(norm, "in2d_unbatched");
}

TEST(InstanceNormModuleTest, UnbatchedOutputIsTheSingleSampleBatch) {
  InstanceNorm1d norm(3);
  const Variable x(randn({3, 5}));
  EXPECT_TRUE(all_close(norm(x).data(), norm(x.unsqueeze(0)).data().squeeze(0)));
}

TEST(InstanceNormModuleTest, DefaultsHaveNoParametersNorBuffers) {
  InstanceNorm2d norm(3);
  EXPECT_TRUE(norm->parameters().empty());
  EXPECT_TRUE(norm->buffers().empty());
  norm->eval();
  const Variable x(randn({2, 3, 4, 4}));
  EXPECT_TRUE(all_close(norm(x).data(), F::instance_norm(x).data()));
}

TEST(InstanceNormModuleTest, ReprsMatchPyTorch) {
  EXPECT_EQ(printed(InstanceNorm2d(3)),
            "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False)");
  EXPECT_EQ(
      printed(InstanceNorm1d(
          InstanceNorm1dOptions(3).affine(true).track_running_stats(true).momentum(std::nullopt))),
      "InstanceNorm1d(3, eps=1e-05, momentum=None, affine=True, track_running_stats=True)");
}

TEST(InstanceNormModuleTest, StateDictKeysMatchPyTorch) {
  InstanceNorm3d norm(InstanceNorm3dOptions(2).track_running_stats(true));
  std::vector<std::string> keys;
  for (const auto& [key, value] : norm->state_dict()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"}));
}

TEST(InstanceNormModuleTest, WrongRankIsAnError) {
  EXPECT_THROW_MSG(InstanceNorm1d(3)(Variable(randn({2, 3, 4, 5}))),
                   "expected 2D or 3D input (got 4D input)");
  EXPECT_THROW_MSG(InstanceNorm2d(3)(Variable(randn({5}))),
                   "expected 3D or 4D input (got 1D input)");
  EXPECT_THROW_MSG(InstanceNorm3d(3)(Variable(randn({2, 3, 4}))),
                   "expected 4D or 5D input (got 3D input)");
}

TEST(InstanceNormModuleTest, MomentumNoneIsAnErrorAtForward) {
  InstanceNorm1d norm(InstanceNorm1dOptions(3).momentum(std::nullopt));
  EXPECT_THROW_MSG(norm(Variable(randn({2, 3, 4}))),
                   "instance_norm(): argument 'momentum' (position 7) must be float, not NoneType");
}

TEST(InstanceNormModuleTest, AffineWithWrongChannelCountIsAnError) {
  InstanceNorm2d norm(InstanceNorm2dOptions(3).affine(true));
  EXPECT_THROW_MSG(norm(Variable(randn({2, 4, 4, 5}))), "weight should contain 8 elements not 6");
}

TEST(GroupNormModuleTest, ForwardIsTheFunctionalWithItsParameters) {
  GroupNorm norm(2, 4);
  Tensor w = norm->weight.data();
  w.copy_(tensor({1.0f, 2.0f, 3.0f, 4.0f}));
  const Variable x(randn({2, 4, 3}));
  EXPECT_TRUE(all_close(norm(x).data(), F::group_norm(x, 2, norm->weight, norm->bias).data()));
}

TEST(GroupNormModuleTest, ReprAndStateDictMatchPyTorch) {
  EXPECT_EQ(printed(GroupNorm(2, 4)), "GroupNorm(2, 4, eps=1e-05, affine=True)");
  EXPECT_EQ(printed(GroupNorm(GroupNormOptions(2, 4).eps(1e-3).affine(false))),
            "GroupNorm(2, 4, eps=0.001, affine=False)");
  GroupNorm norm(2, 4);
  std::vector<std::string> keys;
  for (const auto& [key, value] : norm->state_dict()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"weight", "bias"}));
  EXPECT_TRUE(all_close(norm->weight.data(), ones({4})));
  EXPECT_TRUE(all_close(norm->bias.data(), zeros({4})));
}

TEST(GroupNormModuleTest, ChannelsNotDivisibleByGroupsIsAnError) {
  EXPECT_THROW_MSG(GroupNorm(2, 3), "num_channels must be divisible by num_groups");
}

TEST(LocalResponseNormModuleTest, ForwardIsTheFunctional) {
  LocalResponseNorm norm(LocalResponseNormOptions(3).alpha(0.5).beta(0.6).k(1.5));
  const Variable x(randn({2, 5, 3}));
  EXPECT_TRUE(all_close(norm(x).data(), F::local_response_norm(x, 3, 0.5, 0.6, 1.5).data()));
}

TEST(LocalResponseNormModuleTest, ReprsMatchPyTorch) {
  EXPECT_EQ(printed(LocalResponseNorm(2)), "LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)");
  EXPECT_EQ(printed(LocalResponseNorm(LocalResponseNormOptions(3).alpha(1e-3).beta(0.5).k(2.0))),
            "LocalResponseNorm(3, alpha=0.001, beta=0.5, k=2.0)");
}

}  // namespace
}  // namespace torchlet::nn
