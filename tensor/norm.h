#pragma once

// Batch normalization kernels behind torchlet::nn::functional::batch_norm:
// forward (with the in-place update of the running statistics) and
// backward, each a few fused per-channel passes. They validate their
// arguments with PyTorch 1.13's messages; the differentiable form lives in
// autograd/norm_ops.h.

#include <array>

#include "tensor/tensor_body.h"

namespace torchlet {

/// What batch_norm_forward computed besides its output.
struct BatchNormForward {
  Tensor output;
  /// [C]: the mean each channel was normalized with (the batch's in
  /// training, running_mean otherwise) and 1 / sqrt(var + eps) (the batch's
  /// biased variance in training, running_var otherwise).
  Tensor mean;
  Tensor invstd;
};

/// Normalizes input [N, C, *] per channel, then scales by weight and shifts
/// by bias ([C] each, or undefined). In training the batch's statistics are
/// used and, when running_mean and running_var ([C] each) are defined, they
/// are updated in place in their own storage:
/// running = (1 - momentum) * running + momentum * batch statistic, with the
/// unbiased batch variance. Otherwise the running statistics are used and
/// must be defined.
BatchNormForward batch_norm_forward(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                    const Tensor& running_mean, const Tensor& running_var,
                                    bool training, double momentum, double eps);

/// The gradients batch_norm_backward computes (undefined where not asked).
struct BatchNormBackward {
  Tensor grad_input;
  Tensor grad_weight;
  Tensor grad_bias;
};

/// Gradients of batch_norm_forward's output, seeded by grad_out, from the
/// mean and invstd it returned. In training the statistics depend on the
/// input (and are differentiated); otherwise they are constants.
/// output_mask says which of (input, weight, bias) gradients to compute.
BatchNormBackward batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                      const Tensor& weight, const Tensor& mean,
                                      const Tensor& invstd, bool training,
                                      std::array<bool, 3> output_mask);

}  // namespace torchlet
