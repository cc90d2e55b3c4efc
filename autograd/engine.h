#pragma once

#include <optional>

#include "autograd/variable.h"

namespace torchlet::autograd {

/// Accumulates into the leaves' grad() the gradients of `outputs` (seeded
/// with `grad_outputs`; ones for one-element outputs when omitted).
/// `retain_graph` defaults to `create_graph`.
void backward(const variable_list& outputs, const variable_list& grad_outputs = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false);

/// The gradients of `outputs` with respect to `inputs` (torch.autograd.grad),
/// without touching any grad(). An input the outputs do not depend on is an
/// error unless `allow_unused` (it then gets an undefined Variable).
variable_list grad(const variable_list& outputs, const variable_list& inputs,
                   const variable_list& grad_outputs = {},
                   std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                   bool allow_unused = false);

}  // namespace torchlet::autograd
