#pragma once

// TORCHLET_ARG: the fluent options of layers and losses, as libtorch's
// TORCH_ARG (`LeakyReLUOptions().negative_slope(0.2).inplace(true)`).

/// Declares option `name` of type T: a setter returning the options (so
/// calls chain), a getter, and the member `name_`, which a default may
/// follow: `TORCHLET_ARG(double, alpha) = 1.0;`.
#define TORCHLET_ARG(T, name)                        \
 public:                                             \
  auto name(const T& new_##name)->decltype(*this) {  \
    this->name##_ = new_##name;                      \
    return *this;                                    \
  }                                                  \
  const T& name() const noexcept { return name##_; } \
  T& name() noexcept { return name##_; }             \
                                                     \
 private:                                            \
  T name##_
