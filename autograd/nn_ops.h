#pragma once

// Differentiable forms of the fused nn kernels (tensor/nn_kernels.h), for
// torchlet::nn::functional. Each records one node whose backward is the
// fused kernel, or a Variable formula when the backward itself is recorded
// (create_graph), so second derivatives work.

#include <cstdint>
#include <optional>

#include "autograd/variable.h"

namespace torchlet {

/// How a loss reduces its per-element values.
enum class Reduction { kNone, kMean, kSum };

/// Cross-entropy of input's logits ([C] or [N, C, d1, ...]) for int64 class
/// indices target ([] or [N, d1, ...]), log_softmax and nll_loss in one op.
/// weight ([C] or undefined) rescales each class; targets equal to
/// ignore_index contribute nothing; "mean" divides by the summed weight of
/// the targets kept.
Variable cross_entropy_loss(const Variable& input, const Tensor& target, const Tensor& weight,
                            Reduction reduction, int64_t ignore_index, double label_smoothing);

/// Layer norm over input's trailing normalized_shape dims, with optional
/// elementwise weight and bias (undefined Variables for none).
Variable layer_norm(const Variable& input, IntArrayRef normalized_shape, const Variable& weight,
                    const Variable& bias, double eps);

/// Rows of weight [E, D] picked by int64 indices (any shape): indices.shape
/// + [D]. The row padding_idx gets no gradient; with scale_grad_by_freq each
/// row's gradient is divided by how often indices picks it.
Variable embedding(const Variable& weight, const Tensor& indices,
                   std::optional<int64_t> padding_idx, bool scale_grad_by_freq);

/// Elementwise binary cross-entropy of probabilities input and target (one
/// shape): -weight * (target * log(input) + (1 - target) * log(1 - input)),
/// each log clamped at -100. Its input gradient is PyTorch's,
/// weight * (input - target) / max(input * (1 - input), 1e-12), finite at 0
/// and 1. weight broadcasts to input (undefined for none).
Variable binary_cross_entropy(const Variable& input, const Variable& target,
                              const Tensor& weight);

}  // namespace torchlet
