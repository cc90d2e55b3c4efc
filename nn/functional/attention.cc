#include "nn/functional/attention.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "autograd/functions.h"
#include "nn/functional/activation.h"
#include "nn/functional/dropout.h"
#include "nn/functional/linear.h"
#include "nn/repr.h"
#include "tensor/warning.h"

namespace torchlet::nn::functional {

// Note [Multi-head attention]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// multi_head_attention_forward composes differentiable ops (linear, cat,
// view, bmm, baddbmm, softmax, dropout), so autograd gives every gradient,
// the masks' included when they are floating Variables that require grad.
// It follows PyTorch 1.13's steps and the order of their checks: the shape
// checks of _mha_shape_check, unbatched input unsqueezed at the batch dim,
// the in-projection (one linear for self-attention, whose output is
// chunked; q apart from a shared key/value otherwise), the attention mask
// made 3-D, bias_k/bias_v appended to the key and value (each mask padded
// with a column that masks nothing), the heads split into the batch dim
// ([N * num_heads, seq, head_dim]), add_zero_attn's zero step, then the
// masks merged into one additive mask, the scores q / sqrt(head_dim) @ kᵀ
// plus that mask, softmax, dropout in training, the weighted sum of the
// values and the out-projection.
//
// One deliberate difference: a floating key_padding_mask is always added to
// the scores. PyTorch 1.13 adds it only when there is no attn_mask; with a
// floating attn_mask it drops it silently (masked_fill with a non-bool
// mask), and with a bool attn_mask it masks where it is non-zero
// (logical_or). torchlet adds it in both cases, as PyTorch 2 does.

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

std::string torch_size(IntArrayRef sizes) { return "torch.Size(" + shape_str(sizes) + ")"; }

std::string torch_dtype(DType dtype) { return std::string("torch.") + dtype_name(dtype); }

// PyTorch's _mha_shape_check: whether the input is batched.
bool check_shapes(const Variable& query, const Variable& key, const Variable& value,
                  const Variable& key_padding_mask, const Variable& attn_mask,
                  int64_t num_heads) {
  if (query.dim() == 3) {
    TORCHLET_CHECK(key.dim() == 3 && value.dim() == 3,
                   "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found ",
                   key.dim(), "-D and ", value.dim(), "-D tensors respectively");
    TORCHLET_CHECK(!key_padding_mask.defined() || key_padding_mask.dim() == 2,
                   "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D "
                   "but found ",
                   key_padding_mask.dim(), "-D tensor instead");
    TORCHLET_CHECK(!attn_mask.defined() || attn_mask.dim() == 2 || attn_mask.dim() == 3,
                   "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                   "found ",
                   attn_mask.dim(), "-D tensor instead");
    return true;
  }
  TORCHLET_CHECK(query.dim() == 2,
                 "query should be unbatched 2D or batched 3D tensor but received ", query.dim(),
                 "-D query tensor");
  TORCHLET_CHECK(key.dim() == 2 && value.dim() == 2,
                 "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found ",
                 key.dim(), "-D and ", value.dim(), "-D tensors respectively");
  TORCHLET_CHECK(!key_padding_mask.defined() || key_padding_mask.dim() == 1,
                 "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D "
                 "but found ",
                 key_padding_mask.dim(), "-D tensor instead");
  if (attn_mask.defined()) {
    TORCHLET_CHECK(attn_mask.dim() == 2 || attn_mask.dim() == 3,
                   "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                   "but found ",
                   attn_mask.dim(), "-D tensor instead");
    if (attn_mask.dim() == 3) {
      const SizeVec expected = {num_heads, query.size(0), key.size(0)};
      TORCHLET_CHECK(attn_mask.sizes() == IntArrayRef(expected),
                     "Expected `attn_mask` shape to be ", detail::tuple_repr(expected),
                     " but got ", torch_size(attn_mask.sizes()));
    }
  }
  return false;
}

// The mask with one more column along its last dim that masks nothing
// (PyTorch's pad(mask, (0, 1))).
Variable pad_column(const Variable& mask) {
  SizeVec shape(mask.sizes().begin(), mask.sizes().end());
  shape.back() = 1;
  const Tensor column = zeros(shape, mask.options());
  if (mask.dtype() == kBool) return Variable(torchlet::cat({mask.data(), column}, -1));
  return cat({mask, Variable(column)}, -1);
}

// A mask as scores to add, of `dtype`: -inf where a bool mask is true.
Variable additive(const Variable& mask, DType dtype) {
  if (mask.dtype() == kBool) {
    Tensor scores = zeros(mask.sizes(), mask.options().dtype(dtype));
    scores.masked_fill_(mask.data(), kNegInf);
    return Variable(scores);
  }
  return mask.dtype() == dtype ? mask : mask.to(dtype);
}

// The attention mask [1 or B, L, S] and the key padding mask [B, 1, S]
// (B = N * num_heads) as one mask: PyTorch's logical_or of two bool masks,
// masked_fill of a floating attn_mask by a bool padding mask, else the sum
// (Note [Multi-head attention]).
Variable merge_masks(const Variable& attn_mask, const Variable& padding, DType dtype) {
  if (!attn_mask.defined()) return padding;
  if (attn_mask.dtype() == kBool && padding.dtype() == kBool) {
    return Variable(attn_mask.data().logical_or(padding.data()));
  }
  if (padding.dtype() == kBool) {
    const SizeVec shape = {padding.size(0), attn_mask.size(1), attn_mask.size(2)};
    return additive(attn_mask, dtype)
        .expand(shape)
        .masked_fill(padding.data().expand(shape), kNegInf);
  }
  return additive(attn_mask, dtype) + additive(padding, dtype);
}

// The in-projections (PyTorch's _in_projection_packed and _in_projection).
std::vector<Variable> project_packed(const Variable& q, const Variable& k, const Variable& v,
                                     const Variable& w, const Variable& b) {
  const int64_t e = q.size(-1);
  // PyTorch fails later, in a linear or a view.
  TORCHLET_CHECK(w.dim() == 2 && w.size(0) == 3 * e,
                 "multi_head_attention_forward: expecting in_proj_weight shape of ",
                 detail::tuple_repr({3 * e, e}), ", but got ", torch_size(w.sizes()));
  TORCHLET_CHECK(!b.defined() || (b.dim() == 1 && b.size(0) == 3 * e),
                 "multi_head_attention_forward: expecting in_proj_bias shape of ",
                 detail::tuple_repr({3 * e}), ", but got ", torch_size(b.sizes()));
  if (k.is_same(v)) {
    if (q.is_same(k)) return functional::linear(q, w, b).chunk(3, -1);  // self-attention
    const std::vector<Variable> w_parts = w.split_with_sizes({e, 2 * e});
    std::vector<Variable> b_parts(2);
    if (b.defined()) b_parts = b.split_with_sizes({e, 2 * e});
    std::vector<Variable> kv = functional::linear(k, w_parts[1], b_parts[1]).chunk(2, -1);
    return {functional::linear(q, w_parts[0], b_parts[0]), kv[0], kv[1]};
  }
  const std::vector<Variable> w_parts = w.chunk(3);
  std::vector<Variable> b_parts(3);
  if (b.defined()) b_parts = b.chunk(3);
  return {functional::linear(q, w_parts[0], b_parts[0]),
          functional::linear(k, w_parts[1], b_parts[1]),
          functional::linear(v, w_parts[2], b_parts[2])};
}

void check_projection(const char* what, const Variable& weight, int64_t rows, int64_t columns) {
  const SizeVec expected = {rows, columns};
  TORCHLET_CHECK(weight.sizes() == IntArrayRef(expected), "expecting ", what,
                 " weights shape of ", detail::tuple_repr(expected), ", but got ",
                 torch_size(weight.sizes()));
}

void check_projection_bias(const char* what, const Variable& bias, int64_t size) {
  const SizeVec expected = {size};
  TORCHLET_CHECK(!bias.defined() || bias.sizes() == IntArrayRef(expected), "expecting ", what,
                 " bias shape of ", detail::tuple_repr(expected), ", but got ",
                 bias.defined() ? torch_size(bias.sizes()) : "None");
}

std::vector<Variable> project_separate(const Variable& q, const Variable& k, const Variable& v,
                                       const Variable& w_q, const Variable& w_k,
                                       const Variable& w_v, const Variable& b) {
  const int64_t eq = q.size(-1);
  std::vector<Variable> b_parts(3);
  if (b.defined()) b_parts = b.chunk(3);
  b_parts.resize(3);
  check_projection("query", w_q, eq, eq);
  check_projection("key", w_k, eq, k.size(-1));
  check_projection("value", w_v, eq, v.size(-1));
  check_projection_bias("query", b_parts[0], eq);
  check_projection_bias("key", b_parts[1], eq);
  check_projection_bias("value", b_parts[2], eq);
  return {functional::linear(q, w_q, b_parts[0]), functional::linear(k, w_k, b_parts[1]),
          functional::linear(v, w_v, b_parts[2])};
}

// static_k or static_v in place of the projected key or value.
void check_static(const char* name, const Variable& s, int64_t batch_heads, int64_t head_dim) {
  TORCHLET_CHECK(s.dim() == 3, "expecting ", name, " to be 3-D, but got ",
                 torch_size(s.sizes()));
  TORCHLET_CHECK(s.size(0) == batch_heads, "expecting ", name, ".size(0) of ", batch_heads,
                 ", but got ", s.size(0));
  TORCHLET_CHECK(s.size(2) == head_dim, "expecting ", name, ".size(2) of ", head_dim,
                 ", but got ", s.size(2));
}

}  // namespace

std::tuple<Variable, Variable> multi_head_attention_forward(
    const Variable& query_in, const Variable& key_in, const Variable& value_in,
    int64_t embed_dim_to_check, int64_t num_heads, const Variable& in_proj_weight,
    const Variable& in_proj_bias, const Variable& bias_k, const Variable& bias_v,
    bool add_zero_attn, double dropout_p, const Variable& out_proj_weight,
    const Variable& out_proj_bias, bool training, const Variable& key_padding_mask_in,
    bool need_weights, const Variable& attn_mask_in, bool use_separate_proj_weight,
    const Variable& q_proj_weight, const Variable& k_proj_weight,
    const Variable& v_proj_weight, const Variable& static_k, const Variable& static_v,
    bool average_attn_weights) {
  TORCHLET_CHECK(query_in.defined() && key_in.defined() && value_in.defined(),
                 "multi_head_attention_forward: query, key and value must be defined");
  const bool is_batched = check_shapes(query_in, key_in, value_in, key_padding_mask_in,
                                       attn_mask_in, num_heads);
  Variable query = query_in, key = key_in, value = value_in;
  Variable key_padding_mask = key_padding_mask_in;
  if (!is_batched) {
    // Unsqueezing each once keeps query, key and value the same Variable
    // where they were (the in-projection's self-attention test).
    query = query_in.unsqueeze(1);
    key = key_in.is_same(query_in) ? query : key_in.unsqueeze(1);
    value = value_in.is_same(key_in) ? key : value_in.unsqueeze(1);
    if (key_padding_mask.defined()) key_padding_mask = key_padding_mask.unsqueeze(0);
  }

  const int64_t tgt_len = query.size(0);
  const int64_t bsz = query.size(1);
  const int64_t embed_dim = query.size(2);
  TORCHLET_CHECK(!key_padding_mask.defined() || key_padding_mask.dtype() == kBool ||
                     key_padding_mask.is_floating_point(),
                 "only bool and floating types of key_padding_mask are supported");
  TORCHLET_CHECK(embed_dim == embed_dim_to_check, "was expecting embedding dimension of ",
                 embed_dim_to_check, ", but got ", embed_dim);
  // PyTorch fails with ZeroDivisionError.
  TORCHLET_CHECK(num_heads > 0, "multi_head_attention_forward: num_heads must be positive, got ",
                 num_heads);
  const int64_t head_dim = embed_dim / num_heads;
  TORCHLET_CHECK(head_dim * num_heads == embed_dim, "embed_dim ", embed_dim,
                 " not divisible by num_heads ", num_heads);
  if (use_separate_proj_weight) {
    TORCHLET_CHECK(key.sizes().subspan(0, 2) == value.sizes().subspan(0, 2),
                   "key's sequence and batch dims ", torch_size(key.sizes().subspan(0, 2)),
                   " do not match value's ", torch_size(value.sizes().subspan(0, 2)));
  } else {
    TORCHLET_CHECK(key.sizes() == value.sizes(), "key shape ", torch_size(key.sizes()),
                   " does not match value shape ", torch_size(value.sizes()));
  }

  // ---- In-projection ----
  std::vector<Variable> qkv;
  if (!use_separate_proj_weight) {
    TORCHLET_CHECK(in_proj_weight.defined(),
                   "use_separate_proj_weight is False but in_proj_weight is None");
    qkv = project_packed(query, key, value, in_proj_weight, in_proj_bias);
  } else {
    TORCHLET_CHECK(q_proj_weight.defined(),
                   "use_separate_proj_weight is True but q_proj_weight is None");
    TORCHLET_CHECK(k_proj_weight.defined(),
                   "use_separate_proj_weight is True but k_proj_weight is None");
    TORCHLET_CHECK(v_proj_weight.defined(),
                   "use_separate_proj_weight is True but v_proj_weight is None");
    qkv = project_separate(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight,
                           in_proj_bias);
  }
  Variable q = qkv[0], k = qkv[1], v = qkv[2];

  // ---- The attention mask, 3-D ----
  Variable attn_mask = attn_mask_in;
  if (attn_mask.defined()) {
    if (attn_mask.dtype() == kUInt8) {
      warn("Byte tensor for attn_mask in nn.MultiheadAttention is deprecated. Use bool tensor "
           "instead.");
      attn_mask = Variable(attn_mask.data().to(kBool));
    } else {
      TORCHLET_CHECK(attn_mask.is_floating_point() || attn_mask.dtype() == kBool,
                     "Only float, byte, and bool types are supported for attn_mask, not ",
                     torch_dtype(attn_mask.dtype()));
    }
    if (attn_mask.dim() == 2) {
      const SizeVec expected = {tgt_len, key.size(0)};
      TORCHLET_CHECK(attn_mask.sizes() == IntArrayRef(expected),
                     "The shape of the 2D attn_mask is ", torch_size(attn_mask.sizes()),
                     ", but should be ", detail::tuple_repr(expected), ".");
      attn_mask = attn_mask.unsqueeze(0);
    } else if (attn_mask.dim() == 3) {
      const SizeVec expected = {bsz * num_heads, tgt_len, key.size(0)};
      TORCHLET_CHECK(attn_mask.sizes() == IntArrayRef(expected),
                     "The shape of the 3D attn_mask is ", torch_size(attn_mask.sizes()),
                     ", but should be ", detail::tuple_repr(expected), ".");
    } else {
      TORCHLET_INTERNAL_ASSERT(false, "attn_mask's dimension ", attn_mask.dim(),
                               " is not supported");
    }
  }

  // ---- bias_k, bias_v: one more key step ----
  TORCHLET_CHECK(bias_k.defined() == bias_v.defined(),
                 "multi_head_attention_forward: bias_k and bias_v must be given together");
  if (bias_k.defined()) {
    TORCHLET_CHECK(!static_k.defined(), "bias cannot be added to static key.");
    TORCHLET_CHECK(!static_v.defined(), "bias cannot be added to static value.");
    k = cat({k, bias_k.expand({1, bsz, bias_k.size(-1)})});
    v = cat({v, bias_v.expand({1, bsz, bias_v.size(-1)})});
    if (attn_mask.defined()) attn_mask = pad_column(attn_mask);
    if (key_padding_mask.defined()) key_padding_mask = pad_column(key_padding_mask);
  }

  // ---- The heads into the batch dim: [N * num_heads, seq, head_dim] ----
  const int64_t batch_heads = bsz * num_heads;
  q = q.contiguous().view({tgt_len, batch_heads, head_dim}).transpose(0, 1);
  if (!static_k.defined()) {
    k = k.contiguous().view({k.size(0), batch_heads, head_dim}).transpose(0, 1);
  } else {
    check_static("static_k", static_k, batch_heads, head_dim);
    k = static_k;
  }
  if (!static_v.defined()) {
    v = v.contiguous().view({v.size(0), batch_heads, head_dim}).transpose(0, 1);
  } else {
    check_static("static_v", static_v, batch_heads, head_dim);
    v = static_v;
  }

  if (add_zero_attn) {
    const Tensor zero_step = zeros({batch_heads, 1, head_dim}, k.options());
    k = cat({k, Variable(zero_step)}, 1);
    v = cat({v, Variable(zeros({batch_heads, 1, head_dim}, v.options()))}, 1);
    if (attn_mask.defined()) attn_mask = pad_column(attn_mask);
    if (key_padding_mask.defined()) key_padding_mask = pad_column(key_padding_mask);
  }
  const int64_t src_len = k.size(1);

  // ---- One mask ----
  if (key_padding_mask.defined()) {
    const SizeVec expected = {bsz, src_len};
    TORCHLET_CHECK(key_padding_mask.sizes() == IntArrayRef(expected),
                   "expecting key_padding_mask shape of ", detail::tuple_repr(expected),
                   ", but got ", torch_size(key_padding_mask.sizes()));
    const Variable padding = key_padding_mask.view({bsz, 1, 1, src_len})
                                 .expand({bsz, num_heads, 1, src_len})
                                 .reshape({batch_heads, 1, src_len});
    attn_mask = merge_masks(attn_mask, padding, q.dtype());
  }
  if (attn_mask.defined()) attn_mask = additive(attn_mask, q.dtype());

  // ---- Attention and the out-projection ----
  const Variable q_scaled = q / std::sqrt(static_cast<double>(head_dim));
  const Variable k_t = k.transpose(-2, -1);
  Variable weights = attn_mask.defined() ? baddbmm(attn_mask, q_scaled, k_t) : bmm(q_scaled, k_t);
  weights = functional::softmax(weights, -1);
  if (training && dropout_p > 0) weights = functional::dropout(weights, dropout_p);

  Variable output = bmm(weights, v);
  output = output.transpose(0, 1).contiguous().view({tgt_len * bsz, embed_dim});
  output = functional::linear(output, out_proj_weight, out_proj_bias);
  output = output.view({tgt_len, bsz, output.size(1)});
  if (!is_batched) output = output.squeeze(1);
  if (!need_weights) return {output, Variable()};

  weights = weights.view({bsz, num_heads, tgt_len, src_len});
  if (average_attn_weights) weights = weights.sum({1}) / static_cast<double>(num_heads);
  if (!is_batched) weights = weights.squeeze(0);
  return {output, weights};
}

}  // namespace torchlet::nn::functional
