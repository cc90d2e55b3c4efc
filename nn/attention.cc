#include "nn/attention.h"

#include <utility>

#include "nn/functional/attention.h"
#include "nn/init.h"

namespace torchlet::nn {

std::shared_ptr<Module> NonDynamicallyQuantizableLinearImpl::clone(
    const std::optional<Device>& device) const {
  auto copy = std::make_shared<NonDynamicallyQuantizableLinearImpl>(*this);
  copy->clear_registrations();
  copy->reset();
  copy->copy_state_from(*this, device);
  return copy;
}

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options)
    : options_(options),
      kdim_(options.kdim().value_or(options.embed_dim())),
      vdim_(options.vdim().value_or(options.embed_dim())) {
  const int64_t embed_dim = options_.embed_dim();
  const int64_t num_heads = options_.num_heads();
  // PyTorch fails with ZeroDivisionError, or later in the initialization.
  TORCHLET_CHECK(num_heads > 0, "MultiheadAttention: num_heads must be positive, got ",
                 num_heads);
  TORCHLET_CHECK(embed_dim > 0 && kdim_ > 0 && vdim_ > 0,
                 "MultiheadAttention: embed_dim, kdim and vdim must be positive, got ", embed_dim,
                 ", ", kdim_, " and ", vdim_);
  head_dim_ = embed_dim / num_heads;
  TORCHLET_CHECK(head_dim_ * num_heads == embed_dim, "embed_dim must be divisible by num_heads");
  reset();
}

void MultiheadAttentionImpl::reset() {
  const int64_t e = embed_dim();
  if (!qkv_same_embed_dim()) {
    q_proj_weight = register_parameter("q_proj_weight", empty({e, e}));
    k_proj_weight = register_parameter("k_proj_weight", empty({e, kdim_}));
    v_proj_weight = register_parameter("v_proj_weight", empty({e, vdim_}));
    in_proj_weight = register_parameter("in_proj_weight", Tensor());
  } else {
    in_proj_weight = register_parameter("in_proj_weight", empty({3 * e, e}));
    q_proj_weight = register_parameter("q_proj_weight", Tensor());
    k_proj_weight = register_parameter("k_proj_weight", Tensor());
    v_proj_weight = register_parameter("v_proj_weight", Tensor());
  }
  in_proj_bias = register_parameter("in_proj_bias", options_.bias() ? empty({3 * e}) : Tensor());
  out_proj = register_module("out_proj", NonDynamicallyQuantizableLinear(e, e, options_.bias()));
  if (options_.add_bias_kv()) {
    bias_k = register_parameter("bias_k", empty({1, 1, e}));
    bias_v = register_parameter("bias_v", empty({1, 1, e}));
  } else {
    bias_k = Parameter();
    bias_v = Parameter();
  }
  reset_parameters();
}

void MultiheadAttentionImpl::reset_parameters() {
  if (qkv_same_embed_dim()) {
    init::xavier_uniform_(in_proj_weight);
  } else {
    init::xavier_uniform_(q_proj_weight);
    init::xavier_uniform_(k_proj_weight);
    init::xavier_uniform_(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    init::constant_(in_proj_bias, 0);
    init::constant_(out_proj->bias, 0);
  }
  if (bias_k.defined()) init::xavier_normal_(bias_k);
  if (bias_v.defined()) init::xavier_normal_(bias_v);
}

std::tuple<Variable, Variable> MultiheadAttentionImpl::forward(
    const Variable& query_in, const Variable& key_in, const Variable& value_in,
    const Variable& key_padding_mask, bool need_weights, const Variable& attn_mask,
    bool average_attn_weights) {
  TORCHLET_CHECK(query_in.defined() && key_in.defined() && value_in.defined(),
                 "MultiheadAttention: query, key and value must be defined");
  TORCHLET_CHECK(!key_padding_mask.defined() || key_padding_mask.dtype() == kBool ||
                     key_padding_mask.is_floating_point(),
                 "only bool and floating types of key_padding_mask are supported");
  const bool is_batched = query_in.dim() == 3;
  const bool transpose = options_.batch_first() && is_batched;
  Variable query = query_in, key = key_in, value = value_in;
  if (transpose) {
    // Transposing each once keeps query, key and value the same Variable
    // where they were (the in-projection's self-attention test).
    query = query_in.transpose(1, 0);
    key = key_in.is_same(query_in) ? query : key_in.transpose(1, 0);
    value = value_in.is_same(key_in) ? key : value_in.transpose(1, 0);
  }
  const MultiheadAttentionOptions& o = options_;
  auto [output, weights] = functional::multi_head_attention_forward(
      query, key, value, o.embed_dim(), o.num_heads(), in_proj_weight, in_proj_bias, bias_k,
      bias_v, o.add_zero_attn(), o.dropout(), out_proj->weight, out_proj->bias, is_training(),
      key_padding_mask, need_weights, attn_mask, !qkv_same_embed_dim(), q_proj_weight,
      k_proj_weight, v_proj_weight, Variable(), Variable(), average_attn_weights);
  if (transpose) output = output.transpose(1, 0);
  return {output, weights};
}

}  // namespace torchlet::nn
