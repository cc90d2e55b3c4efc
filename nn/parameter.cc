#include "nn/parameter.h"

#include <ostream>
#include <utility>

namespace torchlet::nn {

Parameter::Parameter(Tensor data, bool requires_grad)
    : Variable(std::move(data), requires_grad) {}

std::ostream& operator<<(std::ostream& out, const Parameter& parameter) {
  out << "Parameter containing:\n";
  return out << static_cast<const Variable&>(parameter);
}

}  // namespace torchlet::nn
