#pragma once

#include <string>
#include <vector>

#include "tensor/tensor_body.h"

namespace torchlet {

/// PyTorch's repr of `t` with `extra_suffixes` (such as autograd's
/// "requires_grad=True" or "grad_fn=<MulBackward0>") after its own device
/// and dtype suffixes; a suffix that would pass the line width goes onto a
/// new line, as PyTorch's _add_suffixes does. Tensor::str() has none.
std::string tensor_repr(const Tensor& t, const std::vector<std::string>& extra_suffixes);

}  // namespace torchlet
