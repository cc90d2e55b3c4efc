#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "nn/optim/optimizer.h"
#include "nn/serialize/state_dict.h"

namespace torchlet::optim {

/// Base of the epoch-based learning-rate schedulers
/// (torch.optim.lr_scheduler._LRScheduler, PyTorch 1.13). Constructing one
/// records each group's "initial_lr" option (if absent) as its base lr and
/// takes the first step (epoch 0), as PyTorch does. The scheduler keeps a
/// reference to the optimizer, which must outlive it.
class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;

  /// Advances one epoch and writes each group's new lr.
  void step();
  /// The lrs the last step() wrote, one per group.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  /// The optimizer whose lrs it sets.
  Optimizer& optimizer() const { return optimizer_; }

  /// The scheduler's progress: last_epoch and step_count (int64 0-dim),
  /// base_lrs and last_lr (float64 [groups]). Its hyperparameters are
  /// constructor arguments and are not part of it.
  StateDict state_dict() const;
  /// Restores state_dict()'s progress; all or nothing.
  void load_state_dict(const StateDict& state_dict);

 protected:
  explicit LRScheduler(Optimizer& optimizer);
  /// Takes the first step; each constructor calls it once set up.
  void initial_step();
  /// The lrs for last_epoch(), from the groups' current lrs (PyTorch's
  /// chainable get_lr()).
  virtual std::vector<double> get_lr() = 0;
  /// The lrs for last_epoch() in closed form (from base_lrs), for
  /// step_to(); PyTorch's _get_closed_form_lr where the scheduler has one,
  /// get_lr() otherwise.
  virtual std::vector<double> closed_form_lr() { return get_lr(); }
  /// PyTorch's deprecated step(epoch): jumps to `epoch` and writes
  /// closed_form_lr(). SequentialLR starts each later scheduler with
  /// step_to(0).
  void step_to(int64_t epoch);

  Optimizer& optimizer_;
  std::vector<double> base_lrs_;
  std::vector<double> last_lr_;
  int64_t last_epoch_ = -1;
  int64_t step_count_ = 0;

  /// The groups' current lrs.
  std::vector<double> group_lrs() const;

 private:
  /// Writes `lrs` to the groups and records them as the last lrs.
  void apply(const std::vector<double>& lrs);

  friend class SequentialLR;
};

/// One lr factor (LambdaLR) or multiplier (MultiplicativeLR) per epoch.
using LRLambda = std::function<double(int64_t epoch)>;

/// Sets each group's lr to its base lr times lr_lambda(epoch), one function
/// for all groups or one per group.
class LambdaLR : public LRScheduler {
 public:
  LambdaLR(Optimizer& optimizer, LRLambda lr_lambda);
  LambdaLR(Optimizer& optimizer, std::vector<LRLambda> lr_lambdas);

 protected:
  std::vector<double> get_lr() override;

 private:
  std::vector<LRLambda> lr_lambdas_;
};

/// Multiplies each group's lr by lr_lambda(epoch) every epoch after the
/// first, one function for all groups or one per group.
class MultiplicativeLR : public LRScheduler {
 public:
  MultiplicativeLR(Optimizer& optimizer, LRLambda lr_lambda);
  MultiplicativeLR(Optimizer& optimizer, std::vector<LRLambda> lr_lambdas);

 protected:
  std::vector<double> get_lr() override;

 private:
  std::vector<LRLambda> lr_lambdas_;
};

/// Multiplies the lr by `gamma` every `step_size` epochs.
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> closed_form_lr() override;

 private:
  int64_t step_size_;
  double gamma_;
};

/// Multiplies the lr by `gamma` at each milestone epoch (by gamma^k for a
/// milestone listed k times).
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1);

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> closed_form_lr() override;

 private:
  std::vector<int64_t> milestones_;
  double gamma_;
};

/// Multiplies the lr by `gamma` every epoch.
class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> closed_form_lr() override;

 private:
  double gamma_;
};

/// Cosine annealing from the base lr to `eta_min` over `t_max` epochs, in
/// PyTorch 1.13's recursive form (each lr computed from the previous one),
/// which differs from the closed form once anything else changes the lr.
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t t_max, double eta_min = 0);

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> closed_form_lr() override;

 private:
  int64_t t_max_;
  double eta_min_;
};

/// Scales the lr by a factor going linearly from `start_factor` to
/// `end_factor` over `total_iters` epochs; start_factor in (0, 1],
/// end_factor in [0, 1].
class LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0,
           int64_t total_iters = 5);

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> closed_form_lr() override;

 private:
  double start_factor_;
  double end_factor_;
  int64_t total_iters_;
};

/// Scales the lr by `factor` (in [0, 1]) until epoch `total_iters`, where
/// it divides it back out (PyTorch 1.13's recursive form: with
/// total_iters <= 0 the lr stays scaled).
class ConstantLR : public LRScheduler {
 public:
  ConstantLR(Optimizer& optimizer, double factor = 1.0 / 3, int64_t total_iters = 5);

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> closed_form_lr() override;

 private:
  double factor_;
  int64_t total_iters_;
};

/// Decays the lr by (1 - epoch / total_iters)^power over `total_iters`
/// epochs (recursively, as PyTorch 1.13), then leaves it.
class PolynomialLR : public LRScheduler {
 public:
  PolynomialLR(Optimizer& optimizer, int64_t total_iters = 5, double power = 1.0);

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> closed_form_lr() override;

 private:
  int64_t total_iters_;
  double power_;
};

/// SGDR: cosine annealing from the base lr to `eta_min` over T_i epochs,
/// restarting at the base lr, with T_0 = `t_0` and T_{i+1} = T_i * `t_mult`.
/// Steps by whole epochs only (no fractional step(epoch)).
class CosineAnnealingWarmRestarts : public LRScheduler {
 public:
  CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t t_0, int64_t t_mult = 1,
                              double eta_min = 0);

 protected:
  std::vector<double> get_lr() override;

 private:
  int64_t t_0_;
  int64_t t_mult_;
  double eta_min_;
};

/// OneCycleLR's arguments (PyTorch's defaults). Give total_steps, or
/// epochs and steps_per_epoch.
struct OneCycleLROptions {
  explicit OneCycleLROptions(std::vector<double> max_lr) : max_lr_(std::move(max_lr)) {}
  OneCycleLROptions& total_steps(int64_t v) { total_steps_ = v; return *this; }
  OneCycleLROptions& epochs(int64_t v) { epochs_ = v; return *this; }
  OneCycleLROptions& steps_per_epoch(int64_t v) { steps_per_epoch_ = v; return *this; }
  OneCycleLROptions& pct_start(double v) { pct_start_ = v; return *this; }
  /// "cos" or "linear".
  OneCycleLROptions& anneal_strategy(std::string v) { anneal_strategy_ = std::move(v); return *this; }
  OneCycleLROptions& cycle_momentum(bool v) { cycle_momentum_ = v; return *this; }
  OneCycleLROptions& base_momentum(double v) { base_momentum_ = v; return *this; }
  OneCycleLROptions& max_momentum(double v) { max_momentum_ = v; return *this; }
  OneCycleLROptions& div_factor(double v) { div_factor_ = v; return *this; }
  OneCycleLROptions& final_div_factor(double v) { final_div_factor_ = v; return *this; }
  OneCycleLROptions& three_phase(bool v) { three_phase_ = v; return *this; }

  /// One value for every group, or one per group.
  std::vector<double> max_lr_;
  int64_t total_steps_ = 0;
  int64_t epochs_ = 0;
  int64_t steps_per_epoch_ = 0;
  double pct_start_ = 0.3;
  std::string anneal_strategy_ = "cos";
  bool cycle_momentum_ = true;
  double base_momentum_ = 0.85;
  double max_momentum_ = 0.95;
  double div_factor_ = 25.0;
  double final_div_factor_ = 1e4;
  bool three_phase_ = false;
};

/// The 1cycle policy: lr rises from max_lr / div_factor to max_lr, then
/// falls to the initial lr / final_div_factor; with cycle_momentum the
/// momentum (or Adam's beta1) moves the opposite way. Sets the groups'
/// initial_lr, max_lr, min_lr (and max_momentum, base_momentum) options,
/// as PyTorch does. Stepping past total_steps throws.
class OneCycleLR : public LRScheduler {
 public:
  OneCycleLR(Optimizer& optimizer, const OneCycleLROptions& options);

 protected:
  std::vector<double> get_lr() override;

 private:
  struct Phase {
    double end_step;
    const char* start_lr;
    const char* end_lr;
    const char* start_momentum;
    const char* end_momentum;
  };
  double anneal(double start, double end, double pct) const;

  int64_t total_steps_;
  bool cosine_;
  bool cycle_momentum_;
  bool use_beta1_ = false;
  std::vector<Phase> phases_;
};

/// ReduceLROnPlateau's arguments (PyTorch's defaults).
struct ReduceLROnPlateauOptions {
  /// "min" or "max".
  ReduceLROnPlateauOptions& mode(std::string v) { mode_ = std::move(v); return *this; }
  ReduceLROnPlateauOptions& factor(double v) { factor_ = v; return *this; }
  ReduceLROnPlateauOptions& patience(int64_t v) { patience_ = v; return *this; }
  ReduceLROnPlateauOptions& threshold(double v) { threshold_ = v; return *this; }
  /// "rel" or "abs".
  ReduceLROnPlateauOptions& threshold_mode(std::string v) { threshold_mode_ = std::move(v); return *this; }
  ReduceLROnPlateauOptions& cooldown(int64_t v) { cooldown_ = v; return *this; }
  /// One value for every group, or one per group.
  ReduceLROnPlateauOptions& min_lr(std::vector<double> v) { min_lr_ = std::move(v); return *this; }
  ReduceLROnPlateauOptions& eps(double v) { eps_ = v; return *this; }

  std::string mode_ = "min";
  double factor_ = 0.1;
  int64_t patience_ = 10;
  double threshold_ = 1e-4;
  std::string threshold_mode_ = "rel";
  int64_t cooldown_ = 0;
  std::vector<double> min_lr_ = {0};
  double eps_ = 1e-8;
};

/// Multiplies the lr by `factor` when a metric has stopped improving for
/// `patience` epochs (torch.optim.lr_scheduler.ReduceLROnPlateau).
class ReduceLROnPlateau {
 public:
  explicit ReduceLROnPlateau(Optimizer& optimizer,
                             const ReduceLROnPlateauOptions& options = ReduceLROnPlateauOptions());

  /// Records one epoch's metric and reduces the lrs if it has plateaued.
  void step(double metric);
  /// The groups' lrs after the last step() (their lrs at construction before).
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }

  /// last_epoch, num_bad_epochs, cooldown_counter (int64 0-dim), best
  /// (float64 0-dim), last_lr (float64 [groups]).
  StateDict state_dict() const;
  /// Restores state_dict()'s progress; all or nothing.
  void load_state_dict(const StateDict& state_dict);

 private:
  bool is_better(double value) const;

  Optimizer& optimizer_;
  ReduceLROnPlateauOptions options_;
  std::vector<double> min_lrs_;
  double best_;
  int64_t num_bad_epochs_ = 0;
  int64_t cooldown_counter_ = 0;
  int64_t last_epoch_ = 0;
  std::vector<double> last_lr_;
};

/// Runs `schedulers` one after another, switching to the next at each of
/// `milestones` (one fewer than schedulers), where it starts it with
/// PyTorch's step(0) (the closed form, where the scheduler has one).
/// Construction resets the groups' lrs to their initial_lr, undoes the
/// schedulers' initial steps and takes the first scheduler's again, as
/// PyTorch 1.13 does. The schedulers (of `optimizer`) must outlive it.
class SequentialLR {
 public:
  SequentialLR(Optimizer& optimizer, std::vector<LRScheduler*> schedulers,
               std::vector<int64_t> milestones);
  SequentialLR(const SequentialLR&) = delete;
  SequentialLR& operator=(const SequentialLR&) = delete;

  void step();
  /// The lrs the current scheduler's last step wrote.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }

  /// last_epoch (int64 0-dim), last_lr (float64 [groups]) and each
  /// scheduler's state_dict() under "schedulers.<i>.".
  StateDict state_dict() const;
  /// Restores state_dict()'s progress; all or nothing.
  void load_state_dict(const StateDict& state_dict);

 private:
  std::vector<LRScheduler*> schedulers_;
  std::vector<int64_t> milestones_;
  int64_t last_epoch_ = 0;
  std::vector<double> last_lr_;
};

/// Steps all of `schedulers` (of one optimizer) at each step(). Takes no
/// step at construction. The schedulers must outlive it.
class ChainedScheduler {
 public:
  explicit ChainedScheduler(std::vector<LRScheduler*> schedulers);
  ChainedScheduler(const ChainedScheduler&) = delete;
  ChainedScheduler& operator=(const ChainedScheduler&) = delete;

  void step();
  /// The groups' lrs after the last step() (at construction before).
  const std::vector<double>& get_last_lr() const { return last_lr_; }

  /// last_lr (float64 [groups]) and each scheduler's state_dict() under
  /// "schedulers.<i>.".
  StateDict state_dict() const;
  /// Restores state_dict()'s progress; all or nothing.
  void load_state_dict(const StateDict& state_dict);

 private:
  std::vector<LRScheduler*> schedulers_;
  std::vector<double> last_lr_;
};

}  // namespace torchlet::optim
