#include "nn/sequential.h"

#include <algorithm>

namespace torchlet::nn {

SequentialImpl::SequentialImpl(std::initializer_list<NamedEntry> named) {
  for (const NamedEntry& item : named) push_back(item.name, item.entry);
}

std::shared_ptr<Module> SequentialImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<SequentialImpl>(*this);
  copy->deep_copy_registry(device);
  return copy;
}

void SequentialImpl::push_back(SequentialEntry entry) {
  push_back(std::to_string(size()), std::move(entry));
}

void SequentialImpl::push_back(std::string name, SequentialEntry entry) {
  register_child(std::move(name), entry.module());
  callers_.push_back(entry.caller());
}

void SequentialImpl::extend(const SequentialImpl& other) {
  // Copied first: `other` may be this module.
  const std::vector<NamedModule> children = other.registered_children();
  const std::vector<detail::VariableCaller> callers = other.callers_;
  for (size_t i = 0; i < children.size(); ++i) {
    register_child(std::to_string(size()), children[i].second);
    callers_.push_back(callers[i]);
  }
}

Variable SequentialImpl::forward(const Variable& input) {
  Variable output = input;
  const auto& children = registered_children();
  for (size_t i = 0; i < callers_.size(); ++i) output = callers_[i](*children[i].second, output);
  return output;
}

size_t SequentialImpl::checked_index(int64_t index) const {
  const auto n = static_cast<int64_t>(size());
  TORCHLET_CHECK(index >= -n && index < n, "index ", index, " is out of range");
  return static_cast<size_t>(index < 0 ? index + n : index);
}

std::shared_ptr<Module> SequentialImpl::operator[](int64_t index) const {
  return registered_children()[checked_index(index)].second;
}

std::shared_ptr<Module> SequentialImpl::operator[](const std::string& name) const {
  for (const auto& child : registered_children()) {
    if (child.first == name) return child.second;
  }
  ::torchlet::detail::throw_error(
      ::torchlet::detail::str_cat(this->name(), " has no attribute `", name, "`"));
}

std::shared_ptr<SequentialImpl> SequentialImpl::slice(int64_t start, int64_t end) const {
  const auto n = static_cast<int64_t>(size());
  const auto clamp = [n](int64_t i) { return std::max<int64_t>(0, std::min(n, i < 0 ? i + n : i)); };
  auto result = std::make_shared<SequentialImpl>();
  const auto& children = registered_children();
  for (int64_t i = clamp(start); i < clamp(end); ++i) {
    result->register_child(children[i].first, children[i].second);
    result->callers_.push_back(callers_[i]);
  }
  return result;
}

}  // namespace torchlet::nn
