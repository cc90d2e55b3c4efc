#include "nn/optim/lr_scheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "nn/repr.h"
#include "tensor/error.h"
#include "tensor/factories.h"
#include "tensor/shape.h"

namespace torchlet::optim {
namespace {

constexpr double kPi = 3.14159265358979323846;

// x mod m in [0, m) for m > 0 (Python's %).
int64_t floor_mod(int64_t x, int64_t m) {
  const int64_t r = x % m;
  return r < 0 ? r + m : r;
}

// x / m rounded down for m > 0 (Python's //).
int64_t floor_div(int64_t x, int64_t m) { return (x - floor_mod(x, m)) / m; }

int64_t int_entry(const StateDict& state_dict, const std::string& key) {
  const Tensor* t = state_dict.find(key);
  TORCHLET_CHECK(t != nullptr, "load_state_dict: missing key '", key, "'");
  TORCHLET_CHECK(t->defined() && t->dim() == 0 && t->dtype() == kInt64, "load_state_dict: '", key,
                 "' must be a 0-dim int64 tensor");
  return t->item<int64_t>();
}

double float_entry(const StateDict& state_dict, const std::string& key) {
  const Tensor* t = state_dict.find(key);
  TORCHLET_CHECK(t != nullptr, "load_state_dict: missing key '", key, "'");
  TORCHLET_CHECK(t->defined() && t->dim() == 0 && t->dtype() == kFloat64, "load_state_dict: '",
                 key, "' must be a 0-dim float64 tensor");
  return t->item<double>();
}

std::vector<double> lrs_entry(const StateDict& state_dict, const std::string& key, size_t groups) {
  const Tensor* t = state_dict.find(key);
  TORCHLET_CHECK(t != nullptr, "load_state_dict: missing key '", key, "'");
  TORCHLET_CHECK(t->defined() && t->dim() == 1 && t->dtype() == kFloat64 &&
                     t->numel() == static_cast<int64_t>(groups),
                 "load_state_dict: '", key, "' must be a float64 tensor of shape [", groups,
                 "] (one value per parameter group)");
  return t->to_vector<double>();
}

void check_keys(const StateDict& state_dict, const std::vector<std::string>& keys) {
  for (const std::string& key : state_dict.keys()) {
    TORCHLET_CHECK(std::find(keys.begin(), keys.end(), key) != keys.end(),
                   "load_state_dict: unexpected key '", key, "' in the scheduler's state dict");
  }
}

// One value per group: `values` holds one for all or one each.
std::vector<double> per_group(const std::string& name, const std::vector<double>& values,
                              size_t groups) {
  if (values.size() == 1) return std::vector<double>(groups, values[0]);
  TORCHLET_CHECK(values.size() == groups, "expected ", groups, " values for ", name, ", got ",
                 values.size());
  return values;
}

// Throws `message` unless `ok`, then returns `optimizer`: arguments are
// checked before the base class records initial_lr in the groups.
template <typename... Parts>
Optimizer& checked(Optimizer& optimizer, bool ok, const Parts&... message) {
  TORCHLET_CHECK(ok, message...);
  return optimizer;
}

}  // namespace

// ---- LRScheduler ------------------------------------------------------------------

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {
  for (ParamGroup& group : optimizer_.param_groups()) {
    group.options.emplace("initial_lr", group.lr());
    base_lrs_.push_back(group.number("initial_lr"));
  }
}

void LRScheduler::initial_step() {
  step_count_ = 0;
  step();
}

std::vector<double> LRScheduler::group_lrs() const {
  std::vector<double> lrs;
  for (const ParamGroup& group : optimizer_.param_groups()) lrs.push_back(group.lr());
  return lrs;
}

void LRScheduler::step() {
  ++last_epoch_;
  std::vector<double> lrs;
  try {
    lrs = get_lr();
  } catch (...) {
    --last_epoch_;
    throw;
  }
  ++step_count_;
  apply(lrs);
}

void LRScheduler::step_to(int64_t epoch) {
  const int64_t previous = last_epoch_;
  last_epoch_ = epoch;
  std::vector<double> lrs;
  try {
    lrs = closed_form_lr();
  } catch (...) {
    last_epoch_ = previous;
    throw;
  }
  ++step_count_;
  apply(lrs);
}

void LRScheduler::apply(const std::vector<double>& lrs) {
  std::vector<ParamGroup>& groups = optimizer_.param_groups();
  for (size_t g = 0; g < groups.size(); ++g) groups[g].set_lr(lrs[g]);
  last_lr_ = group_lrs();
}

StateDict LRScheduler::state_dict() const {
  StateDict out;
  out.insert("last_epoch", scalar_tensor(last_epoch_, kInt64));
  out.insert("step_count", scalar_tensor(step_count_, kInt64));
  out.insert("base_lrs", from_vector(base_lrs_));
  out.insert("last_lr", from_vector(last_lr_));
  return out;
}

void LRScheduler::load_state_dict(const StateDict& state_dict) {
  check_keys(state_dict, {"last_epoch", "step_count", "base_lrs", "last_lr"});
  const size_t groups = optimizer_.param_groups().size();
  const int64_t last_epoch = int_entry(state_dict, "last_epoch");
  const int64_t step_count = int_entry(state_dict, "step_count");
  std::vector<double> base_lrs = lrs_entry(state_dict, "base_lrs", groups);
  std::vector<double> last_lr = lrs_entry(state_dict, "last_lr", groups);
  last_epoch_ = last_epoch;
  step_count_ = step_count;
  base_lrs_ = std::move(base_lrs);
  last_lr_ = std::move(last_lr);
}

// ---- StepLR, MultiStepLR, ExponentialLR ------------------------------------------------

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(checked(optimizer, step_size > 0, "StepLR: step_size must be positive, got ",
                          step_size)),
      step_size_(step_size),
      gamma_(gamma) {
  initial_step();
}

std::vector<double> StepLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

std::vector<double> StepLR::closed_form_lr() {
  const double k = static_cast<double>(floor_div(last_epoch_, step_size_));
  std::vector<double> lrs;
  for (double base_lr : base_lrs_) lrs.push_back(base_lr * std::pow(gamma_, k));
  return lrs;
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma)
    : LRScheduler(optimizer), milestones_(std::move(milestones)), gamma_(gamma) {
  initial_step();
}

std::vector<double> MultiStepLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  const auto count = std::count(milestones_.begin(), milestones_.end(), last_epoch_);
  if (count == 0) return lrs;
  for (double& lr : lrs) lr *= std::pow(gamma_, static_cast<double>(count));
  return lrs;
}

std::vector<double> MultiStepLR::closed_form_lr() {
  // PyTorch: gamma ** bisect_right(sorted(milestones), last_epoch).
  const auto passed = std::count_if(milestones_.begin(), milestones_.end(),
                                    [&](int64_t m) { return m <= last_epoch_; });
  std::vector<double> lrs;
  for (double base_lr : base_lrs_) {
    lrs.push_back(base_lr * std::pow(gamma_, static_cast<double>(passed)));
  }
  return lrs;
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma)
    : LRScheduler(optimizer), gamma_(gamma) {
  initial_step();
}

std::vector<double> ExponentialLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

std::vector<double> ExponentialLR::closed_form_lr() {
  std::vector<double> lrs;
  for (double base_lr : base_lrs_) {
    lrs.push_back(base_lr * std::pow(gamma_, static_cast<double>(last_epoch_)));
  }
  return lrs;
}

// ---- CosineAnnealingLR -------------------------------------------------------------------

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t t_max, double eta_min)
    : LRScheduler(checked(optimizer, t_max > 0, "CosineAnnealingLR: T_max must be positive, got ",
                          t_max)),
      t_max_(t_max),
      eta_min_(eta_min) {
  initial_step();
}

std::vector<double> CosineAnnealingLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) return lrs;
  const double t_max = static_cast<double>(t_max_);
  const double epoch = static_cast<double>(last_epoch_);
  if (floor_mod(last_epoch_ - 1 - t_max_, 2 * t_max_) == 0) {
    for (size_t g = 0; g < lrs.size(); ++g) {
      lrs[g] = lrs[g] + (base_lrs_[g] - eta_min_) * (1 - std::cos(kPi / t_max)) / 2;
    }
    return lrs;
  }
  for (double& lr : lrs) {
    lr = (1 + std::cos(kPi * epoch / t_max)) / (1 + std::cos(kPi * (epoch - 1) / t_max)) *
             (lr - eta_min_) +
         eta_min_;
  }
  return lrs;
}

std::vector<double> CosineAnnealingLR::closed_form_lr() {
  std::vector<double> lrs;
  const double angle = kPi * static_cast<double>(last_epoch_) / static_cast<double>(t_max_);
  for (double base_lr : base_lrs_) {
    lrs.push_back(eta_min_ + (base_lr - eta_min_) * (1 + std::cos(angle)) / 2);
  }
  return lrs;
}

// ---- LinearLR --------------------------------------------------------------------------------

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor,
                   int64_t total_iters)
    // PyTorch 1.13 accepts start_factor == 0 here, then its first step()
    // divides by zero (a ZeroDivisionError); torchlet refuses 0 up front, in
    // 1.13's words for the range.
    : LRScheduler(checked(
          checked(optimizer, start_factor > 0 && start_factor <= 1.0,
                  "Starting multiplicative factor expected to be between 0 and 1."),
          end_factor >= 0 && end_factor <= 1.0,
          "Ending multiplicative factor expected to be between 0 and 1.")),
      start_factor_(start_factor),
      end_factor_(end_factor),
      total_iters_(total_iters) {
  initial_step();
}

std::vector<double> LinearLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) {
    for (double& lr : lrs) lr *= start_factor_;
    return lrs;
  }
  if (last_epoch_ > total_iters_) return lrs;
  const double delta = end_factor_ - start_factor_;
  for (double& lr : lrs) {
    lr *= 1. + delta / (static_cast<double>(total_iters_) * start_factor_ +
                        static_cast<double>(last_epoch_ - 1) * delta);
  }
  return lrs;
}

std::vector<double> LinearLR::closed_form_lr() {
  TORCHLET_CHECK(total_iters_ != 0,
                 "LinearLR: division by zero (total_iters is 0) in the closed form");
  const double fraction = static_cast<double>(std::min(total_iters_, last_epoch_)) /
                          static_cast<double>(total_iters_);
  std::vector<double> lrs;
  for (double base_lr : base_lrs_) {
    lrs.push_back(base_lr * (start_factor_ + (end_factor_ - start_factor_) * fraction));
  }
  return lrs;
}

// ---- ConstantLR, PolynomialLR ------------------------------------------------------------

ConstantLR::ConstantLR(Optimizer& optimizer, double factor, int64_t total_iters)
    : LRScheduler(checked(optimizer, factor >= 0 && factor <= 1.0,
                          "Constant multiplicative factor expected to be between 0 and 1.")),
      factor_(factor),
      total_iters_(total_iters) {
  initial_step();
}

std::vector<double> ConstantLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) {
    for (double& lr : lrs) lr *= factor_;
    return lrs;
  }
  if (last_epoch_ != total_iters_) return lrs;
  // PyTorch 1.13 accepts factor 0 and raises ZeroDivisionError here.
  TORCHLET_CHECK(factor_ != 0,
                 "ConstantLR: float division by zero (factor 0 cannot be undone at total_iters)");
  const double undo = 1.0 / factor_;
  for (double& lr : lrs) lr *= undo;
  return lrs;
}

std::vector<double> ConstantLR::closed_form_lr() {
  const double reached = last_epoch_ >= total_iters_ ? 1.0 : 0.0;
  std::vector<double> lrs;
  for (double base_lr : base_lrs_) lrs.push_back(base_lr * (factor_ + reached * (1 - factor_)));
  return lrs;
}

PolynomialLR::PolynomialLR(Optimizer& optimizer, int64_t total_iters, double power)
    : LRScheduler(optimizer), total_iters_(total_iters), power_(power) {
  initial_step();
}

std::vector<double> PolynomialLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0 || last_epoch_ > total_iters_) return lrs;
  const double total = static_cast<double>(total_iters_);
  const double decay = std::pow((1.0 - static_cast<double>(last_epoch_) / total) /
                                    (1.0 - static_cast<double>(last_epoch_ - 1) / total),
                                power_);
  for (double& lr : lrs) lr *= decay;
  return lrs;
}

std::vector<double> PolynomialLR::closed_form_lr() {
  TORCHLET_CHECK(total_iters_ != 0,
                 "PolynomialLR: division by zero (total_iters is 0) in the closed form");
  const double remaining = 1.0 - static_cast<double>(std::min(total_iters_, last_epoch_)) /
                                     static_cast<double>(total_iters_);
  const double factor = std::pow(remaining, power_);
  std::vector<double> lrs;
  for (double base_lr : base_lrs_) lrs.push_back(base_lr * factor);
  return lrs;
}

// ---- LambdaLR, MultiplicativeLR --------------------------------------------------------------

namespace {

// Checks one function per group, run before the base class touches the
// groups.
Optimizer& check_lambdas(Optimizer& optimizer, const char* scheduler,
                         const std::vector<LRLambda>& lambdas) {
  const size_t groups = optimizer.param_groups().size();
  TORCHLET_CHECK(lambdas.size() == groups, "Expected ", groups, " lr_lambdas, but got ",
                 lambdas.size());
  for (const LRLambda& f : lambdas) {
    TORCHLET_CHECK(static_cast<bool>(f), scheduler, ": lr_lambda must not be empty");
  }
  return optimizer;
}

}  // namespace

LambdaLR::LambdaLR(Optimizer& optimizer, LRLambda lr_lambda)
    : LambdaLR(optimizer,
               std::vector<LRLambda>(optimizer.param_groups().size(), std::move(lr_lambda))) {}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<LRLambda> lr_lambdas)
    : LRScheduler(check_lambdas(optimizer, "LambdaLR", lr_lambdas)),
      lr_lambdas_(std::move(lr_lambdas)) {
  initial_step();
}

std::vector<double> LambdaLR::get_lr() {
  std::vector<double> lrs;
  for (size_t g = 0; g < base_lrs_.size(); ++g) {
    lrs.push_back(base_lrs_[g] * lr_lambdas_[g](last_epoch_));
  }
  return lrs;
}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, LRLambda lr_lambda)
    : MultiplicativeLR(optimizer, std::vector<LRLambda>(optimizer.param_groups().size(),
                                                        std::move(lr_lambda))) {}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, std::vector<LRLambda> lr_lambdas)
    : LRScheduler(check_lambdas(optimizer, "MultiplicativeLR", lr_lambdas)),
      lr_lambdas_(std::move(lr_lambdas)) {
  initial_step();
}

std::vector<double> MultiplicativeLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ <= 0) return lrs;
  for (size_t g = 0; g < lrs.size(); ++g) lrs[g] *= lr_lambdas_[g](last_epoch_);
  return lrs;
}

// ---- CosineAnnealingWarmRestarts -------------------------------------------------------------

CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t t_0,
                                                         int64_t t_mult, double eta_min)
    : LRScheduler(checked(checked(optimizer, t_0 > 0, "Expected positive integer T_0, but got ",
                                  t_0),
                          t_mult >= 1, "Expected integer T_mult >= 1, but got ", t_mult)),
      t_0_(t_0),
      t_mult_(t_mult),
      eta_min_(eta_min) {
  initial_step();
}

std::vector<double> CosineAnnealingWarmRestarts::get_lr() {
  // PyTorch 1.13 advances T_cur by one per step() and, on reaching T_i,
  // subtracts T_i and multiplies T_i by T_mult; stepped by whole epochs
  // from 0 (including SequentialLR's step(0)), T_cur and T_i are this
  // function of last_epoch.
  int64_t t_cur = std::max<int64_t>(last_epoch_, 0);
  int64_t t_i = t_0_;
  if (t_mult_ == 1) {
    t_cur %= t_0_;
  } else {
    while (t_cur >= t_i) {
      t_cur -= t_i;
      if (t_i > std::numeric_limits<int64_t>::max() / t_mult_) break;  // t_cur < t_i from here
      t_i *= t_mult_;
    }
  }
  const double angle = kPi * static_cast<double>(t_cur) / static_cast<double>(t_i);
  std::vector<double> lrs;
  for (double base_lr : base_lrs_) {
    lrs.push_back(eta_min_ + (base_lr - eta_min_) * (1 + std::cos(angle)) / 2);
  }
  return lrs;
}

// ---- OneCycleLR ------------------------------------------------------------------------------

namespace {

int64_t one_cycle_total_steps(const OneCycleLROptions& o) {
  TORCHLET_CHECK(o.total_steps_ != 0 || o.epochs_ != 0 || o.steps_per_epoch_ != 0,
                 "You must define either total_steps OR (epochs AND steps_per_epoch)");
  if (o.total_steps_ != 0) {
    TORCHLET_CHECK(o.total_steps_ > 0, "Expected positive integer total_steps, but got ",
                   o.total_steps_);
    return o.total_steps_;
  }
  TORCHLET_CHECK(o.epochs_ > 0, "Expected positive integer epochs, but got ", o.epochs_);
  TORCHLET_CHECK(o.steps_per_epoch_ > 0, "Expected positive integer steps_per_epoch, but got ",
                 o.steps_per_epoch_);
  return o.epochs_ * o.steps_per_epoch_;
}

// Validates the options; run before the base class touches the groups.
Optimizer& check_one_cycle(Optimizer& optimizer, const OneCycleLROptions& o) {
  one_cycle_total_steps(o);
  TORCHLET_CHECK(o.pct_start_ >= 0 && o.pct_start_ <= 1,
                 "Expected float between 0 and 1 pct_start, but got ",
                 nn::detail::float_repr(o.pct_start_));
  TORCHLET_CHECK(o.anneal_strategy_ == "cos" || o.anneal_strategy_ == "linear",
                 "anneal_strategy must by one of 'cos' or 'linear', instead got ",
                 o.anneal_strategy_);
  const size_t groups = optimizer.param_groups().size();
  const std::vector<double> max_lrs = per_group("max_lr", o.max_lr_, groups);
  if (o.cycle_momentum_) {
    TORCHLET_CHECK(optimizer.defaults().count("momentum") != 0 ||
                       optimizer.defaults().count("betas") != 0,
                   "optimizer must support momentum with `cycle_momentum` option enabled");
  }
  for (size_t g = 0; g < groups; ++g) {
    ParamGroup& group = optimizer.param_groups()[g];
    group.options["initial_lr"] = max_lrs[g] / o.div_factor_;
    group.options["max_lr"] = max_lrs[g];
    group.options["min_lr"] = max_lrs[g] / o.div_factor_ / o.final_div_factor_;
    if (!o.cycle_momentum_) continue;
    if (optimizer.defaults().count("betas") != 0) {
      group.options["betas"] = std::make_pair(o.max_momentum_, group.pair("betas").second);
    } else {
      group.options["momentum"] = o.max_momentum_;
    }
    group.options["max_momentum"] = o.max_momentum_;
    group.options["base_momentum"] = o.base_momentum_;
  }
  return optimizer;
}

}  // namespace

OneCycleLR::OneCycleLR(Optimizer& optimizer, const OneCycleLROptions& o)
    : LRScheduler(check_one_cycle(optimizer, o)),
      total_steps_(one_cycle_total_steps(o)),
      cosine_(o.anneal_strategy_ == "cos"),
      cycle_momentum_(o.cycle_momentum_),
      use_beta1_(optimizer.defaults().count("betas") != 0) {
  const double total = static_cast<double>(total_steps_);
  if (o.three_phase_) {
    phases_ = {
        {o.pct_start_ * total - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
        {2 * o.pct_start_ * total - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"},
        {total - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"},
    };
  } else {
    phases_ = {
        {o.pct_start_ * total - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
        {total - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"},
    };
  }
  initial_step();
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  if (cosine_) return end + (start - end) / 2.0 * (std::cos(kPi * pct) + 1);
  return (end - start) * pct + start;
}

std::vector<double> OneCycleLR::get_lr() {
  TORCHLET_CHECK(last_epoch_ <= total_steps_, "Tried to step ", last_epoch_ + 1,
                 " times. The specified number of total steps is ", total_steps_);
  const double step = static_cast<double>(last_epoch_);
  std::vector<double> lrs;
  for (ParamGroup& group : optimizer_.param_groups()) {
    double start_step = 0;
    for (size_t i = 0; i < phases_.size(); ++i) {
      const Phase& phase = phases_[i];
      if (step <= phase.end_step || i + 1 == phases_.size()) {
        const double pct = (step - start_step) / (phase.end_step - start_step);
        lrs.push_back(anneal(group.number(phase.start_lr), group.number(phase.end_lr), pct));
        if (cycle_momentum_) {
          const double momentum = anneal(group.number(phase.start_momentum),
                                         group.number(phase.end_momentum), pct);
          if (use_beta1_) {
            group.options["betas"] = std::make_pair(momentum, group.pair("betas").second);
          } else {
            group.options["momentum"] = momentum;
          }
        }
        break;
      }
      start_step = phase.end_step;
    }
  }
  return lrs;
}

// ---- ReduceLROnPlateau -----------------------------------------------------------------------

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, const ReduceLROnPlateauOptions& options)
    : optimizer_(optimizer), options_(options) {
  TORCHLET_CHECK(options.factor_ < 1.0, "Factor should be < 1.0.");
  TORCHLET_CHECK(!options.min_lr_.empty(), "expected ", optimizer.param_groups().size(),
                 " min_lrs, got 0");
  const size_t groups = optimizer.param_groups().size();
  if (options.min_lr_.size() == 1) {
    min_lrs_.assign(groups, options.min_lr_[0]);
  } else {
    TORCHLET_CHECK(options.min_lr_.size() == groups, "expected ", groups, " min_lrs, got ",
                   options.min_lr_.size());
    min_lrs_ = options.min_lr_;
  }
  TORCHLET_CHECK(options.mode_ == "min" || options.mode_ == "max",
                 "mode ", options.mode_, " is unknown!");
  TORCHLET_CHECK(options.threshold_mode_ == "rel" || options.threshold_mode_ == "abs",
                 "threshold mode ", options.threshold_mode_, " is unknown!");
  best_ = options.mode_ == "min" ? std::numeric_limits<double>::infinity()
                                 : -std::numeric_limits<double>::infinity();
  for (const ParamGroup& group : optimizer_.param_groups()) last_lr_.push_back(group.lr());
}

bool ReduceLROnPlateau::is_better(double value) const {
  const bool rel = options_.threshold_mode_ == "rel";
  if (options_.mode_ == "min") {
    return rel ? value < best_ * (1. - options_.threshold_) : value < best_ - options_.threshold_;
  }
  return rel ? value > best_ * (options_.threshold_ + 1.) : value > best_ + options_.threshold_;
}

void ReduceLROnPlateau::step(double metric) {
  last_epoch_ += 1;
  if (is_better(metric)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    num_bad_epochs_ += 1;
  }
  if (cooldown_counter_ > 0) {
    cooldown_counter_ -= 1;
    num_bad_epochs_ = 0;
  }
  std::vector<ParamGroup>& groups = optimizer_.param_groups();
  if (num_bad_epochs_ > options_.patience_) {
    for (size_t g = 0; g < groups.size(); ++g) {
      const double old_lr = groups[g].lr();
      const double new_lr = std::max(old_lr * options_.factor_, min_lrs_[g]);
      if (old_lr - new_lr > options_.eps_) groups[g].set_lr(new_lr);
    }
    cooldown_counter_ = options_.cooldown_;
    num_bad_epochs_ = 0;
  }
  last_lr_.clear();
  for (const ParamGroup& group : groups) last_lr_.push_back(group.lr());
}

StateDict ReduceLROnPlateau::state_dict() const {
  StateDict out;
  out.insert("last_epoch", scalar_tensor(last_epoch_, kInt64));
  out.insert("best", scalar_tensor(best_, kFloat64));
  out.insert("num_bad_epochs", scalar_tensor(num_bad_epochs_, kInt64));
  out.insert("cooldown_counter", scalar_tensor(cooldown_counter_, kInt64));
  out.insert("last_lr", from_vector(last_lr_));
  return out;
}

void ReduceLROnPlateau::load_state_dict(const StateDict& state_dict) {
  check_keys(state_dict, {"last_epoch", "best", "num_bad_epochs", "cooldown_counter", "last_lr"});
  const int64_t last_epoch = int_entry(state_dict, "last_epoch");
  const double best = float_entry(state_dict, "best");
  const int64_t num_bad_epochs = int_entry(state_dict, "num_bad_epochs");
  const int64_t cooldown_counter = int_entry(state_dict, "cooldown_counter");
  std::vector<double> last_lr =
      lrs_entry(state_dict, "last_lr", optimizer_.param_groups().size());
  last_epoch_ = last_epoch;
  best_ = best;
  num_bad_epochs_ = num_bad_epochs;
  cooldown_counter_ = cooldown_counter;
  last_lr_ = std::move(last_lr);
}

// ---- SequentialLR, ChainedScheduler -----------------------------------------------------

namespace {

// Python's bisect.bisect_right, step for step (milestones need not be sorted).
size_t bisect_right(const std::vector<int64_t>& values, int64_t x) {
  size_t lo = 0, hi = values.size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (x < values[mid]) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

// Adds each scheduler's state_dict() to `out` under "schedulers.<i>.".
void insert_schedulers(StateDict& out, const std::vector<LRScheduler*>& schedulers) {
  for (size_t i = 0; i < schedulers.size(); ++i) {
    const std::string prefix = "schedulers." + std::to_string(i) + ".";
    for (const auto& item : schedulers[i]->state_dict()) {
      out.insert(prefix + item.first, item.second);
    }
  }
}

// Loads the "schedulers.<i>." entries into the schedulers, all or nothing;
// the other keys must be `own_keys`.
void load_schedulers(const StateDict& state_dict, const std::vector<LRScheduler*>& schedulers,
                     const std::vector<std::string>& own_keys) {
  std::vector<StateDict> parts(schedulers.size());
  for (const auto& item : state_dict) {
    const std::string& key = item.first;
    if (std::find(own_keys.begin(), own_keys.end(), key) != own_keys.end()) continue;
    bool placed = false;
    for (size_t i = 0; i < schedulers.size() && !placed; ++i) {
      const std::string prefix = "schedulers." + std::to_string(i) + ".";
      if (key.compare(0, prefix.size(), prefix) == 0) {
        parts[i].insert(key.substr(prefix.size()), item.second);
        placed = true;
      }
    }
    TORCHLET_CHECK(placed, "load_state_dict: unexpected key '", key,
                   "' in the scheduler's state dict");
  }
  std::vector<StateDict> before;
  for (const LRScheduler* s : schedulers) before.push_back(s->state_dict());
  size_t loaded = 0;
  try {
    for (; loaded < schedulers.size(); ++loaded) schedulers[loaded]->load_state_dict(parts[loaded]);
  } catch (...) {
    for (size_t i = 0; i < loaded; ++i) schedulers[i]->load_state_dict(before[i]);
    throw;
  }
}

std::vector<LRScheduler*> checked_schedulers(const char* name,
                                             std::vector<LRScheduler*> schedulers) {
  for (size_t i = 0; i < schedulers.size(); ++i) {
    TORCHLET_CHECK(schedulers[i] != nullptr, name, ": the scheduler at index ", i, " is null");
  }
  return schedulers;
}

}  // namespace

SequentialLR::SequentialLR(Optimizer& optimizer, std::vector<LRScheduler*> schedulers,
                           std::vector<int64_t> milestones)
    : schedulers_(checked_schedulers("SequentialLR", std::move(schedulers))),
      milestones_(std::move(milestones)) {
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    TORCHLET_CHECK(&schedulers_[i]->optimizer() == &optimizer,
                   "Sequential Schedulers expects all schedulers to belong to the same optimizer, "
                   "but got schedulers at index ", i,
                   " to be different than the optimizer passed in.");
  }
  TORCHLET_CHECK(milestones_.size() + 1 == schedulers_.size(),
                 "Sequential Schedulers expects number of schedulers provided to be one more than "
                 "the number of milestone points, but got number of schedulers ",
                 schedulers_.size(), " and the number of milestones to be equal to ",
                 milestones_.size());
  // PyTorch 1.13: back to the initial lrs, undo each scheduler's initial
  // step, and take the first scheduler's again.
  for (ParamGroup& group : optimizer.param_groups()) group.set_lr(group.number("initial_lr"));
  for (LRScheduler* scheduler : schedulers_) --scheduler->last_epoch_;
  schedulers_[0]->initial_step();
  last_lr_ = schedulers_[0]->get_last_lr();
}

void SequentialLR::step() {
  const int64_t epoch = last_epoch_ + 1;
  const size_t idx = bisect_right(milestones_, epoch);
  LRScheduler& scheduler = *schedulers_[idx];
  if (idx > 0 && milestones_[idx - 1] == epoch) {
    scheduler.step_to(0);
  } else {
    scheduler.step();
  }
  last_epoch_ = epoch;
  last_lr_ = scheduler.get_last_lr();
}

StateDict SequentialLR::state_dict() const {
  StateDict out;
  out.insert("last_epoch", scalar_tensor(last_epoch_, kInt64));
  out.insert("last_lr", from_vector(last_lr_));
  insert_schedulers(out, schedulers_);
  return out;
}

void SequentialLR::load_state_dict(const StateDict& state_dict) {
  const int64_t last_epoch = int_entry(state_dict, "last_epoch");
  std::vector<double> last_lr =
      lrs_entry(state_dict, "last_lr", schedulers_[0]->optimizer().param_groups().size());
  load_schedulers(state_dict, schedulers_, {"last_epoch", "last_lr"});
  last_epoch_ = last_epoch;
  last_lr_ = std::move(last_lr);
}

ChainedScheduler::ChainedScheduler(std::vector<LRScheduler*> schedulers)
    : schedulers_(checked_schedulers("ChainedScheduler", std::move(schedulers))) {
  // PyTorch 1.13 fails with an IndexError here.
  TORCHLET_CHECK(!schedulers_.empty(), "ChainedScheduler expects at least one scheduler");
  for (size_t i = 1; i < schedulers_.size(); ++i) {
    TORCHLET_CHECK(&schedulers_[i]->optimizer() == &schedulers_[0]->optimizer(),
                   "ChainedScheduler expects all schedulers to belong to the same optimizer, but "
                   "got schedulers at index 0 and ", i, " to be different");
  }
  for (const ParamGroup& group : schedulers_.back()->optimizer().param_groups()) {
    last_lr_.push_back(group.lr());
  }
}

void ChainedScheduler::step() {
  for (LRScheduler* scheduler : schedulers_) scheduler->step();
  last_lr_.clear();
  for (const ParamGroup& group : schedulers_.back()->optimizer().param_groups()) {
    last_lr_.push_back(group.lr());
  }
}

StateDict ChainedScheduler::state_dict() const {
  StateDict out;
  out.insert("last_lr", from_vector(last_lr_));
  insert_schedulers(out, schedulers_);
  return out;
}

void ChainedScheduler::load_state_dict(const StateDict& state_dict) {
  std::vector<double> last_lr =
      lrs_entry(state_dict, "last_lr", schedulers_[0]->optimizer().param_groups().size());
  load_schedulers(state_dict, schedulers_, {"last_lr"});
  last_lr_ = std::move(last_lr);
}

}  // namespace torchlet::optim
