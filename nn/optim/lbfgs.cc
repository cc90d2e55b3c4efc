#include "nn/optim/lbfgs.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <utility>

#include "autograd/grad_mode.h"
#include "nn/optim/option_checks.h"
#include "tensor/error.h"
#include "tensor/factories.h"
#include "tensor/index_ops.h"
#include "tensor/shape.h"

namespace torchlet::optim {

Options LBFGSOptions::to_options() const {
  Scalar max_eval;
  if (max_eval_) {
    max_eval = *max_eval_;
  } else if (max_iter_.is_integral()) {
    // Python's max_iter * 5 // 4: rounded down, as an integer.
    const int64_t n = max_iter_.to<int64_t>() * 5;
    max_eval = n / 4 - (n % 4 < 0 ? 1 : 0);
  } else {
    max_eval = std::floor(max_iter_.to_double() * 5 / 4);
  }
  return {{"lr", lr_},
          {"max_iter", max_iter_},
          {"max_eval", max_eval},
          {"tolerance_grad", tolerance_grad_},
          {"tolerance_change", tolerance_change_},
          {"history_size", history_size_},
          {"line_search_fn", line_search_fn_ ? OptionValue(*line_search_fn_) : OptionValue()}};
}

LBFGS::LBFGS(std::vector<Variable> params, const LBFGSOptions& options)
    : LBFGS(detail::one_group(std::move(params)), options) {}

LBFGS::LBFGS(std::vector<ParamGroup> groups, const LBFGSOptions& options)
    : Optimizer("LBFGS", options.to_options(), std::nullopt) {
  init_groups(std::move(groups));
}

namespace {

constexpr const char* kOneGroup = "LBFGS doesn't support per-parameter options (parameter groups)";

}  // namespace

void LBFGS::check_options(const Options& options) const {
  // PyTorch checks none of these; torchlet checks what would otherwise fail
  // mid-step.
  for (const char* option : {"lr", "max_iter", "max_eval", "tolerance_grad", "tolerance_change"}) {
    detail::check_number(options, option,
                         std::string("LBFGS: option '") + option + "' must be a number, got ");
  }
  const OptionValue& history_size = options.at("history_size");
  TORCHLET_CHECK(history_size.kind() == OptionValue::Kind::kNumber &&
                     history_size.number().is_integral() && history_size.to_double() >= 1,
                 "LBFGS: option 'history_size' must be a positive integer, got ",
                 detail::shown(history_size));
  // line_search_fn takes any value, as in PyTorch: step() checks it where
  // it would search.
}

std::vector<std::string> LBFGS::buffer_names() const { return {}; }

void LBFGS::init_state(const ParamGroup& group, const Variable& param, ParamState&) {
  // Called while the group is added, before it joins param_groups().
  TORCHLET_CHECK(param_groups().empty(), kOneGroup);
  const Variable& first = group.params.front();
  TORCHLET_CHECK(param.dtype() == first.dtype() && param.device() == first.device(),
                 "LBFGS: all parameters must have one dtype and device, got ", first.dtype(),
                 " on ", first.device(), " and ", param.dtype(), " on ", param.device());
}

void LBFGS::begin_group(const ParamGroup&) {
  TORCHLET_CHECK(false,
                 "LBFGS: step() needs a closure that reevaluates the model and returns the loss; "
                 "call LBFGS::step(closure)");
}

void LBFGS::update(const ParamGroup&, const Tensor&, const Tensor&, ParamState&) {
  TORCHLET_INTERNAL_ASSERT(false, "LBFGS::update is never called");
}

// ---- Parameters as one flat vector ---------------------------------------------------

int64_t LBFGS::numel() const {
  int64_t total = 0;
  for (const Variable& p : param_groups()[0].params) total += p.numel();
  return total;
}

Tensor LBFGS::gather_flat_grad() const {
  std::vector<Tensor> views;
  for (const Variable& p : param_groups()[0].params) {
    const Variable grad = p.grad();
    views.push_back(grad.defined() ? grad.data().reshape({-1})
                                   : zeros({p.numel()}, p.data().options()));
  }
  return cat(views, 0);
}

void LBFGS::add_grad(double step_size, const Tensor& update) {
  int64_t offset = 0;
  for (const Variable& p : param_groups()[0].params) {
    Tensor data = p.data();
    const int64_t n = p.numel();
    data.add_(update.narrow(0, offset, n).view(data.sizes()), step_size);
    offset += n;
  }
}

std::vector<Tensor> LBFGS::clone_params() const {
  std::vector<Tensor> out;
  for (const Variable& p : param_groups()[0].params) out.push_back(p.data().clone());
  return out;
}

void LBFGS::set_params(const std::vector<Tensor>& values) {
  const std::vector<Variable>& params = param_groups()[0].params;
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor data = params[i].data();
    data.copy_(values[i]);
  }
}

namespace {

// The closure's loss, computed with gradients enabled; one number.
Variable checked_loss(const std::function<Variable()>& closure) {
  Variable loss;
  {
    EnableGradGuard enable_grad;
    loss = closure();
  }
  TORCHLET_CHECK(loss.defined() && loss.numel() == 1,
                 "LBFGS: the closure must return the loss as a one-element tensor, got ",
                 loss.defined() ? shape_str(loss.sizes()) : std::string("an undefined one"));
  return loss;
}

}  // namespace

double LBFGS::evaluate(const std::function<Variable()>& closure) {
  return checked_loss(closure).data().item<double>();
}

// ---- Line search ---------------------------------------------------------------------

namespace {

bool max_abs_at_most(const Tensor& t, double bound) {
  return t.abs().max().le(bound).item<bool>();
}

double dot_value(const Tensor& a, const Tensor& b) { return a.dot(b).item<double>(); }

// The minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1
// and g2, clamped to the bounds (by default the interval between x1 and x2);
// the bounds' midpoint if the cubic has none.
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                         std::optional<std::pair<double, double>> bounds = std::nullopt) {
  const auto [xmin_bound, xmax_bound] =
      bounds ? *bounds : (x1 <= x2 ? std::make_pair(x1, x2) : std::make_pair(x2, x1));
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (d2_square >= 0) {
    const double d2 = std::sqrt(d2_square);
    const double min_pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                                    : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
    // Python's min(max(min_pos, xmin_bound), xmax_bound).
    const double above = xmin_bound > min_pos ? xmin_bound : min_pos;
    return xmax_bound < above ? xmax_bound : above;
  }
  return (xmin_bound + xmax_bound) / 2.;
}

struct Evaluation {
  double loss;
  Tensor flat_grad;
};

struct LineSearchResult {
  double loss;
  Tensor flat_grad;
  double t;
  int64_t func_evals;
};

// A step length along d satisfying the strong Wolfe conditions, from loss f,
// gradient g and directional derivative gtd at t = 0; PyTorch 1.13's
// _strong_wolfe, with its defaults (its tolerance_change is 1e-9, not the
// group's).
LineSearchResult strong_wolfe(const std::function<Evaluation(double)>& evaluate_at, double t,
                              const Tensor& d, double f, const Tensor& g_in, double gtd) {
  constexpr double c1 = 1e-4, c2 = 0.9, tolerance_change = 1e-9;
  constexpr int64_t max_ls = 25;
  const double d_norm = d.abs().max().item<double>();
  const Tensor g = g_in.clone();
  Evaluation next = evaluate_at(t);
  double f_new = next.loss;
  Tensor g_new = next.flat_grad;
  int64_t func_evals = 1;
  double gtd_new = dot_value(g_new, d);

  // Bracket an interval holding a point that satisfies the conditions.
  double t_prev = 0, f_prev = f, gtd_prev = gtd;
  Tensor g_prev = g;
  bool done = false;
  int64_t ls_iter = 0;
  std::vector<double> bracket, bracket_f, bracket_gtd(2, 0.0);
  std::vector<Tensor> bracket_g;
  while (ls_iter < max_ls) {
    if (f_new > (f + c1 * t * gtd) || (ls_iter > 1 && f_new >= f_prev)) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone()};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    if (std::abs(gtd_new) <= -c2 * gtd) {
      bracket = {t};
      bracket_f = {f_new};
      bracket_g = {g_new};
      done = true;
      break;
    }
    if (gtd_new >= 0) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone()};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    // Extrapolate.
    const double min_step = t + 0.01 * (t - t_prev);
    const double max_step = t * 10;
    const double tmp = t;
    t = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                          std::make_pair(min_step, max_step));
    t_prev = tmp;
    f_prev = f_new;
    g_prev = g_new.clone();
    gtd_prev = gtd_new;
    next = evaluate_at(t);
    f_new = next.loss;
    g_new = next.flat_grad;
    ++func_evals;
    gtd_new = dot_value(g_new, d);
    ++ls_iter;
  }
  if (ls_iter == max_ls) {
    bracket = {0, t};
    bracket_f = {f, f_new};
    bracket_g = {g, g_new};
  }

  // Zoom: shrink the bracket until a point satisfies the conditions.
  bool insuf_progress = false;
  size_t low_pos = bracket_f.front() <= bracket_f.back() ? 0 : 1;
  size_t high_pos = 1 - low_pos;
  while (!done && ls_iter < max_ls) {
    if (std::abs(bracket[1] - bracket[0]) * d_norm < tolerance_change) break;
    t = cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1],
                          bracket_gtd[1]);
    // Too close to an end (or past it) twice running, or at or past an end:
    // move to a tenth of the bracket away from the nearer end.
    const double hi = bracket[0] < bracket[1] ? bracket[1] : bracket[0];
    const double lo = bracket[1] < bracket[0] ? bracket[1] : bracket[0];
    const double eps = 0.1 * (hi - lo);
    if (std::min(hi - t, t - lo) < eps) {
      if (insuf_progress || t >= hi || t <= lo) {
        t = std::abs(t - hi) < std::abs(t - lo) ? hi - eps : lo + eps;
        insuf_progress = false;
      } else {
        insuf_progress = true;
      }
    } else {
      insuf_progress = false;
    }
    next = evaluate_at(t);
    f_new = next.loss;
    g_new = next.flat_grad;
    ++func_evals;
    gtd_new = dot_value(g_new, d);
    ++ls_iter;
    if (f_new > (f + c1 * t * gtd) || f_new >= bracket_f[low_pos]) {
      // Not a sufficient decrease, or not below the low end: the new high end.
      bracket[high_pos] = t;
      bracket_f[high_pos] = f_new;
      bracket_g[high_pos] = g_new.clone();
      bracket_gtd[high_pos] = gtd_new;
      low_pos = bracket_f[0] <= bracket_f[1] ? 0 : 1;
      high_pos = 1 - low_pos;
    } else {
      if (std::abs(gtd_new) <= -c2 * gtd) {
        done = true;
      } else if (gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0) {
        // The old low end becomes the high end.
        bracket[high_pos] = bracket[low_pos];
        bracket_f[high_pos] = bracket_f[low_pos];
        bracket_g[high_pos] = bracket_g[low_pos];
        bracket_gtd[high_pos] = bracket_gtd[low_pos];
      }
      bracket[low_pos] = t;
      bracket_f[low_pos] = f_new;
      bracket_g[low_pos] = g_new.clone();
      bracket_gtd[low_pos] = gtd_new;
    }
  }
  return {bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], func_evals};
}

}  // namespace

// ---- step ----------------------------------------------------------------------------

Variable LBFGS::step(const std::function<Variable()>& closure) {
  NoGradGuard no_grad;
  const ParamGroup& group = param_groups()[0];
  double lr = 0, max_iter = 0, max_eval = 0, tolerance_grad = 0, tolerance_change = 0,
         history_size_value = 0;
  group.read({{"lr", &lr},
              {"max_iter", &max_iter},
              {"max_eval", &max_eval},
              {"tolerance_grad", &tolerance_grad},
              {"tolerance_change", &tolerance_change},
              {"history_size", &history_size_value}});
  const OptionValue& line_search_fn = group.options.at("line_search_fn");
  const size_t history_size = static_cast<size_t>(history_size_value);

  State& state = lbfgs_state_;
  state.started = true;

  // The loss and gradient where the step starts.
  const Variable orig_loss = checked_loss(closure);
  double loss = orig_loss.data().item<double>();
  int64_t current_evals = 1;
  state.func_evals += 1;
  Tensor flat_grad = gather_flat_grad();
  bool opt_cond = max_abs_at_most(flat_grad, tolerance_grad);
  if (opt_cond) return orig_loss;

  Tensor d = state.d;
  double t = state.t;
  Tensor prev_flat_grad = state.prev_flat_grad;
  double prev_loss = state.prev_loss;
  int64_t n_iter = 0;
  bool iterated = false;
  while (n_iter < max_iter) {
    ++n_iter;
    state.n_iter += 1;
    iterated = true;

    // The descent direction.
    if (state.n_iter == 1) {
      d = flat_grad.neg();
      state.old_dirs.clear();
      state.old_stps.clear();
      state.ro.clear();
      state.h_diag = Tensor();
    } else {
      // Update the history with the last step's changes.
      const Tensor y = flat_grad.sub(prev_flat_grad);
      const Tensor s = d.mul(t);
      const Tensor ys = y.dot(s);
      if (ys.gt(1e-10).item<bool>()) {
        while (!state.old_dirs.empty() && state.old_dirs.size() >= history_size) {
          state.old_dirs.erase(state.old_dirs.begin());
          state.old_stps.erase(state.old_stps.begin());
          state.ro.erase(state.ro.begin());
        }
        state.old_dirs.push_back(y);
        state.old_stps.push_back(s);
        state.ro.push_back(ones_like(ys).div_(ys));
        // The scale of the initial inverse Hessian.
        state.h_diag = ys.div(y.dot(y));
      }
      // The two-loop recursion: d = -H * grad.
      const size_t num_old = state.old_dirs.size();
      state.has_al = true;
      if (state.al.size() < std::max(history_size, num_old)) {
        state.al.resize(std::max(history_size, num_old));
      }
      Tensor q = flat_grad.neg();
      for (size_t k = num_old; k-- > 0;) {
        state.al[k] = state.old_stps[k].dot(q).mul(state.ro[k]);
        q.add_(state.old_dirs[k], -state.al[k].item<double>());
      }
      d = state.h_diag.defined() ? q.mul(state.h_diag) : q.mul(1);
      for (size_t k = 0; k < num_old; ++k) {
        const Tensor be_k = state.old_dirs[k].dot(d).mul(state.ro[k]);
        d.add_(state.old_stps[k], state.al[k].sub(be_k).item<double>());
      }
    }
    if (!prev_flat_grad.defined()) {
      prev_flat_grad = flat_grad.clone();
    } else {
      prev_flat_grad.copy_(flat_grad);
    }
    prev_loss = loss;

    // The step length.
    if (state.n_iter == 1) {
      // min(1, 1 / sum|g|) * lr, the reciprocal in the gradient's precision.
      const Tensor sum = flat_grad.abs().sum();
      const Tensor reciprocal = ones_like(sum).div_(sum);
      t = reciprocal.lt(1.).item<bool>() ? reciprocal.mul(lr).item<double>() : lr;
    } else {
      t = lr;
    }
    // The directional derivative: stop if it is not a descent direction.
    const Tensor gtd_tensor = flat_grad.dot(d);
    if (gtd_tensor.gt(-tolerance_change).item<bool>()) break;
    const double gtd = gtd_tensor.item<double>();

    int64_t ls_func_evals = 0;
    if (!line_search_fn.is_none()) {
      TORCHLET_CHECK(line_search_fn == OptionValue("strong_wolfe"),
                     "only 'strong_wolfe' is supported");
      const std::vector<Tensor> x_init = clone_params();
      const auto evaluate_at = [&](double step_length) {
        add_grad(step_length, d);
        const double value = evaluate(closure);
        Tensor grad = gather_flat_grad();
        set_params(x_init);
        return Evaluation{value, grad};
      };
      LineSearchResult found = strong_wolfe(evaluate_at, t, d, loss, flat_grad, gtd);
      loss = found.loss;
      flat_grad = found.flat_grad;
      t = found.t;
      ls_func_evals = found.func_evals;
      add_grad(t, d);
      opt_cond = max_abs_at_most(flat_grad, tolerance_grad);
    } else {
      // A fixed step; the loss is reevaluated except after the last iteration.
      add_grad(t, d);
      if (n_iter != max_iter) {
        loss = evaluate(closure);
        flat_grad = gather_flat_grad();
        opt_cond = max_abs_at_most(flat_grad, tolerance_grad);
        ls_func_evals = 1;
      }
    }
    current_evals += ls_func_evals;
    state.func_evals += ls_func_evals;

    if (n_iter == max_iter) break;
    if (current_evals >= max_eval) break;
    if (opt_cond) break;
    // Lack of progress.
    if (max_abs_at_most(d.mul(t), tolerance_change)) break;
    if (std::abs(loss - prev_loss) < tolerance_change) break;
  }
  if (iterated) {
    state.iterated = true;
    state.d = d;
    state.t = t;
    state.prev_flat_grad = prev_flat_grad;
    state.prev_loss = prev_loss;
  }
  return orig_loss;
}

// ---- state_dict ----------------------------------------------------------------------

namespace {

Tensor stack_or_empty(const std::vector<Tensor>& tensors, IntArrayRef empty_shape,
                      TensorOptions options) {
  if (tensors.empty()) return empty(empty_shape, options);
  return stack(tensors, 0);
}

}  // namespace

void LBFGS::save_state(StateDict& out) const {
  const State& s = lbfgs_state_;
  if (!s.started) return;
  const std::string prefix = "state.0.";
  out.insert(prefix + "func_evals", scalar_tensor(s.func_evals, kInt64));
  out.insert(prefix + "n_iter", scalar_tensor(s.n_iter, kInt64));
  if (!s.iterated) return;
  const Tensor& first = param_groups()[0].params.front().data();
  const int64_t n = numel();
  out.insert(prefix + "d", s.d.clone());
  out.insert(prefix + "t", scalar_tensor(s.t, kFloat64));
  out.insert(prefix + "old_dirs", stack_or_empty(s.old_dirs, {0, n}, first.options()));
  out.insert(prefix + "old_stps", stack_or_empty(s.old_stps, {0, n}, first.options()));
  out.insert(prefix + "ro", stack_or_empty(s.ro, {0}, first.options()));
  // PyTorch's H_diag is the integer 1 until the history first grows.
  out.insert(prefix + "H_diag", s.h_diag.defined() ? s.h_diag.clone() : scalar_tensor(1, kInt64));
  out.insert(prefix + "prev_flat_grad", s.prev_flat_grad.clone());
  out.insert(prefix + "prev_loss", scalar_tensor(s.prev_loss, kFloat64));
  // al lists the coefficients computed so far (PyTorch pads it with None).
  std::vector<Tensor> al;
  for (const Tensor& a : s.al) {
    if (!a.defined()) break;
    al.push_back(a);
  }
  if (s.has_al) out.insert(prefix + "al", stack_or_empty(al, {0}, first.options()));
}

std::function<void()> LBFGS::prepare_load_state(const SavedState& saved) {
  const Tensor& first = param_groups()[0].params.front().data();
  const int64_t n = numel();
  State s;
  for (const auto& [index, entries] : saved) {
    TORCHLET_CHECK(index == 0, "load_state_dict: LBFGS keeps its state under parameter 0, got state "
                               "for parameter ", index);
    std::map<std::string, Tensor> by_name;
    for (const auto& [name, value] : entries) {
      const std::string key = "state.0." + name;
      TORCHLET_CHECK(value.defined(), "load_state_dict: '", key, "' is undefined");
      by_name[name] = value;
    }
    // Each entry: its expected shape (-1: any length), and whether it is a count.
    const auto take = [&](const std::string& name, std::vector<int64_t> shape) -> Tensor {
      const auto it = by_name.find(name);
      TORCHLET_CHECK(it != by_name.end(), "load_state_dict: missing key 'state.0.", name,
                     "' in LBFGS's state dict");
      const Tensor value = it->second;
      by_name.erase(it);
      bool matches = value.dim() == static_cast<int64_t>(shape.size());
      for (size_t i = 0; matches && i < shape.size(); ++i) {
        matches = shape[i] < 0 || value.size(static_cast<int64_t>(i)) == shape[i];
      }
      std::string expected = "[";
      for (size_t i = 0; i < shape.size(); ++i) {
        expected += (i ? ", " : "") + (shape[i] < 0 ? std::string("k") : std::to_string(shape[i]));
      }
      TORCHLET_CHECK(matches, "load_state_dict: 'state.0.", name, "' has shape ",
                     shape_str(value.sizes()), ", expected ", expected + "]");
      return value;
    };
    const auto count = [&](const std::string& name) {
      const double value = take(name, {}).item<double>();
      TORCHLET_CHECK(value >= 0 && value == std::floor(value) && value < 9.0e15,
                     "load_state_dict: 'state.0.", name, "' must be a whole number, got ", value);
      return static_cast<int64_t>(value);
    };
    const auto as_param = [&](const Tensor& t) {
      Tensor out = t.to(first.device(), first.dtype());
      return out.shares_storage(t) ? out.clone() : out.contiguous();
    };
    s.started = true;
    s.func_evals = count("func_evals");
    s.n_iter = count("n_iter");
    if (!by_name.empty()) {
      s.iterated = true;
      s.d = as_param(take("d", {n}));
      s.t = take("t", {}).item<double>();
      const Tensor old_dirs = take("old_dirs", {-1, n});
      const Tensor old_stps = take("old_stps", {old_dirs.size(0), n});
      const Tensor ro = take("ro", {old_dirs.size(0)});
      for (int64_t k = 0; k < old_dirs.size(0); ++k) {
        s.old_dirs.push_back(as_param(old_dirs[k]));
        s.old_stps.push_back(as_param(old_stps[k]));
        s.ro.push_back(as_param(ro[k]));
      }
      const Tensor h_diag = take("H_diag", {});
      const bool integer_one = !h_diag.is_floating_point() && h_diag.item<double>() == 1;
      if (!integer_one) s.h_diag = as_param(h_diag);
      s.prev_flat_grad = as_param(take("prev_flat_grad", {n}));
      s.prev_loss = take("prev_loss", {}).item<double>();
      if (by_name.count("al") != 0) {
        const Tensor al = take("al", {-1});
        for (int64_t k = 0; k < al.size(0); ++k) s.al.push_back(as_param(al[k]));
        s.has_al = true;
      }
      TORCHLET_CHECK(by_name.empty(), "load_state_dict: unexpected key 'state.0.",
                     by_name.empty() ? std::string() : by_name.begin()->first,
                     "' in LBFGS's state dict");
    }
  }
  return [this, s = std::move(s)] { lbfgs_state_ = s; };
}

}  // namespace torchlet::optim
