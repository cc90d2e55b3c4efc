#pragma once

// Normalization (torch.nn.functional.layer_norm).

#include "autograd/variable.h"

namespace torchlet::nn::functional {

/// (x - mean) / sqrt(var + eps) * weight + bias, mean and (biased) var taken
/// over input's trailing normalized_shape dims; weight and bias have
/// normalized_shape or are undefined. One fused kernel forward and one
/// backward (mean and 1/std are saved).
Variable layer_norm(const Variable& input, IntArrayRef normalized_shape,
                    const Variable& weight = Variable(), const Variable& bias = Variable(),
                    double eps = 1e-5);

}  // namespace torchlet::nn::functional
