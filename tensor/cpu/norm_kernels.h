#pragma once

// CPU loops of the normalization kernels (tensor/norm.h validates and lays
// out their arguments). Inputs are contiguous [N, C, S]; per-channel
// tensors are [C] (contiguous, except the running statistics, which are
// written through their own strides) or undefined.

#include "tensor/tensor_body.h"

namespace torchlet::cpu {

/// For each channel c of input [N, C, S]: in training, mean[c] and
/// invstd[c] = 1 / sqrt(biased var + eps) of its N * S values, and (when
/// defined) running_mean[c] and running_var[c] moved towards the batch mean
/// and unbiased variance by `momentum`; then, in any mode,
/// out = (input - mean[c]) * invstd[c] * weight[c] + bias[c].
void batch_norm_channels(const Tensor& out, const Tensor& mean, const Tensor& invstd,
                         const Tensor& input, const Tensor& weight, const Tensor& bias,
                         const Tensor& running_mean, const Tensor& running_var, bool training,
                         double momentum, double eps);

/// Gradients of batch_norm_channels, each filled when defined (grad_weight
/// and grad_bias are [C]). In training the statistics are differentiated
/// too.
void batch_norm_backward_channels(const Tensor& grad_input, const Tensor& grad_weight,
                                  const Tensor& grad_bias, const Tensor& grad_out,
                                  const Tensor& input, const Tensor& mean, const Tensor& invstd,
                                  const Tensor& weight, bool training);

}  // namespace torchlet::cpu
