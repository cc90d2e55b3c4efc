// The optimizers against PyTorch 1.13 (nn/optim/testdata, written by
// tools/gen_optim_golden.py): parameters after three steps, printed forms,
// state_dict round trips and every error path. more_optimizers_test.cc and
// lbfgs_test.cc test what is particular to the optimizers from Adadelta on.

#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "autograd/autograd.h"
#include "gtest/gtest.h"
#include "nn/optim/optim.h"
#include "nn/optim/optim_testing.h"
#include "tensor/factories.h"
#include "tensor/test_util.h"

namespace torchlet::optim {
namespace {

using testing::bit_equal;
using testing::config_names;
using testing::expect_same_training;
using testing::golden_params;
using testing::golden_reprs;
using testing::optim_golden;
using testing::OptimizerFactory;

// The configurations of tools/gen_optim_golden.py, by name.
const testing::OptimizerConfigs& configs() { return testing::optimizer_configs(); }

class GoldenSteps : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenSteps, ThreeStepsMatchPyTorch) {
  const std::vector<Variable> params = golden_params();
  std::unique_ptr<Optimizer> optimizer = configs().at(GetParam())(params);
  testing::run_golden_steps(*optimizer, params, optim_golden(), "grad", 3);
  testing::expect_params_match(params, optim_golden(), GetParam() + ".", 1e-5, 1e-6);
}

INSTANTIATE_TEST_SUITE_P(Optimizers, GoldenSteps, ::testing::ValuesIn(config_names(configs())),
                         [](const auto& info) { return info.param; });

// ---- Resume ----------------------------------------------------------------------------

// A tiny model's loss from fixed inputs, so gradients depend on the parameters.
Variable tiny_loss(const std::vector<Variable>& p) {
  const Variable x(from_vector(std::vector<float>{0.5f, -1.f, 2.f, 0.25f, 1.5f, -0.75f}, {2, 3}));
  const Variable hidden = (x.mm(p[0].t()) + p[1]).tanh();
  return (hidden.mm(p[2].t()) + p[3]).pow(2).mean();
}

void train(Optimizer& optimizer, const std::vector<Variable>& params, int steps) {
  for (int i = 0; i < steps; ++i) {
    optimizer.zero_grad();
    optimizer.step([&] {
      Variable loss = tiny_loss(params);
      loss.backward();
      return loss;
    });
  }
}

std::vector<Variable> copies(const std::vector<Variable>& params) {
  std::vector<Variable> out;
  for (const Variable& p : params) out.emplace_back(p.data().clone(), true);
  return out;
}

class Resume : public ::testing::TestWithParam<std::string> {};

TEST_P(Resume, ThreePlusStateDictRoundTripPlusThreeEqualsSixStepsBitForBit) {
  const OptimizerFactory& factory = configs().at(GetParam());
  const std::vector<Variable> straight = golden_params();
  std::unique_ptr<Optimizer> straight_optimizer = factory(straight);
  train(*straight_optimizer, straight, 6);

  const std::vector<Variable> first = golden_params();
  std::unique_ptr<Optimizer> first_optimizer = factory(first);
  train(*first_optimizer, first, 3);
  const StateDict saved = first_optimizer->state_dict();

  const std::vector<Variable> resumed = copies(first);
  std::unique_ptr<Optimizer> resumed_optimizer = factory(copies(first));
  resumed_optimizer = factory(resumed);
  resumed_optimizer->load_state_dict(saved);
  train(*resumed_optimizer, resumed, 3);

  expect_same_training(resumed, *resumed_optimizer, straight, *straight_optimizer);
}

INSTANTIATE_TEST_SUITE_P(Optimizers, Resume, ::testing::ValuesIn(config_names(configs())),
                         [](const auto& info) { return info.param; });

// ---- Frozen parameters -----------------------------------------------------------------
// PyTorch accepts parameters that do not require grad (a frozen layer's) and
// skips them while their grad is None. b1 (index 1) is frozen here.

std::vector<Variable> params_with_b1_frozen() {
  std::vector<Variable> params = golden_params();
  params[1].requires_grad_(false);
  return params;
}

bool has_state_for(const StateDict& sd, int index) {
  const std::string prefix = "state." + std::to_string(index) + ".";
  for (const auto& [key, value] : sd) {
    if (key.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

class FrozenParameter : public ::testing::TestWithParam<std::string> {};

TEST_P(FrozenParameter, IsAcceptedAndLeftUnchangedByStep) {
  const std::vector<Variable> params = params_with_b1_frozen();
  std::unique_ptr<Optimizer> optimizer = configs().at(GetParam())(params);
  train(*optimizer, params, 3);
  EXPECT_FALSE(params[1].grad().defined());
  EXPECT_TRUE(bit_equal(params[1].data(), optim_golden().at("init.b1").to(kFloat32)));
  EXPECT_FALSE(bit_equal(params[0].data(), optim_golden().at("init.w1").to(kFloat32)));
}

// Adagrad makes its state for every parameter when constructed (PyTorch's
// step 0 and sum filled with initial_accumulator_value); the others have none
// for a parameter that never had a gradient.
TEST_P(FrozenParameter, HasStateOnlyInAdagrad) {
  const std::vector<Variable> params = params_with_b1_frozen();
  std::unique_ptr<Optimizer> optimizer = configs().at(GetParam())(params);
  train(*optimizer, params, 2);
  const StateDict sd = optimizer->state_dict();
  if (optimizer->name() != "Adagrad") {
    EXPECT_FALSE(has_state_for(sd, 1));
    return;
  }
  EXPECT_EQ(sd.at("state.1.step").item<double>(), 0.0);
  const double initial = optimizer->param_groups()[0].number("initial_accumulator_value");
  EXPECT_TRUE(bit_equal(sd.at("state.1.sum"), full_like(params[1].data(), initial)));
}

TEST_P(FrozenParameter, IsUpdatedOnceUnfrozen) {
  const std::vector<Variable> params = params_with_b1_frozen();
  std::unique_ptr<Optimizer> optimizer = configs().at(GetParam())(params);
  train(*optimizer, params, 2);
  params[1].requires_grad_(true);
  train(*optimizer, params, 1);
  ASSERT_TRUE(params[1].grad().defined());
  EXPECT_FALSE(bit_equal(params[1].data(), optim_golden().at("init.b1").to(kFloat32)));
}

TEST_P(FrozenParameter, StateDictRoundTripResumesBitForBit) {
  const OptimizerFactory& factory = configs().at(GetParam());
  const std::vector<Variable> straight = params_with_b1_frozen();
  std::unique_ptr<Optimizer> straight_optimizer = factory(straight);
  train(*straight_optimizer, straight, 6);

  const std::vector<Variable> first = params_with_b1_frozen();
  std::unique_ptr<Optimizer> first_optimizer = factory(first);
  train(*first_optimizer, first, 3);
  std::vector<Variable> resumed = copies(first);
  resumed[1].requires_grad_(false);
  std::unique_ptr<Optimizer> resumed_optimizer = factory(resumed);
  resumed_optimizer->load_state_dict(first_optimizer->state_dict());
  train(*resumed_optimizer, resumed, 3);

  expect_same_training(resumed, *resumed_optimizer, straight, *straight_optimizer);
}

INSTANTIATE_TEST_SUITE_P(Optimizers, FrozenParameter, ::testing::ValuesIn(config_names(configs())),
                         [](const auto& info) { return info.param; });

TEST(Optimizer, NewOptimizerHasNoStateBeforeItsFirstStep) {
  const Variable w(zeros({2}), true);
  Adam adam({w});
  EXPECT_FALSE(has_state_for(adam.state_dict(), 0));
}

// ---- Printing --------------------------------------------------------------------------

TEST(OptimizerRepr, MatchesPyTorchCharacterForCharacter) {
  const Variable w(zeros({2}), true), b(zeros({2}), true);
  const auto reprs = golden_reprs();
  EXPECT_EQ(SGD({ParamGroup({w}), ParamGroup({b}, {{"lr", 1e-2}})}, SGDOptions(1e-5).momentum(0.9))
                .repr(),
            reprs.at("sgd_two_groups"));
  EXPECT_EQ(SGD({w}, SGDOptions(1)).repr(), reprs.at("sgd_int_lr"));
  EXPECT_EQ(SGD({w}, SGDOptions(0.1).momentum(0.9).nesterov(true).weight_decay(1e-4)).repr(),
            reprs.at("sgd_nesterov"));
  EXPECT_EQ(Adam({w}).repr(), reprs.at("adam"));
  EXPECT_EQ(Adam({w}, AdamOptions(0.02).betas({0.8, 0.99}).eps(1e-6).weight_decay(0.5)
                          .amsgrad(true).maximize(true))
                .repr(),
            reprs.at("adam_options"));
  EXPECT_EQ(AdamW({w}).repr(), reprs.at("adamw"));
  EXPECT_EQ(RMSprop({w}, RMSpropOptions().centered(true).momentum(0.5)).repr(), reprs.at("rmsprop"));
  EXPECT_EQ(Adagrad({w}, AdagradOptions().lr_decay(1e-3).initial_accumulator_value(0.1)).repr(),
            reprs.at("adagrad"));
  SGD scheduled({w}, SGDOptions(0.1));
  StepLR scheduler(scheduled, 2);
  EXPECT_EQ(scheduled.repr(), reprs.at("sgd_with_step_lr"));
}

TEST(OptimizerRepr, StreamsTheRepr) {
  SGD sgd({Variable(zeros({2}), true)}, SGDOptions(0.1));
  std::ostringstream out;
  out << sgd;
  EXPECT_EQ(out.str(), sgd.repr());
}

// ---- Behaviour -------------------------------------------------------------------------

TEST(Optimizer, GroupsTakeDefaultsForOptionsTheyDoNotSet) {
  const Variable w(zeros({2}), true), b(zeros({2}), true);
  SGD sgd({ParamGroup({w}), ParamGroup({b}, {{"lr", 1e-2}})}, SGDOptions(1e-5).momentum(0.9));
  ASSERT_EQ(sgd.param_groups().size(), 2u);
  EXPECT_EQ(sgd.param_groups()[0].lr(), 1e-5);
  EXPECT_EQ(sgd.param_groups()[1].lr(), 1e-2);
  EXPECT_EQ(sgd.param_groups()[1].number("momentum"), 0.9);
}

TEST(Optimizer, AddParamGroupAddsAGroupWithDefaults) {
  const Variable w(zeros({2}), true), b(zeros({2}), true);
  Adam adam({w}, AdamOptions(0.5));
  adam.add_param_group(ParamGroup({b}, {{"eps", 1e-3}}));
  ASSERT_EQ(adam.param_groups().size(), 2u);
  EXPECT_EQ(adam.param_groups()[1].lr(), 0.5);
  EXPECT_EQ(adam.param_groups()[1].number("eps"), 1e-3);
}

TEST(Optimizer, SetLrChangesTheNextStep) {
  const Variable w(from_vector(std::vector<float>{1.f}), true);
  SGD sgd({w}, SGDOptions(0.1));
  sgd.param_groups()[0].set_lr(0.5);
  w.set_grad(Variable(from_vector(std::vector<float>{1.f})));
  sgd.step();
  EXPECT_EQ(w.item<float>(), 0.5f);
}

TEST(Optimizer, OptionsWrittenIntoTheGroupsMapChangeTheNextStep) {
  const Variable w(from_vector(std::vector<float>{1.f}), true);
  SGD sgd({w}, SGDOptions(0.1));
  sgd.param_groups()[0].options["maximize"] = true;
  sgd.param_groups()[0].options["weight_decay"] = 1.0;
  w.set_grad(Variable(from_vector(std::vector<float>{1.f})));
  sgd.step();  // w - 0.1 * (-1 + 1 * w) = 1
  EXPECT_EQ(w.item<float>(), 1.f);
}

TEST(Optimizer, StepNamesAnOptionRemovedFromAGroup) {
  const Variable w(from_vector(std::vector<float>{1.f}), true);
  SGD sgd({w}, SGDOptions(0.1));
  sgd.param_groups()[0].options.erase("dampening");
  w.set_grad(Variable(from_vector(std::vector<float>{1.f})));
  EXPECT_THROW_MSG(sgd.step(), "parameter group has no option 'dampening'");
}

TEST(Optimizer, StepSkipsParametersWithoutGrad) {
  const Variable w(from_vector(std::vector<float>{1.f, 2.f}), true);
  const Variable b(from_vector(std::vector<float>{3.f}), true);
  Adam adam({w, b});
  w.set_grad(Variable(from_vector(std::vector<float>{1.f, 1.f})));
  adam.step();
  EXPECT_EQ(b.item<float>(), 3.f);
  EXPECT_NE(w.data().to_vector<float>()[0], 1.f);
  EXPECT_FALSE(adam.state_dict().contains("state.1.exp_avg"));
  EXPECT_FALSE(adam.state_dict().contains("state.1.step"));
  EXPECT_TRUE(adam.state_dict().contains("state.0.exp_avg"));
}

TEST(Optimizer, StepBumpsTheParameterVersionAndRecordsNoGraph) {
  const Variable w(from_vector(std::vector<float>{1.f}), true);
  SGD sgd({w}, SGDOptions(0.1).momentum(0.9));
  w.set_grad(Variable(from_vector(std::vector<float>{1.f})));
  const uint32_t before = w.data().version();
  sgd.step();
  EXPECT_GT(w.data().version(), before);
  EXPECT_TRUE(w.is_leaf());
  EXPECT_EQ(w.grad_fn(), nullptr);
}

TEST(Optimizer, ZeroGradSetsGradsToNoneByDefault) {
  const Variable w(zeros({2}), true);
  SGD sgd({w}, SGDOptions(0.1));
  w.set_grad(Variable(ones({2})));
  sgd.zero_grad();
  EXPECT_FALSE(w.grad().defined());
}

TEST(Optimizer, ZeroGradWithoutSetToNoneZeroesInPlace) {
  const Variable w(zeros({2}), true);
  SGD sgd({w}, SGDOptions(0.1));
  w.set_grad(Variable(ones({2})));
  sgd.zero_grad(false);
  ASSERT_TRUE(w.grad().defined());
  EXPECT_EQ(w.grad().data().to_vector<float>(), std::vector<float>({0.f, 0.f}));
}

TEST(Optimizer, StepWithClosureReturnsTheLossAndSteps) {
  const Variable w(from_vector(std::vector<float>{3.f}), true);
  SGD sgd({w}, SGDOptions(0.25));
  const Variable loss = sgd.step([&] {
    sgd.zero_grad();
    Variable l = w.pow(2).sum();
    l.backward();
    return l;
  });
  EXPECT_EQ(loss.item<float>(), 9.f);
  EXPECT_EQ(w.item<float>(), 1.5f);  // 3 - 0.25 * 6
}

TEST(Optimizer, UpdatesANonContiguousParameterLikeAContiguousOne) {
  const Tensor base = from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  const Variable strided(base.t(), true);
  const Variable dense(base.t().contiguous(), true);
  const Tensor grad = from_vector(std::vector<float>{.5, -1, 2, .25, 1, -3}, {3, 2});
  Adam a({strided}), b({dense});
  for (int i = 0; i < 2; ++i) {
    strided.set_grad(Variable(grad));
    dense.set_grad(Variable(grad));
    a.step();
    b.step();
  }
  EXPECT_TRUE(bit_equal(strided.data().contiguous(), dense.data()));
}

TEST(Optimizer, ALargeParameterSplitAcrossThreadsMatchesOneThread) {
  const int64_t n = 5 * kParallelGrain + 7;
  const Tensor init = randn({n});
  const Tensor grad = randn({n});
  auto run = [&](int threads) {
    set_num_threads(threads);
    const Variable p(init.clone(), true);
    Adam adam({p}, AdamOptions(0.01).amsgrad(true));
    for (int i = 0; i < 2; ++i) {
      p.set_grad(Variable(grad));
      adam.step();
    }
    set_num_threads(0);
    return p.data();
  };
  EXPECT_TRUE(bit_equal(run(1), run(2)));
}

TEST(Optimizer, Float64ParametersMatchPyTorchToo) {
  const std::vector<Variable> params = golden_params(kFloat64);
  SGD sgd(params, SGDOptions(0.1).momentum(0.9).nesterov(true).weight_decay(0.01));
  testing::run_golden_steps(sgd, params, optim_golden(), "grad", 3);
  testing::expect_params_match(params, optim_golden(), "sgd_nesterov_wd.", 1e-6, 1e-7);
}

// ---- state_dict ------------------------------------------------------------------------

TEST(OptimizerStateDict, HoldsBuffersStepsAndEveryGroupsOptions) {
  const Variable w(zeros({2}), true), b(zeros({3}), true);
  Adam adam({ParamGroup({w}), ParamGroup({b}, {{"lr", 0.5}})}, AdamOptions().amsgrad(true));
  w.set_grad(Variable(ones({2})));
  adam.step();
  const StateDict sd = adam.state_dict();
  EXPECT_EQ(sd.at("state.0.step").dtype(), kFloat32);
  EXPECT_EQ(sd.at("state.0.step").item<double>(), 1.0);
  EXPECT_EQ(sd.at("state.0.exp_avg").sizes(), w.sizes());
  EXPECT_TRUE(sd.contains("state.0.max_exp_avg_sq"));
  EXPECT_EQ(sd.at("param_groups.1.params").to_vector<int64_t>(), std::vector<int64_t>{1});
  EXPECT_EQ(sd.at("param_groups.1.lr").item<double>(), 0.5);
  EXPECT_EQ(sd.at("param_groups.0.betas.0").item<double>(), 0.9);
  EXPECT_EQ(sd.at("param_groups.0.betas.1").item<double>(), 0.999);
  EXPECT_EQ(sd.at("param_groups.0.betas.1").dtype(), kFloat64);
  EXPECT_FALSE(sd.contains("param_groups.0.betas"));
  EXPECT_EQ(sd.at("param_groups.0.weight_decay").dtype(), kInt64);
  EXPECT_EQ(sd.at("param_groups.0.amsgrad").item<bool>(), true);
  EXPECT_EQ(sd.at("param_groups.0.foreach").numel(), 0);
}

TEST(OptimizerStateDict, LoadRestoresGroupOptions) {
  const Variable w(zeros({2}), true);
  SGD source({w}, SGDOptions(0.1).momentum(0.9));
  source.param_groups()[0].set_lr(0.025);
  SGD target({Variable(zeros({2}), true)}, SGDOptions(0.1).momentum(0.9));
  target.load_state_dict(source.state_dict());
  EXPECT_EQ(target.param_groups()[0].lr(), 0.025);
  EXPECT_EQ(target.repr(), source.repr());
}

TEST(OptimizerStateDict, PairElementsKeepWhetherTheyAreIntegers) {
  const Variable w(zeros({2}), true);
  Rprop source({w});  // step_sizes (1e-06, 50)
  const StateDict sd = source.state_dict();
  EXPECT_EQ(sd.at("param_groups.0.step_sizes.0").dtype(), kFloat64);
  EXPECT_EQ(sd.at("param_groups.0.step_sizes.1").dtype(), kInt64);
  EXPECT_EQ(sd.at("param_groups.0.step_sizes.1").item<int64_t>(), 50);
  Rprop target({Variable(zeros({2}), true)}, RpropOptions().step_sizes({1e-5, 40.0}));
  target.load_state_dict(sd);
  EXPECT_EQ(target.param_groups()[0].options.at("step_sizes").str(), "(1e-06, 50)");
  EXPECT_EQ(target.repr(), source.repr());
}

TEST(OptimizerStateDict, StringOptionRoundTrips) {
  const Variable w(zeros({2}), true);
  LBFGS source({w}, LBFGSOptions().line_search_fn("strong_wolfe"));
  const StateDict sd = source.state_dict();
  const Tensor saved = sd.at("param_groups.0.line_search_fn");
  EXPECT_EQ(saved.dtype(), kUInt8);
  const std::vector<uint8_t> bytes = saved.to_vector<uint8_t>();
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "strong_wolfe");
  LBFGS target({Variable(zeros({2}), true)});
  target.load_state_dict(sd);
  EXPECT_EQ(target.param_groups()[0].options.at("line_search_fn"), OptionValue("strong_wolfe"));
  EXPECT_EQ(target.repr(), source.repr());
}

TEST(OptimizerStateDict, EmptyStringIsNotNone) {
  const Variable w(zeros({2}), true);
  LBFGS source({w}, LBFGSOptions().line_search_fn(""));
  LBFGS target({Variable(zeros({2}), true)});
  target.load_state_dict(source.state_dict());
  EXPECT_EQ(target.param_groups()[0].options.at("line_search_fn"), OptionValue(std::string()));
}

TEST(OptimizerStateDict, LoadsAPairSavedAsOneFloat64Tensor) {
  const Variable w(zeros({2}), true);
  Adam source({w}, AdamOptions().betas({0.8, 0.99}));
  StateDict sd = source.state_dict();
  sd.erase("param_groups.0.betas.0");
  sd.erase("param_groups.0.betas.1");
  sd.insert("param_groups.0.betas", from_vector(std::vector<double>{0.8, 0.99}));
  Adam target({Variable(zeros({2}), true)});
  target.load_state_dict(sd);
  EXPECT_EQ(target.param_groups()[0].options.at("betas"), OptionValue(std::make_pair(0.8, 0.99)));
}

StateDict adam_state() {
  const Variable w(zeros({2}), true);
  Adam adam({w});
  w.set_grad(Variable(ones({2})));
  adam.step();
  return adam.state_dict();
}

void expect_load_error(StateDict sd, const std::string& message) {
  const Variable w(zeros({2}), true);
  Adam adam({w}, AdamOptions(0.5));
  w.set_grad(Variable(ones({2})));
  adam.step();
  const std::string before = adam.repr();
  const StateDict state_before = adam.state_dict();
  EXPECT_THROW_MSG(adam.load_state_dict(sd), message);
  EXPECT_EQ(adam.repr(), before);
  for (const auto& [key, value] : adam.state_dict()) {
    EXPECT_TRUE(bit_equal(value, state_before.at(key))) << key;
  }
}

TEST(OptimizerStateDictErrors, DifferentNumberOfGroups) {
  StateDict sd = adam_state();
  sd.insert("param_groups.1.params", from_vector(std::vector<int64_t>{1}));
  expect_load_error(sd, "loaded state dict has a different number of parameter groups");
}

TEST(OptimizerStateDictErrors, GroupOfAnotherSize) {
  StateDict sd = adam_state();
  sd["param_groups.0.params"] = from_vector(std::vector<int64_t>{0, 1});
  expect_load_error(sd, "loaded state dict contains a parameter group that doesn't match the size "
                        "of optimizer's group");
}

TEST(OptimizerStateDictErrors, UnexpectedKey) {
  StateDict sd = adam_state();
  sd.insert("momentum", zeros({}));
  expect_load_error(sd, "unexpected key 'momentum' in Adam's state dict");
}

TEST(OptimizerStateDictErrors, UnknownBuffer) {
  StateDict sd = adam_state();
  sd.insert("state.0.velocity", zeros({2}));
  expect_load_error(sd, "unexpected key 'state.0.velocity' in Adam's state dict");
}

TEST(OptimizerStateDictErrors, BufferOfAnotherShape) {
  StateDict sd = adam_state();
  sd["state.0.exp_avg"] = zeros({3});
  expect_load_error(sd, "'state.0.exp_avg' has shape [3], but the parameter has shape [2]");
}

TEST(OptimizerStateDictErrors, StateForAMissingParameter) {
  StateDict sd = adam_state();
  sd.insert("state.4.exp_avg", zeros({2}));
  expect_load_error(sd, "state for parameter 4, but the optimizer has 1 parameters");
}

TEST(OptimizerStateDictErrors, FractionalStep) {
  StateDict sd = adam_state();
  sd["state.0.step"] = scalar_tensor(1.5);
  expect_load_error(sd, "'state.0.step' must be a whole number of steps, got 1.5");
}

TEST(OptimizerStateDictErrors, MissingOption) {
  StateDict sd = adam_state();
  sd.erase("param_groups.0.eps");
  expect_load_error(sd, "missing key 'param_groups.0.eps'");
}

TEST(OptimizerStateDictErrors, InvalidOptionValue) {
  StateDict sd = adam_state();
  sd["param_groups.0.lr"] = scalar_tensor(-1.0, kFloat64);
  expect_load_error(sd, "Invalid learning rate: -1.0");
}

TEST(OptimizerStateDictErrors, OptionOfAnUnknownEncoding) {
  StateDict sd = adam_state();
  sd["param_groups.0.eps"] = zeros({3});
  expect_load_error(sd, "option 'param_groups.0.eps' must be a 0-dim bool, int64 or float64");
}

TEST(OptimizerStateDictErrors, PairMissingAnElement) {
  StateDict sd = adam_state();
  sd.erase("param_groups.0.betas.1");
  expect_load_error(sd, "load_state_dict: missing key 'param_groups.0.betas.1'");
}

TEST(OptimizerStateDictErrors, PairElementOfAnUnknownEncoding) {
  StateDict sd = adam_state();
  sd["param_groups.0.betas.0"] = zeros({2}, kFloat64);
  expect_load_error(sd, "load_state_dict: pair element 'param_groups.0.betas.0' must be a 0-dim "
                        "bool, int64 or float64 tensor, got dtype float64 and shape [2]");
}

TEST(OptimizerStateDictErrors, UndefinedPairElement) {
  StateDict sd = adam_state();
  sd["param_groups.0.betas.1"] = Tensor();
  expect_load_error(sd, "load_state_dict: 'param_groups.0.betas.1' is undefined");
}

TEST(OptimizerStateDictErrors, PairElementBeyondTheSecond) {
  StateDict sd = adam_state();
  sd.insert("param_groups.0.betas.2", scalar_tensor(0.5, kFloat64));
  expect_load_error(sd, "load_state_dict: unexpected key 'param_groups.0.betas.2' in Adam's state dict");
}

TEST(OptimizerStateDictErrors, PairSavedBothAsOneTensorAndAsElements) {
  StateDict sd = adam_state();
  sd.insert("param_groups.0.betas", from_vector(std::vector<double>{0.8, 0.99}));
  expect_load_error(sd, "load_state_dict: unexpected key 'param_groups.0.betas.0' in Adam's state "
                        "dict (it also holds 'param_groups.0.betas')");
}

TEST(OptimizerStateDictErrors, ParamsOfTheWrongDtype) {
  StateDict sd = adam_state();
  sd["param_groups.0.params"] = zeros({1});
  expect_load_error(sd, "'param_groups.0.params' must be an int64 [n] tensor");
}

TEST(OptimizerStateDictErrors, UndefinedOption) {
  StateDict sd = adam_state();
  sd["param_groups.0.lr"] = Tensor();
  expect_load_error(sd, "load_state_dict: 'param_groups.0.lr' is undefined");
}

TEST(OptimizerStateDictErrors, UndefinedBuffer) {
  StateDict sd = adam_state();
  sd["state.0.exp_avg"] = Tensor();
  expect_load_error(sd, "load_state_dict: 'state.0.exp_avg' is undefined");
}

TEST(OptimizerStateDictErrors, StepOfMoreThanOneNumber) {
  StateDict sd = adam_state();
  sd["state.0.step"] = zeros({2});
  expect_load_error(sd, "load_state_dict: 'state.0.step' must hold one number, got shape [2]");
}

// ---- Construction errors ---------------------------------------------------------------

TEST(OptimizerErrors, PyTorchsMessagesForInvalidOptions) {
  const std::vector<Variable> w = {Variable(zeros({2}), true)};
  EXPECT_THROW_MSG(SGD(w, SGDOptions(-1)), "Invalid learning rate: -1");
  EXPECT_THROW_MSG(SGD(w, SGDOptions(0.1).momentum(-0.5)), "Invalid momentum value: -0.5");
  EXPECT_THROW_MSG(SGD(w, SGDOptions(0.1).weight_decay(-1)), "Invalid weight_decay value: -1");
  EXPECT_THROW_MSG(SGD(w, SGDOptions(0.1).nesterov(true)),
                   "Nesterov momentum requires a momentum and zero dampening");
  EXPECT_THROW_MSG(SGD(w, SGDOptions(0.1).momentum(0.9).dampening(0.1).nesterov(true)),
                   "Nesterov momentum requires a momentum and zero dampening");
  EXPECT_THROW_MSG(Adam(w, AdamOptions(-0.1)), "Invalid learning rate: -0.1");
  EXPECT_THROW_MSG(Adam(w, AdamOptions().eps(-1.0)), "Invalid epsilon value: -1.0");
  EXPECT_THROW_MSG(Adam(w, AdamOptions().betas({1.0, 0.9})), "Invalid beta parameter at index 0: 1.0");
  EXPECT_THROW_MSG(Adam(w, AdamOptions().betas({1, 0.9})), "Invalid beta parameter at index 0: 1");
  EXPECT_THROW_MSG(AdamW(w, AdamWOptions().betas({0.9, -0.1})),
                   "Invalid beta parameter at index 1: -0.1");
  EXPECT_THROW_MSG(AdamW(w, AdamWOptions().weight_decay(-0.01)), "Invalid weight_decay value: -0.01");
  EXPECT_THROW_MSG(RMSprop(w, RMSpropOptions().alpha(-1)), "Invalid alpha value: -1");
  EXPECT_THROW_MSG(RMSprop(w, RMSpropOptions().momentum(-1)), "Invalid momentum value: -1");
  EXPECT_THROW_MSG(RMSprop(w, RMSpropOptions().eps(-1)), "Invalid epsilon value: -1");
  EXPECT_THROW_MSG(Adagrad(w, AdagradOptions().lr_decay(-1)), "Invalid lr_decay value: -1");
  EXPECT_THROW_MSG(Adagrad(w, AdagradOptions().initial_accumulator_value(-1)),
                   "Invalid initial_accumulator_value value: -1");
  EXPECT_THROW_MSG(Adagrad(w, AdagradOptions().eps(-1)), "Invalid epsilon value: -1");
}

TEST(OptimizerErrors, EmptyParameterList) {
  EXPECT_THROW_MSG(SGD(std::vector<Variable>{}, SGDOptions(0.1)), "optimizer got an empty parameter list");
  EXPECT_THROW_MSG(Adam(std::vector<ParamGroup>{}), "optimizer got an empty parameter list");
}

TEST(OptimizerErrors, ParameterInTwoGroups) {
  const Variable w(zeros({2}), true);
  EXPECT_THROW_MSG(SGD({ParamGroup({w}), ParamGroup({w})}, SGDOptions(0.1)),
                   "some parameters appear in more than one parameter group");
}

TEST(OptimizerErrors, DuplicateParameterInAGroup) {
  const Variable w(zeros({2}), true);
  EXPECT_THROW_MSG(SGD({w, w}, SGDOptions(0.1)),
                   "optimizer contains a parameter group with duplicate parameters");
}

TEST(OptimizerErrors, NonLeafParameter) {
  const Variable w(zeros({2}), true);
  EXPECT_THROW_MSG(SGD({w * 2.0}, SGDOptions(0.1)), "can't optimize a non-leaf Tensor");
}

TEST(OptimizerErrors, UndefinedParameter) {
  EXPECT_THROW_MSG(SGD({Variable()}, SGDOptions(0.1)),
                   "SGD: optimizer can only optimize defined Variables");
}

TEST(OptimizerErrors, EmptyGroup) {
  SGD sgd({Variable(zeros({2}), true)}, SGDOptions(0.1));
  EXPECT_THROW_MSG(sgd.add_param_group(ParamGroup({})), "SGD: a parameter group holds no parameters");
}

TEST(OptimizerErrors, UnknownGroupOption) {
  EXPECT_THROW_MSG(SGD({ParamGroup({Variable(zeros({2}), true)}, {{"lrr", 0.1}})}, SGDOptions(0.1)),
                   "SGD: unknown optimization option 'lrr'");
}

TEST(OptimizerErrors, GroupOptionOfTheWrongKind) {
  EXPECT_THROW_MSG(
      SGD({ParamGroup({Variable(zeros({2}), true)}, {{"nesterov", 1}})}, SGDOptions(0.1)),
      "SGD: option 'nesterov' must be a bool, got 1");
  EXPECT_THROW_MSG(
      SGD({ParamGroup({Variable(zeros({2}), true)}, {{"nesterov", "yes"}})}, SGDOptions(0.1)),
      "SGD: option 'nesterov' must be a bool, got 'yes'");
  EXPECT_THROW_MSG(Adam({ParamGroup({Variable(zeros({2}), true)}, {{"betas", 0.9}})}),
                   "Invalid betas: 0.9");
  EXPECT_THROW_MSG(Adam({ParamGroup({Variable(zeros({2}), true)}, {{"lr", true}})}),
                   "Invalid learning rate: True");
}

TEST(OptimizerErrors, UnsupportedPyTorchFlags) {
  EXPECT_THROW_MSG(
      Adam({ParamGroup({Variable(zeros({2}), true)}, {{"differentiable", true}})}),
      "Adam: differentiable=True is not supported");
  EXPECT_THROW_MSG(Adam({ParamGroup({Variable(zeros({2}), true)}, {{"foreach", 1}})}),
                   "Adam: foreach must be None or a bool, got 1");
}

// PyTorch accepts any tensor; torchlet refuses one no optimizer could update.
TEST(OptimizerErrors, IntegerParameter) {
  EXPECT_THROW_MSG(SGD({Variable(zeros({2}, kInt64), false)}, SGDOptions(0.1)),
                   "SGD: optimizer can only optimize floating-point Variables, got dtype int64");
}

TEST(OptimizerErrors, ParameterWhoseDataBecameIntegral) {
  // requires_grad_ refuses an integral leaf, but set_data() may swap in one afterwards.
  const Variable w(zeros({2}), true);
  w.set_data(zeros({2}, kInt64));
  EXPECT_THROW_MSG(SGD({w}, SGDOptions(0.1)),
                   "SGD: optimizer can only optimize floating-point Variables, got dtype int64");
}

TEST(OptionValueErrors, WrongKindNamesBoth) {
  EXPECT_THROW_MSG(OptionValue(true).to_double(), "optimizer option: expected a number, got a bool");
  EXPECT_THROW_MSG(OptionValue().to_bool(), "optimizer option: expected a bool, got None");
  EXPECT_THROW_MSG(OptionValue(1.0).to_pair(), "optimizer option: expected a pair, got a number");
  EXPECT_THROW_MSG(OptionValue(std::make_pair(0.1, 0.2)).number(),
                   "optimizer option: expected a number, got a pair");
}

TEST(OptionValueErrors, NullString) {
  const char* null = nullptr;
  EXPECT_THROW_MSG(OptionValue{null}, "optimizer option: a null string");
  EXPECT_THROW_MSG(OptionValue("strong_wolfe").to_bool(),
                   "optimizer option: expected a bool, got a string");
  EXPECT_THROW_MSG(OptionValue(true).to_string(), "optimizer option: expected a string, got a bool");
  static_assert(!std::is_constructible_v<OptionValue, std::nullptr_t>);
}

TEST(OptionValue, StringLiteralStaysAString) {
  const OptionValue literal = "strong_wolfe";
  EXPECT_EQ(literal.kind(), OptionValue::Kind::kString);
  EXPECT_EQ(literal.to_string(), "strong_wolfe");
  EXPECT_EQ(literal.str(), "strong_wolfe");
  EXPECT_NE(literal, OptionValue(true));
  EXPECT_EQ(literal, OptionValue(std::string("strong_wolfe")));
  EXPECT_NE(literal, OptionValue("backtracking"));
  Options options = {{"line_search_fn", "strong_wolfe"}};
  options["name"] = "adam";
  EXPECT_EQ(options.at("line_search_fn").kind(), OptionValue::Kind::kString);
  EXPECT_EQ(options.at("name").str(), "adam");
}

TEST(OptionValue, PairElementsRememberWhetherTheyAreIntegers) {
  EXPECT_EQ(OptionValue(std::make_pair(1e-6, 50)).str(), "(1e-06, 50)");
  EXPECT_EQ(OptionValue(std::make_pair(1e-6, 50.0)).str(), "(1e-06, 50.0)");
  EXPECT_EQ(OptionValue(std::make_pair(0, 1)).str(), "(0, 1)");
  EXPECT_EQ(OptionValue(std::make_pair(true, 0.5)).str(), "(True, 0.5)");
  EXPECT_NE(OptionValue(std::make_pair(1e-6, 50)), OptionValue(std::make_pair(1e-6, 50.0)));
  EXPECT_EQ(OptionValue(std::make_pair(1e-6, 50)), OptionValue(std::make_pair(1e-6, int64_t{50})));
  EXPECT_EQ(OptionValue(std::make_pair(1e-6, 50)).to_pair(), std::make_pair(1e-6, 50.0));
  EXPECT_TRUE(OptionValue(std::make_pair(1e-6, 50)).scalar_pair().second.is_integral());
}

TEST(ParamGroup, ReadFillsEveryFieldInOneCall) {
  ParamGroup group({Variable(zeros({2}), true)},
                   {{"lr", 0.5}, {"betas", std::make_pair(0.8, 0.9)}, {"amsgrad", true}});
  double lr = 0;
  std::pair<double, double> betas;
  bool amsgrad = false;
  group.read({{"amsgrad", &amsgrad}, {"lr", &lr}, {"betas", &betas}});
  EXPECT_EQ(lr, 0.5);
  EXPECT_EQ(betas, std::make_pair(0.8, 0.9));
  EXPECT_TRUE(amsgrad);
}

TEST(ParamGroupErrors, ReadNamesAMissingOption) {
  const ParamGroup group({Variable(zeros({2}), true)}, {{"lr", 0.5}});
  double lr = 0, eps = 0;
  EXPECT_THROW_MSG(group.read({{"lr", &lr}, {"eps", &eps}}), "parameter group has no option 'eps'");
}

TEST(ParamGroupErrors, ReadNamesAnOptionOfTheWrongKind) {
  const ParamGroup group({Variable(zeros({2}), true)}, {{"lr", true}});
  double lr = 0;
  EXPECT_THROW_MSG(group.read({{"lr", &lr}}), "optimizer option: expected a number, got a bool");
}

TEST(ParamGroupErrors, MissingOptionIsNamed) {
  const ParamGroup group({Variable(zeros({2}), true)});
  EXPECT_THROW_MSG(group.lr(), "parameter group has no option 'lr'");
  EXPECT_THROW_MSG(group.flag("nesterov"), "parameter group has no option 'nesterov'");
  EXPECT_THROW_MSG(group.pair("betas"), "parameter group has no option 'betas'");
}

}  // namespace
}  // namespace torchlet::optim
