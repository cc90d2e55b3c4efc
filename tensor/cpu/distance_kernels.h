#pragma once

// CPU loops of cdist (tensor/linalg.cc validates and lays out their
// arguments): x1 [B, P, M] and x2 [B, R, M] contiguous, float32 or float64.
// No [B, P, R, M] difference tensor is made.

#include "tensor/tensor_body.h"

namespace torchlet::cpu {

/// out[b, i, j] = the p-norm of x1[b, i] - x2[b, j]; out [B, P, R]
/// contiguous.
void cdist(const Tensor& out, const Tensor& x1, const Tensor& x2, double p);

/// PyTorch's _cdist_backward: grad_x1 [B, P, M] and grad_x2 [B, R, M]
/// (contiguous) from grad and dist [B, P, R] (contiguous).
void cdist_backward(const Tensor& grad_x1, const Tensor& grad_x2, const Tensor& grad,
                    const Tensor& x1, const Tensor& x2, const Tensor& dist, double p);

}  // namespace torchlet::cpu
