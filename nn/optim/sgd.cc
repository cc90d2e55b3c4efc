#include "nn/optim/sgd.h"

#include <limits>
#include <utility>

#include "nn/optim/option_checks.h"
#include "tensor/error.h"
#include "tensor/optim_kernels.h"

namespace torchlet::optim {

Options SGDOptions::to_options() const {
  return {{"lr", lr_},
          {"momentum", momentum_},
          {"dampening", dampening_},
          {"weight_decay", weight_decay_},
          {"nesterov", nesterov_},
          {"maximize", maximize_},
          {"foreach", std::nullopt},
          {"differentiable", false}};
}

SGD::SGD(std::vector<Variable> params, const SGDOptions& options)
    : SGD(detail::one_group(std::move(params)), options) {}

SGD::SGD(std::vector<ParamGroup> groups, const SGDOptions& options)
    : Optimizer("SGD", options.to_options(), std::nullopt) {
  init_groups(std::move(groups));
}

void SGD::check_options(const Options& options) const {
  detail::check_at_least(options, "lr", "Invalid learning rate: ");
  detail::check_at_least(options, "momentum", "Invalid momentum value: ");
  detail::check_at_least(options, "weight_decay", "Invalid weight_decay value: ");
  detail::check_unsupported_flags(name(), options);
  detail::check_at_least(options, "dampening", "Invalid dampening value: ",
                         -std::numeric_limits<double>::infinity());
  detail::check_bool(name(), options, "nesterov");
  detail::check_bool(name(), options, "maximize");
  const double momentum = options.at("momentum").to_double();
  const double dampening = options.at("dampening").to_double();
  TORCHLET_CHECK(!options.at("nesterov").to_bool() || (momentum > 0 && dampening == 0),
                 "Nesterov momentum requires a momentum and zero dampening");
}

std::vector<std::string> SGD::buffer_names() const { return {"momentum_buffer"}; }

void SGD::begin_group(const ParamGroup& group) {
  SgdUpdate& o = group_options_;
  group.read({{"lr", &o.lr},
              {"momentum", &o.momentum},
              {"dampening", &o.dampening},
              {"weight_decay", &o.weight_decay},
              {"nesterov", &o.nesterov},
              {"maximize", &o.maximize}});
}

void SGD::update(const ParamGroup&, const Tensor& param, const Tensor& grad, ParamState& state) {
  SgdUpdate o = group_options_;
  Tensor buffer;
  if (o.momentum != 0) {
    o.first_step = state.find("momentum_buffer") == nullptr;
    buffer = state.get_or_zeros("momentum_buffer", param);
  }
  sgd_update_(param, grad, buffer, o);
}

}  // namespace torchlet::optim
