#include "nn/module_list.h"

namespace torchlet::nn {
namespace {

size_t checked_index(int64_t index, size_t size, bool inclusive) {
  const auto n = static_cast<int64_t>(size);
  TORCHLET_CHECK(index >= -n && (index < n || (inclusive && index == n)), "index ", index,
                 " is out of range");
  return static_cast<size_t>(index < 0 ? index + n : index);
}

}  // namespace

ModuleListImpl::ModuleListImpl(std::initializer_list<ModuleRef> modules) {
  for (const ModuleRef& module : modules) push_back(module);
}

std::shared_ptr<Module> ModuleListImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ModuleListImpl>(*this);
  copy->deep_copy_registry(device);
  return copy;
}

void ModuleListImpl::push_back(const ModuleRef& module) {
  register_child(std::to_string(size()), module.ptr());
}

void ModuleListImpl::extend(const ModuleListImpl& other) {
  const std::vector<NamedModule> modules = other.registered_children();
  for (const auto& module : modules) push_back(module.second);
}

void ModuleListImpl::extend(const std::vector<ModuleRef>& modules) {
  for (const ModuleRef& module : modules) push_back(module);
}

void ModuleListImpl::insert(int64_t index, const ModuleRef& module) {
  const size_t position = checked_index(index, size(), true);
  std::vector<NamedModule> modules = registered_children();
  modules.insert(modules.begin() + static_cast<std::ptrdiff_t>(position), {"", module.ptr()});
  clear_children();
  for (const auto& entry : modules) push_back(entry.second);
}

std::shared_ptr<Module> ModuleListImpl::operator[](int64_t index) const {
  return registered_children()[checked_index(index, size(), false)].second;
}

ModuleDictImpl::ModuleDictImpl(std::initializer_list<std::pair<std::string, ModuleRef>> items) {
  for (const auto& [key, module] : items) insert(key, module);
}

std::shared_ptr<Module> ModuleDictImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ModuleDictImpl>(*this);
  copy->deep_copy_registry(device);
  return copy;
}

void ModuleDictImpl::insert(const std::string& key, const ModuleRef& module) {
  register_child(key, module.ptr(), /*replace=*/true);
}

std::shared_ptr<Module> ModuleDictImpl::operator[](const std::string& key) const {
  for (const auto& item : registered_children()) {
    if (item.first == key) return item.second;
  }
  ::torchlet::detail::throw_error("ModuleDict: no module under the key '" + key + "'");
}

bool ModuleDictImpl::contains(const std::string& key) const {
  for (const auto& item : registered_children()) {
    if (item.first == key) return true;
  }
  return false;
}

std::shared_ptr<Module> ModuleDictImpl::pop(const std::string& key) {
  std::shared_ptr<Module> module = (*this)[key];
  std::vector<NamedModule> rest;
  for (const auto& item : registered_children()) {
    if (item.first != key) rest.push_back(item);
  }
  clear_children();
  for (const auto& item : rest) insert(item.first, item.second);
  return module;
}

std::vector<std::string> ModuleDictImpl::keys() const {
  std::vector<std::string> out;
  for (const auto& item : registered_children()) out.push_back(item.first);
  return out;
}

std::vector<std::shared_ptr<Module>> ModuleDictImpl::values() const {
  std::vector<std::shared_ptr<Module>> out;
  for (const auto& item : registered_children()) out.push_back(item.second);
  return out;
}

}  // namespace torchlet::nn
