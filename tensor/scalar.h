#pragma once

#include <cstdint>
#include <type_traits>

#include "tensor/dtype.h"

namespace torchlet {

/// A number passed to an op (`t + 1.5`, `full(shape, 7)`): a double, an
/// integer or a bool, kept exactly. Its kind takes part in type promotion
/// the way a Python number does in PyTorch.
class Scalar {
 public:
  enum class Kind : int8_t { kFloating, kIntegral, kBool };

  Scalar() : Scalar(int64_t{0}) {}
  Scalar(bool v) : kind_(Kind::kBool) { i_ = v; }  // NOLINT(runtime/explicit)
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(Kind::kIntegral) {  // NOLINT(runtime/explicit)
    i_ = static_cast<int64_t>(v);
  }
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(Kind::kFloating) {  // NOLINT(runtime/explicit)
    d_ = static_cast<double>(v);
  }

  Kind kind() const { return kind_; }
  bool is_floating_point() const { return kind_ == Kind::kFloating; }
  bool is_integral() const { return kind_ == Kind::kIntegral; }
  bool is_bool() const { return kind_ == Kind::kBool; }

  /// The dtype a tensor made from this number alone gets: float32, int64, bool.
  DType default_dtype() const {
    return kind_ == Kind::kFloating ? kFloat32 : kind_ == Kind::kIntegral ? kInt64 : kBool;
  }

  template <typename T>
  T to() const {
    if (kind_ == Kind::kFloating) return static_cast<T>(d_);
    return static_cast<T>(i_);
  }
  double to_double() const { return to<double>(); }

 private:
  Kind kind_;
  union {
    double d_;
    int64_t i_;
  };
};

}  // namespace torchlet
