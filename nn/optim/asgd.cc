#include "nn/optim/asgd.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "nn/optim/option_checks.h"
#include "tensor/factories.h"

namespace torchlet::optim {

Options ASGDOptions::to_options() const {
  return {{"lr", lr_},
          {"lambd", lambd_},
          {"alpha", alpha_},
          {"t0", t0_},
          {"weight_decay", weight_decay_},
          {"foreach", std::nullopt},
          {"maximize", maximize_}};
}

ASGD::ASGD(std::vector<Variable> params, const ASGDOptions& options)
    : ASGD(detail::one_group(std::move(params)), options) {}

ASGD::ASGD(std::vector<ParamGroup> groups, const ASGDOptions& options)
    : Optimizer("ASGD", options.to_options(), kFloat32) {
  init_groups(std::move(groups));
}

void ASGD::check_options(const Options& options) const {
  detail::check_at_least(options, "lr", "Invalid learning rate: ");
  detail::check_at_least(options, "weight_decay", "Invalid weight_decay value: ");
  // PyTorch takes any lambd, alpha and t0.
  detail::check_number(options, "lambd", "Invalid lambd value: ");
  detail::check_number(options, "alpha", "Invalid alpha value: ");
  detail::check_number(options, "t0", "Invalid t0 value: ");
  detail::check_bool(name(), options, "maximize");
  detail::check_unsupported_flags(name(), options);
}

std::vector<std::string> ASGD::buffer_names() const { return {"eta", "mu", "ax"}; }

bool ASGD::is_scalar_buffer(const std::string& name) const { return name == "eta" || name == "mu"; }

void ASGD::begin_group(const ParamGroup& group) {
  GroupOptions& o = group_options_;
  group.read({{"lr", &o.lr},
              {"lambd", &o.lambd},
              {"alpha", &o.alpha},
              {"t0", &o.t0},
              {"weight_decay", &o.weight_decay},
              {"maximize", &o.maximize}});
}

void ASGD::update(const ParamGroup&, const Tensor& param, const Tensor& grad,
                  ParamState& state) {
  const GroupOptions& o = group_options_;
  // eta and mu are float32 0-dim tensors as PyTorch makes them (whatever
  // the parameter's dtype); the update reads their rounded values.
  if (state.find("eta") == nullptr) {
    state.buffers.emplace_back("eta", scalar_tensor(o.lr, kFloat32));
    state.buffers.emplace_back("mu", scalar_tensor(1.0, kFloat32));
  }
  Tensor eta = *state.find("eta");
  Tensor mu = *state.find("mu");
  Tensor ax = state.get_or_zeros("ax", param);
  state.step += 1;
  const double step = static_cast<double>(state.step);
  Tensor g = o.maximize ? grad.neg() : grad;
  if (o.weight_decay != 0) g = g.add(param, o.weight_decay);
  const double eta_value = eta.item<double>();
  Tensor p = param;
  p.mul_(1 - o.lambd * eta_value);
  p.add_(g, -eta_value);
  const double mu_value = mu.item<double>();
  if (mu_value != 1) {
    ax.add_(p.sub(ax).mul(mu_value));
  } else {
    ax.copy_(p);
  }
  // New float32 values, copied in (widened if a load made them float64).
  eta.copy_(scalar_tensor(o.lr / std::pow(1 + o.lambd * o.lr * step, o.alpha), kFloat32));
  mu.copy_(scalar_tensor(1 / std::max(1.0, step - o.t0), kFloat32));
}

}  // namespace torchlet::optim
