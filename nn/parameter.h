#pragma once

#include <iosfwd>

#include "autograd/variable.h"

namespace torchlet::nn {

/// A Variable registered as a module's learnable state (torch.nn.Parameter).
/// It is the same shared handle as any Variable: copying a Parameter or
/// slicing it to a Variable refers to one VariableImpl, so set_data(),
/// gradients and re-binding are seen through every copy. Only printing
/// differs: `Parameter containing:` then the tensor, as PyTorch prints it.
class Parameter : public Variable {
 public:
  /// An undefined Parameter (PyTorch's `None`, e.g. Linear's bias=False).
  Parameter() = default;
  /// A leaf over `data` (not copied) that requires grad unless told not to.
  explicit Parameter(Tensor data, bool requires_grad = true);
  /// The same Variable, viewed as a Parameter (no copy).
  explicit Parameter(const Variable& variable) : Variable(variable) {}
};

/// "Parameter containing:\n" followed by the Variable's repr.
std::ostream& operator<<(std::ostream& out, const Parameter& parameter);

}  // namespace torchlet::nn
