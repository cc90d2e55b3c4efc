// nn::functional::batch_norm: against PyTorch 1.13 (outputs, gradients and
// running statistics from nn/functional/testdata/norm_golden.txt, written by
// tools/gen_norm_golden.py), finite differences, the in-place update of the
// running statistics, and every error by message.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "nn/functional/functional.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

namespace F = nn::functional;
using testing::all_close;
using testing::gradcheck;
using testing::gradgradcheck;

const testing::GoldenFile& golden() {
  return testing::GoldenFile::get("nn/functional/testdata/norm_golden.txt");
}

bool has(const std::string& key) { return golden().has(key); }

Tensor stored(const std::string& key) { return golden().at(key).to(kFloat32); }

struct GoldenCase {
  std::string name;
  bool training;
  double momentum;
  double eps;
};

class BatchNormGoldenTest : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(BatchNormGoldenTest, OutputGradientsAndRunningStatsMatchPyTorch) {
  const GoldenCase& c = GetParam();
  const std::string in = c.name + ".in.";
  Variable x(stored(in + "x"), true);
  Variable w = has(in + "w") ? Variable(stored(in + "w"), true) : Variable();
  Variable b = has(in + "b") ? Variable(stored(in + "b"), true) : Variable();
  Variable rm = has(in + "running_mean") ? Variable(stored(in + "running_mean")) : Variable();
  Variable rv = has(in + "running_var") ? Variable(stored(in + "running_var")) : Variable();

  const Variable out = F::batch_norm(x, rm, rv, w, b, c.training, c.momentum, c.eps);
  out.backward(Variable(stored(c.name + ".cot")));

  EXPECT_TRUE(all_close(out.data(), stored(c.name + ".out"), 1e-4, 1e-5));
  EXPECT_TRUE(all_close(x.grad().data(), stored(c.name + ".grad.x"), 1e-4, 1e-5));
  if (w.defined()) {
    EXPECT_TRUE(all_close(w.grad().data(), stored(c.name + ".grad.w"), 1e-4, 1e-5));
  }
  if (b.defined()) {
    EXPECT_TRUE(all_close(b.grad().data(), stored(c.name + ".grad.b"), 1e-4, 1e-5));
  }
  if (rm.defined()) {
    EXPECT_TRUE(all_close(rm.data(), stored(c.name + ".running_mean"), 1e-5, 1e-6));
    EXPECT_TRUE(all_close(rv.data(), stored(c.name + ".running_var"), 1e-5, 1e-6));
  }
}

INSTANTIATE_TEST_SUITE_P(PyTorch, BatchNormGoldenTest,
                         ::testing::Values(GoldenCase{"bn_train_1d", true, 0.1, 1e-5},
                                           GoldenCase{"bn_train_1d_len", true, 0.1, 1e-5},
                                           GoldenCase{"bn_train_2d", true, 0.1, 1e-5},
                                           GoldenCase{"bn_train_3d", true, 0.3, 1e-3},
                                           GoldenCase{"bn_train_no_affine", true, 0.1, 1e-5},
                                           GoldenCase{"bn_train_no_stats", true, 0.1, 1e-5},
                                           GoldenCase{"bn_eval_1d", false, 0.1, 1e-5},
                                           GoldenCase{"bn_eval_2d", false, 0.1, 1e-5},
                                           GoldenCase{"bn_eval_3d_no_affine", false, 0.1, 1e-5}),
                         [](const auto& info) { return info.param.name; });

// ---- Finite differences ---------------------------------------------------

Variable leaf(std::vector<int64_t> shape) { return Variable(randn(shape, kFloat64), true); }

struct GradCase {
  std::string name;
  std::vector<int64_t> shape;
  bool training;
  bool affine;
};

class BatchNormGradcheckTest : public ::testing::TestWithParam<GradCase> {
 protected:
  // batch_norm of x (and weight, bias when affine) with running statistics
  // that are fresh copies on every call, so finite differences see the same
  // function every time.
  testing::VariableFn fn() const {
    const GradCase c = GetParam();
    const int64_t channels = c.shape[1];
    const Tensor mean = randn({channels}, kFloat64);
    const Tensor var = rand({channels}, kFloat64).add(0.5);
    return [=](const variable_list& v) {
      const Variable rm(mean.clone()), rv(var.clone());
      return F::batch_norm(v[0], rm, rv, c.affine ? v[1] : Variable(), c.affine ? v[2] : Variable(),
                           c.training, 0.1, 1e-5);
    };
  }
  variable_list inputs() const {
    const GradCase c = GetParam();
    if (!c.affine) return {leaf(c.shape)};
    return {leaf(c.shape), leaf({c.shape[1]}), leaf({c.shape[1]})};
  }
};

TEST_P(BatchNormGradcheckTest, FirstDerivativesMatchFiniteDifferences) {
  manual_seed(1);
  EXPECT_TRUE(gradcheck(fn(), inputs()));
}

TEST_P(BatchNormGradcheckTest, SecondDerivativesMatchFiniteDifferences) {
  manual_seed(2);
  EXPECT_TRUE(gradgradcheck(fn(), inputs()));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, BatchNormGradcheckTest,
    ::testing::Values(GradCase{"train_1d", {3, 2}, true, true},
                      GradCase{"train_1d_len", {2, 3, 5}, true, true},
                      GradCase{"train_2d", {2, 3, 3, 5}, true, true},
                      GradCase{"train_3d", {2, 2, 3, 1, 3}, true, true},
                      GradCase{"train_2d_no_affine", {2, 3, 2, 3}, true, false},
                      GradCase{"eval_1d", {3, 2}, false, true},
                      GradCase{"eval_2d", {2, 3, 3, 5}, false, true},
                      GradCase{"eval_3d", {2, 2, 3, 1, 3}, false, true},
                      GradCase{"eval_2d_no_affine", {2, 3, 2, 3}, false, false}),
    [](const auto& info) { return info.param.name; });

TEST(BatchNormTest, WithoutRunningStatsUsesBatchStatsAndPassesGradcheck) {
  manual_seed(3);
  const auto fn = [](const variable_list& v) {
    return F::batch_norm(v[0], Variable(), Variable(), v[1], v[2], true);
  };
  EXPECT_TRUE(gradcheck(fn, {leaf({2, 3, 3}), leaf({3}), leaf({3})}));
}

// ---- Running statistics -----------------------------------------------------

TEST(BatchNormTest, TrainingUpdatesRunningStatsWithUnbiasedVariance) {
  const Variable x(tensor({{1.0, 10.0}, {3.0, 10.0}, {5.0, 16.0}}));
  const Variable rm(tensor({0.0, 1.0})), rv(tensor({1.0, 2.0}));
  F::batch_norm(x, rm, rv, Variable(), Variable(), true, 0.5);
  // Means 3 and 12; unbiased variances 4 and 12.
  EXPECT_TRUE(all_close(rm.data(), tensor({1.5, 6.5})));
  EXPECT_TRUE(all_close(rv.data(), tensor({2.5, 7.0})));
}

TEST(BatchNormTest, RunningStatsUpdateShowsThroughEveryViewOfTheBuffer) {
  const Tensor storage = zeros({2, 3});
  const Variable rm(storage.select(0, 0));
  const Variable rv(storage.select(0, 1).fill_(1));
  const Tensor strided = zeros({6});
  const Variable rm_strided(strided.slice(0, 0, std::nullopt, 2));
  const uint32_t version = storage.version();
  const Variable x(randn({4, 3}));
  F::batch_norm(x, rm, rv, Variable(), Variable(), true, 1.0);
  F::batch_norm(x, rm_strided, Variable(), Variable(), Variable(), true, 1.0);
  const Tensor batch_mean = x.data().mean({0});
  EXPECT_TRUE(all_close(storage.select(0, 0), batch_mean));
  EXPECT_TRUE(all_close(storage.select(0, 1), x.data().var({0}, true)));
  EXPECT_TRUE(all_close(strided.slice(0, 0, std::nullopt, 2), batch_mean));
  EXPECT_TRUE(all_close(strided.slice(0, 1, std::nullopt, 2), zeros({3})));
  EXPECT_GT(storage.version(), version);
}

TEST(BatchNormTest, EvalLeavesRunningStatsUnchanged) {
  const Variable rm(tensor({0.5f, -1.0f})), rv(tensor({2.0f, 0.5f}));
  const Variable x(tensor({{1.0f, 2.0f}, {3.0f, 4.0f}}));
  const Variable out = F::batch_norm(x, rm, rv);
  EXPECT_TRUE(all_close(rm.data(), tensor({0.5f, -1.0f})));
  EXPECT_TRUE(all_close(rv.data(), tensor({2.0f, 0.5f})));
  EXPECT_TRUE(all_close(out.data(), (x.data() - rm.data()) / (rv.data() + 1e-5).sqrt()));
}

TEST(BatchNormTest, NonContiguousInputMatchesContiguous) {
  const Tensor x = randn({3, 4, 5}, kFloat64);
  const Tensor permuted = x.permute({2, 1, 0}).contiguous().permute({2, 1, 0});
  const Variable w(randn({4}, kFloat64)), b(randn({4}, kFloat64));
  const Variable a = F::batch_norm(Variable(x), Variable(), Variable(), w, b, true);
  const Variable p = F::batch_norm(Variable(permuted), Variable(), Variable(), w, b, true);
  EXPECT_TRUE(all_close(p.data(), a.data(), 1e-12, 1e-12));
}

TEST(BatchNormTest, LargeMeanKeepsFloatVarianceAccurate) {
  const Tensor x = randn({64, 2, 8, 8}).add(1000.0f);
  const Variable rv(ones({2}));
  F::batch_norm(Variable(x), Variable(zeros({2})), rv, Variable(), Variable(), true, 1.0);
  const Tensor expected = x.to(kFloat64).var({0, 2, 3}, true).to(kFloat32);
  EXPECT_TRUE(all_close(rv.data(), expected, 1e-3, 1e-4));
}

TEST(BatchNormTest, EmptyBatchGivesEmptyOutputAndKeepsRunningStats) {
  const Variable rm(zeros({3})), rv(ones({3}));
  const Variable out =
      F::batch_norm(Variable(zeros({0, 3, 2})), rm, rv, Variable(), Variable(), true);
  EXPECT_EQ(shape_str(out.sizes()), "[0, 3, 2]");
  EXPECT_TRUE(all_close(rm.data(), zeros({3})));
  EXPECT_TRUE(all_close(rv.data(), ones({3})));
}

// ---- Errors -----------------------------------------------------------------

TEST(BatchNormErrorTest, OneValuePerChannelInTrainingIsAnError) {
  EXPECT_THROW_MSG(
      F::batch_norm(Variable(randn({1, 3})), Variable(), Variable(), Variable(), Variable(), true),
      "Expected more than 1 value per channel when training, got input size torch.Size([1, 3])");
}

TEST(BatchNormErrorTest, EvalWithoutRunningStatsIsAnError) {
  EXPECT_THROW_MSG(F::batch_norm(Variable(randn({2, 3})), Variable(), Variable()),
                   "running_mean must be defined in evaluation mode");
}

TEST(BatchNormErrorTest, EvalWithoutRunningVarIsAnError) {
  EXPECT_THROW_MSG(F::batch_norm(Variable(randn({2, 3})), Variable(zeros({3})), Variable()),
                   "running_var must be defined in evaluation mode");
}

TEST(BatchNormErrorTest, PerChannelOperandOfWrongSizeIsAnError) {
  const Variable x(randn({2, 3, 4}));
  const Variable three(zeros({3})), four(zeros({4}));
  EXPECT_THROW_MSG(F::batch_norm(x, four, three, Variable(), Variable(), true),
                   "running_mean should contain 3 elements not 4");
  EXPECT_THROW_MSG(F::batch_norm(x, three, four, Variable(), Variable(), true),
                   "running_var should contain 3 elements not 4");
  EXPECT_THROW_MSG(F::batch_norm(x, three, three, four, Variable(), true),
                   "weight should contain 3 elements not 4");
  EXPECT_THROW_MSG(F::batch_norm(x, three, three, Variable(), four, true),
                   "bias should contain 3 elements not 4");
}

TEST(BatchNormErrorTest, MixedDtypesAreAnError) {
  const Variable x(randn({2, 3, 4}));
  EXPECT_THROW_MSG(F::batch_norm(x, Variable(zeros({3}, kFloat64)), Variable(zeros({3})),
                                 Variable(), Variable(), true),
                   "mixed dtype (CPU): expect parameter to have scalar type of Float");
}

TEST(BatchNormErrorTest, IntegerInputIsAnError) {
  EXPECT_THROW_MSG(F::batch_norm(Variable(zeros({2, 3}, kInt64)), Variable(), Variable(),
                                 Variable(), Variable(), true),
                   "\"batch_norm\" not implemented for 'Long'");
}

TEST(BatchNormErrorTest, OneDimensionalInputIsAnError) {
  EXPECT_THROW_MSG(
      F::batch_norm(Variable(randn({3})), Variable(), Variable(), Variable(), Variable(), true),
      "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
}

TEST(BatchNormErrorTest, ExpandedRunningStatIsAnError) {
  const Variable rm(zeros({1}).expand({3}));
  EXPECT_THROW_MSG(
      F::batch_norm(Variable(randn({2, 3})), rm, Variable(), Variable(), Variable(), true),
      "more than one element of the written-to tensor refers to a single memory "
      "location");
}

// ---- Instance, group and local response norm ---------------------------------

// A golden case of tools/gen_norm_golden.py's record(): float leaves `x`,
// `w`, `b` and, when stored, running statistics that the call updates.
class NormGoldenTest : public ::testing::Test {
 protected:
  void check(const std::string& c,
             const std::function<Variable(const std::map<std::string, Variable>&)>& fn) {
    SCOPED_TRACE(c);
    std::map<std::string, Variable> args;
    variable_list leaves;
    std::vector<std::string> names;
    for (const std::string name : {"x", "w", "b"}) {
      if (!has(c + ".in." + name)) continue;
      args[name] = Variable(stored(c + ".in." + name), true);
      leaves.push_back(args[name]);
      names.push_back(name);
    }
    for (const std::string name : {"running_mean", "running_var"}) {
      if (has(c + ".in." + name)) args[name] = Variable(stored(c + ".in." + name));
    }
    const Variable out = fn(args);
    EXPECT_TRUE(all_close(out.data(), stored(c + ".out"), 1e-4, 1e-5));
    const variable_list grads = autograd::grad({out}, leaves, {Variable(stored(c + ".cot"))});
    for (size_t i = 0; i < leaves.size(); ++i) {
      EXPECT_TRUE(all_close(grads[i].data(), stored(c + ".grad." + names[i]), 1e-4, 1e-5))
          << "gradient of " << names[i];
    }
    for (const std::string name : {"running_mean", "running_var"}) {
      if (args.count(name) == 0) continue;
      EXPECT_TRUE(all_close(args[name].data(), stored(c + "." + name), 1e-5, 1e-6)) << name;
    }
  }
};

using Args = std::map<std::string, Variable>;

Variable arg(const Args& a, const std::string& name) {
  const auto it = a.find(name);
  return it == a.end() ? Variable() : it->second;
}

TEST_F(NormGoldenTest, InstanceNormMatchesPyTorch) {
  check("in_train", [](const Args& a) {
    return F::instance_norm(arg(a, "x"), arg(a, "running_mean"), arg(a, "running_var"), arg(a, "w"),
                            arg(a, "b"), true, 0.2);
  });
  check("in_plain_2d", [](const Args& a) { return F::instance_norm(arg(a, "x")); });
  check("in_eval_3d", [](const Args& a) {
    return F::instance_norm(arg(a, "x"), arg(a, "running_mean"), arg(a, "running_var"), Variable(),
                            Variable(), false);
  });
}

TEST_F(NormGoldenTest, GroupNormMatchesPyTorch) {
  check("gn",
        [](const Args& a) { return F::group_norm(arg(a, "x"), 2, arg(a, "w"), arg(a, "b")); });
  check("gn_plain_1d",
        [](const Args& a) { return F::group_norm(arg(a, "x"), 3, Variable(), Variable(), 1e-3); });
  check("gn_one_group", [](const Args& a) { return F::group_norm(arg(a, "x"), 1, arg(a, "w")); });
}

TEST_F(NormGoldenTest, LocalResponseNormMatchesPyTorch) {
  check("lrn_3d", [](const Args& a) { return F::local_response_norm(arg(a, "x"), 3); });
  check("lrn_4d",
        [](const Args& a) { return F::local_response_norm(arg(a, "x"), 2, 0.1, 0.5, 2.0); });
  check("lrn_5d", [](const Args& a) { return F::local_response_norm(arg(a, "x"), 4, 0.5); });
}

struct OpCase {
  std::string name;
  testing::VariableFn fn;
  std::vector<std::vector<int64_t>> shapes;
};

class NormGradcheckTest : public ::testing::TestWithParam<OpCase> {
 protected:
  variable_list inputs() const {
    variable_list v;
    for (const auto& shape : GetParam().shapes) v.push_back(leaf(shape));
    return v;
  }
};

TEST_P(NormGradcheckTest, FirstDerivativesMatchFiniteDifferences) {
  manual_seed(4);
  EXPECT_TRUE(gradcheck(GetParam().fn, inputs()));
}

TEST_P(NormGradcheckTest, SecondDerivativesMatchFiniteDifferences) {
  manual_seed(5);
  EXPECT_TRUE(gradgradcheck(GetParam().fn, inputs()));
}

Variable fresh_stats(int64_t channels, double value) {
  return Variable(full({channels}, value, kFloat64));
}

INSTANTIATE_TEST_SUITE_P(
    Ops, NormGradcheckTest,
    ::testing::Values(
        OpCase{"instance_norm_affine",
               [](const variable_list& v) {
                 return F::instance_norm(v[0], fresh_stats(3, 0.5), fresh_stats(3, 2.0), v[1],
                                         v[2]);
               },
               {{2, 3, 5}, {3}, {3}}},
        OpCase{"instance_norm_2d",
               [](const variable_list& v) { return F::instance_norm(v[0]); },
               {{2, 2, 3, 3}}},
        OpCase{"instance_norm_eval",
               [](const variable_list& v) {
                 return F::instance_norm(v[0], fresh_stats(2, 0.5), fresh_stats(2, 2.0), v[1], v[2],
                                         false);
               },
               {{2, 2, 3, 1, 2}, {2}, {2}}},
        OpCase{"group_norm_affine",
               [](const variable_list& v) { return F::group_norm(v[0], 2, v[1], v[2]); },
               {{2, 4, 3}, {4}, {4}}},
        OpCase{"group_norm_3d",
               [](const variable_list& v) { return F::group_norm(v[0], 3); },
               {{2, 3, 2, 1, 3}}},
        OpCase{"local_response_norm_3d",
               [](const variable_list& v) { return F::local_response_norm(v[0], 3, 0.5); },
               {{2, 4, 3}}},
        OpCase{
            "local_response_norm_4d",
            [](const variable_list& v) { return F::local_response_norm(v[0], 2, 0.3, 0.6, 1.5); },
            {{2, 3, 2, 3}}}),
    [](const auto& info) { return info.param.name; });

TEST(InstanceNormTest, RunningStatsAverageOverTheBatchInPlace) {
  const Variable x(tensor({{{1.0, 3.0}}, {{5.0, 9.0}}}));  // [2, 1, 2]
  const Tensor storage = zeros({2});
  const Variable rm(storage.slice(0, 0, 1)), rv(ones({1}));
  F::instance_norm(x, rm, rv, Variable(), Variable(), true, 1.0);
  // Sample means 2 and 7, unbiased variances 2 and 8.
  EXPECT_TRUE(all_close(storage, tensor({4.5, 0.0})));
  EXPECT_TRUE(all_close(rv.data(), tensor({5.0})));
}

TEST(InstanceNormErrorTest, OneSpatialElementIsAnError) {
  EXPECT_THROW_MSG(F::instance_norm(Variable(randn({2, 3, 1}))),
                   "Expected more than 1 spatial element when training, got input size torch.Size([2, 3, 1])");
}

TEST(InstanceNormErrorTest, RunningStatsAreNeededWithoutInputStats) {
  EXPECT_THROW_MSG(F::instance_norm(Variable(randn({2, 3, 4})), Variable(), Variable(), Variable(),
                                    Variable(), false),
                   "Expected running_mean and running_var to be defined when use_input_stats is "
                   "false");
}

TEST(GroupNormErrorTest, ChannelsNotDivisibleByGroupsIsAnError) {
  EXPECT_THROW_MSG(F::group_norm(Variable(randn({2, 3, 4})), 2),
                   "Expected number of channels in input to be divisible by num_groups, but got "
                   "input of shape [2, 3, 4] and num_groups=2");
}

TEST(GroupNormErrorTest, WeightOfWrongSizeIsAnError) {
  EXPECT_THROW_MSG(F::group_norm(Variable(randn({2, 4, 4})), 2, Variable(ones({3}))),
                   "Expected weight to be a vector of size equal to the number of channels in "
                   "input, but got weight of shape [3] and input of shape [2, 4, 4]");
  EXPECT_THROW_MSG(F::group_norm(Variable(randn({2, 4, 4})), 2, Variable(), Variable(zeros({0}))),
                   "Expected bias to be a vector of size equal to the number of channels in "
                   "input, but got bias of shape [0] and input of shape [2, 4, 4]");
}

TEST(GroupNormErrorTest, ParametersOfAnotherDtypeThanTheInputAreAnError) {
  const Variable x(randn({2, 4, 3}, kFloat64));
  EXPECT_THROW_MSG(F::group_norm(x, 2, Variable(ones({4})), Variable(zeros({4}))),
                   "expected scalar type Double but found Float");
  EXPECT_THROW_MSG(F::group_norm(x, 2, Variable(), Variable(zeros({4}))),
                   "expected scalar type Double but found Float");
  EXPECT_THROW_MSG(F::group_norm(Variable(randn({2, 4, 3})), 2, Variable(ones({4}, kFloat64))),
                   "expected scalar type Float but found Double");
}

TEST(GroupNormErrorTest, OneValuePerGroupIsAnError) {
  EXPECT_THROW_MSG(
      F::group_norm(Variable(randn({1, 4, 1})), 4),
      "Expected more than 1 value per channel when training, got input size [1, 4, 1]");
}

TEST(GroupNormErrorTest, NonPositiveGroupCountIsAnError) {
  EXPECT_THROW_MSG(F::group_norm(Variable(randn({2, 4})), 0),
                   "group_norm: num_groups must be positive, got 0");
}

TEST(LocalResponseNormTest, EmptyInputIsReturnedAsIs) {
  const Variable x(zeros({0, 3, 4}));
  EXPECT_TRUE(F::local_response_norm(x, 2).is_same(x));
}

TEST(LocalResponseNormErrorTest, FewerThanThreeDimsIsAnError) {
  EXPECT_THROW_MSG(F::local_response_norm(Variable(randn({2, 3})), 2),
                   "Expected 3D or higher dimensionality                          input (got 2 "
                   "dimensions)");
}

TEST(LocalResponseNormErrorTest, NonPositiveSizeIsAnError) {
  EXPECT_THROW_MSG(F::local_response_norm(Variable(randn({2, 3, 2})), 0),
                   "local_response_norm: size must be positive, got 0");
}

}  // namespace
}  // namespace torchlet
