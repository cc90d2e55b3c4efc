#pragma once

// Embedding lookup (torch.nn.functional.embedding) and bags of embeddings
// reduced by sum, mean or max (torch.nn.functional.embedding_bag).

#include <cstdint>
#include <optional>
#include <string>

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

/// Sums, means or maxes of bags of rows of weight [num_embeddings, D]
/// (torch.nn.functional.embedding_bag), of shape [B, D].
///
/// A 2-D input [B, L] (int64 or int32) is B bags of L indices; offsets must
/// then be undefined. A 1-D input [N] is cut into bags at offsets (1-D, int64
/// or int32, non-decreasing, offsets[0] == 0, every offset <= N): bag b holds
/// input[offsets[b] : offsets[b + 1]], the last one running to N; with
/// include_last_offset, offsets has B + 1 entries and the last bag ends at
/// offsets[B]. An empty bag gives zeros.
///
/// mode is "sum", "mean" or "max" (per coordinate, the first maximum gets
/// the gradient). Entries equal to padding_idx (negative counts from the
/// end) are left out of their bag: they add nothing, do not count in a
/// mean, and get no gradient. per_sample_weights (undefined for none; of
/// input's shape and weight's dtype, "sum" only) scales each entry's row
/// and gets a gradient. max_norm and scale_grad_by_freq act as in
/// embedding(); "max" does not take scale_grad_by_freq. sparse must be
/// false: sparse gradients are not supported.
Variable embedding_bag(const Tensor& input, const Variable& weight,
                       const Tensor& offsets = Tensor(),
                       std::optional<double> max_norm = std::nullopt, double norm_type = 2.0,
                       bool scale_grad_by_freq = false, const std::string& mode = "mean",
                       bool sparse = false, const Variable& per_sample_weights = Variable(),
                       bool include_last_offset = false,
                       std::optional<int64_t> padding_idx = std::nullopt);

}  // namespace torchlet::nn::functional
