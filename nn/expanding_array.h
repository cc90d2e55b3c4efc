#pragma once

// libtorch's ExpandingArray: an option given as one int or as one per
// dimension.

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "tensor/shape.h"

namespace torchlet::nn {

/// D integers, given as one (repeated D times) or as D (libtorch's
/// ExpandingArray): `ExpandingArray<2>(3)` and `{3, 3}` are the same 2-d
/// kernel size. A list of another length is a torchlet::Error naming both
/// lengths.
template <size_t D>
class ExpandingArray {
 public:
  ExpandingArray(int64_t value) : single_(true) { values_.fill(value); }  // NOLINT: implicit
  ExpandingArray(std::initializer_list<int64_t> values);  // NOLINT: implicit
  /// The D values.
  IntArrayRef ref() const { return IntArrayRef(values_.data(), D); }
  int64_t operator[](size_t i) const { return values_[i]; }
  /// Whether given as one number (PyTorch's reprs of Fold and Unfold show
  /// the value as given).
  bool single() const { return single_; }

 private:
  std::array<int64_t, D> values_{};
  bool single_ = false;
};

extern template class ExpandingArray<1>;
extern template class ExpandingArray<2>;
extern template class ExpandingArray<3>;
extern template class ExpandingArray<4>;
extern template class ExpandingArray<6>;

}  // namespace torchlet::nn
