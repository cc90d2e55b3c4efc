#pragma once

// torchlet's autograd package: include this to use it. The graph plumbing
// behind these headers is internal (Note [Public graph, internal plumbing]
// in autograd/internal/graph.h).

// Custom differentiable functions: Function<T>, AutogradContext.
#include "autograd/custom_function.h"  // IWYU pragma: export
// backward() and grad() over several outputs (torch.autograd.backward/grad).
#include "autograd/engine.h"           // IWYU pragma: export
// Free-function ops on Variables: mm, matmul, cat, stack, where, softmax.
#include "autograd/functions.h"        // IWYU pragma: export
// Matrix decompositions and solvers: torchlet::linalg on Variables.
#include "autograd/linalg_decompositions.h"  // IWYU pragma: export
// Grad mode: NoGradGuard, AutoGradMode, is_grad_enabled.
#include "autograd/grad_mode.h"        // IWYU pragma: export
// The graph as users see it: Node (grad_fn()), Edge, gradient_edge.
#include "autograd/node.h"             // IWYU pragma: export
// Variable: a Tensor with gradient state, and its differentiable ops.
#include "autograd/variable.h"         // IWYU pragma: export
// Tensor, the raw numeric type.
#include "tensor/tensor.h"             // IWYU pragma: export
