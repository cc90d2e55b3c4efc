// The LR schedulers against PyTorch 1.13: each one's lr (and momentum) per
// epoch over 12 epochs (25 for LambdaLR and the schedulers added with it) on
// two parameter groups, from
// nn/optim/testdata/lr_scheduler_golden.txt (tools/gen_optim_golden.py).

#include "nn/optim/lr_scheduler.h"

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nn/optim/optim.h"
#include "tensor/factories.h"
#include "tensor/test_util.h"

namespace torchlet::optim {
namespace {

const testing::GoldenFile& golden() {
  return testing::GoldenFile::get("nn/optim/testdata/lr_scheduler_golden.txt");
}

const std::vector<double> kPlateauMetrics = {1.0, 0.9,  0.95, 0.95, 0.96, 0.8,
                                             0.85, 0.85, 0.85, 0.85, 0.85, 0.7};

// The generator's optimizers: two groups, lr 0.1 (default) and 0.05.
std::unique_ptr<SGD> two_group_sgd(double momentum = 0) {
  return std::make_unique<SGD>(
      std::vector<ParamGroup>{ParamGroup({Variable(zeros({2}), true)}),
                              ParamGroup({Variable(zeros({2}), true)}, {{"lr", 0.05}})},
      SGDOptions(0.1).momentum(momentum));
}

std::unique_ptr<Adam> two_group_adam() {
  return std::make_unique<Adam>(
      std::vector<ParamGroup>{ParamGroup({Variable(zeros({2}), true)}),
                              ParamGroup({Variable(zeros({2}), true)}, {{"lr", 0.05}})},
      AdamOptions(0.1));
}

// Records each group's lr (and momentum) at each of `epochs` epochs,
// stepping with `step(epoch)` after each, and compares with the golden
// sequence.
void expect_sequence(const std::string& name, Optimizer& optimizer,
                     const std::function<void(int)>& step,
                     const std::function<double(const ParamGroup&)>& momentum = nullptr,
                     int epochs = 12) {
  std::vector<double> lrs, momenta;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    for (const ParamGroup& group : optimizer.param_groups()) {
      lrs.push_back(group.lr());
      if (momentum) momenta.push_back(momentum(group));
    }
    step(epoch);
  }
  EXPECT_TRUE(testing::all_close(from_vector(lrs, {epochs, 2}, kFloat64), golden().at(name),
                                 1e-12, 1e-15))
      << name;
  if (momentum) {
    EXPECT_TRUE(testing::all_close(from_vector(momenta, {epochs, 2}, kFloat64),
                                   golden().at(name + ".momentum"), 1e-12, 1e-15))
        << name;
  }
}

template <typename S>
void expect_simple(const std::string& name, const std::function<std::unique_ptr<S>(Optimizer&)>& make,
                   int epochs = 12) {
  auto optimizer = two_group_sgd();
  auto scheduler = make(*optimizer);
  expect_sequence(name, *optimizer, [&](int) { scheduler->step(); }, nullptr, epochs);
}

TEST(LRScheduler, StepLRMatchesPyTorch) {
  expect_simple<StepLR>("step_lr", [](Optimizer& o) { return std::make_unique<StepLR>(o, 3, 0.5); });
}

TEST(LRScheduler, MultiStepLRWithARepeatedMilestoneMatchesPyTorch) {
  expect_simple<MultiStepLR>("multi_step_lr", [](Optimizer& o) {
    return std::make_unique<MultiStepLR>(o, std::vector<int64_t>{2, 5, 5, 9}, 0.1);
  });
}

TEST(LRScheduler, ExponentialLRMatchesPyTorch) {
  expect_simple<ExponentialLR>("exponential_lr",
                               [](Optimizer& o) { return std::make_unique<ExponentialLR>(o, 0.9); });
}

TEST(LRScheduler, CosineAnnealingLRPastTMaxMatchesPyTorchsRecursiveForm) {
  expect_simple<CosineAnnealingLR>("cosine_annealing_lr", [](Optimizer& o) {
    return std::make_unique<CosineAnnealingLR>(o, 4, 0.001);
  });
}

TEST(LRScheduler, LinearLRMatchesPyTorch) {
  expect_simple<LinearLR>("linear_lr",
                          [](Optimizer& o) { return std::make_unique<LinearLR>(o, 0.25, 1.0, 4); });
}

TEST(LRScheduler, ChainedCosineAndExponentialMatchPyTorch) {
  auto optimizer = two_group_sgd();
  CosineAnnealingLR cosine(*optimizer, 5, 0.01);
  ExponentialLR decay(*optimizer, 0.8);
  expect_sequence("chained_cosine_exponential", *optimizer, [&](int) {
    cosine.step();
    decay.step();
  });
}

TEST(LRScheduler, OneCycleLRCyclesLrAndMomentumLikePyTorch) {
  auto optimizer = two_group_sgd(0.9);
  OneCycleLR scheduler(*optimizer, OneCycleLROptions({1.0, 0.5}).total_steps(12));
  expect_sequence(
      "one_cycle_lr", *optimizer, [&](int epoch) { if (epoch < 11) scheduler.step(); },
      [](const ParamGroup& g) { return g.number("momentum"); });
}

TEST(LRScheduler, OneCycleLRLinearThreePhaseCyclesAdamsBeta1LikePyTorch) {
  auto optimizer = two_group_adam();
  OneCycleLR scheduler(*optimizer, OneCycleLROptions({0.1})
                                       .epochs(3)
                                       .steps_per_epoch(4)
                                       .pct_start(0.25)
                                       .anneal_strategy("linear")
                                       .three_phase(true)
                                       .div_factor(10.0)
                                       .final_div_factor(100.0)
                                       .base_momentum(0.8)
                                       .max_momentum(0.9));
  expect_sequence(
      "one_cycle_lr_linear_three_phase", *optimizer,
      [&](int epoch) { if (epoch < 11) scheduler.step(); },
      [](const ParamGroup& g) { return g.pair("betas").first; });
}

TEST(LRScheduler, ReduceLROnPlateauMinRelWithCooldownMatchesPyTorch) {
  auto optimizer = two_group_sgd();
  ReduceLROnPlateau scheduler(
      *optimizer, ReduceLROnPlateauOptions().factor(0.5).patience(2).cooldown(1).threshold(0.01));
  expect_sequence("reduce_lr_on_plateau", *optimizer,
                  [&](int epoch) { scheduler.step(kPlateauMetrics[epoch]); });
}

TEST(LRScheduler, ReduceLROnPlateauMaxAbsWithMinLrsMatchesPyTorch) {
  auto optimizer = two_group_sgd();
  ReduceLROnPlateau scheduler(*optimizer, ReduceLROnPlateauOptions()
                                              .mode("max")
                                              .factor(0.1)
                                              .patience(1)
                                              .threshold(0.05)
                                              .threshold_mode("abs")
                                              .min_lr({0.002, 0.0}));
  expect_sequence("reduce_lr_on_plateau_max_abs", *optimizer,
                  [&](int epoch) { scheduler.step(kPlateauMetrics[epoch]); });
}

// ---- LambdaLR and the schedulers after it: 25 epochs ----------------------------------------

TEST(LRScheduler, LambdaLRWithOneLambdaForBothGroupsMatchesPyTorch) {
  expect_simple<LambdaLR>(
      "lambda_lr",
      [](Optimizer& o) {
        return std::make_unique<LambdaLR>(
            o, [](int64_t e) { return 1.0 / (1 + 0.1 * static_cast<double>(e)); });
      },
      25);
}

TEST(LRScheduler, LambdaLRWithALambdaPerGroupMatchesPyTorch) {
  expect_simple<LambdaLR>(
      "lambda_lr_per_group",
      [](Optimizer& o) {
        return std::make_unique<LambdaLR>(
            o, std::vector<LRLambda>{
                   [](int64_t e) { return std::pow(0.95, static_cast<double>(e)); },
                   [](int64_t e) {
                     return std::pow(0.5, static_cast<double>(e / 5)) + static_cast<double>(e % 3);
                   }});
      },
      25);
}

TEST(LRScheduler, MultiplicativeLRMatchesPyTorch) {
  expect_simple<MultiplicativeLR>(
      "multiplicative_lr",
      [](Optimizer& o) { return std::make_unique<MultiplicativeLR>(o, [](int64_t) { return 0.9; }); },
      25);
}

TEST(LRScheduler, MultiplicativeLRWithALambdaPerGroupMatchesPyTorch) {
  expect_simple<MultiplicativeLR>(
      "multiplicative_lr_per_group",
      [](Optimizer& o) {
        return std::make_unique<MultiplicativeLR>(
            o, std::vector<LRLambda>{[](int64_t) { return 0.95; },
                                     [](int64_t e) { return e % 4 == 0 ? 0.5 : 1.1; }});
      },
      25);
}

TEST(LRScheduler, ConstantLRMatchesPyTorch) {
  expect_simple<ConstantLR>(
      "constant_lr", [](Optimizer& o) { return std::make_unique<ConstantLR>(o, 0.3, 6); }, 25);
}

// PyTorch 1.13's recursive form never undoes the factor when total_iters is 0.
TEST(LRScheduler, ConstantLRWithZeroTotalItersStaysScaledLikePyTorch) {
  expect_simple<ConstantLR>(
      "constant_lr_total_iters_0",
      [](Optimizer& o) { return std::make_unique<ConstantLR>(o, 0.5, 0); }, 25);
}

TEST(LRScheduler, PolynomialLRMatchesPyTorch) {
  expect_simple<PolynomialLR>(
      "polynomial_lr", [](Optimizer& o) { return std::make_unique<PolynomialLR>(o, 10, 2.0); },
      25);
}

TEST(LRScheduler, PolynomialLRDefaultsMatchPyTorch) {
  expect_simple<PolynomialLR>(
      "polynomial_lr_default", [](Optimizer& o) { return std::make_unique<PolynomialLR>(o); }, 25);
}

TEST(LRScheduler, CosineAnnealingWarmRestartsMatchesPyTorch) {
  expect_simple<CosineAnnealingWarmRestarts>(
      "cosine_annealing_warm_restarts",
      [](Optimizer& o) { return std::make_unique<CosineAnnealingWarmRestarts>(o, 5, 1, 0.001); },
      25);
}

TEST(LRScheduler, CosineAnnealingWarmRestartsWithTMultMatchesPyTorch) {
  expect_simple<CosineAnnealingWarmRestarts>(
      "cosine_annealing_warm_restarts_t_mult",
      [](Optimizer& o) { return std::make_unique<CosineAnnealingWarmRestarts>(o, 2, 3, 0.002); },
      25);
}

// Each later scheduler starts with PyTorch's step(0): the closed form for
// CosineAnnealingLR, get_lr() for MultiplicativeLR.
TEST(LRScheduler, SequentialConstantCosineMultiplicativeMatchesPyTorch) {
  auto optimizer = two_group_sgd();
  ConstantLR constant(*optimizer, 0.1, 3);
  CosineAnnealingLR cosine(*optimizer, 6, 0.001);
  MultiplicativeLR multiplicative(*optimizer, [](int64_t) { return 0.9; });
  SequentialLR scheduler(*optimizer, {&constant, &cosine, &multiplicative}, {4, 12});
  expect_sequence("sequential_constant_cosine_multiplicative", *optimizer,
                  [&](int) { scheduler.step(); }, nullptr, 25);
}

// MultiStepLR's closed form at step(0) counts its milestone 0.
TEST(LRScheduler, SequentialLinearWarmRestartsStepMultiStepMatchesPyTorch) {
  auto optimizer = two_group_sgd();
  LinearLR linear(*optimizer, 0.25, 1.0, 4);
  CosineAnnealingWarmRestarts restarts(*optimizer, 3, 2, 0.001);
  StepLR step(*optimizer, 3, 0.5);
  MultiStepLR multi_step(*optimizer, {0, 2, 2, 5}, 0.5);
  SequentialLR scheduler(*optimizer, {&linear, &restarts, &step, &multi_step}, {5, 12, 18});
  expect_sequence("sequential_linear_warm_restarts_step_multi_step", *optimizer,
                  [&](int) { scheduler.step(); }, nullptr, 25);
}

TEST(LRScheduler, SequentialLambdaPolynomialExponentialLinearMatchesPyTorch) {
  auto optimizer = two_group_sgd();
  LambdaLR lambda(*optimizer,
                  std::vector<LRLambda>{[](int64_t e) { return 0.1 * static_cast<double>(e + 1); },
                                        [](int64_t) { return 0.2; }});
  PolynomialLR polynomial(*optimizer, 6, 0.5);
  ExponentialLR exponential(*optimizer, 0.8);
  LinearLR linear(*optimizer, 0.5, 0.1, 3);
  SequentialLR scheduler(*optimizer, {&lambda, &polynomial, &exponential, &linear}, {3, 10, 16});
  expect_sequence("sequential_lambda_polynomial_exponential_linear", *optimizer,
                  [&](int) { scheduler.step(); }, nullptr, 25);
}

TEST(LRScheduler, SequentialLRGetLastLrAndLastEpoch) {
  auto optimizer = two_group_sgd();
  ConstantLR constant(*optimizer, 0.1, 2);
  ExponentialLR exponential(*optimizer, 0.9);
  SequentialLR scheduler(*optimizer, {&constant, &exponential}, {2});
  EXPECT_EQ(scheduler.last_epoch(), 0);
  EXPECT_EQ(scheduler.get_last_lr(), constant.get_last_lr());
  for (int i = 0; i < 3; ++i) scheduler.step();
  EXPECT_EQ(scheduler.last_epoch(), 3);
  EXPECT_EQ(scheduler.get_last_lr(), exponential.get_last_lr());
  EXPECT_EQ(exponential.last_epoch(), 1);
}

TEST(LRScheduler, ChainedConstantExponentialMatchesPyTorch) {
  auto optimizer = two_group_sgd();
  ConstantLR constant(*optimizer, 0.1, 2);
  ExponentialLR exponential(*optimizer, 0.9);
  ChainedScheduler scheduler({&constant, &exponential});
  expect_sequence("chained_constant_exponential", *optimizer, [&](int) { scheduler.step(); },
                  nullptr, 25);
}

TEST(LRScheduler, ChainedWarmRestartsMultiplicativePolynomialMatchesPyTorch) {
  auto optimizer = two_group_sgd();
  CosineAnnealingWarmRestarts restarts(*optimizer, 4, 1, 0.01);
  MultiplicativeLR multiplicative(*optimizer, [](int64_t) { return 0.97; });
  PolynomialLR polynomial(*optimizer, 8, 1.5);
  ChainedScheduler scheduler({&restarts, &multiplicative, &polynomial});
  EXPECT_EQ(scheduler.get_last_lr(), polynomial.get_last_lr());
  expect_sequence("chained_warm_restarts_multiplicative_polynomial", *optimizer,
                  [&](int) { scheduler.step(); }, nullptr, 25);
}

TEST(LRScheduler, SequentialLRStateDictRoundTripResumesTheSequence) {
  auto run = [](int first_steps, const StateDict* resume_from, StateDict* save_to) {
    auto optimizer = two_group_sgd();
    ConstantLR constant(*optimizer, 0.1, 3);
    CosineAnnealingWarmRestarts restarts(*optimizer, 3, 2, 0.001);
    SequentialLR scheduler(*optimizer, {&constant, &restarts}, {4});
    if (resume_from != nullptr) scheduler.load_state_dict(*resume_from);
    for (int i = 0; i < first_steps; ++i) scheduler.step();
    if (save_to != nullptr) *save_to = scheduler.state_dict();
    return scheduler.get_last_lr();
  };
  const std::vector<double> straight = run(10, nullptr, nullptr);
  StateDict saved;
  run(5, nullptr, &saved);
  EXPECT_TRUE(saved.contains("schedulers.1.last_epoch"));
  EXPECT_EQ(run(5, &saved, nullptr), straight);
}

TEST(LRScheduler, ChainedSchedulerStateDictRoundTripResumesTheSequence) {
  auto run = [](int steps, const StateDict* resume_from, StateDict* save_to) {
    auto optimizer = two_group_sgd();
    ConstantLR constant(*optimizer, 0.1, 2);
    ExponentialLR exponential(*optimizer, 0.9);
    ChainedScheduler scheduler({&constant, &exponential});
    if (resume_from != nullptr) {
      scheduler.load_state_dict(*resume_from);
      // The lrs live in the optimizer, as in PyTorch.
      for (size_t g = 0; g < 2; ++g) {
        optimizer->param_groups()[g].set_lr(scheduler.get_last_lr()[g]);
      }
    }
    for (int i = 0; i < steps; ++i) scheduler.step();
    if (save_to != nullptr) *save_to = scheduler.state_dict();
    return scheduler.get_last_lr();
  };
  const std::vector<double> straight = run(6, nullptr, nullptr);
  StateDict saved;
  run(3, nullptr, &saved);
  EXPECT_EQ(run(3, &saved, nullptr), straight);
}

TEST(LRScheduler, GetLastLrIsWhatTheLastStepWrote) {
  auto optimizer = two_group_sgd();
  StepLR scheduler(*optimizer, 1, 0.5);
  EXPECT_EQ(scheduler.get_last_lr(), std::vector<double>({0.1, 0.05}));
  scheduler.step();
  EXPECT_EQ(scheduler.get_last_lr(), std::vector<double>({0.05, 0.025}));
  EXPECT_EQ(scheduler.last_epoch(), 1);
  EXPECT_EQ(scheduler.base_lrs(), std::vector<double>({0.1, 0.05}));
}

TEST(LRScheduler, StateDictRoundTripResumesTheSequence) {
  auto straight_optimizer = two_group_sgd();
  CosineAnnealingLR straight(*straight_optimizer, 4, 0.001);
  for (int i = 0; i < 6; ++i) straight.step();

  auto first_optimizer = two_group_sgd();
  CosineAnnealingLR first(*first_optimizer, 4, 0.001);
  for (int i = 0; i < 3; ++i) first.step();
  auto resumed_optimizer = two_group_sgd();
  CosineAnnealingLR resumed(*resumed_optimizer, 4, 0.001);
  resumed_optimizer->load_state_dict(first_optimizer->state_dict());
  resumed.load_state_dict(first.state_dict());
  for (int i = 0; i < 3; ++i) resumed.step();
  EXPECT_EQ(resumed.get_last_lr(), straight.get_last_lr());
  EXPECT_EQ(resumed.last_epoch(), 6);
}

TEST(LRScheduler, ReduceLROnPlateauStateDictRoundTripResumes) {
  auto straight_optimizer = two_group_sgd();
  ReduceLROnPlateau straight(*straight_optimizer, ReduceLROnPlateauOptions().patience(1));
  for (double m : kPlateauMetrics) straight.step(m);

  auto first_optimizer = two_group_sgd();
  ReduceLROnPlateau first(*first_optimizer, ReduceLROnPlateauOptions().patience(1));
  for (int i = 0; i < 5; ++i) first.step(kPlateauMetrics[i]);
  auto resumed_optimizer = two_group_sgd();
  ReduceLROnPlateau resumed(*resumed_optimizer, ReduceLROnPlateauOptions().patience(1));
  resumed_optimizer->load_state_dict(first_optimizer->state_dict());
  resumed.load_state_dict(first.state_dict());
  for (size_t i = 5; i < kPlateauMetrics.size(); ++i) resumed.step(kPlateauMetrics[i]);
  EXPECT_EQ(resumed.get_last_lr(), straight.get_last_lr());
  EXPECT_EQ(resumed.last_epoch(), 12);
}

// ---- Errors ----------------------------------------------------------------------------

TEST(LRSchedulerErrors, InvalidArguments) {
  auto o = two_group_sgd();
  EXPECT_THROW_MSG(StepLR(*o, 0), "StepLR: step_size must be positive, got 0");
  EXPECT_THROW_MSG(CosineAnnealingLR(*o, 0), "CosineAnnealingLR: T_max must be positive, got 0");
  EXPECT_THROW_MSG(LinearLR(*o, 0.5, 1.5), "Ending multiplicative factor expected to be between 0 and 1.");
}

TEST(LRSchedulerErrors, LinearLRRejectsAStartFactorOutsideZeroOneInPyTorch113Words) {
  auto o = two_group_sgd();
  EXPECT_THROW_MSG(LinearLR(*o, 1.5), "Starting multiplicative factor expected to be between 0 and 1.");
  EXPECT_THROW_MSG(LinearLR(*o, -0.1), "Starting multiplicative factor expected to be between 0 and 1.");
}

// PyTorch 1.13 accepts 0 and fails at its first step() (division by zero).
TEST(LRSchedulerErrors, LinearLRRejectsAZeroStartFactor) {
  auto o = two_group_sgd();
  EXPECT_THROW_MSG(LinearLR(*o, 0.0), "Starting multiplicative factor expected to be between 0 and 1.");
}

TEST(LRSchedulerErrors, InvalidArgumentsLeaveTheGroupsUntouched) {
  auto o = two_group_sgd();
  EXPECT_THROW_MSG(StepLR(*o, -1), "StepLR: step_size must be positive, got -1");
  EXPECT_EQ(o->param_groups()[0].options.count("initial_lr"), 0u);
}

TEST(LRSchedulerErrors, OneCycleLRArguments) {
  auto o = two_group_sgd(0.9);
  EXPECT_THROW_MSG(OneCycleLR(*o, OneCycleLROptions({1.0})),
                   "You must define either total_steps OR (epochs AND steps_per_epoch)");
  EXPECT_THROW_MSG(OneCycleLR(*o, OneCycleLROptions({1.0}).total_steps(-2)),
                   "Expected positive integer total_steps, but got -2");
  EXPECT_THROW_MSG(OneCycleLR(*o, OneCycleLROptions({1.0}).steps_per_epoch(3)),
                   "Expected positive integer epochs, but got 0");
  EXPECT_THROW_MSG(OneCycleLR(*o, OneCycleLROptions({1.0}).epochs(3)),
                   "Expected positive integer steps_per_epoch, but got 0");
  EXPECT_THROW_MSG(OneCycleLR(*o, OneCycleLROptions({1.0}).total_steps(5).pct_start(1.5)),
                   "Expected float between 0 and 1 pct_start, but got 1.5");
  EXPECT_THROW_MSG(OneCycleLR(*o, OneCycleLROptions({1.0}).total_steps(5).anneal_strategy("exp")),
                   "anneal_strategy must by one of 'cos' or 'linear', instead got exp");
  EXPECT_THROW_MSG(OneCycleLR(*o, OneCycleLROptions({1.0, 2.0, 3.0}).total_steps(5)),
                   "expected 2 values for max_lr, got 3");
  Adagrad adagrad({Variable(zeros({2}), true)});
  EXPECT_THROW_MSG(OneCycleLR(adagrad, OneCycleLROptions({1.0}).total_steps(5)),
                   "optimizer must support momentum with `cycle_momentum` option enabled");
}

TEST(LRSchedulerErrors, OneCycleLRSteppedPastTotalSteps) {
  auto o = two_group_sgd(0.9);
  OneCycleLR scheduler(*o, OneCycleLROptions({1.0}).total_steps(2));
  scheduler.step();
  scheduler.step();
  const std::vector<double> lrs = scheduler.get_last_lr();
  EXPECT_THROW_MSG(scheduler.step(), "Tried to step 4 times. The specified number of total steps is 2");
  EXPECT_EQ(scheduler.last_epoch(), 2);
  EXPECT_EQ(o->param_groups()[0].lr(), lrs[0]);
}

TEST(LRSchedulerErrors, ReduceLROnPlateauArguments) {
  auto o = two_group_sgd();
  EXPECT_THROW_MSG(ReduceLROnPlateau(*o, ReduceLROnPlateauOptions().factor(1.0)),
                   "Factor should be < 1.0.");
  EXPECT_THROW_MSG(ReduceLROnPlateau(*o, ReduceLROnPlateauOptions().mode("up")),
                   "mode up is unknown!");
  EXPECT_THROW_MSG(ReduceLROnPlateau(*o, ReduceLROnPlateauOptions().threshold_mode("pct")),
                   "threshold mode pct is unknown!");
  EXPECT_THROW_MSG(ReduceLROnPlateau(*o, ReduceLROnPlateauOptions().min_lr({0, 0, 0})),
                   "expected 2 min_lrs, got 3");
  EXPECT_THROW_MSG(ReduceLROnPlateau(*o, ReduceLROnPlateauOptions().min_lr({})),
                   "expected 2 min_lrs, got 0");
}

TEST(LRSchedulerErrors, LoadStateDictChecksKeysAndShapesAndChangesNothingOnError) {
  auto o = two_group_sgd();
  StepLR scheduler(*o, 2);
  scheduler.step();
  StateDict missing = scheduler.state_dict();
  missing.erase("step_count");
  EXPECT_THROW_MSG(scheduler.load_state_dict(missing), "missing key 'step_count'");
  StateDict extra = scheduler.state_dict();
  extra.insert("gamma", scalar_tensor(0.5, kFloat64));
  EXPECT_THROW_MSG(scheduler.load_state_dict(extra),
                   "unexpected key 'gamma' in the scheduler's state dict");
  StateDict wrong_size = scheduler.state_dict();
  wrong_size["base_lrs"] = from_vector(std::vector<double>{0.1});
  EXPECT_THROW_MSG(scheduler.load_state_dict(wrong_size),
                   "'base_lrs' must be a float64 tensor of shape [2] (one value per parameter group)");
  StateDict wrong_dtype = scheduler.state_dict();
  wrong_dtype["last_epoch"] = scalar_tensor(1.0);
  EXPECT_THROW_MSG(scheduler.load_state_dict(wrong_dtype), "'last_epoch' must be a 0-dim int64 tensor");
  EXPECT_EQ(scheduler.last_epoch(), 1);
}

TEST(LRSchedulerErrors, LambdaLRAndMultiplicativeLRWantOneLambdaPerGroup) {
  auto o = two_group_sgd();
  const LRLambda one = [](int64_t) { return 1.0; };
  EXPECT_THROW_MSG(LambdaLR(*o, std::vector<LRLambda>{one, one, one}),
                   "Expected 2 lr_lambdas, but got 3");
  EXPECT_THROW_MSG(MultiplicativeLR(*o, std::vector<LRLambda>{one}),
                   "Expected 2 lr_lambdas, but got 1");
  EXPECT_THROW_MSG(LambdaLR(*o, LRLambda()), "LambdaLR: lr_lambda must not be empty");
  EXPECT_THROW_MSG(MultiplicativeLR(*o, std::vector<LRLambda>{one, nullptr}),
                   "MultiplicativeLR: lr_lambda must not be empty");
  EXPECT_EQ(o->param_groups()[0].options.count("initial_lr"), 0u);
}

TEST(LRSchedulerErrors, ConstantLRFactorOutsideZeroOne) {
  auto o = two_group_sgd();
  EXPECT_THROW_MSG(ConstantLR(*o, 1.5), "Constant multiplicative factor expected to be between 0 and 1.");
  EXPECT_THROW_MSG(ConstantLR(*o, -0.1), "Constant multiplicative factor expected to be between 0 and 1.");
  EXPECT_EQ(o->param_groups()[0].options.count("initial_lr"), 0u);
}

// PyTorch 1.13 accepts factor 0 and raises ZeroDivisionError at total_iters.
TEST(LRSchedulerErrors, ConstantLRWithFactorZeroFailsAtTotalIters) {
  auto o = two_group_sgd();
  ConstantLR scheduler(*o, 0.0, 2);
  EXPECT_EQ(scheduler.get_last_lr(), std::vector<double>({0.0, 0.0}));
  scheduler.step();
  EXPECT_THROW_MSG(scheduler.step(),
                   "ConstantLR: float division by zero (factor 0 cannot be undone at total_iters)");
  EXPECT_EQ(scheduler.last_epoch(), 1);
}

// PyTorch 1.13's closed forms divide by total_iters (a ZeroDivisionError
// when SequentialLR starts them with step(0)); the recursive forms never do.
TEST(LRSchedulerErrors, SequentialLRStartingAZeroTotalItersClosedFormThrows) {
  auto o = two_group_sgd();
  ConstantLR constant(*o, 0.5, 1);
  PolynomialLR polynomial(*o, 0);
  SequentialLR scheduler(*o, {&constant, &polynomial}, {1});
  EXPECT_THROW_MSG(scheduler.step(),
                   "PolynomialLR: division by zero (total_iters is 0) in the closed form");
  EXPECT_EQ(scheduler.last_epoch(), 0);
  EXPECT_EQ(polynomial.last_epoch(), -1);

  auto o2 = two_group_sgd();
  ConstantLR constant2(*o2, 0.5, 1);
  LinearLR linear(*o2, 0.5, 1.0, 0);
  SequentialLR linear_next(*o2, {&constant2, &linear}, {1});
  EXPECT_THROW_MSG(linear_next.step(),
                   "LinearLR: division by zero (total_iters is 0) in the closed form");
  EXPECT_EQ(linear.last_epoch(), -1);
}

TEST(LRSchedulerErrors, CosineAnnealingWarmRestartsArguments) {
  auto o = two_group_sgd();
  EXPECT_THROW_MSG(CosineAnnealingWarmRestarts(*o, 0), "Expected positive integer T_0, but got 0");
  EXPECT_THROW_MSG(CosineAnnealingWarmRestarts(*o, -3), "Expected positive integer T_0, but got -3");
  EXPECT_THROW_MSG(CosineAnnealingWarmRestarts(*o, 5, 0), "Expected integer T_mult >= 1, but got 0");
  EXPECT_EQ(o->param_groups()[0].options.count("initial_lr"), 0u);
}

TEST(LRSchedulerErrors, SequentialLRArguments) {
  auto o = two_group_sgd();
  auto other = two_group_sgd();
  ConstantLR constant(*o, 0.1, 2);
  ExponentialLR exponential(*o, 0.9);
  ExponentialLR elsewhere(*other, 0.9);
  EXPECT_THROW_MSG(SequentialLR(*o, {&constant, &elsewhere}, {2}),
                   "Sequential Schedulers expects all schedulers to belong to the same optimizer, "
                   "but got schedulers at index 1 to be different than the optimizer passed in.");
  EXPECT_THROW_MSG(SequentialLR(*other, {&constant, &exponential}, {2}),
                   "Sequential Schedulers expects all schedulers to belong to the same optimizer, "
                   "but got schedulers at index 0 to be different than the optimizer passed in.");
  EXPECT_THROW_MSG(SequentialLR(*o, {&constant, &exponential}, {2, 4}),
                   "Sequential Schedulers expects number of schedulers provided to be one more "
                   "than the number of milestone points, but got number of schedulers 2 and the "
                   "number of milestones to be equal to 2");
  EXPECT_THROW_MSG(SequentialLR(*o, {}, {}),
                   "but got number of schedulers 0 and the number of milestones to be equal to 0");
  EXPECT_THROW_MSG(SequentialLR(*o, {&constant, nullptr}, {2}),
                   "SequentialLR: the scheduler at index 1 is null");
}

TEST(LRSchedulerErrors, ChainedSchedulerArguments) {
  auto o = two_group_sgd();
  auto other = two_group_sgd();
  ConstantLR constant(*o, 0.1, 2);
  ExponentialLR elsewhere(*other, 0.9);
  EXPECT_THROW_MSG(ChainedScheduler({&constant, &elsewhere}),
                   "ChainedScheduler expects all schedulers to belong to the same optimizer, but "
                   "got schedulers at index 0 and 1 to be different");
  EXPECT_THROW_MSG(ChainedScheduler({}), "ChainedScheduler expects at least one scheduler");
}

TEST(LRSchedulerErrors, SequentialLRLoadStateDictIsAllOrNothing) {
  auto o = two_group_sgd();
  ConstantLR constant(*o, 0.1, 2);
  ExponentialLR exponential(*o, 0.9);
  SequentialLR scheduler(*o, {&constant, &exponential}, {2});
  StateDict sd = scheduler.state_dict();
  for (int i = 0; i < 3; ++i) scheduler.step();
  StateDict extra = sd;
  extra.insert("schedulers.2.last_epoch", scalar_tensor(int64_t{0}));
  EXPECT_THROW_MSG(scheduler.load_state_dict(extra),
                   "unexpected key 'schedulers.2.last_epoch' in the scheduler's state dict");
  StateDict bad_second = sd;
  bad_second["schedulers.1.last_epoch"] = scalar_tensor(1.0);
  EXPECT_THROW_MSG(scheduler.load_state_dict(bad_second), "'last_epoch' must be a 0-dim int64 tensor");
  EXPECT_EQ(scheduler.last_epoch(), 3);
  EXPECT_EQ(constant.last_epoch(), 1);
  EXPECT_EQ(exponential.last_epoch(), 1);
}

TEST(LRSchedulerErrors, ReduceLROnPlateauLoadStateDictChecksTypes) {
  auto o = two_group_sgd();
  ReduceLROnPlateau scheduler(*o);
  StateDict sd = scheduler.state_dict();
  sd["best"] = scalar_tensor(int64_t{1});
  EXPECT_THROW_MSG(scheduler.load_state_dict(sd), "'best' must be a 0-dim float64 tensor");
}

}  // namespace
}  // namespace torchlet::optim
