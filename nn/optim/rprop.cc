#include "nn/optim/rprop.h"

#include <utility>

#include "nn/optim/option_checks.h"
#include "tensor/error.h"
#include "tensor/factories.h"

namespace torchlet::optim {

Options RpropOptions::to_options() const {
  return {{"lr", lr_},
          {"etas", etas_},
          {"step_sizes", step_sizes_},
          {"foreach", std::nullopt},
          {"maximize", maximize_}};
}

Rprop::Rprop(std::vector<Variable> params, const RpropOptions& options)
    : Rprop(detail::one_group(std::move(params)), options) {}

Rprop::Rprop(std::vector<ParamGroup> groups, const RpropOptions& options)
    : Optimizer("Rprop", options.to_options(), kInt64) {
  init_groups(std::move(groups));
}

void Rprop::check_options(const Options& options) const {
  detail::check_at_least(options, "lr", "Invalid learning rate: ");
  detail::check_pair(options, "etas", "Invalid etas: ");
  const auto [etaminus, etaplus] = options.at("etas").scalar_pair();
  TORCHLET_CHECK(0.0 < etaminus.to_double() && etaminus.to_double() < 1.0 &&
                     1.0 < etaplus.to_double(),
                 "Invalid eta values: ", OptionValue(etaminus).str(), ", ",
                 OptionValue(etaplus).str());
  // PyTorch takes any step_sizes.
  detail::check_pair(options, "step_sizes", "Invalid step_sizes: ");
  detail::check_bool(name(), options, "maximize");
  detail::check_unsupported_flags(name(), options);
}

std::vector<std::string> Rprop::buffer_names() const { return {"prev", "step_size"}; }

void Rprop::begin_group(const ParamGroup& group) {
  GroupOptions& o = group_options_;
  group.read({{"lr", &o.lr},
              {"etas", &o.etas},
              {"step_sizes", &o.step_sizes},
              {"maximize", &o.maximize}});
}

void Rprop::update(const ParamGroup&, const Tensor& param, const Tensor& grad,
                   ParamState& state) {
  const GroupOptions& o = group_options_;
  const auto [etaminus, etaplus] = o.etas;
  const auto [step_size_min, step_size_max] = o.step_sizes;
  Tensor prev = state.get_or_zeros("prev", param);
  if (state.find("step_size") == nullptr) {
    state.buffers.emplace_back("step_size", full_like(param, o.lr));
  }
  Tensor step_size = *state.find("step_size");
  state.step += 1;
  Tensor g = o.maximize ? grad.neg() : grad;
  // Each element's factor: etaplus where the gradient kept its sign,
  // etaminus where it flipped, 1 where either is zero (NaN stays NaN).
  const Tensor sign = g.mul(prev).sign();
  const Tensor flipped = sign.lt(0);
  Tensor factor = sign.masked_fill(sign.gt(0), etaplus);
  factor.masked_fill_(flipped, etaminus);
  factor.masked_fill_(sign.eq(0), 1);
  step_size.mul_(factor).clamp_(step_size_min, step_size_max);
  // Where the sign flipped, the element does not move and the next step
  // sees no previous gradient.
  g = g.masked_fill(flipped, 0);
  Tensor p = param;
  p.add_(g.sign().mul(step_size), -1);
  prev.copy_(g);
}

}  // namespace torchlet::optim
