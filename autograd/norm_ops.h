#pragma once

// Differentiable forms of the normalization kernels (tensor/norm.h), for
// torchlet::nn::functional. Each records one node whose backward is the
// fused kernel, or a Variable formula when the backward itself is recorded
// (create_graph), so second derivatives work (see Note [Fused backward,
// composite double backward] in autograd/ops_nn.cc).

#include "autograd/variable.h"

namespace torchlet {

/// Batch norm of input [N, C, *] over all dims but the channel dim 1, with
/// optional per-channel weight and bias ([C], undefined Variables for none).
/// In training the batch statistics normalize the input and, when defined,
/// running_mean and running_var ([C]) are updated in place in their own
/// storage with `momentum` (the variance unbiased); otherwise the running
/// statistics normalize it and are constants of the gradient.
Variable batch_norm(const Variable& input, const Variable& weight, const Variable& bias,
                    const Tensor& running_mean, const Tensor& running_var, bool training,
                    double momentum, double eps);

}  // namespace torchlet
