#pragma once

// Validation shared by the optimizers' check_options (internal).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "nn/optim/optimizer.h"

namespace torchlet::optim::detail {

/// `value` as an error message shows it: str(), but a string in quotes
/// ('0.1'), so it is not taken for a number.
std::string shown(const OptionValue& value);
/// Throws `message_prefix` + the value (PyTorch's "Invalid learning rate: -1")
/// unless options[name] is a number >= `lower` (NaN fails).
void check_at_least(const Options& options, const std::string& name,
                    const std::string& message_prefix, double lower = 0);
/// Throws unless options[name] is a bool ("<optimizer>: option 'nesterov'
/// must be a bool, got 1").
void check_bool(const std::string& optimizer, const Options& options, const std::string& name);
/// Throws `message_prefix` + the value unless options[name] is a number
/// (any value: ASGD's lambd, LBFGS's tolerances).
void check_number(const Options& options, const std::string& name,
                  const std::string& message_prefix);
/// Throws unless Adam's betas are a pair with each in [0, 1) (PyTorch's
/// "Invalid beta parameter at index 0: 1.0").
void check_betas(const Options& options);
/// Throws for options that select PyTorch machinery torchlet does not have
/// (differentiable, capturable or fused set to True); foreach must be None
/// or a bool (every update is fused regardless).
void check_unsupported_flags(const std::string& optimizer, const Options& options);

/// Throws `message_prefix` + the value unless options[name] is a pair
/// (Rprop's etas and step_sizes).
void check_pair(const Options& options, const std::string& name,
                const std::string& message_prefix);

/// `params` as one group with the defaults (no groups if it is empty, so the
/// optimizer reports PyTorch's empty-list error).
std::vector<ParamGroup> one_group(std::vector<Variable> params);

}  // namespace torchlet::optim::detail
