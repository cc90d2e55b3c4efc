#include "nn/transformer.h"

#include <limits>
#include <memory>
#include <string>

#include "nn/functional/activation.h"
#include "nn/init.h"

namespace torchlet::nn {

// Note [Transformer layers]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// The layers follow PyTorch 1.13's Python code: children registered in its
// order (so state_dict keys and reprs are PyTorch's), post-norm
//   x = norm1(x + dropout1(self_attn(x))); x = norm2(x + dropout2(ff(x)))
// or, with norm_first, pre-norm
//   x = x + dropout1(self_attn(norm1(x))); x = x + dropout2(ff(norm2(x)))
// with ff(x) = linear2(dropout(activation(linear1(x)))); the decoder layer
// adds attention over the memory between the two blocks. Each child is
// called through call() so that its hooks run, as in PyTorch.
//
// PyTorch switches to fused kernels (_transformer_encoder_layer_fwd,
// nested tensors for padded batches) in eval mode without autograd; they
// compute the same function. torchlet always takes the ordinary path.
//
// TransformerEncoder and TransformerDecoder hold deep copies of the layer
// given (PyTorch's _get_clones); the norm given is registered itself.
// Transformer builds both and draws xavier-uniform values into every
// parameter of more than one dimension.

namespace {

// The layer's activation function (PyTorch's _get_activation_fn).
TransformerActivation::Function resolve(const TransformerActivation& activation) {
  if (activation.name().empty()) {
    TORCHLET_CHECK(static_cast<bool>(activation.function()),
                   "activation should be relu/gelu or a function, got an empty function");
    return activation.function();
  }
  if (activation.name() == "relu") {
    return [](const Variable& x) { return functional::relu(x); };
  }
  if (activation.name() == "gelu") {
    return [](const Variable& x) { return functional::gelu(x); };
  }
  TORCHLET_CHECK(false, "activation should be relu/gelu, not ", activation.name());
  return {};
}

void check_key_padding_mask(const Variable& mask) {
  TORCHLET_CHECK(!mask.defined() || mask.dtype() == kBool || mask.is_floating_point(),
                 "only bool and floating types of key_padding_mask are supported");
}

void check_layer_options(const TransformerLayerOptions& o, const char* name) {
  TORCHLET_CHECK(o.d_model() > 0 && o.dim_feedforward() > 0, name,
                 ": d_model and dim_feedforward must be positive, got ", o.d_model(), " and ",
                 o.dim_feedforward());
}

MultiheadAttention attention(const TransformerLayerOptions& o) {
  return MultiheadAttention(MultiheadAttentionOptions(o.d_model(), o.nhead())
                                .dropout(o.dropout())
                                .batch_first(o.batch_first()));
}

LayerNorm layer_norm(const TransformerLayerOptions& o) {
  return LayerNorm(LayerNormOptions({o.d_model()}).eps(o.layer_norm_eps()));
}

// What a layer's self-attention block returns: the attention output,
// through dropout.
Variable attend(MultiheadAttention& attn, Dropout& drop, const Variable& x, const Variable& mem,
                const Variable& attn_mask, const Variable& key_padding_mask) {
  const Variable out =
      std::get<0>(attn(x, mem, mem, key_padding_mask, /*need_weights=*/false, attn_mask));
  return drop(out);
}

// The copy of `holder`'s module kept by a clone, or `given` at construction
// (Note [Transformer layers]).
template <typename Holder>
Holder own_or_copy(const Holder& current, const Holder& given) {
  if (current.is_empty()) return given;
  return Holder(std::dynamic_pointer_cast<typename Holder::ContainedType>(current->clone()));
}

}  // namespace

// ---- TransformerEncoderLayer ---------------------------------------------------------

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(
    const TransformerEncoderLayerOptions& options)
    : options_(options) {
  check_layer_options(options_, "TransformerEncoderLayer");
  activation_ = resolve(options_.activation());
  reset();
}

void TransformerEncoderLayerImpl::reset() {
  const TransformerLayerOptions& o = options_;
  self_attn = register_module("self_attn", attention(o));
  linear1 = register_module("linear1", Linear(o.d_model(), o.dim_feedforward()));
  dropout = register_module("dropout", Dropout(o.dropout()));
  linear2 = register_module("linear2", Linear(o.dim_feedforward(), o.d_model()));
  norm1 = register_module("norm1", layer_norm(o));
  norm2 = register_module("norm2", layer_norm(o));
  dropout1 = register_module("dropout1", Dropout(o.dropout()));
  dropout2 = register_module("dropout2", Dropout(o.dropout()));
}

Variable TransformerEncoderLayerImpl::forward(const Variable& src, const Variable& src_mask,
                                              const Variable& src_key_padding_mask) {
  check_key_padding_mask(src_key_padding_mask);
  auto sa_block = [&](const Variable& x) {
    return attend(self_attn, dropout1, x, x, src_mask, src_key_padding_mask);
  };
  auto ff_block = [&](const Variable& x) {
    return dropout2(linear2(dropout(activation_(linear1(x)))));
  };
  Variable x = src;
  if (options_.norm_first()) {
    x = x + sa_block(norm1(x));
    x = x + ff_block(norm2(x));
  } else {
    x = norm1(x + sa_block(x));
    x = norm2(x + ff_block(x));
  }
  return x;
}

// ---- TransformerDecoderLayer ---------------------------------------------------------

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(
    const TransformerDecoderLayerOptions& options)
    : options_(options) {
  check_layer_options(options_, "TransformerDecoderLayer");
  activation_ = resolve(options_.activation());
  reset();
}

void TransformerDecoderLayerImpl::reset() {
  const TransformerLayerOptions& o = options_;
  self_attn = register_module("self_attn", attention(o));
  multihead_attn = register_module("multihead_attn", attention(o));
  linear1 = register_module("linear1", Linear(o.d_model(), o.dim_feedforward()));
  dropout = register_module("dropout", Dropout(o.dropout()));
  linear2 = register_module("linear2", Linear(o.dim_feedforward(), o.d_model()));
  norm1 = register_module("norm1", layer_norm(o));
  norm2 = register_module("norm2", layer_norm(o));
  norm3 = register_module("norm3", layer_norm(o));
  dropout1 = register_module("dropout1", Dropout(o.dropout()));
  dropout2 = register_module("dropout2", Dropout(o.dropout()));
  dropout3 = register_module("dropout3", Dropout(o.dropout()));
}

Variable TransformerDecoderLayerImpl::forward(const Variable& tgt, const Variable& memory,
                                              const Variable& tgt_mask,
                                              const Variable& memory_mask,
                                              const Variable& tgt_key_padding_mask,
                                              const Variable& memory_key_padding_mask) {
  auto sa_block = [&](const Variable& x) {
    return attend(self_attn, dropout1, x, x, tgt_mask, tgt_key_padding_mask);
  };
  auto mha_block = [&](const Variable& x) {
    return attend(multihead_attn, dropout2, x, memory, memory_mask, memory_key_padding_mask);
  };
  auto ff_block = [&](const Variable& x) {
    return dropout3(linear2(dropout(activation_(linear1(x)))));
  };
  Variable x = tgt;
  if (options_.norm_first()) {
    x = x + sa_block(norm1(x));
    x = x + mha_block(norm2(x));
    x = x + ff_block(norm3(x));
  } else {
    x = norm1(x + sa_block(x));
    x = norm2(x + mha_block(x));
    x = norm3(x + ff_block(x));
  }
  return x;
}

// ---- TransformerEncoder, TransformerDecoder ---------------------------------------------

TransformerEncoderImpl::TransformerEncoderImpl(const TransformerEncoderOptions& options)
    : options_(options) {
  TORCHLET_CHECK(!options_.encoder_layer().is_empty(),
                 "TransformerEncoder: encoder_layer must not be empty");
  TORCHLET_CHECK(options_.num_layers() >= 1,
                 "TransformerEncoder: num_layers must be at least 1, got ", options_.num_layers());
  reset();
}

void TransformerEncoderImpl::reset() {
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < options_.num_layers(); ++i) {
    layers->push_back(options_.encoder_layer()->clone());
  }
  if (!options_.norm().is_empty()) {
    norm = register_module("norm", own_or_copy(norm, options_.norm()));
  }
}

Variable TransformerEncoderImpl::forward(const Variable& src, const Variable& mask,
                                         const Variable& src_key_padding_mask) {
  check_key_padding_mask(src_key_padding_mask);
  Variable output = src;
  for (size_t i = 0; i < layers->size(); ++i) {
    auto layer = layers->ptr<TransformerEncoderLayerImpl>(static_cast<int64_t>(i));
    output = call(*layer, output, mask, src_key_padding_mask);
  }
  if (!norm.is_empty()) output = norm(output);
  return output;
}

TransformerDecoderImpl::TransformerDecoderImpl(const TransformerDecoderOptions& options)
    : options_(options) {
  TORCHLET_CHECK(!options_.decoder_layer().is_empty(),
                 "TransformerDecoder: decoder_layer must not be empty");
  TORCHLET_CHECK(options_.num_layers() >= 1,
                 "TransformerDecoder: num_layers must be at least 1, got ", options_.num_layers());
  reset();
}

void TransformerDecoderImpl::reset() {
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < options_.num_layers(); ++i) {
    layers->push_back(options_.decoder_layer()->clone());
  }
  if (!options_.norm().is_empty()) {
    norm = register_module("norm", own_or_copy(norm, options_.norm()));
  }
}

Variable TransformerDecoderImpl::forward(const Variable& tgt, const Variable& memory,
                                         const Variable& tgt_mask, const Variable& memory_mask,
                                         const Variable& tgt_key_padding_mask,
                                         const Variable& memory_key_padding_mask) {
  Variable output = tgt;
  for (size_t i = 0; i < layers->size(); ++i) {
    auto layer = layers->ptr<TransformerDecoderLayerImpl>(static_cast<int64_t>(i));
    output = call(*layer, output, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                  memory_key_padding_mask);
  }
  if (!norm.is_empty()) output = norm(output);
  return output;
}

// ---- Transformer ---------------------------------------------------------------------------

TransformerImpl::TransformerImpl(const TransformerOptions& options) : options_(options) {
  reset();
}

void TransformerImpl::reset() {
  const TransformerOptions& o = options_;
  const TransformerLayerOptions layer = TransformerLayerOptions(o.d_model(), o.nhead())
                                            .dim_feedforward(o.dim_feedforward())
                                            .dropout(o.dropout())
                                            .activation(o.activation())
                                            .layer_norm_eps(o.layer_norm_eps())
                                            .batch_first(o.batch_first())
                                            .norm_first(o.norm_first());
  const LayerNormOptions norm = LayerNormOptions({o.d_model()}).eps(o.layer_norm_eps());
  if (!o.custom_encoder().is_empty()) {
    encoder = register_module("encoder", own_or_copy(encoder, o.custom_encoder()));
  } else {
    encoder = register_module(
        "encoder",
        TransformerEncoder(TransformerEncoderLayer(layer), o.num_encoder_layers(),
                           LayerNorm(norm)));
  }
  if (!o.custom_decoder().is_empty()) {
    decoder = register_module("decoder", own_or_copy(decoder, o.custom_decoder()));
  } else {
    decoder = register_module(
        "decoder",
        TransformerDecoder(TransformerDecoderLayer(layer), o.num_decoder_layers(),
                           LayerNorm(norm)));
  }
  reset_parameters();
}

void TransformerImpl::reset_parameters() {
  for (const Variable& p : parameters()) {
    if (p.dim() > 1) init::xavier_uniform_(p);
  }
}

Variable TransformerImpl::forward(const Variable& src, const Variable& tgt,
                                  const Variable& src_mask, const Variable& tgt_mask,
                                  const Variable& memory_mask,
                                  const Variable& src_key_padding_mask,
                                  const Variable& tgt_key_padding_mask,
                                  const Variable& memory_key_padding_mask) {
  TORCHLET_CHECK(src.defined() && tgt.defined(), "Transformer: src and tgt must be defined");
  const bool is_batched = src.dim() == 3;
  if (is_batched) {
    const int64_t batch_dim = options_.batch_first() ? 0 : 1;
    TORCHLET_CHECK(tgt.dim() >= 2 && src.size(batch_dim) == tgt.size(batch_dim),
                   "the batch number of src and tgt must be equal");
  }
  TORCHLET_CHECK(src.dim() >= 1 && tgt.dim() >= 1 && src.size(-1) == options_.d_model() &&
                     tgt.size(-1) == options_.d_model(),
                 "the feature number of src and tgt must be equal to d_model");
  const Variable memory = encoder(src, src_mask, src_key_padding_mask);
  return decoder(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                 memory_key_padding_mask);
}

Variable TransformerImpl::generate_square_subsequent_mask(int64_t sz, Device device) {
  TORCHLET_CHECK(sz >= 0, "generate_square_subsequent_mask: sz must be non-negative, got ", sz);
  const Tensor positions = arange(sz, TensorOptions(kInt64).device(device));
  const Tensor future = positions.unsqueeze(0).gt(positions.unsqueeze(1));  // [i, j]: j > i
  Tensor mask = zeros({sz, sz}, TensorOptions(kFloat32).device(device));
  mask.masked_fill_(future, -std::numeric_limits<double>::infinity());
  return Variable(mask);
}

}  // namespace torchlet::nn
