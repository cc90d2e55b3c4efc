#pragma once

#include <utility>

#include "nn/cloneable.h"

namespace torchlet::nn {

// Note [Stateless layers]
// ~~~~~~~~~~~~~~~~~~~~~~~
// A layer without parameters is its options plus a forward that calls the
// functional op and an extra_repr that prints the options as PyTorch does.
// StatelessModule<Derived, Options> holds the rest: the constructor taking
// the options (an implicit conversion lets `ReLU(true)` mean
// `ReLU(ReLUOptions(true))`), an empty reset() and cloning.

/// The base of a layer whose only state is its options; see
/// Note [Stateless layers].
template <typename Derived, typename Options>
class StatelessModule : public Cloneable<Derived> {
 public:
  explicit StatelessModule(Options options = {}) : options(std::move(options)) {}
  void reset() override {}

  Options options;
};

}  // namespace torchlet::nn
