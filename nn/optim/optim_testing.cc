#include "nn/optim/optim_testing.h"

#include <fstream>
#include <set>
#include <utility>

#include "gtest/gtest.h"
#include "nn/optim/optim.h"
#include "tensor/test_util.h"

namespace torchlet::testing {

const Golden& cached_golden(const std::string& path) {
  return GoldenFile::get(path).entries();
}

const Golden& optim_golden() { return cached_golden("nn/optim/testdata/optim_golden.txt"); }

const Golden& optim_state_golden() {
  return cached_golden("nn/optim/testdata/optim_state_golden.txt");
}

const std::vector<std::string>& optim_param_names() {
  static const auto* names = new std::vector<std::string>{"w1", "b1", "w2", "b2"};
  return *names;
}

std::vector<Variable> golden_params(DType dtype) {
  std::vector<Variable> params;
  for (const std::string& name : optim_param_names()) {
    params.emplace_back(optim_golden().at("init." + name).to(dtype).clone(), true);
  }
  return params;
}

void set_golden_grads(const std::vector<Variable>& params, const Golden& source,
                      const std::string& prefix, int step) {
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string key = prefix + std::to_string(step) + "." + optim_param_names()[i];
    params[i].set_grad(Variable(source.at(key).to(params[i].dtype()).clone()));
  }
}

void run_golden_steps(optim::Optimizer& optimizer, const std::vector<Variable>& params,
                      const Golden& source, const std::string& prefix, int steps) {
  for (int step = 0; step < steps; ++step) {
    set_golden_grads(params, source, prefix, step);
    optimizer.step();
  }
}

void expect_params_match(const std::vector<Variable>& params, const Golden& expected,
                         const std::string& prefix, double rtol, double atol) {
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string key = prefix + optim_param_names()[i];
    EXPECT_TRUE(all_close(params[i].data(), expected.at(key), rtol, atol)) << key;
  }
}

void expect_state_dict_matches(const StateDict& sd, const Golden& golden,
                               const std::string& prefix, double rtol, double atol) {
  const std::string scope = prefix + "/";
  std::set<std::string> expected_keys, keys;
  for (const auto& [key, value] : golden) {
    if (key.rfind(scope, 0) == 0) expected_keys.insert(key.substr(scope.size()));
  }
  for (const auto& [key, value] : sd) keys.insert(key);
  ASSERT_FALSE(expected_keys.empty()) << "no golden state under " << scope;
  EXPECT_EQ(keys, expected_keys);
  for (const auto& [key, value] : sd) {
    if (expected_keys.count(key) == 0) continue;
    EXPECT_TRUE(all_close(value.to(kFloat64), golden.at(scope + key), rtol, atol)) << key;
  }
}

std::map<std::string, std::string> golden_reprs() {
  std::ifstream in("nn/optim/testdata/optim_reprs.txt");
  EXPECT_TRUE(in.good());
  std::map<std::string, std::string> reprs;
  std::string line, name;
  while (std::getline(in, line)) {
    if (line.rfind("=== ", 0) == 0) {
      name = line.substr(4);
    } else {
      reprs[name] += reprs[name].empty() ? line : "\n" + line;
    }
  }
  return reprs;
}

bool bit_equal(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() &&
         a.to_vector<double>() == b.to_vector<double>();
}

void expect_same_training(const std::vector<Variable>& resumed,
                          const optim::Optimizer& resumed_optimizer,
                          const std::vector<Variable>& straight,
                          const optim::Optimizer& straight_optimizer) {
  ASSERT_EQ(resumed.size(), straight.size());
  for (size_t i = 0; i < resumed.size(); ++i) {
    EXPECT_TRUE(bit_equal(resumed[i].data(), straight[i].data())) << "parameter " << i;
  }
  const StateDict a = resumed_optimizer.state_dict(), b = straight_optimizer.state_dict();
  ASSERT_EQ(a.keys(), b.keys());
  for (const auto& [key, value] : a) EXPECT_TRUE(bit_equal(value, b.at(key))) << key;
}

namespace {

template <typename T, typename O>
OptimizerFactory make(O options) {
  return [options](std::vector<Variable> params) {
    return std::unique_ptr<optim::Optimizer>(new T(std::move(params), options));
  };
}

}  // namespace

const OptimizerConfigs& more_optimizer_configs() {
  using namespace optim;
  static const auto* c = new OptimizerConfigs{
      {"adadelta", make<Adadelta>(AdadeltaOptions())},
      {"adadelta_wd_maximize", make<Adadelta>(AdadeltaOptions(0.5).rho(0.8).eps(1e-5)
                                                  .weight_decay(0.1).maximize(true))},
      {"adamax", make<Adamax>(AdamaxOptions(0.01))},
      {"adamax_wd_maximize",
       make<Adamax>(AdamaxOptions(0.01).betas({0.8, 0.99}).weight_decay(0.1).maximize(true))},
      {"nadam", make<NAdam>(NAdamOptions(0.01))},
      {"nadam_wd_momentum_decay",
       make<NAdam>(NAdamOptions(0.01).betas({0.8, 0.99}).weight_decay(0.1).momentum_decay(0.01))},
      {"radam", make<RAdam>(RAdamOptions(0.01))},
      {"radam_wd", make<RAdam>(RAdamOptions(0.01).betas({0.8, 0.9}).weight_decay(0.1))},
      {"asgd", make<ASGD>(ASGDOptions(0.01))},
      {"asgd_t0_wd_maximize", make<ASGD>(ASGDOptions(0.05).lambd(0.01).alpha(0.5).t0(0)
                                             .weight_decay(0.1).maximize(true))},
      {"rprop", make<Rprop>(RpropOptions(0.01))},
      {"rprop_etas_maximize", make<Rprop>(RpropOptions(0.05).etas({0.3, 1.5})
                                              .step_sizes({0.01, 0.08}).maximize(true))},
  };
  return *c;
}

const OptimizerConfigs& optimizer_configs() {
  using namespace optim;
  static const auto* c = [] {
    auto* configs = new OptimizerConfigs{
        {"sgd_plain", make<SGD>(SGDOptions(0.1))},
        {"sgd_momentum", make<SGD>(SGDOptions(0.1).momentum(0.9))},
        {"sgd_nesterov_wd",
         make<SGD>(SGDOptions(0.1).momentum(0.9).nesterov(true).weight_decay(0.01))},
        {"sgd_maximize", make<SGD>(SGDOptions(0.1).maximize(true))},
        {"sgd_dampening", make<SGD>(SGDOptions(0.1).momentum(0.9).dampening(0.5))},
        {"adam", make<Adam>(AdamOptions(0.01))},
        {"adam_amsgrad_wd", make<Adam>(AdamOptions(0.01).amsgrad(true).weight_decay(0.1))},
        {"adam_maximize_betas", make<Adam>(AdamOptions(0.01).betas({0.8, 0.99}).maximize(true))},
        {"adamw", make<AdamW>(AdamWOptions(0.01))},
        {"adamw_amsgrad", make<AdamW>(AdamWOptions(0.01).amsgrad(true).weight_decay(0.05))},
        {"rmsprop", make<RMSprop>(RMSpropOptions(0.01))},
        {"rmsprop_centered_momentum",
         make<RMSprop>(RMSpropOptions(0.01).centered(true).momentum(0.9).weight_decay(0.01))},
        {"adagrad", make<Adagrad>(AdagradOptions(0.1))},
        {"adagrad_lr_decay", make<Adagrad>(AdagradOptions(0.1).lr_decay(0.01).weight_decay(0.1)
                                               .initial_accumulator_value(0.1))},
    };
    configs->insert(more_optimizer_configs().begin(), more_optimizer_configs().end());
    return configs;
  }();
  return *c;
}

std::vector<std::string> config_names(const OptimizerConfigs& configs) {
  std::vector<std::string> names;
  for (const auto& [name, factory] : configs) names.push_back(name);
  return names;
}

}  // namespace torchlet::testing
