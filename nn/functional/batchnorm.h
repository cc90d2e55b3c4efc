#pragma once

// Batch, instance, group and local response normalization
// (torch.nn.functional.batch_norm, instance_norm, group_norm,
// local_response_norm).

#include "autograd/variable.h"

namespace torchlet::nn::functional {

/// Normalizes input [N, C, *] per channel: (x - mean) / sqrt(var + eps) *
/// weight + bias, with weight and bias [C] or undefined. In training the
/// batch's mean and biased variance are used, and running_mean and
/// running_var ([C] buffers, or undefined) are updated in place, in their
/// own storage: running = (1 - momentum) * running + momentum * batch
/// statistic, the variance unbiased. Otherwise the running statistics are
/// used (and must be defined). A training batch with one value per channel
/// is an error, as in PyTorch.
Variable batch_norm(const Variable& input, const Variable& running_mean,
                    const Variable& running_var, const Variable& weight = Variable(),
                    const Variable& bias = Variable(), bool training = false, double momentum = 0.1,
                    double eps = 1e-5);

/// Normalizes each channel of each sample of input [N, C, *] over its own
/// values (batch_norm of input viewed as [1, N * C, *]), then scales by
/// weight and shifts by bias ([C] or undefined). With use_input_stats the
/// sample statistics are used and running_mean and running_var ([C] or
/// undefined) move towards their average over the batch, in place;
/// otherwise the running statistics are used. One spatial element per
/// channel with use_input_stats is an error, as in PyTorch.
Variable instance_norm(const Variable& input, const Variable& running_mean = Variable(),
                       const Variable& running_var = Variable(),
                       const Variable& weight = Variable(), const Variable& bias = Variable(),
                       bool use_input_stats = true, double momentum = 0.1, double eps = 1e-5);

/// Splits the C channels of input [N, C, *] into num_groups groups and
/// normalizes each group of each sample over its values, then scales by
/// weight and shifts by bias ([C] or undefined).
Variable group_norm(const Variable& input, int64_t num_groups, const Variable& weight = Variable(),
                    const Variable& bias = Variable(), double eps = 1e-5);

/// input [N, C, *] divided by (k + alpha * mean of input^2 over a window of
/// `size` neighbouring channels) ^ beta, the window zero-padded by size / 2
/// channels before and (size - 1) / 2 after (PyTorch's formula).
Variable local_response_norm(const Variable& input, int64_t size, double alpha = 1e-4,
                             double beta = 0.75, double k = 1.0);

}  // namespace torchlet::nn::functional
