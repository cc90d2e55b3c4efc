#include "nn/optim/option_checks.h"

#include <utility>

#include "nn/repr.h"
#include "tensor/error.h"

namespace torchlet::optim::detail {

void check_at_least(const Options& options, const std::string& name,
                    const std::string& message_prefix, double lower) {
  const OptionValue& value = options.at(name);
  TORCHLET_CHECK(value.kind() == OptionValue::Kind::kNumber, message_prefix, value.str());
  TORCHLET_CHECK(lower <= value.to_double(), message_prefix, value.str());
}

void check_number(const Options& options, const std::string& name,
                  const std::string& message_prefix) {
  const OptionValue& value = options.at(name);
  TORCHLET_CHECK(value.kind() == OptionValue::Kind::kNumber, message_prefix, value.str());
}

void check_bool(const std::string& optimizer, const Options& options, const std::string& name) {
  const OptionValue& value = options.at(name);
  TORCHLET_CHECK(value.kind() == OptionValue::Kind::kBool, optimizer, ": option '", name,
                 "' must be a bool, got ", value.str());
}

void check_betas(const Options& options) {
  const OptionValue& betas = options.at("betas");
  TORCHLET_CHECK(betas.kind() == OptionValue::Kind::kPair, "Invalid betas: ", betas.str());
  const auto [beta1, beta2] = betas.to_pair();
  TORCHLET_CHECK(0.0 <= beta1 && beta1 < 1.0, "Invalid beta parameter at index 0: ",
                 nn::detail::float_repr(beta1));
  TORCHLET_CHECK(0.0 <= beta2 && beta2 < 1.0, "Invalid beta parameter at index 1: ",
                 nn::detail::float_repr(beta2));
}

void check_unsupported_flags(const std::string& optimizer, const Options& options) {
  for (const char* name : {"differentiable", "capturable", "fused"}) {
    const auto it = options.find(name);
    if (it == options.end()) continue;
    TORCHLET_CHECK(it->second == OptionValue(false), optimizer, ": ", name, "=",
                   it->second.str(), " is not supported");
  }
  const auto it = options.find("foreach");
  if (it != options.end()) {
    TORCHLET_CHECK(it->second.is_none() || it->second.kind() == OptionValue::Kind::kBool,
                   optimizer, ": foreach must be None or a bool, got ", it->second.str());
  }
}

void check_pair(const Options& options, const std::string& name,
                const std::string& message_prefix) {
  const OptionValue& value = options.at(name);
  TORCHLET_CHECK(value.kind() == OptionValue::Kind::kPair, message_prefix, value.str());
}

std::vector<ParamGroup> one_group(std::vector<Variable> params) {
  if (params.empty()) return {};
  return {ParamGroup(std::move(params))};
}

bool StateHooks::is_scalar_buffer(const std::string&) const { return false; }

bool StateHooks::keeps_own_state() const { return false; }

void StateHooks::save_state(StateDict&) const {}

std::function<void()> StateHooks::prepare_load_state(const SavedState&) {
  return [] {};
}

}  // namespace torchlet::optim::detail
