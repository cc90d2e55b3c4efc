#pragma once

// CPU loops of embedding_bag (tensor/embedding_bag.h validates and lays out
// their arguments): contiguous float32 or float64 rows, int64 indices and
// bag starts, padding_idx -1 for none.

#include <cstdint>

#include "tensor/embedding_bag.h"
#include "tensor/tensor_body.h"

namespace torchlet::cpu {

/// The first i in [1, count) with offsets[i] < offsets[i - 1], or -1.
int64_t first_decreasing_offset(const Tensor& offsets);
/// The first position of indices [N] whose value is outside
/// [0, num_embeddings), or -1.
int64_t first_index_out_of_range(const Tensor& indices, int64_t num_embeddings);

/// output [B, D], bag_size [B] and, in "max", max_rows [B, D] of the bags
/// of weight's rows.
void embedding_bag_forward_rows(const Tensor& output, const Tensor& bag_size,
                                const Tensor& max_rows, const Tensor& weight,
                                const Tensor& indices, const Tensor& starts, EmbeddingBagMode mode,
                                const Tensor& per_sample_weights, int64_t padding_idx);

/// grad_weight [E, D] (overwritten) from grad [B, D].
void embedding_bag_weight_grad_rows(const Tensor& grad_weight, const Tensor& grad,
                                    const Tensor& indices, const Tensor& starts,
                                    const Tensor& bag_size, const Tensor& max_rows,
                                    EmbeddingBagMode mode, const Tensor& per_sample_weights,
                                    int64_t padding_idx, bool scale_grad_by_freq);

/// grad_psw [N] (overwritten): each entry's dot of grad's bag row and
/// weight's row.
void embedding_bag_per_sample_weights_grad(const Tensor& grad_psw, const Tensor& grad,
                                           const Tensor& weight, const Tensor& indices,
                                           const Tensor& starts, int64_t padding_idx);

}  // namespace torchlet::cpu
