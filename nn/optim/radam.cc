#include "nn/optim/radam.h"

#include <cmath>
#include <utility>

#include "nn/optim/option_checks.h"
#include "tensor/factories.h"

namespace torchlet::optim {

Options RAdamOptions::to_options() const {
  return {{"lr", lr_},
          {"betas", betas_},
          {"eps", eps_},
          {"weight_decay", weight_decay_},
          {"foreach", std::nullopt}};
}

RAdam::RAdam(std::vector<Variable> params, const RAdamOptions& options)
    : RAdam(detail::one_group(std::move(params)), options) {}

RAdam::RAdam(std::vector<ParamGroup> groups, const RAdamOptions& options)
    : Optimizer("RAdam", options.to_options(), kFloat32) {
  init_groups(std::move(groups));
}

void RAdam::check_options(const Options& options) const {
  detail::check_at_least(options, "lr", "Invalid learning rate: ");
  detail::check_at_least(options, "eps", "Invalid epsilon value: ");
  detail::check_betas(options);
  detail::check_at_least(options, "weight_decay", "Invalid weight_decay value: ");
  detail::check_unsupported_flags(name(), options);
}

std::vector<std::string> RAdam::buffer_names() const { return {"exp_avg", "exp_avg_sq"}; }

void RAdam::begin_group(const ParamGroup& group) {
  GroupOptions& o = group_options_;
  group.read({{"lr", &o.lr},
              {"betas", &o.betas},
              {"eps", &o.eps},
              {"weight_decay", &o.weight_decay}});
}

void RAdam::update(const ParamGroup&, const Tensor& param, const Tensor& grad,
                   ParamState& state) {
  const GroupOptions& o = group_options_;
  const auto [beta1, beta2] = o.betas;
  Tensor exp_avg = state.get_or_zeros("exp_avg", param);
  Tensor exp_avg_sq = state.get_or_zeros("exp_avg_sq", param);
  state.step += 1;
  const double step = static_cast<double>(state.step);
  const double bias_correction1 = 1 - std::pow(beta1, step);
  const double bias_correction2 = 1 - std::pow(beta2, step);
  Tensor g = grad;
  if (o.weight_decay != 0) g = g.add(param, o.weight_decay);
  exp_avg.mul_(beta1).add_(g, 1 - beta1);
  exp_avg_sq.mul_(beta2).add_(g.mul(g), 1 - beta2);
  const Tensor bias_corrected_exp_avg = exp_avg.div(bias_correction1);
  // The length of the approximated simple moving average, and its limit.
  const double rho_inf = 2 / (1 - beta2) - 1;
  const double rho_t = rho_inf - 2 * step * std::pow(beta2, step) / bias_correction2;
  Tensor p = param;
  if (rho_t > 5.) {
    const double rect = std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf /
                                  ((rho_inf - 4) * (rho_inf - 2) * rho_t));
    // sqrt(bias_correction2) / (sqrt(exp_avg_sq) + eps), as a reciprocal
    // times the number (how Python divides a number by a tensor).
    Tensor adaptive_lr = exp_avg_sq.sqrt().add_(o.eps);
    adaptive_lr = ones_like(adaptive_lr).div_(adaptive_lr).mul_(std::sqrt(bias_correction2));
    p.add_(bias_corrected_exp_avg.mul(o.lr).mul_(adaptive_lr).mul_(rect), -1.0);
  } else {
    p.add_(bias_corrected_exp_avg.mul(o.lr), -1.0);
  }
}

}  // namespace torchlet::optim
