#include "nn/padding.h"

#include <string>

#include "nn/functional/pad.h"
#include "nn/repr.h"

namespace torchlet::nn {
template <size_t D, typename Derived>
PadImpl<D, Derived>::PadImpl(ExpandingArray<2 * D> padding, std::string mode, double value,
                             bool show_value)
    : padding_(padding), mode_(std::move(mode)), value_(value), show_value_(show_value) {}

template <size_t D, typename Derived>
Variable PadImpl<D, Derived>::forward(const Variable& input) {
  return functional::pad(input, padding_.ref(), mode_, value_);
}

template <size_t D, typename Derived>
std::string PadImpl<D, Derived>::extra_repr() const {
  if (!show_value_) return detail::tuple_repr(padding_.ref());
  return "padding=" + detail::tuple_repr(padding_.ref()) + ", value=" + detail::float_repr(value_);
}

template class PadImpl<2, ZeroPad2dImpl>;
template class PadImpl<1, ConstantPad1dImpl>;
template class PadImpl<2, ConstantPad2dImpl>;
template class PadImpl<3, ConstantPad3dImpl>;
template class PadImpl<1, ReflectionPad1dImpl>;
template class PadImpl<2, ReflectionPad2dImpl>;
template class PadImpl<3, ReflectionPad3dImpl>;
template class PadImpl<1, ReplicationPad1dImpl>;
template class PadImpl<2, ReplicationPad2dImpl>;
template class PadImpl<3, ReplicationPad3dImpl>;

}  // namespace torchlet::nn
