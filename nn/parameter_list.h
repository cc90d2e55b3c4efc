#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nn/cloneable.h"
#include "nn/module_holder.h"

namespace torchlet::nn {

/// Parameters in a list, registered as "0", "1", … (torch.nn.ParameterList).
class ParameterListImpl : public Cloneable<ParameterListImpl> {
 public:
  ParameterListImpl() = default;
  explicit ParameterListImpl(std::initializer_list<Variable> parameters);

  void reset() override {}
  std::shared_ptr<Module> clone(
      const std::optional<Device>& device = std::nullopt) const override;
  std::string extra_repr() const override;

  /// Registers `parameter` itself (a Tensor becomes a new Parameter).
  void append(const Variable& parameter);
  void append(const Tensor& data) { append(Variable(data)); }
  size_t size() const { return registered_parameters().size(); }
  /// The parameter at `index` (negative counts from the end).
  Parameter operator[](int64_t index) const;
};

/// Holder of a ParameterListImpl; also built from a list:
/// `ParameterList({Variable(ones({2})), Variable(zeros({3}))})`.
class ParameterList : public ModuleHolder<ParameterListImpl> {
 public:
  using ModuleHolder<ParameterListImpl>::ModuleHolder;
  using Impl = ParameterListImpl;
  ParameterList(std::initializer_list<Variable> parameters)
      : ModuleHolder(std::make_shared<ParameterListImpl>(parameters)) {}
};

/// Parameters by name, in insertion order (torch.nn.ParameterDict).
class ParameterDictImpl : public Cloneable<ParameterDictImpl> {
 public:
  ParameterDictImpl() = default;
  explicit ParameterDictImpl(std::initializer_list<std::pair<std::string, Variable>> items);

  void reset() override {}
  std::shared_ptr<Module> clone(
      const std::optional<Device>& device = std::nullopt) const override;
  std::string extra_repr() const override;

  /// Registers `parameter` under `key`.
  void insert(const std::string& key, const Variable& parameter);
  void insert(const std::string& key, const Tensor& data) { insert(key, Variable(data)); }
  /// The parameter under `key`; throws naming the key if absent.
  Parameter operator[](const std::string& key) const;
  bool contains(const std::string& key) const;
  size_t size() const { return registered_parameters().size(); }
  std::vector<std::string> keys() const;
};

/// Holder of a ParameterDictImpl; also built from pairs:
/// `ParameterDict({{"w", Variable(ones({2}))}})`.
class ParameterDict : public ModuleHolder<ParameterDictImpl> {
 public:
  using ModuleHolder<ParameterDictImpl>::ModuleHolder;
  using Impl = ParameterDictImpl;
  ParameterDict(std::initializer_list<std::pair<std::string, Variable>> items)
      : ModuleHolder(std::make_shared<ParameterDictImpl>(items)) {}
};

}  // namespace torchlet::nn
