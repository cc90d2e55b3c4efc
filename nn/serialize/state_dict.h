#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace torchlet {

/// Tensors by name, in insertion order: what `Module::state_dict()` returns,
/// `Module::load_state_dict()` takes, and `save()`/`load()` write and read
/// (PyTorch's `OrderedDict[str, Tensor]`).
class StateDict {
 public:
  using Item = std::pair<std::string, Tensor>;
  using const_iterator = std::vector<Item>::const_iterator;

  StateDict() = default;
  /// Throws `torchlet::Error` on a repeated name.
  StateDict(std::initializer_list<Item> items);

  /// Appends `name`; throws `torchlet::Error` if it is already present.
  void insert(std::string name, Tensor value);
  /// The entry for `name`, appended (undefined) if absent.
  Tensor& operator[](const std::string& name);
  /// The entry for `name`; throws `torchlet::Error` naming the key if absent.
  const Tensor& at(const std::string& name) const;
  /// The entry for `name`, or null.
  const Tensor* find(const std::string& name) const;
  bool contains(const std::string& name) const { return index_.count(name) != 0; }
  /// Removes `name`; false if it was absent.
  bool erase(const std::string& name);

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  std::vector<std::string> keys() const;
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }

 private:
  std::vector<Item> items_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace torchlet
