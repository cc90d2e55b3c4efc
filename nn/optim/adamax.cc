#include "nn/optim/adamax.h"

#include <cmath>
#include <utility>

#include "nn/optim/option_checks.h"

namespace torchlet::optim {

Options AdamaxOptions::to_options() const {
  return {{"lr", lr_},
          {"betas", betas_},
          {"eps", eps_},
          {"weight_decay", weight_decay_},
          {"foreach", std::nullopt},
          {"maximize", maximize_}};
}

Adamax::Adamax(std::vector<Variable> params, const AdamaxOptions& options)
    : Adamax(detail::one_group(std::move(params)), options) {}

Adamax::Adamax(std::vector<ParamGroup> groups, const AdamaxOptions& options)
    : Optimizer("Adamax", options.to_options(), kFloat32) {
  init_groups(std::move(groups));
}

void Adamax::check_options(const Options& options) const {
  detail::check_at_least(options, "lr", "Invalid learning rate: ");
  detail::check_at_least(options, "eps", "Invalid epsilon value: ");
  detail::check_betas(options);
  detail::check_at_least(options, "weight_decay", "Invalid weight_decay value: ");
  detail::check_bool(name(), options, "maximize");
  detail::check_unsupported_flags(name(), options);
}

std::vector<std::string> Adamax::buffer_names() const { return {"exp_avg", "exp_inf"}; }

void Adamax::begin_group(const ParamGroup& group) {
  GroupOptions& o = group_options_;
  group.read({{"lr", &o.lr},
              {"betas", &o.betas},
              {"eps", &o.eps},
              {"weight_decay", &o.weight_decay},
              {"maximize", &o.maximize}});
}

void Adamax::update(const ParamGroup&, const Tensor& param, const Tensor& grad,
                    ParamState& state) {
  const GroupOptions& o = group_options_;
  const auto [beta1, beta2] = o.betas;
  Tensor exp_avg = state.get_or_zeros("exp_avg", param);
  Tensor exp_inf = state.get_or_zeros("exp_inf", param);
  state.step += 1;
  const double step = static_cast<double>(state.step);
  Tensor g = o.maximize ? grad.neg() : grad;
  if (o.weight_decay != 0) g = g.add(param, o.weight_decay);
  exp_avg.mul_(beta1).add_(g, 1 - beta1);
  // The exponentially weighted infinity norm: max(beta2 * exp_inf, |g| + eps),
  // NaN if either is.
  exp_inf.mul_(beta2);
  exp_inf.copy_(exp_inf.maximum(g.abs().add_(o.eps)));
  const double clr = o.lr / (1 - std::pow(beta1, step));
  Tensor p = param;
  p.add_(exp_avg.div(exp_inf), -clr);
}

}  // namespace torchlet::optim
