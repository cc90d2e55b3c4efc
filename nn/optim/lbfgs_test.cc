// LBFGS against PyTorch 1.13 (nn/optim/testdata/lbfgs_golden.txt, written by
// tools/gen_optim_golden.py): the iterates of step(closure) on the
// Rosenbrock function and a least-squares problem, with and without the
// strong Wolfe line search, the state_dict, its round trip and the errors.

#include <functional>
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
using testing::golden_reprs;

const testing::Golden& golden() {
  return testing::cached_golden("nn/optim/testdata/lbfgs_golden.txt");
}

// One configuration of tools/gen_optim_golden.py: the problem, its dtype and
// LBFGS's options.
struct Config {
  std::string problem;
  DType dtype;
  LBFGSOptions options;
};

const std::map<std::string, Config>& configs() {
  static const auto* c = new std::map<std::string, Config>{
      {"rosenbrock_wolfe",
       {"rosenbrock", kFloat64, LBFGSOptions().line_search_fn("strong_wolfe")}},
      {"rosenbrock_short_history",
       {"rosenbrock", kFloat64, LBFGSOptions(0.5).max_iter(7).history_size(2)}},
      {"rosenbrock_wolfe_short_history",
       {"rosenbrock", kFloat64,
        LBFGSOptions().max_iter(6).history_size(3).line_search_fn("strong_wolfe")}},
      {"lsq", {"lsq", kFloat64, LBFGSOptions(0.5).max_iter(5).history_size(3)}},
      {"lsq_wolfe",
       {"lsq", kFloat64, LBFGSOptions().max_iter(5).history_size(3).line_search_fn("strong_wolfe")}},
      {"lsq_float32", {"lsq", kFloat32, LBFGSOptions(0.5).max_iter(2).history_size(3)}},
      {"lsq_float32_wolfe",
       {"lsq", kFloat32, LBFGSOptions().max_iter(2).history_size(3).line_search_fn("strong_wolfe")}},
      {"lsq_max_eval",
       {"lsq", kFloat64,
        LBFGSOptions().max_iter(10).max_eval(4).tolerance_grad(1e-3).tolerance_change(1e-4)
            .line_search_fn("strong_wolfe")}},
  };
  return *c;
}

std::vector<Variable> initial_params(const Config& config) {
  if (config.problem == "rosenbrock") {
    return {Variable(from_vector(std::vector<double>{-1.5, 2.0}).to(config.dtype), true)};
  }
  return {Variable(golden().at("lsq.init.w").to(config.dtype).clone(), true),
          Variable(golden().at("lsq.init.b").to(config.dtype).clone(), true)};
}

Variable loss_of(const Config& config, const std::vector<Variable>& p) {
  if (config.problem == "rosenbrock") {
    const Variable x0 = p[0].select(0, 0), x1 = p[0].select(0, 1);
    return (1.0 - x0).pow(2) + 100.0 * (x1 - x0.pow(2)).pow(2);
  }
  const Variable x(golden().at("lsq.x").to(config.dtype));
  const Variable y(golden().at("lsq.y").to(config.dtype));
  return (x.mm(p[0].t()) + p[1] - y).pow(2).mean();
}

std::function<Variable()> closure_for(const Config& config, LBFGS& lbfgs,
                                      const std::vector<Variable>& params) {
  return [&config, &lbfgs, params] {
    lbfgs.zero_grad();
    Variable loss = loss_of(config, params);
    loss.backward();
    return loss;
  };
}

double tolerance(const Config& config) { return config.dtype == kFloat64 ? 1e-7 : 1e-4; }

class LBFGSGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(LBFGSGolden, IteratesAndLossesMatchPyTorch) {
  const Config& config = configs().at(GetParam());
  const std::vector<Variable> params = initial_params(config);
  LBFGS lbfgs(params, config.options);
  const auto closure = closure_for(config, lbfgs, params);
  std::vector<double> losses;
  for (int step = 0; step < 4; ++step) {
    losses.push_back(lbfgs.step(closure).item<double>());
    for (size_t i = 0; i < params.size(); ++i) {
      const std::string key = GetParam() + ".step" + std::to_string(step) + "." + std::to_string(i);
      EXPECT_TRUE(all_close(params[i].data().to(kFloat64), golden().at(key), tolerance(config),
                            tolerance(config)))
          << key;
    }
  }
  EXPECT_TRUE(all_close(from_vector(losses), golden().at(GetParam() + ".losses"), tolerance(config),
                        tolerance(config)));
}

TEST_P(LBFGSGolden, StateDictHasPyTorchsKeysAndValues) {
  const Config& config = configs().at(GetParam());
  const std::vector<Variable> params = initial_params(config);
  LBFGS lbfgs(params, config.options);
  const auto closure = closure_for(config, lbfgs, params);
  for (int step = 0; step < 4; ++step) lbfgs.step(closure);
  const StateDict sd = lbfgs.state_dict();
  // The history's vectors to a looser tolerance (the curvature pairs are
  // differences of nearby gradients); the counts exactly.
  const double tol = config.dtype == kFloat64 ? 1e-5 : 1e-2;
  ASSERT_NO_FATAL_FAILURE(testing::expect_state_dict_matches(sd, golden(), GetParam(), tol, tol));
  for (const char* count : {"state.0.func_evals", "state.0.n_iter"}) {
    EXPECT_EQ(sd.at(count).item<double>(), golden().at(GetParam() + "/" + count).item<double>())
        << count;
  }
}

INSTANTIATE_TEST_SUITE_P(Problems, LBFGSGolden,
                         ::testing::Values("rosenbrock_wolfe", "rosenbrock_short_history",
                                           "rosenbrock_wolfe_short_history", "lsq", "lsq_wolfe",
                                           "lsq_float32", "lsq_float32_wolfe", "lsq_max_eval"),
                         [](const auto& info) { return std::string(info.param); });

// ---- Behaviour -------------------------------------------------------------------------

TEST(LBFGS, StrongWolfeConvergesOnRosenbrock) {
  const Config& config = configs().at("rosenbrock_wolfe");
  const std::vector<Variable> params = initial_params(config);
  LBFGS lbfgs(params, config.options);
  const auto closure = closure_for(config, lbfgs, params);
  for (int step = 0; step < 4; ++step) lbfgs.step(closure);
  EXPECT_TRUE(all_close(params[0].data(), from_vector(std::vector<double>{1.0, 1.0}), 1e-4, 1e-4));
}

TEST(LBFGS, StateDictRoundTripResumesBitForBit) {
  for (const char* name : {"rosenbrock_wolfe_short_history", "lsq_float32"}) {
    const Config& config = configs().at(name);
    const std::vector<Variable> straight = initial_params(config);
    LBFGS straight_lbfgs(straight, config.options);
    const auto straight_closure = closure_for(config, straight_lbfgs, straight);
    for (int step = 0; step < 4; ++step) straight_lbfgs.step(straight_closure);

    const std::vector<Variable> first = initial_params(config);
    LBFGS first_lbfgs(first, config.options);
    const auto first_closure = closure_for(config, first_lbfgs, first);
    for (int step = 0; step < 2; ++step) first_lbfgs.step(first_closure);
    std::vector<Variable> resumed;
    for (const Variable& p : first) resumed.emplace_back(p.data().clone(), true);
    LBFGS resumed_lbfgs(resumed, config.options);
    resumed_lbfgs.load_state_dict(first_lbfgs.state_dict());
    const auto resumed_closure = closure_for(config, resumed_lbfgs, resumed);
    for (int step = 0; step < 2; ++step) resumed_lbfgs.step(resumed_closure);

    SCOPED_TRACE(name);
    ASSERT_NO_FATAL_FAILURE(
        testing::expect_same_training(resumed, resumed_lbfgs, straight, straight_lbfgs));
  }
}

TEST(LBFGS, HasNoStateBeforeItsFirstStep) {
  const Variable w(ones({2}), true);
  LBFGS lbfgs({w});
  for (const auto& [key, value] : lbfgs.state_dict()) {
    EXPECT_NE(key.rfind("state.", 0), 0u) << key;
  }
}

TEST(LBFGS, StopsAtOnceAtAStationaryPointKeepingOnlyTheCounts) {
  const Variable w(zeros({2}), true);
  LBFGS lbfgs({w});
  const Variable loss = lbfgs.step([&] {
    lbfgs.zero_grad();
    Variable l = w.pow(2).sum();
    l.backward();
    return l;
  });
  EXPECT_EQ(loss.item<float>(), 0.f);
  const StateDict sd = lbfgs.state_dict();
  EXPECT_EQ(sd.at("state.0.func_evals").item<int64_t>(), 1);
  EXPECT_EQ(sd.at("state.0.n_iter").item<int64_t>(), 0);
  EXPECT_FALSE(sd.contains("state.0.d"));
}

TEST(LBFGS, TreatsAParameterWithoutGradAsZeroGradAndLeavesItAlone) {
  const Variable w(from_vector(std::vector<double>{3.0, -1.0}), true);
  const Variable unused(from_vector(std::vector<double>{5.0}), true);
  LBFGS lbfgs({w, unused}, LBFGSOptions().line_search_fn("strong_wolfe"));
  lbfgs.step([&] {
    lbfgs.zero_grad();
    Variable l = (w - 1.0).pow(2).sum();
    l.backward();
    return l;
  });
  EXPECT_EQ(unused.item<double>(), 5.0);
  EXPECT_TRUE(all_close(w.data(), from_vector(std::vector<double>{1.0, 1.0}), 1e-6, 1e-6));
}

TEST(LBFGS, DefaultMaxEvalIsFiveQuartersOfMaxIterRoundedDown) {
  const Variable w(zeros({2}), true);
  EXPECT_EQ(LBFGS({w}, LBFGSOptions().max_iter(7)).param_groups()[0].options.at("max_eval"),
            OptionValue(8));
  EXPECT_EQ(LBFGS({w}, LBFGSOptions().max_iter(10.0)).param_groups()[0].options.at("max_eval"),
            OptionValue(12.0));
  EXPECT_EQ(LBFGS({w}, LBFGSOptions().max_iter(-3)).param_groups()[0].options.at("max_eval"),
            OptionValue(-4));
  EXPECT_EQ(LBFGS({w}, LBFGSOptions().max_eval(3)).param_groups()[0].options.at("max_eval"),
            OptionValue(3));
}

TEST(LBFGS, ASchedulersLrIsTheStepLength) {
  const Variable w(from_vector(std::vector<double>{2.0}), true);
  LBFGS lbfgs({w}, LBFGSOptions(0.5).max_iter(1));
  StepLR scheduler(lbfgs, 1, 0.5);
  const auto closure = [&] {
    lbfgs.zero_grad();
    Variable l = w.pow(2).sum();
    l.backward();
    return l;
  };
  lbfgs.step(closure);  // first iteration: t = min(1, 1 / |4|) * 0.5, w = 2 - 0.125 * 4
  EXPECT_DOUBLE_EQ(w.item<double>(), 1.5);
  scheduler.step();
  EXPECT_DOUBLE_EQ(lbfgs.param_groups()[0].lr(), 0.25);
}

// ---- Printing --------------------------------------------------------------------------

TEST(LBFGSRepr, MatchesPyTorch) {
  const Variable w(zeros({2}), true);
  const auto reprs = golden_reprs();
  EXPECT_EQ(LBFGS({w}).repr(), reprs.at("lbfgs"));  // line_search_fn: None
  EXPECT_EQ(LBFGS({w}, LBFGSOptions(0.1).max_iter(7).tolerance_grad(1e-5).tolerance_change(1e-8)
                           .history_size(10))
                .repr(),
            reprs.at("lbfgs_options"));
  EXPECT_EQ(LBFGS({w}, LBFGSOptions().max_iter(10.0)).repr(), reprs.at("lbfgs_float_max_iter"));
}

TEST(LBFGSRepr, StrongWolfePrintsItsName) {
  const Variable w(zeros({2}), true);
  const std::string text = LBFGS({w}, LBFGSOptions().line_search_fn("strong_wolfe")).repr();
  EXPECT_EQ(text, golden_reprs().at("lbfgs_strong_wolfe"));
  EXPECT_NE(text.find("    line_search_fn: strong_wolfe\n"), std::string::npos);
}

// ---- Through the base class ------------------------------------------------------------

TEST(LBFGSThroughOptimizer, StepWithAClosureRunsLBFGS) {
  const Config& config = configs().at("rosenbrock_wolfe");
  const std::vector<Variable> params = initial_params(config);
  LBFGS lbfgs(params, config.options);
  Optimizer& optimizer = lbfgs;
  int evaluations = 0;
  const auto closure = closure_for(config, lbfgs, params);
  const Variable loss = optimizer.step([&] {
    ++evaluations;
    return closure();
  });
  EXPECT_GT(evaluations, 1);
  EXPECT_EQ(lbfgs.state_dict().at("state.0.func_evals").item<int64_t>(), evaluations);
  EXPECT_DOUBLE_EQ(loss.item<double>(), golden().at("rosenbrock_wolfe.losses")[0].item<double>());
  EXPECT_TRUE(all_close(params[0].data(), golden().at("rosenbrock_wolfe.step0.0"), 1e-7, 1e-7));
}

// ---- Errors ----------------------------------------------------------------------------

TEST(LBFGSErrors, MoreThanOneParameterGroup) {
  const Variable w(zeros({2}), true), b(zeros({2}), true);
  EXPECT_THROW_MSG(LBFGS({ParamGroup({w}), ParamGroup({b})}),
                   "LBFGS doesn't support per-parameter options (parameter groups)");
  LBFGS lbfgs({w});
  EXPECT_THROW_MSG(lbfgs.add_param_group(ParamGroup({b})),
                   "LBFGS doesn't support per-parameter options (parameter groups)");
  EXPECT_EQ(lbfgs.param_groups().size(), 1u);
}

// As in PyTorch, any line_search_fn is accepted until step() would search:
// after the first evaluation, which counts.
TEST(LBFGSErrors, UnknownLineSearchThrowsWhereStepWouldSearch) {
  const Variable w(from_vector(std::vector<double>{1.0, 2.0}), true);
  LBFGS lbfgs({w}, LBFGSOptions().line_search_fn("backtracking"));
  EXPECT_NE(lbfgs.repr().find("    line_search_fn: backtracking\n"), std::string::npos);
  int evaluations = 0;
  const auto closure = [&] {
    ++evaluations;
    lbfgs.zero_grad();
    Variable l = w.pow(2).sum();
    l.backward();
    return l;
  };
  EXPECT_THROW_MSG(lbfgs.step(closure), "only 'strong_wolfe' is supported");
  EXPECT_EQ(evaluations, 1);
  EXPECT_EQ(w.data().to_vector<double>(), std::vector<double>({1.0, 2.0}));
  const StateDict sd = lbfgs.state_dict();
  EXPECT_EQ(sd.at("state.0.func_evals").item<int64_t>(), 1);
  EXPECT_EQ(sd.at("state.0.n_iter").item<int64_t>(), 1);
  EXPECT_FALSE(sd.contains("state.0.d"));
}

TEST(LBFGSErrors, LineSearchThatIsNotAStringThrowsWhereStepWouldSearch) {
  const Variable w(from_vector(std::vector<double>{1.0, 2.0}), true);
  LBFGS lbfgs({ParamGroup({w}, {{"line_search_fn", false}})});
  EXPECT_THROW_MSG(lbfgs.step([&] {
    lbfgs.zero_grad();
    Variable l = w.pow(2).sum();
    l.backward();
    return l;
  }),
                   "only 'strong_wolfe' is supported");
}

TEST(LBFGS, UnknownLineSearchIsNotReachedAtAMinimum) {
  const Variable w(zeros({2}, kFloat64), true);
  LBFGS lbfgs({w}, LBFGSOptions().line_search_fn("backtracking"));
  const Variable loss = lbfgs.step([&] {
    lbfgs.zero_grad();
    Variable l = w.pow(2).sum();
    l.backward();
    return l;
  });
  EXPECT_EQ(loss.item<double>(), 0.0);
}

TEST(LBFGS, StringLineSearchInAGroupsOptionsIsAString) {
  const Variable w(zeros({2}), true);
  LBFGS lbfgs({ParamGroup({w}, {{"line_search_fn", "strong_wolfe"}})});
  EXPECT_EQ(lbfgs.param_groups()[0].options.at("line_search_fn").to_string(), "strong_wolfe");
  EXPECT_EQ(lbfgs.repr(), LBFGS({w}, LBFGSOptions().line_search_fn("strong_wolfe")).repr());
}

TEST(LBFGSErrors, StepWithoutAClosureThroughTheBaseClass) {
  const Variable w(ones({2}), true);
  LBFGS lbfgs({w});
  Optimizer& optimizer = lbfgs;
  w.set_grad(Variable(ones({2})));
  const std::string needs_closure =
      "LBFGS: step() needs a closure that reevaluates the model and returns the loss; call "
      "LBFGS::step(closure)";
  EXPECT_THROW_MSG(optimizer.step(), needs_closure);
  EXPECT_THROW_MSG(lbfgs.step(), needs_closure);
  EXPECT_EQ(w.data().to_vector<float>(), std::vector<float>({1.f, 1.f}));
}

TEST(LBFGSErrors, ClosureReturningMoreThanOneNumber) {
  const Variable w(ones({2}), true);
  LBFGS lbfgs({w});
  EXPECT_THROW_MSG(lbfgs.step([&] { return w * 2.0; }),
                   "LBFGS: the closure must return the loss as a one-element tensor, got [2]");
}

TEST(LBFGSErrors, InvalidOptions) {
  const Variable w(zeros({2}), true);
  EXPECT_THROW_MSG(LBFGS({w}, LBFGSOptions().history_size(0)),
                   "LBFGS: option 'history_size' must be a positive integer, got 0");
  EXPECT_THROW_MSG(LBFGS({w}, LBFGSOptions().history_size(2.5)),
                   "LBFGS: option 'history_size' must be a positive integer, got 2.5");
  EXPECT_THROW_MSG(LBFGS({ParamGroup({w}, {{"lr", true}})}),
                   "LBFGS: option 'lr' must be a number, got True");
  EXPECT_THROW_MSG(LBFGS({ParamGroup({w}, {{"max_iter", "20"}})}),
                   "LBFGS: option 'max_iter' must be a number, got '20'");
}

TEST(LBFGSErrors, ParametersOfDifferentDtypes) {
  const Variable w(zeros({2}), true), b(zeros({2}, kFloat64), true);
  EXPECT_THROW_MSG(LBFGS({w, b}), "LBFGS: all parameters must have one dtype and device");
}

StateDict lbfgs_state() {
  const Variable w(from_vector(std::vector<double>{3.0, -1.0}), true);
  LBFGS lbfgs({w}, LBFGSOptions().max_iter(3));
  lbfgs.step([&] {
    lbfgs.zero_grad();
    Variable l = (w - 1.0).pow(4).sum();
    l.backward();
    return l;
  });
  return lbfgs.state_dict();
}

void expect_load_error(StateDict sd, const std::string& message) {
  const Variable w(from_vector(std::vector<double>{3.0, -1.0}), true);
  LBFGS lbfgs({w});
  lbfgs.param_groups()[0].set_lr(0.25);
  EXPECT_THROW_MSG(lbfgs.load_state_dict(sd), message);
  EXPECT_EQ(lbfgs.param_groups()[0].lr(), 0.25);
  for (const auto& [key, value] : lbfgs.state_dict()) {
    EXPECT_NE(key.rfind("state.", 0), 0u) << key;
  }
}

TEST(LBFGSStateDictErrors, DirectionOfAnotherLength) {
  StateDict sd = lbfgs_state();
  sd["state.0.d"] = zeros({3}, kFloat64);
  expect_load_error(sd, "load_state_dict: 'state.0.d' has shape [3], expected [2]");
}

TEST(LBFGSStateDictErrors, HistoriesOfDifferentLengths) {
  StateDict sd = lbfgs_state();
  sd["state.0.old_stps"] = zeros({5, 2}, kFloat64);
  expect_load_error(sd, "'state.0.old_stps' has shape [5, 2], expected [");
}

TEST(LBFGSStateDictErrors, MissingEntry) {
  StateDict sd = lbfgs_state();
  sd.erase("state.0.prev_loss");
  expect_load_error(sd, "load_state_dict: missing key 'state.0.prev_loss' in LBFGS's state dict");
}

TEST(LBFGSStateDictErrors, UnexpectedEntry) {
  StateDict sd = lbfgs_state();
  sd.insert("state.0.momentum", zeros({2}, kFloat64));
  expect_load_error(sd, "load_state_dict: unexpected key 'state.0.momentum' in LBFGS's state dict");
}

TEST(LBFGSStateDictErrors, StateForAnotherParameter) {
  StateDict sd = lbfgs_state();
  sd.insert("state.1.d", zeros({2}, kFloat64));
  expect_load_error(sd, "LBFGS keeps its state under parameter 0, got state for parameter 1");
}

TEST(LBFGSStateDictErrors, FractionalCount) {
  StateDict sd = lbfgs_state();
  sd["state.0.n_iter"] = scalar_tensor(2.5, kFloat64);
  expect_load_error(sd, "load_state_dict: 'state.0.n_iter' must be a whole number, got 2.5");
}

}  // namespace
}  // namespace torchlet::optim
