#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nn/optim/optimizer.h"

namespace torchlet::optim {

/// LBFGS's options (torch.optim.LBFGS's arguments and defaults).
struct LBFGSOptions {
  explicit LBFGSOptions(Scalar lr = 1) : lr_(lr) {}
  /// The most iterations one step() makes.
  LBFGSOptions& max_iter(Scalar v) { max_iter_ = v; return *this; }
  /// The most closure evaluations one step() makes; max_iter * 5 / 4
  /// (rounded down) when not given.
  LBFGSOptions& max_eval(Scalar v) { max_eval_ = v; return *this; }
  /// Stops when the gradient's largest magnitude is at most this.
  LBFGSOptions& tolerance_grad(Scalar v) { tolerance_grad_ = v; return *this; }
  /// Stops when the loss or the parameters change by less than this.
  LBFGSOptions& tolerance_change(Scalar v) { tolerance_change_ = v; return *this; }
  /// How many past updates approximate the inverse Hessian.
  LBFGSOptions& history_size(Scalar v) { history_size_ = v; return *this; }
  /// "strong_wolfe" or none (a fixed step of lr). Any other name is
  /// accepted here, as in PyTorch; step() throws PyTorch's "only
  /// 'strong_wolfe' is supported" when it would search.
  LBFGSOptions& line_search_fn(std::optional<std::string> v) {
    line_search_fn_ = std::move(v);
    return *this;
  }
  /// As a param_group's options.
  Options to_options() const;

  Scalar lr_;
  Scalar max_iter_ = 20;
  std::optional<Scalar> max_eval_;
  Scalar tolerance_grad_ = 1e-7;
  Scalar tolerance_change_ = 1e-9;
  Scalar history_size_ = 100;
  std::optional<std::string> line_search_fn_;
};

/// L-BFGS (torch.optim.LBFGS, PyTorch 1.13's algorithm, with its strong
/// Wolfe line search). step(closure) reevaluates the loss (and gradients)
/// through `closure` as often as it needs, up to max_eval times.
///
/// One parameter group only, as in PyTorch. Its line_search_fn option is
/// None or "strong_wolfe"; any other value makes step() throw PyTorch's
/// "only 'strong_wolfe' is supported" where it would search (after the
/// first evaluation, as PyTorch does).
///
/// The state is one for all parameters, saved under the first parameter's
/// index as PyTorch does: func_evals and n_iter (int64), and once a step has
/// iterated d, t (float64), old_dirs and old_stps (the history, stacked as
/// [k, numel]), ro ([k]), H_diag, prev_flat_grad, prev_loss (float64) and al
/// ([k], once used); see Note [Optimizer state_dict].
class LBFGS : public Optimizer {
 public:
  LBFGS(std::vector<Variable> params, const LBFGSOptions& options = LBFGSOptions());
  /// Throws PyTorch's error unless `groups` holds one group.
  LBFGS(std::vector<ParamGroup> groups, const LBFGSOptions& options = LBFGSOptions());

  /// One optimization step: up to max_iter iterations, each evaluating
  /// `closure` (with grad mode on), which must clear the gradients, compute
  /// the loss (a one-element tensor), backpropagate and return it. Returns
  /// the loss of the first evaluation; called through an Optimizer&, it
  /// runs the same algorithm. step() without a closure throws.
  Variable step(const std::function<Variable()>& closure) override;
  using Optimizer::step;

 protected:
  void check_options(const Options& options) const override;
  std::vector<std::string> buffer_names() const override;
  void init_state(const ParamGroup& group, const Variable& param, ParamState& state) override;
  void begin_group(const ParamGroup& group) override;
  void update(const ParamGroup& group, const Tensor& param, const Tensor& grad,
              ParamState& state) override;
  bool keeps_own_state() const override { return true; }
  void save_state(StateDict& out) const override;
  std::function<void()> prepare_load_state(const SavedState& state) override;

 private:
  struct State {
    bool started = false;  // func_evals and n_iter exist (after the first step)
    int64_t func_evals = 0;
    int64_t n_iter = 0;
    bool iterated = false;  // the others exist (after a step that iterated)
    Tensor d;               // the last search direction, [numel]
    double t = 0;           // the last step length
    std::vector<Tensor> old_dirs, old_stps;  // the history: gradient and parameter changes
    std::vector<Tensor> ro;                  // 1 / (y . s) of each, 0-dim
    Tensor h_diag;                           // 0-dim; undefined while it is PyTorch's integer 1
    Tensor prev_flat_grad;
    double prev_loss = 0;
    bool has_al = false;     // al exists (after the first iteration that used the history)
    std::vector<Tensor> al;  // the two-loop recursion's coefficients, 0-dim; undefined
                             // where PyTorch's list holds None
  };

  int64_t numel() const;
  Tensor gather_flat_grad() const;
  void add_grad(double step_size, const Tensor& update);
  std::vector<Tensor> clone_params() const;
  void set_params(const std::vector<Tensor>& values);
  double evaluate(const std::function<Variable()>& closure);

  State lbfgs_state_;
};

}  // namespace torchlet::optim
