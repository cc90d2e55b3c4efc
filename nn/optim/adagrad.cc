#include "nn/optim/adagrad.h"

#include <utility>

#include "nn/optim/option_checks.h"
#include "tensor/factories.h"
#include "tensor/optim_kernels.h"

namespace torchlet::optim {

Options AdagradOptions::to_options() const {
  return {{"lr", lr_},
          {"lr_decay", lr_decay_},
          {"eps", eps_},
          {"weight_decay", weight_decay_},
          {"initial_accumulator_value", initial_accumulator_value_},
          {"foreach", std::nullopt},
          {"maximize", maximize_}};
}

Adagrad::Adagrad(std::vector<Variable> params, const AdagradOptions& options)
    : Adagrad(detail::one_group(std::move(params)), options) {}

Adagrad::Adagrad(std::vector<ParamGroup> groups, const AdagradOptions& options)
    : Optimizer("Adagrad", options.to_options(), kFloat32) {
  init_groups(std::move(groups));
}

void Adagrad::check_options(const Options& options) const {
  detail::check_at_least(options, "lr", "Invalid learning rate: ");
  detail::check_at_least(options, "lr_decay", "Invalid lr_decay value: ");
  detail::check_at_least(options, "weight_decay", "Invalid weight_decay value: ");
  detail::check_at_least(options, "initial_accumulator_value",
                         "Invalid initial_accumulator_value value: ");
  detail::check_at_least(options, "eps", "Invalid epsilon value: ");
  detail::check_bool(name(), options, "maximize");
  detail::check_unsupported_flags(name(), options);
}

std::vector<std::string> Adagrad::buffer_names() const { return {"sum"}; }

void Adagrad::init_state(const ParamGroup& group, const Variable& param, ParamState& state) {
  const double initial = group.number("initial_accumulator_value");
  state.buffers.emplace_back("sum", full_like(param.data(), initial));
}

void Adagrad::begin_group(const ParamGroup& group) {
  GroupOptions& g = group_options_;
  group.read({{"lr", &g.lr},
              {"lr_decay", &g.lr_decay},
              {"weight_decay", &g.weight_decay},
              {"eps", &g.eps},
              {"initial_accumulator_value", &g.initial_accumulator_value},
              {"maximize", &g.maximize}});
}

void Adagrad::update(const ParamGroup&, const Tensor& param, const Tensor& grad,
                     ParamState& state) {
  const GroupOptions& g = group_options_;
  if (state.find("sum") == nullptr) {
    state.buffers.emplace_back("sum", full_like(param, g.initial_accumulator_value));
  }
  const int64_t step = state.step + 1;
  AdagradUpdate o;
  o.clr = g.lr / (1 + static_cast<double>(step - 1) * g.lr_decay);
  o.weight_decay = g.weight_decay;
  o.eps = g.eps;
  o.maximize = g.maximize;
  adagrad_update_(param, grad, *state.find("sum"), o);
  state.step = step;
}

}  // namespace torchlet::optim
