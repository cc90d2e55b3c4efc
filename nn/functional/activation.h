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
/// softmax(-x) over `dim`.
Variable softmin(const Variable& input, int64_t dim);
/// x * min(max(x + 3, 0), 6) / 6; the gradient is 0 below -3, x / 3 + 1/2
/// on [-3, 3) and 1 from 3 on (PyTorch's vectorized kernel; its scalar
/// tail loop gives 1.5 at exactly 3).
Variable hardswish(const Variable& input, bool inplace = false);
/// min(max(x + 3, 0), 6) / 6; the gradient is 1/6 (PyTorch's float
/// constant) strictly inside (-3, 3), else 0.
Variable hardsigmoid(const Variable& input, bool inplace = false);
/// log(sigmoid(x)), computed stably as -softplus(-x).
Variable logsigmoid(const Variable& input);
/// x / (1 + |x|).
Variable softsign(const Variable& input);
/// x - tanh(x).
Variable tanhshrink(const Variable& input);
/// x where x > threshold, else value (gradient 0 there, at x == threshold
/// too). Integer inputs stay integers, as PyTorch's.
Variable threshold(const Variable& input, double threshold, double value, bool inplace = false);
/// x - lambd above lambd, x + lambd below -lambd, else 0 (gradient 0 at
/// +-lambd); lambd must not be negative.
Variable softshrink(const Variable& input, double lambd = 0.5);
/// x outside [-lambd, lambd], else 0 (gradient 0 at +-lambd).
Variable hardshrink(const Variable& input, double lambd = 0.5);
/// a * sigmoid(b), a and b the first and second halves of input along dim
/// (whose size must be even).
Variable glu(const Variable& input, int64_t dim = -1);

}  // namespace torchlet::nn::functional
