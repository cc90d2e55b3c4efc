#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "nn/child_iterator.h"
#include "nn/cloneable.h"
#include "nn/module_holder.h"

namespace torchlet::nn {

namespace detail {
using VariableCaller = Variable (*)(Module& module, const Variable& input);
template <typename M>
Variable call_as(Module& module, const Variable& input) {
  return call(static_cast<M&>(module), input);
}
}  // namespace detail

/// An element of a Sequential: a module whose forward maps a Variable to a
/// Variable, given as a holder or a shared_ptr, with the call that runs it.
class SequentialEntry {
 public:
  template <typename M>
  SequentialEntry(std::shared_ptr<M> module)  // NOLINT: implicit
      : module_(std::move(module)), caller_(&detail::call_as<M>) {}
  template <typename M>
  SequentialEntry(const ModuleHolder<M>& holder)  // NOLINT: implicit
      : SequentialEntry(holder.ptr()) {}

  const std::shared_ptr<Module>& module() const { return module_; }
  detail::VariableCaller caller() const { return caller_; }

 private:
  std::shared_ptr<Module> module_;
  detail::VariableCaller caller_;
};

/// A name and an element: `{"fc", Linear(3, 4)}`.
struct NamedEntry {
  std::string name;
  SequentialEntry entry;
};

/// Modules called in order, each on the previous one's output
/// (torch.nn.Sequential). Built empty then filled with push_back/add_module,
/// from modules (named "0", "1", …) or from named pairs.
class SequentialImpl : public Cloneable<SequentialImpl> {
 public:
  SequentialImpl() = default;
  template <typename... M, typename = std::enable_if_t<(sizeof...(M) > 0) &&
                                                       (std::is_convertible_v<M, SequentialEntry> && ...)>>
  explicit SequentialImpl(M&&... modules) {
    (push_back(SequentialEntry(std::forward<M>(modules))), ...);
  }
  explicit SequentialImpl(std::initializer_list<NamedEntry> named);

  void reset() override {}
  std::shared_ptr<Module> clone(
      const std::optional<Device>& device = std::nullopt) const override;

  /// Appends under the name str(size()).
  void push_back(SequentialEntry entry);
  /// Appends under `name`.
  void push_back(std::string name, SequentialEntry entry);
  void add_module(std::string name, SequentialEntry entry) {
    push_back(std::move(name), std::move(entry));
  }
  /// push_back (Python's append).
  void append(SequentialEntry entry) { push_back(std::move(entry)); }
  /// Appends every module of `other`, in order, each numbered as
  /// push_back numbers it (the modules are shared, not copied).
  void extend(const SequentialImpl& other);

  /// Iterates the modules (shared_ptr<Module>), in order.
  using Iterator = ChildIterator;
  Iterator begin() const { return Iterator(registered_children().begin()); }
  Iterator end() const { return Iterator(registered_children().end()); }

  /// The input passed through every module in order.
  Variable forward(const Variable& input);

  size_t size() const { return callers_.size(); }
  bool is_empty() const { return callers_.empty(); }
  /// The module at `index` (negative counts from the end).
  std::shared_ptr<Module> operator[](int64_t index) const;
  /// The module named `name`.
  std::shared_ptr<Module> operator[](const std::string& name) const;
  /// The module at `index`, as an M (throws if it is not one).
  template <typename M>
  std::shared_ptr<M> ptr(int64_t index) const {
    auto module = std::dynamic_pointer_cast<M>((*this)[index]);
    TORCHLET_CHECK(module != nullptr, "Sequential: module ", index, " is not of the type asked");
    return module;
  }
  /// Modules [start, end) (Python slice bounds), sharing them, names kept.
  std::shared_ptr<SequentialImpl> slice(int64_t start, int64_t end) const;

 private:
  size_t checked_index(int64_t index) const;

  std::vector<detail::VariableCaller> callers_;
};

/// Holder of a SequentialImpl; also built from named pairs:
/// `Sequential({{"fc", Linear(3, 4)}, {"act", ReLU()}})`.
class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  using Impl = SequentialImpl;
  Sequential(std::initializer_list<NamedEntry> named)
      : ModuleHolder(std::make_shared<SequentialImpl>(named)) {}
};

}  // namespace torchlet::nn
