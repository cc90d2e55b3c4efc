#include "nn/repr.h"

#include "nn/optim/optimizer.h"

namespace torchlet::nn::detail {

std::string float_repr(double value) { return optim::python_float_repr(value); }

std::string scalar_repr(Scalar value) {
  return value.is_floating_point() ? float_repr(value.to_double())
                                   : std::to_string(value.to<int64_t>());
}

std::string bool_repr(bool value) { return value ? "True" : "False"; }

std::string tuple_repr(IntArrayRef shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    out += (i > 0 ? ", " : "") + std::to_string(shape[i]);
  }
  return out + (shape.size() == 1 ? ",)" : ")");
}

std::string inplace_repr(bool inplace, const std::string& separator) {
  return inplace ? separator + "inplace=True" : "";
}

}  // namespace torchlet::nn::detail
