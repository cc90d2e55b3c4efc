#include "nn/padding.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "nn/functional/pad.h"

namespace torchlet::nn {
namespace {

// Python's repr of a float: the shortest text that reads back the same,
// with ".0" on whole numbers ("3.5", "1.0").
std::string python_float(double v) {
  char text[32];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits, v);
    if (std::strtod(text, nullptr) == v) break;
  }
  std::string out = text;
  if (std::isfinite(v) && out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

std::string tuple_str(IntArrayRef values) {
  std::string out = "(";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(values[i]);
  }
  return out + (values.size() == 1 ? ",)" : ")");
}

}  // namespace

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
  if (!show_value_) return tuple_str(padding_.ref());
  return "padding=" + tuple_str(padding_.ref()) + ", value=" + python_float(value_);
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
