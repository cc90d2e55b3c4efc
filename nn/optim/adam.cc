#include "nn/optim/adam.h"

#include <utility>

#include "nn/optim/option_checks.h"
#include "tensor/optim_kernels.h"

namespace torchlet::optim {
Options AdamOptions::to_options() const {
  return {{"lr", lr_},
          {"betas", betas_},
          {"eps", eps_},
          {"weight_decay", weight_decay_},
          {"amsgrad", amsgrad_},
          {"maximize", maximize_},
          {"foreach", std::nullopt},
          {"capturable", false},
          {"differentiable", false},
          {"fused", false}};
}

Options AdamWOptions::to_options() const {
  return {{"lr", lr_},
          {"betas", betas_},
          {"eps", eps_},
          {"weight_decay", weight_decay_},
          {"amsgrad", amsgrad_},
          {"maximize", maximize_},
          {"foreach", std::nullopt},
          {"capturable", false}};
}

Adam::Adam(std::vector<Variable> params, const AdamOptions& options)
    : Adam("Adam", options.to_options(), detail::one_group(std::move(params))) {}

Adam::Adam(std::vector<ParamGroup> groups, const AdamOptions& options)
    : Adam("Adam", options.to_options(), std::move(groups)) {}

Adam::Adam(const char* name, Options defaults, std::vector<ParamGroup> groups)
    : Optimizer(name, std::move(defaults), kFloat32) {
  init_groups(std::move(groups));
}

void Adam::check_options(const Options& options) const {
  detail::check_at_least(options, "lr", "Invalid learning rate: ");
  detail::check_at_least(options, "eps", "Invalid epsilon value: ");
  detail::check_betas(options);
  detail::check_at_least(options, "weight_decay", "Invalid weight_decay value: ");
  detail::check_bool(name(), options, "amsgrad");
  detail::check_bool(name(), options, "maximize");
  detail::check_unsupported_flags(name(), options);
}

std::vector<std::string> Adam::buffer_names() const {
  return {"exp_avg", "exp_avg_sq", "max_exp_avg_sq"};
}

void Adam::begin_group(const ParamGroup& group) {
  AdamUpdate& o = group_options_;
  std::pair<double, double> betas;
  group.read({{"lr", &o.lr},
              {"betas", &betas},
              {"eps", &o.eps},
              {"weight_decay", &o.weight_decay},
              {"amsgrad", &o.amsgrad},
              {"maximize", &o.maximize}});
  o.beta1 = betas.first;
  o.beta2 = betas.second;
  o.decoupled_weight_decay = decoupled_weight_decay();
}

void Adam::update(const ParamGroup&, const Tensor& param, const Tensor& grad, ParamState& state) {
  AdamUpdate o = group_options_;
  const Tensor exp_avg = state.get_or_zeros("exp_avg", param);
  const Tensor exp_avg_sq = state.get_or_zeros("exp_avg_sq", param);
  const Tensor max_exp_avg_sq = o.amsgrad ? state.get_or_zeros("max_exp_avg_sq", param) : Tensor();
  o.step = state.step + 1;
  adam_update_(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, o);
  state.step = o.step;
}

AdamW::AdamW(std::vector<Variable> params, const AdamWOptions& options)
    : Adam("AdamW", options.to_options(), detail::one_group(std::move(params))) {}

AdamW::AdamW(std::vector<ParamGroup> groups, const AdamWOptions& options)
    : Adam("AdamW", options.to_options(), std::move(groups)) {}

}  // namespace torchlet::optim
