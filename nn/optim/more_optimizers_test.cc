// Adadelta, Adamax, NAdam, RAdam, ASGD and Rprop against PyTorch 1.13
// (nn/optim/testdata/optim_state_golden.txt, written by
// tools/gen_optim_golden.py): state_dicts after three steps, parameters after
// eight, reprs, option errors and what is particular to each. The shared
// suites of optimizer_test.cc (three steps, resuming, frozen parameters) run
// these configurations too.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "gtest/gtest.h"
#include "nn/optim/optim.h"
#include "nn/optim/optim_testing.h"
#include "tensor/factories.h"
#include "tensor/test_util.h"

namespace torchlet::optim {
namespace {

using testing::all_close;
using testing::golden_params;
using testing::golden_reprs;
using testing::optim_golden;
using testing::optim_state_golden;
using testing::run_golden_steps;

// The configurations of tools/gen_optim_golden.py from Adadelta on, by name
// (optimizer_test.cc runs them too).
const testing::OptimizerConfigs& configs() { return testing::more_optimizer_configs(); }

// ---- state_dict ------------------------------------------------------------------------

class StateDictAfterSteps : public ::testing::TestWithParam<std::string> {};

TEST_P(StateDictAfterSteps, HasPyTorchsKeysAndValues) {
  const std::vector<Variable> params = golden_params();
  std::unique_ptr<Optimizer> optimizer = configs().at(GetParam())(params);
  run_golden_steps(*optimizer, params, optim_golden(), "grad", 3);
  ASSERT_NO_FATAL_FAILURE(testing::expect_state_dict_matches(
      optimizer->state_dict(), optim_state_golden(), GetParam(), 1e-5, 1e-6));
}

INSTANTIATE_TEST_SUITE_P(Optimizers, StateDictAfterSteps,
                         ::testing::ValuesIn(testing::config_names(configs())),
                         [](const auto& info) { return info.param; });

TEST(MoreOptimizersStateDict, StepIsAnIntegerInAdadeltaAndRpropAndFloat32InTheOthers) {
  for (const auto& [name, factory] : configs()) {
    const std::vector<Variable> params = golden_params();
    std::unique_ptr<Optimizer> optimizer = factory(params);
    run_golden_steps(*optimizer, params, optim_golden(), "grad", 1);
    const bool integer = name.rfind("adadelta", 0) == 0 || name.rfind("rprop", 0) == 0;
    EXPECT_EQ(optimizer->state_dict().at("state.0.step").dtype(), integer ? kInt64 : kFloat32)
        << name;
  }
}

TEST(MoreOptimizersStateDict, NAdamAndASGDKeepFloat32ScalarsForFloat64Parameters) {
  const Variable w(from_vector(std::vector<double>{1.0, -2.0}), true);
  NAdam nadam({w});
  ASGD asgd({Variable(from_vector(std::vector<double>{1.0, -2.0}), true)});
  w.set_grad(Variable(from_vector(std::vector<double>{0.5, 0.25})));
  nadam.step();
  asgd.param_groups()[0].params[0].set_grad(Variable(from_vector(std::vector<double>{0.5, 0.25})));
  asgd.step();
  for (const auto& [sd, key] : {std::make_pair(nadam.state_dict(), "state.0.mu_product"),
                                std::make_pair(asgd.state_dict(), "state.0.eta"),
                                std::make_pair(asgd.state_dict(), "state.0.mu")}) {
    EXPECT_EQ(sd.at(key).dtype(), kFloat32) << key;
    EXPECT_EQ(sd.at(key).dim(), 0) << key;
  }
  EXPECT_EQ(nadam.state_dict().at("state.0.exp_avg").dtype(), kFloat64);
}

TEST(MoreOptimizersStateDict, LoadRejectsAScalarBufferOfAnotherShape) {
  const Variable w(zeros({2}), true);
  NAdam nadam({w});
  w.set_grad(Variable(ones({2})));
  nadam.step();
  StateDict sd = nadam.state_dict();
  sd["state.0.mu_product"] = ones({2});
  const StateDict before = nadam.state_dict();
  EXPECT_THROW_MSG(nadam.load_state_dict(sd),
                   "load_state_dict: 'state.0.mu_product' must hold one number (a 0-dim tensor), "
                   "got shape [2]");
  EXPECT_TRUE(all_close(nadam.state_dict().at("state.0.mu_product"),
                        before.at("state.0.mu_product")));
}

TEST(MoreOptimizersStateDict, LoadStillRejectsAParameterBufferOfAnotherShape) {
  const Variable w(zeros({2}), true);
  ASGD asgd({w});
  w.set_grad(Variable(ones({2})));
  asgd.step();
  StateDict sd = asgd.state_dict();
  sd["state.0.ax"] = zeros({});
  EXPECT_THROW_MSG(asgd.load_state_dict(sd),
                   "'state.0.ax' has shape [], but the parameter has shape [2]");
}

// ---- Longer runs -----------------------------------------------------------------------

class EightSteps : public ::testing::TestWithParam<std::string> {};

// RAdam rectifies its update from the sixth step; ASGD averages from the
// second (t0 = 0); Rprop's step sizes reach their bounds.
TEST_P(EightSteps, MatchPyTorch) {
  const std::vector<Variable> params = golden_params();
  std::unique_ptr<Optimizer> optimizer = configs().at(GetParam())(params);
  run_golden_steps(*optimizer, params, optim_state_golden(), "long_grad", 8);
  testing::expect_params_match(params, optim_state_golden(), "long." + GetParam() + ".", 1e-5,
                               1e-6);
}

INSTANTIATE_TEST_SUITE_P(Optimizers, EightSteps,
                         ::testing::Values("radam", "radam_wd", "nadam_wd_momentum_decay",
                                           "asgd_t0_wd_maximize", "rprop_etas_maximize"),
                         [](const auto& info) { return std::string(info.param); });

TEST(RAdam, RectifiedStepsFromTheSixthMatchPyTorchInFloat64) {
  const std::vector<Variable> params = golden_params(kFloat64);
  RAdam radam(params, RAdamOptions(0.01));
  run_golden_steps(radam, params, optim_state_golden(), "long_grad", 8);
  testing::expect_params_match(params, optim_state_golden(), "long.radam.", 1e-6, 1e-7);
}

// ---- Rprop -----------------------------------------------------------------------------

TEST(Rprop, StepSizesGrowWhileTheSignHoldsAndShrinkWhenItFlips) {
  const Variable w(from_vector(std::vector<float>{0.f, 0.f}), true);
  Rprop rprop({w}, RpropOptions(0.1));
  const auto step = [&](std::vector<float> grad) {
    w.set_grad(Variable(from_vector(grad)));
    rprop.step();
  };
  step({1.f, 1.f});   // no previous gradient: factor 1, w -= 0.1 * sign
  step({1.f, -1.f});  // kept: 0.1 * 1.2; flipped: 0.1 * 0.5 and no move
  const StateDict sd = rprop.state_dict();
  EXPECT_TRUE(all_close(sd.at("state.0.step_size"), from_vector(std::vector<float>{0.12f, 0.05f})));
  EXPECT_TRUE(all_close(sd.at("state.0.prev"), from_vector(std::vector<float>{1.f, 0.f})));
  EXPECT_TRUE(all_close(w.data(), from_vector(std::vector<float>{-0.22f, -0.1f})));
}

// ---- ASGD ------------------------------------------------------------------------------

TEST(ASGD, AverageFollowsTheParameterUntilT0AndAveragesAfter) {
  const Variable w(from_vector(std::vector<float>{1.f}), true);
  ASGD asgd({w}, ASGDOptions(0.1).lambd(0).t0(1));
  std::vector<float> values;
  for (int i = 0; i < 3; ++i) {
    w.set_grad(Variable(from_vector(std::vector<float>{1.f})));
    asgd.step();
    values.push_back(w.item<float>());
  }
  // mu stays 1 for steps 1 and 2 (ax copies w), then 1 / (2 - t0) = 1.
  // After step 3 mu = 1 / (3 - 1) = 0.5 (used from step 4).
  const StateDict sd = asgd.state_dict();
  EXPECT_FLOAT_EQ(sd.at("state.0.ax").item<float>(), values.back());
  EXPECT_FLOAT_EQ(sd.at("state.0.mu").item<float>(), 0.5f);
  w.set_grad(Variable(from_vector(std::vector<float>{1.f})));
  asgd.step();
  EXPECT_FLOAT_EQ(asgd.state_dict().at("state.0.ax").item<float>(),
                  values.back() + 0.5f * (w.item<float>() - values.back()));
}

// ---- Learning-rate schedulers ----------------------------------------------------------

TEST(MoreOptimizersWithSchedulers, StepLRChangesTheLrEachOptimizerReads) {
  for (const auto& [name, factory] : configs()) {
    const Variable w(from_vector(std::vector<float>{1.f, -1.f}), true);
    std::unique_ptr<Optimizer> optimizer = factory({w});
    const double lr = optimizer->param_groups()[0].lr();
    StepLR scheduler(*optimizer, 1, 0.5);
    w.set_grad(Variable(from_vector(std::vector<float>{0.5f, 0.5f})));
    optimizer->step();
    scheduler.step();
    EXPECT_DOUBLE_EQ(optimizer->param_groups()[0].lr(), lr * 0.5) << name;
    EXPECT_EQ(optimizer->param_groups()[0].number("initial_lr"), lr) << name;
  }
}

TEST(MoreOptimizersWithSchedulers, ALowerLrMovesAdadeltaLess) {
  const auto moved = [](double factor) {
    const Variable w(from_vector(std::vector<float>{0.f}), true);
    Adadelta adadelta({w});
    LambdaLR scheduler(adadelta, [factor](int64_t) { return factor; });
    w.set_grad(Variable(from_vector(std::vector<float>{1.f})));
    adadelta.step();
    return -w.item<float>();
  };
  EXPECT_FLOAT_EQ(moved(0.25), 0.25f * moved(1.0));
}

TEST(MoreOptimizersWithSchedulers, OneCycleLRCyclesNAdamsFirstBeta) {
  const Variable w(zeros({2}), true);
  NAdam nadam({w});
  OneCycleLR scheduler(nadam, OneCycleLROptions({0.01}).total_steps(10));
  EXPECT_DOUBLE_EQ(nadam.param_groups()[0].pair("betas").first, 0.95);
  EXPECT_DOUBLE_EQ(nadam.param_groups()[0].pair("betas").second, 0.999);
}

TEST(MoreOptimizersWithSchedulers, OneCycleLRRefusesAdadeltaWhichHasNoMomentum) {
  const Variable w(zeros({2}), true);
  Adadelta adadelta({w});
  EXPECT_THROW_MSG(OneCycleLR(adadelta, OneCycleLROptions({0.01}).total_steps(10)),
                   "optimizer must support momentum");
}

// ---- Printing --------------------------------------------------------------------------

TEST(MoreOptimizersRepr, MatchesPyTorchCharacterForCharacter) {
  const Variable w(zeros({2}), true);
  const auto reprs = golden_reprs();
  EXPECT_EQ(Adadelta({w}).repr(), reprs.at("adadelta"));
  EXPECT_EQ(Adadelta({w}, AdadeltaOptions(0.5).rho(0.95).eps(1e-7).weight_decay(0.01)
                              .maximize(true))
                .repr(),
            reprs.at("adadelta_options"));
  EXPECT_EQ(Adamax({w}).repr(), reprs.at("adamax"));
  EXPECT_EQ(NAdam({w}).repr(), reprs.at("nadam"));
  EXPECT_EQ(RAdam({w}, RAdamOptions().betas({0.8, 0.99}).weight_decay(1e-4)).repr(),
            reprs.at("radam"));
  EXPECT_EQ(ASGD({w}).repr(), reprs.at("asgd"));
  EXPECT_EQ(Rprop({w}).repr(), reprs.at("rprop"));  // step_sizes: (1e-06, 50)
}

// ---- Errors ----------------------------------------------------------------------------

TEST(MoreOptimizersErrors, PyTorchsMessagesForInvalidOptions) {
  const std::vector<Variable> w = {Variable(zeros({2}), true)};
  EXPECT_THROW_MSG(Adadelta(w, AdadeltaOptions(-1.0)), "Invalid learning rate: -1.0");
  EXPECT_THROW_MSG(Adadelta(w, AdadeltaOptions().rho(1.5)), "Invalid rho value: 1.5");
  EXPECT_THROW_MSG(Adadelta(w, AdadeltaOptions().rho(-0.1)), "Invalid rho value: -0.1");
  EXPECT_THROW_MSG(Adadelta(w, AdadeltaOptions().eps(-1e-6)), "Invalid epsilon value: -1e-06");
  EXPECT_THROW_MSG(Adadelta(w, AdadeltaOptions().weight_decay(-1)), "Invalid weight_decay value: -1");
  EXPECT_THROW_MSG(Adamax(w, AdamaxOptions(-0.1)), "Invalid learning rate: -0.1");
  EXPECT_THROW_MSG(Adamax(w, AdamaxOptions().eps(-1.0)), "Invalid epsilon value: -1.0");
  EXPECT_THROW_MSG(Adamax(w, AdamaxOptions().betas({1.0, 0.9})),
                   "Invalid beta parameter at index 0: 1.0");
  EXPECT_THROW_MSG(Adamax(w, AdamaxOptions().betas({0.9, -0.5})),
                   "Invalid beta parameter at index 1: -0.5");
  EXPECT_THROW_MSG(Adamax(w, AdamaxOptions().weight_decay(-0.5)), "Invalid weight_decay value: -0.5");
  EXPECT_THROW_MSG(NAdam(w, NAdamOptions(-1)), "Invalid learning rate: -1");
  EXPECT_THROW_MSG(NAdam(w, NAdamOptions().eps(-1)), "Invalid epsilon value: -1");
  EXPECT_THROW_MSG(NAdam(w, NAdamOptions().betas({-0.1, 0.9})),
                   "Invalid beta parameter at index 0: -0.1");
  EXPECT_THROW_MSG(NAdam(w, NAdamOptions().betas({0.9, 1.0})),
                   "Invalid beta parameter at index 1: 1.0");
  EXPECT_THROW_MSG(NAdam(w, NAdamOptions().weight_decay(-1)), "Invalid weight_decay value: -1");
  EXPECT_THROW_MSG(NAdam(w, NAdamOptions().momentum_decay(-0.004)),
                   "Invalid momentum_decay value: -0.004");
  EXPECT_THROW_MSG(RAdam(w, RAdamOptions(-1e-3)), "Invalid learning rate: -0.001");
  EXPECT_THROW_MSG(RAdam(w, RAdamOptions().eps(-1)), "Invalid epsilon value: -1");
  EXPECT_THROW_MSG(RAdam(w, RAdamOptions().betas({1.5, 0.9})),
                   "Invalid beta parameter at index 0: 1.5");
  EXPECT_THROW_MSG(RAdam(w, RAdamOptions().betas({0.9, 1.5})),
                   "Invalid beta parameter at index 1: 1.5");
  EXPECT_THROW_MSG(RAdam(w, RAdamOptions().weight_decay(-2)), "Invalid weight_decay value: -2");
  EXPECT_THROW_MSG(ASGD(w, ASGDOptions(-0.01)), "Invalid learning rate: -0.01");
  EXPECT_THROW_MSG(ASGD(w, ASGDOptions().weight_decay(-1)), "Invalid weight_decay value: -1");
  EXPECT_THROW_MSG(Rprop(w, RpropOptions(-1)), "Invalid learning rate: -1");
  EXPECT_THROW_MSG(Rprop(w, RpropOptions().etas({1.5, 1.2})), "Invalid eta values: 1.5, 1.2");
  EXPECT_THROW_MSG(Rprop(w, RpropOptions().etas({0.5, 0.9})), "Invalid eta values: 0.5, 0.9");
  EXPECT_THROW_MSG(Rprop(w, RpropOptions().etas({0.0, 1.2})), "Invalid eta values: 0.0, 1.2");
  EXPECT_THROW_MSG(Rprop(w, RpropOptions().etas({1, 2})), "Invalid eta values: 1, 2");
}

TEST(MoreOptimizersErrors, OptionsOfTheWrongKind) {
  const Variable w(zeros({2}), true);
  EXPECT_THROW_MSG(Adadelta({ParamGroup({w}, {{"rho", true}})}), "Invalid rho value: True");
  EXPECT_THROW_MSG(Adadelta({ParamGroup({w}, {{"maximize", 1}})}),
                   "Adadelta: option 'maximize' must be a bool, got 1");
  EXPECT_THROW_MSG(Adamax({ParamGroup({w}, {{"betas", 0.9}})}), "Invalid betas: 0.9");
  EXPECT_THROW_MSG(ASGD({ParamGroup({w}, {{"lambd", true}})}), "Invalid lambd value: True");
  EXPECT_THROW_MSG(ASGD({ParamGroup({w}, {{"alpha", std::nullopt}})}), "Invalid alpha value: None");
  EXPECT_THROW_MSG(ASGD({ParamGroup({w}, {{"t0", false}})}), "Invalid t0 value: False");
  EXPECT_THROW_MSG(Rprop({ParamGroup({w}, {{"etas", 0.5}})}), "Invalid etas: 0.5");
  EXPECT_THROW_MSG(Rprop({ParamGroup({w}, {{"step_sizes", 1e-6}})}), "Invalid step_sizes: 1e-06");
  EXPECT_THROW_MSG(Rprop({ParamGroup({w}, {{"step_sizes", "big"}})}), "Invalid step_sizes: 'big'");
  EXPECT_THROW_MSG(Adamax({ParamGroup({w}, {{"lr", "0.1"}})}), "Invalid learning rate: '0.1'");
  EXPECT_THROW_MSG(NAdam({ParamGroup({w}, {{"foreach", 1}})}),
                   "NAdam: foreach must be None or a bool, got 1");
}

TEST(MoreOptimizersErrors, OptionsPyTorchDoesNotHave) {
  const Variable w(zeros({2}), true);
  EXPECT_THROW_MSG(NAdam({ParamGroup({w}, {{"maximize", true}})}),
                   "NAdam: unknown optimization option 'maximize'");
  EXPECT_THROW_MSG(RAdam({ParamGroup({w}, {{"maximize", true}})}),
                   "RAdam: unknown optimization option 'maximize'");
  EXPECT_THROW_MSG(Rprop({ParamGroup({w}, {{"weight_decay", 0.1}})}),
                   "Rprop: unknown optimization option 'weight_decay'");
}

TEST(MoreOptimizersErrors, EmptyParameterList) {
  EXPECT_THROW_MSG(Adadelta(std::vector<Variable>{}), "optimizer got an empty parameter list");
  EXPECT_THROW_MSG(Rprop(std::vector<ParamGroup>{}), "optimizer got an empty parameter list");
}

}  // namespace
}  // namespace torchlet::optim
