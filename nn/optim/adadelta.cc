#include "nn/optim/adadelta.h"

#include <utility>

#include "nn/optim/option_checks.h"
#include "tensor/error.h"

namespace torchlet::optim {

Options AdadeltaOptions::to_options() const {
  return {{"lr", lr_},
          {"rho", rho_},
          {"eps", eps_},
          {"weight_decay", weight_decay_},
          {"maximize", maximize_},
          {"foreach", std::nullopt}};
}

Adadelta::Adadelta(std::vector<Variable> params, const AdadeltaOptions& options)
    : Adadelta(detail::one_group(std::move(params)), options) {}

Adadelta::Adadelta(std::vector<ParamGroup> groups, const AdadeltaOptions& options)
    : Optimizer("Adadelta", options.to_options(), kInt64) {
  init_groups(std::move(groups));
}

void Adadelta::check_options(const Options& options) const {
  detail::check_at_least(options, "lr", "Invalid learning rate: ");
  detail::check_at_least(options, "rho", "Invalid rho value: ");
  TORCHLET_CHECK(options.at("rho").to_double() <= 1.0, "Invalid rho value: ",
                 detail::shown(options.at("rho")));
  detail::check_at_least(options, "eps", "Invalid epsilon value: ");
  detail::check_at_least(options, "weight_decay", "Invalid weight_decay value: ");
  detail::check_bool(name(), options, "maximize");
  detail::check_unsupported_flags(name(), options);
}

std::vector<std::string> Adadelta::buffer_names() const { return {"square_avg", "acc_delta"}; }

void Adadelta::begin_group(const ParamGroup& group) {
  GroupOptions& o = group_options_;
  group.read({{"lr", &o.lr},
              {"rho", &o.rho},
              {"eps", &o.eps},
              {"weight_decay", &o.weight_decay},
              {"maximize", &o.maximize}});
}

void Adadelta::update(const ParamGroup&, const Tensor& param, const Tensor& grad,
                      ParamState& state) {
  const GroupOptions& o = group_options_;
  Tensor square_avg = state.get_or_zeros("square_avg", param);
  Tensor acc_delta = state.get_or_zeros("acc_delta", param);
  state.step += 1;
  Tensor g = o.maximize ? grad.neg() : grad;
  if (o.weight_decay != 0) g = g.add(param, o.weight_decay);
  square_avg.mul_(o.rho).add_(g.mul(g), 1 - o.rho);
  const Tensor std = square_avg.add(o.eps).sqrt_();
  Tensor delta = acc_delta.add(o.eps).sqrt_();
  delta.div_(std).mul_(g);
  acc_delta.mul_(o.rho).add_(delta.mul(delta), 1 - o.rho);
  Tensor p = param;
  p.add_(delta, -o.lr);
}

}  // namespace torchlet::optim
