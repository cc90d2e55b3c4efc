#pragma once

// Validation shared by the optimizers' check_options (internal).

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "nn/optim/optimizer.h"

namespace torchlet::optim::detail {

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

/// Hooks of an optimizer whose state does not fit Note [Optimizer
/// state_dict]'s buffers of the parameter's shape. Such an optimizer derives
/// from this as well as from Optimizer; Optimizer::state_dict and
/// load_state_dict find the hooks with dynamic_cast.
class StateHooks {
 public:
  /// The saved state: by parameter index, each entry's name (without the
  /// "state.<index>." prefix) and value.
  using SavedState = std::map<int64_t, std::vector<std::pair<std::string, Tensor>>>;

  virtual ~StateHooks() = default;
  /// Whether the buffer `name` holds one number (a 0-dim tensor: NAdam's
  /// mu_product, ASGD's eta and mu) rather than the parameter's shape.
  virtual bool is_scalar_buffer(const std::string& name) const;
  /// Whether the optimizer keeps its state itself rather than per
  /// parameter (LBFGS: one state for all parameters); then save_state and
  /// prepare_load_state replace the saving and loading of the state.
  virtual bool keeps_own_state() const;
  /// Adds the "state.<index>.<name>" entries to `out`.
  virtual void save_state(StateDict& out) const;
  /// Checks `state` and returns what installs it; throws, changing
  /// nothing, if it is invalid.
  virtual std::function<void()> prepare_load_state(const SavedState& state);
};

}  // namespace torchlet::optim::detail
