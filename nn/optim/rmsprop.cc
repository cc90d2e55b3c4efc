#include "nn/optim/rmsprop.h"

#include <utility>

#include "nn/optim/option_checks.h"
#include "tensor/optim_kernels.h"

namespace torchlet::optim {

Options RMSpropOptions::to_options() const {
  return {{"lr", lr_},
          {"momentum", momentum_},
          {"alpha", alpha_},
          {"eps", eps_},
          {"centered", centered_},
          {"weight_decay", weight_decay_},
          {"foreach", std::nullopt},
          {"maximize", maximize_},
          {"differentiable", false}};
}

RMSprop::RMSprop(std::vector<Variable> params, const RMSpropOptions& options)
    : RMSprop(detail::one_group(std::move(params)), options) {}

RMSprop::RMSprop(std::vector<ParamGroup> groups, const RMSpropOptions& options)
    : Optimizer("RMSprop", options.to_options(), kInt64) {
  init_groups(std::move(groups));
}

void RMSprop::check_options(const Options& options) const {
  detail::check_at_least(options, "lr", "Invalid learning rate: ");
  detail::check_at_least(options, "eps", "Invalid epsilon value: ");
  detail::check_at_least(options, "momentum", "Invalid momentum value: ");
  detail::check_at_least(options, "weight_decay", "Invalid weight_decay value: ");
  detail::check_at_least(options, "alpha", "Invalid alpha value: ");
  detail::check_bool(name(), options, "centered");
  detail::check_bool(name(), options, "maximize");
  detail::check_unsupported_flags(name(), options);
}

std::vector<std::string> RMSprop::buffer_names() const {
  return {"square_avg", "momentum_buffer", "grad_avg"};
}

void RMSprop::begin_group(const ParamGroup& group) {
  RmspropUpdate& o = group_options_;
  group.read({{"lr", &o.lr},
              {"alpha", &o.alpha},
              {"eps", &o.eps},
              {"weight_decay", &o.weight_decay},
              {"momentum", &o.momentum},
              {"centered", &o.centered},
              {"maximize", &o.maximize}});
}

void RMSprop::update(const ParamGroup&, const Tensor& param, const Tensor& grad,
                     ParamState& state) {
  const RmspropUpdate& o = group_options_;
  const Tensor square_avg = state.get_or_zeros("square_avg", param);
  const Tensor momentum_buffer =
      o.momentum > 0 ? state.get_or_zeros("momentum_buffer", param) : Tensor();
  const Tensor grad_avg = o.centered ? state.get_or_zeros("grad_avg", param) : Tensor();
  rmsprop_update_(param, grad, square_avg, grad_avg, momentum_buffer, o);
  state.step += 1;
}

}  // namespace torchlet::optim
