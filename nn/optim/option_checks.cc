#include "nn/optim/option_checks.h"

#include <utility>

#include "tensor/error.h"

namespace torchlet::optim::detail {

std::string shown(const OptionValue& value) {
  return value.kind() == OptionValue::Kind::kString ? "'" + value.to_string() + "'" : value.str();
}

void check_at_least(const Options& options, const std::string& name,
                    const std::string& message_prefix, double lower) {
  const OptionValue& value = options.at(name);
  TORCHLET_CHECK(value.kind() == OptionValue::Kind::kNumber, message_prefix, shown(value));
  TORCHLET_CHECK(lower <= value.to_double(), message_prefix, shown(value));
}

void check_number(const Options& options, const std::string& name,
                  const std::string& message_prefix) {
  const OptionValue& value = options.at(name);
  TORCHLET_CHECK(value.kind() == OptionValue::Kind::kNumber, message_prefix, shown(value));
}

void check_bool(const std::string& optimizer, const Options& options, const std::string& name) {
  const OptionValue& value = options.at(name);
  TORCHLET_CHECK(value.kind() == OptionValue::Kind::kBool, optimizer, ": option '", name,
                 "' must be a bool, got ", shown(value));
}

void check_betas(const Options& options) {
  const OptionValue& betas = options.at("betas");
  TORCHLET_CHECK(betas.kind() == OptionValue::Kind::kPair, "Invalid betas: ", shown(betas));
  const auto [beta1, beta2] = betas.scalar_pair();
  TORCHLET_CHECK(0.0 <= beta1.to_double() && beta1.to_double() < 1.0,
                 "Invalid beta parameter at index 0: ", OptionValue(beta1).str());
  TORCHLET_CHECK(0.0 <= beta2.to_double() && beta2.to_double() < 1.0,
                 "Invalid beta parameter at index 1: ", OptionValue(beta2).str());
}

void check_unsupported_flags(const std::string& optimizer, const Options& options) {
  for (const char* name : {"differentiable", "capturable", "fused"}) {
    const auto it = options.find(name);
    if (it == options.end()) continue;
    TORCHLET_CHECK(it->second == OptionValue(false), optimizer, ": ", name, "=",
                   shown(it->second), " is not supported");
  }
  const auto it = options.find("foreach");
  if (it != options.end()) {
    TORCHLET_CHECK(it->second.is_none() || it->second.kind() == OptionValue::Kind::kBool,
                   optimizer, ": foreach must be None or a bool, got ", shown(it->second));
  }
}

void check_pair(const Options& options, const std::string& name,
                const std::string& message_prefix) {
  const OptionValue& value = options.at(name);
  TORCHLET_CHECK(value.kind() == OptionValue::Kind::kPair, message_prefix, shown(value));
}

std::vector<ParamGroup> one_group(std::vector<Variable> params) {
  if (params.empty()) return {};
  return {ParamGroup(std::move(params))};
}

}  // namespace torchlet::optim::detail
