#include "nn/optim/nadam.h"

#include <cmath>
#include <utility>

#include "nn/optim/option_checks.h"
#include "tensor/factories.h"

namespace torchlet::optim {

Options NAdamOptions::to_options() const {
  return {{"lr", lr_},
          {"betas", betas_},
          {"eps", eps_},
          {"weight_decay", weight_decay_},
          {"momentum_decay", momentum_decay_},
          {"foreach", std::nullopt}};
}

NAdam::NAdam(std::vector<Variable> params, const NAdamOptions& options)
    : NAdam(detail::one_group(std::move(params)), options) {}

NAdam::NAdam(std::vector<ParamGroup> groups, const NAdamOptions& options)
    : Optimizer("NAdam", options.to_options(), kFloat32) {
  init_groups(std::move(groups));
}

void NAdam::check_options(const Options& options) const {
  detail::check_at_least(options, "lr", "Invalid learning rate: ");
  detail::check_at_least(options, "eps", "Invalid epsilon value: ");
  detail::check_betas(options);
  detail::check_at_least(options, "weight_decay", "Invalid weight_decay value: ");
  detail::check_at_least(options, "momentum_decay", "Invalid momentum_decay value: ");
  detail::check_unsupported_flags(name(), options);
}

std::vector<std::string> NAdam::buffer_names() const {
  return {"mu_product", "exp_avg", "exp_avg_sq"};
}

bool NAdam::is_scalar_buffer(const std::string& name) const { return name == "mu_product"; }

void NAdam::begin_group(const ParamGroup& group) {
  GroupOptions& o = group_options_;
  group.read({{"lr", &o.lr},
              {"betas", &o.betas},
              {"eps", &o.eps},
              {"weight_decay", &o.weight_decay},
              {"momentum_decay", &o.momentum_decay}});
}

void NAdam::update(const ParamGroup&, const Tensor& param, const Tensor& grad,
                   ParamState& state) {
  const GroupOptions& o = group_options_;
  const auto [beta1, beta2] = o.betas;
  if (state.find("mu_product") == nullptr) {
    // As PyTorch: a float32 0-dim tensor whatever the parameter's dtype.
    state.buffers.emplace_back("mu_product", scalar_tensor(1.0, kFloat32));
  }
  Tensor mu_product = *state.find("mu_product");
  Tensor exp_avg = state.get_or_zeros("exp_avg", param);
  Tensor exp_avg_sq = state.get_or_zeros("exp_avg_sq", param);
  state.step += 1;
  const double step = static_cast<double>(state.step);
  const double bias_correction2 = 1 - std::pow(beta2, step);
  Tensor g = grad;
  if (o.weight_decay != 0) g = g.add(param, o.weight_decay);
  const double mu = beta1 * (1. - 0.5 * std::pow(0.96, step * o.momentum_decay));
  const double mu_next = beta1 * (1. - 0.5 * std::pow(0.96, (step + 1) * o.momentum_decay));
  // The product is kept in the tensor's precision; the next one multiplies
  // by mu twice, as PyTorch 1.13 does.
  mu_product.mul_(mu);
  const double product = mu_product.item<double>();
  const double product_next = mu_product.mul(mu).mul(mu_next).item<double>();
  exp_avg.mul_(beta1).add_(g, 1 - beta1);
  exp_avg_sq.mul_(beta2).add_(g.mul(g), 1 - beta2);
  const Tensor denom = exp_avg_sq.div(bias_correction2).sqrt().add_(o.eps);
  Tensor p = param;
  p.add_(g.div(denom), -o.lr * (1. - mu) / (1. - product));
  p.add_(exp_avg.div(denom), -o.lr * mu_next / (1. - product_next));
}

}  // namespace torchlet::optim
