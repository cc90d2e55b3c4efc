#pragma once

// What the optimizer tests share: the fixtures of tools/gen_optim_golden.py
// (nn/optim/testdata), the configurations they were written for, and the
// comparisons of parameters and state_dicts against them.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "autograd/variable.h"
#include "nn/optim/optimizer.h"
#include "nn/serialize/state_dict.h"
#include "tensor/tensor.h"

namespace torchlet::testing {

using Golden = std::map<std::string, Tensor>;

/// A golden file (relative to the workspace root), loaded once per process.
const Golden& cached_golden(const std::string& path);

/// nn/optim/testdata/optim_golden.txt: the model's initial parameters, three
/// steps' gradients and every configuration's parameters after them.
const Golden& optim_golden();

/// nn/optim/testdata/optim_state_golden.txt: state_dicts after three steps,
/// eight steps' gradients and parameters after them.
const Golden& optim_state_golden();

/// The model's parameters in order: w1, b1, w2, b2.
const std::vector<std::string>& optim_param_names();

/// The model's initial parameters ("init.<name>") in `dtype`, requiring grad.
std::vector<Variable> golden_params(DType dtype = kFloat32);

/// Sets the gradient of each parameter to `source`'s "<prefix><step>.<name>"
/// in the parameter's dtype.
void set_golden_grads(const std::vector<Variable>& params, const Golden& source,
                      const std::string& prefix, int step);

/// `steps` steps of `optimizer`, each with the gradients of set_golden_grads.
void run_golden_steps(optim::Optimizer& optimizer, const std::vector<Variable>& params,
                      const Golden& source, const std::string& prefix, int steps);

/// Each parameter against `expected`'s "<prefix><name>".
void expect_params_match(const std::vector<Variable>& params, const Golden& expected,
                         const std::string& prefix, double rtol, double atol);

/// `sd` has exactly the keys `golden` holds under "<prefix>/" and, as float64
/// (a bool as 0 or 1), their values. Callers wrap it in ASSERT_NO_FATAL_FAILURE.
void expect_state_dict_matches(const StateDict& sd, const Golden& golden,
                               const std::string& prefix, double rtol, double atol);

/// The printed forms of nn/optim/testdata/optim_reprs.txt, by name.
std::map<std::string, std::string> golden_reprs();

/// Same shape, dtype and values.
bool bit_equal(const Tensor& a, const Tensor& b);

/// Both runs' parameters, and their optimizers' state_dicts, bit for bit.
void expect_same_training(const std::vector<Variable>& resumed,
                          const optim::Optimizer& resumed_optimizer,
                          const std::vector<Variable>& straight,
                          const optim::Optimizer& straight_optimizer);

using OptimizerFactory = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Variable>)>;
using OptimizerConfigs = std::map<std::string, OptimizerFactory>;

/// Every configuration of tools/gen_optim_golden.py, by name.
const OptimizerConfigs& optimizer_configs();

/// The configurations from Adadelta on (those of optim_state_golden()).
const OptimizerConfigs& more_optimizer_configs();

/// The names of `configs`, in order.
std::vector<std::string> config_names(const OptimizerConfigs& configs);

}  // namespace torchlet::testing
