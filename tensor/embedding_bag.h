#pragma once

// The fused kernels of embedding_bag (torch.nn.functional.embedding_bag):
// bags of rows of a weight [num_embeddings, D] reduced by sum, mean or max
// straight into each bag's output row, and the dense gradients of the
// weight and of per_sample_weights. The differentiable form lives in
// nn/functional/embedding.h. Bags are laid out once (embedding_bag_bags,
// which checks the indices and offsets with PyTorch 1.13's messages) and
// passed to the forward and backward kernels. float16 and bfloat16 weights
// compute in float32 (Note [Reduced floating point]).

#include <cstdint>
#include <optional>

#include "tensor/tensor_body.h"

namespace torchlet {

enum class EmbeddingBagMode { kSum, kMean, kMax };

/// The entries of an embedding_bag call and where its bags start.
struct EmbeddingBags {
  /// int64 [N], contiguous: the flattened input, each in [0, num_embeddings).
  Tensor indices;
  /// int64 [B + 1], non-decreasing: bag b holds the entries
  /// [starts[b], starts[b + 1]); entries from starts[B] on are in no bag.
  Tensor starts;
};

/// Lays out the bags of input (int64 or int32, [B, L] or, cut at offsets,
/// [N]) and checks them as embedding_bag does, with PyTorch's messages:
/// offsets[0] == 0, offsets non-decreasing and at most N, at least one offset
/// with include_last_offset, and every index in [0, num_embeddings). offsets
/// is undefined for a 2-D input.
EmbeddingBags embedding_bag_bags(const Tensor& input, const Tensor& offsets,
                                 bool include_last_offset, int64_t num_embeddings);

struct EmbeddingBagForward {
  /// [B, D], the weight's dtype; zeros for an empty bag.
  Tensor output;
  /// int64 [B]: the entries of each bag that are not padding_idx.
  Tensor bag_size;
  /// "max" only, int64 [B, D]: the row of weight holding each bag and
  /// column's first maximum, -1 in an empty bag.
  Tensor max_rows;
};

/// Reduces each bag's rows of weight [num_embeddings, D] (float16, bfloat16,
/// float32 or float64): their sum (each scaled by its per_sample_weights
/// entry, [N] of weight's dtype, when defined; "sum" only), mean or
/// per-column maximum (the first on ties). Entries equal to padding_idx are
/// left out. Bags run in parallel on the current device's intra-op threads.
EmbeddingBagForward embedding_bag_forward(const Tensor& weight, const EmbeddingBags& bags,
                                          EmbeddingBagMode mode,
                                          const Tensor& per_sample_weights,
                                          std::optional<int64_t> padding_idx);

/// The dense gradient [num_embeddings, D] of weight from grad [B, D]: each
/// bag's gradient row, scaled (by the entry's per_sample_weights in "sum",
/// 1 / bag_size in "mean"), added into its entries' rows, or in "max" each
/// column into the row holding its maximum. With scale_grad_by_freq, a
/// row's gradient is divided by how often the bags refer to it. Rows are
/// split across threads, each row summed in entry order: the same bits on
/// any number of threads.
Tensor embedding_bag_backward_weight(const Tensor& grad, const EmbeddingBags& bags,
                                     const EmbeddingBagForward& forward, int64_t num_embeddings,
                                     EmbeddingBagMode mode, const Tensor& per_sample_weights,
                                     std::optional<int64_t> padding_idx, bool scale_grad_by_freq);

/// The gradient [N] of per_sample_weights ("sum"): for each entry, the dot
/// product of its bag's row of grad [B, D] with its row of weight; 0 for
/// padding and for entries in no bag.
Tensor embedding_bag_backward_per_sample_weights(const Tensor& grad, const Tensor& weight,
                                                 const EmbeddingBags& bags,
                                                 std::optional<int64_t> padding_idx);

}  // namespace torchlet
