#pragma once

// Activation functions (torch.nn.functional), each with PyTorch 1.13's
// value and gradient at its edge points. `inplace` writes the result into
// input and returns it (an error on a leaf that requires grad, as PyTorch).

#include <cstdint>
#include <string>

#include "autograd/variable.h"

namespace torchlet::nn::functional {

/// max(0, x).
Variable relu(const Variable& input, bool inplace = false);
/// min(max(0, x), 6); the gradient is 0 at 0 and 6.
Variable relu6(const Variable& input, bool inplace = false);
/// x for x > 0, else negative_slope * x (the gradient at 0 is negative_slope).
Variable leaky_relu(const Variable& input, double negative_slope = 0.01, bool inplace = false);
/// x for x > 0, else weight * x, weight being one number or one per channel
/// (dim 1 of input).
Variable prelu(const Variable& input, const Variable& weight);
/// x for x > 0, else alpha * (exp(x) - 1).
Variable elu(const Variable& input, double alpha = 1.0, bool inplace = false);
/// scale * elu(x, alpha) with PyTorch's constants.
Variable selu(const Variable& input, bool inplace = false);
/// x for x > 0, else alpha * (exp(x / alpha) - 1).
Variable celu(const Variable& input, double alpha = 1.0, bool inplace = false);
/// x * Phi(x); approximate "tanh" uses the tanh approximation.
Variable gelu(const Variable& input, const std::string& approximate = "none");
/// x * sigmoid(x).
Variable silu(const Variable& input, bool inplace = false);
/// x * tanh(softplus(x)).
Variable mish(const Variable& input, bool inplace = false);
Variable sigmoid(const Variable& input);
Variable tanh(const Variable& input);
/// x clamped to [min_val, max_val]; the gradient is 0 at both bounds.
Variable hardtanh(const Variable& input, double min_val = -1.0, double max_val = 1.0,
                  bool inplace = false);
/// log(1 + exp(beta * x)) / beta, or x where beta * x > threshold.
Variable softplus(const Variable& input, double beta = 1.0, double threshold = 20.0);
Variable softmax(const Variable& input, int64_t dim);
Variable log_softmax(const Variable& input, int64_t dim);

}  // namespace torchlet::nn::functional
