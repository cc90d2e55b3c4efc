#pragma once

// Fused kernels behind torchlet::nn::functional: cross-entropy and layer
// norm, forward and backward, each one pass over its data. They validate
// their arguments with PyTorch 1.13's messages; the differentiable forms live
// in autograd/nn_ops.h.

#include <cstdint>

#include "tensor/tensor_body.h"

namespace torchlet {

/// nll_loss's checks of class-index targets, with PyTorch's messages: input
/// [C] or [N, C, d1, ...] of floats, target [] or [N, d1, ...] of int64
/// classes in [0, C) or ignore_index, weight [C] or undefined.
void check_class_indices(const Tensor& input, const Tensor& target, const Tensor& weight,
                         int64_t ignore_index);
/// cross_entropy's checks of class-probability targets (input's shape and
/// dtype) and of label_smoothing.
void check_class_probabilities(const Tensor& input, const Tensor& target, const Tensor& weight,
                               double label_smoothing);

/// The forward of cross-entropy over class indices.
struct CrossEntropyForward {
  /// Per-sample losses, target's shape (zero where the target is ignored).
  Tensor loss;
  /// Softmax of the input over the class dim, laid out [samples, C]: what the
  /// backward needs (gradient = softmax - one-hot, scaled).
  Tensor probs;
  /// Sum of the weights of the targets not ignored (their count without a
  /// weight): the divisor of reduction "mean".
  double total_weight = 0;
};

/// log_softmax and nll_loss fused: input [C] or [N, C, d1, ...] of floats,
/// target [] or [N, d1, ...] of int64 class indices, weight [C] or undefined.
/// With label_smoothing s, the loss is (1 - s) * nll + s / C * the
/// (weighted) sum of -log_softmax over the classes, as PyTorch.
CrossEntropyForward cross_entropy_forward(const Tensor& input, const Tensor& target,
                                          const Tensor& weight, int64_t ignore_index,
                                          double label_smoothing);

/// The gradient of cross_entropy_forward's per-sample losses, each seeded by
/// grad_loss (target's shape, may be expanded) times `scale`, with respect to
/// the input (input's shape).
Tensor cross_entropy_backward(const Tensor& grad_loss, double scale, const Tensor& probs,
                              const Tensor& target, const Tensor& weight, IntArrayRef input_shape,
                              int64_t ignore_index, double label_smoothing);

/// The forward of layer norm over the last dims.
struct LayerNormForward {
  Tensor output;
  /// Mean and 1 / sqrt(var + eps) of each normalized row, [rows].
  Tensor mean;
  Tensor rstd;
};

/// Normalizes input over its trailing `normalized_shape` dims, then scales
/// by weight and shifts by bias (each normalized_shape, or undefined).
LayerNormForward layer_norm_forward(const Tensor& input, IntArrayRef normalized_shape,
                                    const Tensor& weight, const Tensor& bias, double eps);

struct LayerNormBackward {
  Tensor grad_input;
  Tensor grad_weight;  // undefined without weight
  Tensor grad_bias;    // undefined without bias
};

/// Gradients of layer_norm_forward from grad_out and the saved mean and rstd.
LayerNormBackward layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                      IntArrayRef normalized_shape, const Tensor& mean,
                                      const Tensor& rstd, const Tensor& weight, bool has_bias);

/// Rescales, in place, each row of weight [num_embeddings, D] that indices
/// refer to and whose norm_type-norm exceeds max_norm, to norm max_norm
/// (PyTorch's embedding_renorm_).
void embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm,
                       double norm_type);

}  // namespace torchlet
