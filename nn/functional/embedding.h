#pragma once

// Embedding lookup (torch.nn.functional.embedding).

#include <cstdint>
#include <optional>

#include "autograd/variable.h"

namespace torchlet::nn::functional {

/// Rows of weight [num_embeddings, D] at the int64 (or int32) indices in
/// input, of shape input.shape + [D]. The row padding_idx (negative counts
/// from the end) gets no gradient. With max_norm, every row input refers to
/// whose norm_type-norm exceeds max_norm is first rescaled to max_norm, in
/// place in weight (as PyTorch). With scale_grad_by_freq, a row's gradient
/// is divided by how often input refers to it.
Variable embedding(const Tensor& input, const Variable& weight,
                   std::optional<int64_t> padding_idx = std::nullopt,
                   std::optional<double> max_norm = std::nullopt, double norm_type = 2.0,
                   bool scale_grad_by_freq = false);

}  // namespace torchlet::nn::functional
