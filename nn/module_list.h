#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "nn/child_iterator.h"
#include "nn/cloneable.h"
#include "nn/module_holder.h"

namespace torchlet::nn {

/// Modules in a list, registered as "0", "1", … (torch.nn.ModuleList). It
/// has no forward: iterate it in yours.
class ModuleListImpl : public Cloneable<ModuleListImpl> {
 public:
  /// Iterates the modules (shared_ptr<Module>), in order.
  using Iterator = ChildIterator;

  ModuleListImpl() = default;
  explicit ModuleListImpl(std::initializer_list<ModuleRef> modules);
  template <typename... M, typename = std::enable_if_t<(sizeof...(M) > 0) &&
                                                       (std::is_convertible_v<M, ModuleRef> && ...)>>
  explicit ModuleListImpl(M&&... modules) {
    (push_back(ModuleRef(std::forward<M>(modules))), ...);
  }

  void reset() override {}
  std::shared_ptr<Module> clone(
      const std::optional<Device>& device = std::nullopt) const override;

  void push_back(const ModuleRef& module);
  void append(const ModuleRef& module) { push_back(module); }
  /// Appends every module of `other`.
  void extend(const ModuleListImpl& other);
  void extend(const std::vector<ModuleRef>& modules);
  /// Inserts before `index` (negative counts from the end), renumbering.
  void insert(int64_t index, const ModuleRef& module);

  size_t size() const { return registered_children().size(); }
  bool is_empty() const { return size() == 0; }
  /// The module at `index` (negative counts from the end).
  std::shared_ptr<Module> operator[](int64_t index) const;
  template <typename M>
  std::shared_ptr<M> ptr(int64_t index) const {
    auto module = std::dynamic_pointer_cast<M>((*this)[index]);
    TORCHLET_CHECK(module != nullptr, "ModuleList: module ", index, " is not of the type asked");
    return module;
  }
  Iterator begin() const { return Iterator(registered_children().begin()); }
  Iterator end() const { return Iterator(registered_children().end()); }
};
TORCHLET_MODULE(ModuleList);

/// Modules by name, in insertion order (torch.nn.ModuleDict).
class ModuleDictImpl : public Cloneable<ModuleDictImpl> {
 public:
  ModuleDictImpl() = default;
  explicit ModuleDictImpl(std::initializer_list<std::pair<std::string, ModuleRef>> items);

  void reset() override {}
  std::shared_ptr<Module> clone(
      const std::optional<Device>& device = std::nullopt) const override;

  /// Adds `module` under `key`, replacing a module already there.
  void insert(const std::string& key, const ModuleRef& module);
  /// The module under `key`; throws naming the key if absent.
  std::shared_ptr<Module> operator[](const std::string& key) const;
  bool contains(const std::string& key) const;
  /// Removes `key` and returns its module.
  std::shared_ptr<Module> pop(const std::string& key);
  void clear() { clear_children(); }
  size_t size() const { return registered_children().size(); }
  std::vector<std::string> keys() const;
  std::vector<std::shared_ptr<Module>> values() const;
  const std::vector<NamedModule>& items() const { return registered_children(); }
};

/// Holder of a ModuleDictImpl; also built from pairs:
/// `ModuleDict({{"act", ReLU()}, {"fc", Linear(3, 4)}})`.
class ModuleDict : public ModuleHolder<ModuleDictImpl> {
 public:
  using ModuleHolder<ModuleDictImpl>::ModuleHolder;
  using Impl = ModuleDictImpl;
  ModuleDict(std::initializer_list<std::pair<std::string, ModuleRef>> items)
      : ModuleHolder(std::make_shared<ModuleDictImpl>(items)) {}
};

}  // namespace torchlet::nn
