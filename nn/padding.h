#pragma once

// Padding layers (torch.nn.ZeroPad2d, ConstantPad1d/2d/3d,
// ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d), each F.pad with fixed
// amounts.

#include <cstddef>
#include <cstdint>
#include <string>

#include "nn/cloneable.h"
#include "nn/conv.h"
#include "nn/module_holder.h"

namespace torchlet::nn {

/// Pads the last D dims of its input by (left, right) amounts, last dim
/// first: one number for all 2 * D sides or 2 * D numbers (libtorch's
/// ExpandingArray<2 * D>).
template <size_t D, typename Derived>
class PadImpl : public Cloneable<Derived> {
 public:
  void reset() override {}
  Variable forward(const Variable& input);
  std::string extra_repr() const override;
  IntArrayRef padding() const { return padding_.ref(); }

 protected:
  PadImpl(ExpandingArray<2 * D> padding, std::string mode, double value, bool show_value);

 private:
  ExpandingArray<2 * D> padding_;
  std::string mode_;
  double value_;
  bool show_value_;  // the repr names padding and value (ConstantPad)
};

/// Pads with `value` (torch.nn.ConstantPad1d/2d/3d).
template <size_t D, typename Derived>
class ConstantPadImpl : public PadImpl<D, Derived> {
 public:
  ConstantPadImpl(ExpandingArray<2 * D> padding, double value)
      : PadImpl<D, Derived>(padding, "constant", value, true) {}
};

/// Pads with zeros (torch.nn.ZeroPad2d).
template <size_t D, typename Derived>
class ZeroPadImpl : public PadImpl<D, Derived> {
 public:
  explicit ZeroPadImpl(ExpandingArray<2 * D> padding)
      : PadImpl<D, Derived>(padding, "constant", 0, false) {}
};

/// Mirrors the input at its edges (torch.nn.ReflectionPad1d/2d/3d).
template <size_t D, typename Derived>
class ReflectionPadImpl : public PadImpl<D, Derived> {
 public:
  explicit ReflectionPadImpl(ExpandingArray<2 * D> padding)
      : PadImpl<D, Derived>(padding, "reflect", 0, false) {}
};

/// Repeats the input's edges (torch.nn.ReplicationPad1d/2d/3d).
template <size_t D, typename Derived>
class ReplicationPadImpl : public PadImpl<D, Derived> {
 public:
  explicit ReplicationPadImpl(ExpandingArray<2 * D> padding)
      : PadImpl<D, Derived>(padding, "replicate", 0, false) {}
};

/// The amounts of a padding layer, as libtorch's options: `ZeroPad2d(2)`, or
/// `ZeroPad2d(ZeroPad2dOptions({1, 2, 3, 4}))` for (left, right, top, bottom).
using ZeroPad2dOptions = ExpandingArray<4>;
using ReflectionPad1dOptions = ExpandingArray<2>;
using ReflectionPad2dOptions = ExpandingArray<4>;
using ReflectionPad3dOptions = ExpandingArray<6>;
using ReplicationPad1dOptions = ExpandingArray<2>;
using ReplicationPad2dOptions = ExpandingArray<4>;
using ReplicationPad3dOptions = ExpandingArray<6>;

#define TORCHLET_PAD_LAYER(Name, Base, D)         \
  class Name##Impl : public Base<D, Name##Impl> { \
   public:                                        \
    using Base<D, Name##Impl>::Base;              \
  };                                              \
  TORCHLET_MODULE(Name)

TORCHLET_PAD_LAYER(ZeroPad2d, ZeroPadImpl, 2);
TORCHLET_PAD_LAYER(ConstantPad1d, ConstantPadImpl, 1);
TORCHLET_PAD_LAYER(ConstantPad2d, ConstantPadImpl, 2);
TORCHLET_PAD_LAYER(ConstantPad3d, ConstantPadImpl, 3);
TORCHLET_PAD_LAYER(ReflectionPad1d, ReflectionPadImpl, 1);
TORCHLET_PAD_LAYER(ReflectionPad2d, ReflectionPadImpl, 2);
TORCHLET_PAD_LAYER(ReflectionPad3d, ReflectionPadImpl, 3);
TORCHLET_PAD_LAYER(ReplicationPad1d, ReplicationPadImpl, 1);
TORCHLET_PAD_LAYER(ReplicationPad2d, ReplicationPadImpl, 2);
TORCHLET_PAD_LAYER(ReplicationPad3d, ReplicationPadImpl, 3);

#undef TORCHLET_PAD_LAYER

}  // namespace torchlet::nn
