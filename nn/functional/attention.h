#pragma once

// Multi-head attention (torch.nn.functional.multi_head_attention_forward),
// with PyTorch 1.13's semantics, checks and messages. See Note [Multi-head
// attention] in nn/functional/attention.cc.

#include <cstdint>
#include <tuple>

#include "autograd/variable.h"

namespace torchlet::nn::functional {

/// Attention of query over (key, value) with num_heads heads, as
/// torch.nn.functional.multi_head_attention_forward; an undefined Variable
/// stands for PyTorch's None.
///
/// query [L, N, E] (unbatched [L, E]), key [S, N, Ek] and value [S, N, Ev]
/// (unbatched [S, Ek], [S, Ev]); E must be embed_dim_to_check and divisible
/// by num_heads. The projections are in_proj_weight [3E, E] (rows q, k, v)
/// or, with use_separate_proj_weight, q_proj_weight [E, E], k_proj_weight
/// [E, Ek] and v_proj_weight [E, Ev]; in_proj_bias [3E] is optional either
/// way. bias_k and bias_v ([1, 1, E], both or neither) append one step to
/// the projected key and value; add_zero_attn appends a step of zeros after
/// the heads are split. static_k and static_v [N * num_heads, S', E /
/// num_heads] replace the projected key and value.
///
/// key_padding_mask [N, S] ([S] unbatched) and attn_mask [L, S] or [N *
/// num_heads, L, S] are bool (true: may not attend), uint8 (attn_mask only;
/// deprecated, warns) or floating (added to the scores). In training,
/// dropout_p drops attention weights.
///
/// Returns the output [L, N, E] ([L, E]) and, with need_weights, the
/// attention weights [N, L, S] averaged over the heads ([N, num_heads, L,
/// S] without average_attn_weights; without N unbatched), else an
/// undefined Variable.
std::tuple<Variable, Variable> multi_head_attention_forward(
    const Variable& query, const Variable& key, const Variable& value,
    int64_t embed_dim_to_check, int64_t num_heads, const Variable& in_proj_weight,
    const Variable& in_proj_bias, const Variable& bias_k, const Variable& bias_v,
    bool add_zero_attn, double dropout_p, const Variable& out_proj_weight,
    const Variable& out_proj_bias, bool training = true,
    const Variable& key_padding_mask = Variable(), bool need_weights = true,
    const Variable& attn_mask = Variable(), bool use_separate_proj_weight = false,
    const Variable& q_proj_weight = Variable(), const Variable& k_proj_weight = Variable(),
    const Variable& v_proj_weight = Variable(), const Variable& static_k = Variable(),
    const Variable& static_v = Variable(), bool average_attn_weights = true);

}  // namespace torchlet::nn::functional
