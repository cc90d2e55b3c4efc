#pragma once

#include <memory>
#include <vector>

#include "nn/module.h"

namespace torchlet::nn {

/// Iterates a container module's children (shared_ptr<Module>) in order:
/// `for (const auto& m : *list)` over a ModuleList or a Sequential.
class ChildIterator {
 public:
  using Base = std::vector<Module::NamedModule>::const_iterator;
  explicit ChildIterator(Base it) : it_(it) {}
  const std::shared_ptr<Module>& operator*() const { return it_->second; }
  ChildIterator& operator++() {
    ++it_;
    return *this;
  }
  bool operator!=(const ChildIterator& other) const { return it_ != other.it_; }
  bool operator==(const ChildIterator& other) const { return it_ == other.it_; }

 private:
  Base it_;
};

}  // namespace torchlet::nn
