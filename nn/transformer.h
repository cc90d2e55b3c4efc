#pragma once

// Transformer layers (torch.nn.TransformerEncoderLayer, TransformerEncoder,
// TransformerDecoderLayer, TransformerDecoder, Transformer), with
// libtorch-style options. See Note [Transformer layers] in
// nn/transformer.cc.

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>

#include "nn/attention.h"
#include "nn/cloneable.h"
#include "nn/dropout.h"
#include "nn/layer_norm.h"
#include "nn/linear.h"
#include "nn/module_holder.h"
#include "nn/module_list.h"
#include "nn/options.h"

namespace torchlet::nn {

/// The activation of a Transformer layer's feed-forward block: "relu" or
/// "gelu" (PyTorch's strings; other names are refused when the layer is
/// built) or any function of a Variable.
class TransformerActivation {
 public:
  using Function = std::function<Variable(const Variable&)>;
  TransformerActivation(const char* name) : name_(name) {}          // NOLINT: implicit
  TransformerActivation(std::string name) : name_(std::move(name)) {}  // NOLINT: implicit
  template <typename F,
            typename = std::enable_if_t<std::is_invocable_r_v<Variable, F&, const Variable&> &&
                                        !std::is_convertible_v<F, std::string>>>
  TransformerActivation(F function) : function_(std::move(function)) {}  // NOLINT: implicit

  /// The name given, or "" for a function.
  const std::string& name() const { return name_; }
  /// The function given (empty for a name).
  const Function& function() const { return function_; }

 private:
  std::string name_;
  Function function_;
};

/// torch.nn.TransformerEncoderLayer's and TransformerDecoderLayer's
/// arguments.
struct TransformerLayerOptions {
  TransformerLayerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  TORCHLET_ARG(int64_t, d_model);
  TORCHLET_ARG(int64_t, nhead);
  /// Width of the feed-forward block.
  TORCHLET_ARG(int64_t, dim_feedforward) = 2048;
  TORCHLET_ARG(double, dropout) = 0.1;
  TORCHLET_ARG(TransformerActivation, activation) = "relu";
  TORCHLET_ARG(double, layer_norm_eps) = 1e-5;
  /// Inputs and outputs [batch, seq, feature] instead of [seq, batch, feature].
  TORCHLET_ARG(bool, batch_first) = false;
  /// Layer norm before each block (pre-norm) instead of after each residual.
  TORCHLET_ARG(bool, norm_first) = false;
};
using TransformerEncoderLayerOptions = TransformerLayerOptions;
using TransformerDecoderLayerOptions = TransformerLayerOptions;

/// Self-attention then a feed-forward block, each with dropout, a residual
/// connection and layer norm (torch.nn.TransformerEncoderLayer). Children,
/// as PyTorch's: self_attn, linear1, dropout, linear2, norm1, norm2,
/// dropout1, dropout2.
class TransformerEncoderLayerImpl : public Cloneable<TransformerEncoderLayerImpl> {
 public:
  explicit TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options);
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(TransformerEncoderLayerOptions(d_model, nhead)) {}
  void reset() override;
  /// src [S, N, d_model] ([N, S, d_model] with batch_first, or unbatched
  /// [S, d_model]); src_mask and src_key_padding_mask as
  /// MultiheadAttention's attn_mask and key_padding_mask. Returns src's shape.
  Variable forward(const Variable& src, const Variable& src_mask = Variable(),
                   const Variable& src_key_padding_mask = Variable());
  const TransformerEncoderLayerOptions& options() const { return options_; }

  MultiheadAttention self_attn = nullptr;
  Linear linear1 = nullptr;
  Dropout dropout = nullptr;
  Linear linear2 = nullptr;
  LayerNorm norm1 = nullptr;
  LayerNorm norm2 = nullptr;
  Dropout dropout1 = nullptr;
  Dropout dropout2 = nullptr;

 private:
  TransformerEncoderLayerOptions options_;
  TransformerActivation::Function activation_;
};
TORCHLET_MODULE(TransformerEncoderLayer);

/// Self-attention, attention over the encoder's output (memory), then a
/// feed-forward block, each with dropout, a residual connection and layer
/// norm (torch.nn.TransformerDecoderLayer). Children, as PyTorch's:
/// self_attn, multihead_attn, linear1, dropout, linear2, norm1, norm2,
/// norm3, dropout1, dropout2, dropout3.
class TransformerDecoderLayerImpl : public Cloneable<TransformerDecoderLayerImpl> {
 public:
  explicit TransformerDecoderLayerImpl(const TransformerDecoderLayerOptions& options);
  TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayerImpl(TransformerDecoderLayerOptions(d_model, nhead)) {}
  void reset() override;
  /// tgt [T, N, d_model] and memory [S, N, d_model] ([N, ...] with
  /// batch_first, or unbatched [T, d_model] and [S, d_model]); tgt_mask
  /// [T, T] and memory_mask [T, S] (or 3-D, per head), the key padding
  /// masks [N, T] and [N, S]. Returns tgt's shape.
  Variable forward(const Variable& tgt, const Variable& memory,
                   const Variable& tgt_mask = Variable(), const Variable& memory_mask = Variable(),
                   const Variable& tgt_key_padding_mask = Variable(),
                   const Variable& memory_key_padding_mask = Variable());
  const TransformerDecoderLayerOptions& options() const { return options_; }

  MultiheadAttention self_attn = nullptr;
  MultiheadAttention multihead_attn = nullptr;
  Linear linear1 = nullptr;
  Dropout dropout = nullptr;
  Linear linear2 = nullptr;
  LayerNorm norm1 = nullptr;
  LayerNorm norm2 = nullptr;
  LayerNorm norm3 = nullptr;
  Dropout dropout1 = nullptr;
  Dropout dropout2 = nullptr;
  Dropout dropout3 = nullptr;

 private:
  TransformerDecoderLayerOptions options_;
  TransformerActivation::Function activation_;
};
TORCHLET_MODULE(TransformerDecoderLayer);

/// torch.nn.TransformerEncoder's arguments: num_layers copies of
/// encoder_layer, then norm when given.
struct TransformerEncoderOptions {
  TransformerEncoderOptions(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : encoder_layer_(std::move(encoder_layer)), num_layers_(num_layers) {}
  TORCHLET_ARG(TransformerEncoderLayer, encoder_layer);
  TORCHLET_ARG(int64_t, num_layers);
  TORCHLET_ARG(LayerNorm, norm) = nullptr;
};

/// A stack of encoder layers, each a deep copy of the one given, then an
/// optional norm (torch.nn.TransformerEncoder). Children: layers (a
/// ModuleList) and norm. torchlet has no nested tensors, so it always takes
/// PyTorch's ordinary path, which computes the same numbers as its
/// nested-tensor fast path.
class TransformerEncoderImpl : public Cloneable<TransformerEncoderImpl> {
 public:
  explicit TransformerEncoderImpl(const TransformerEncoderOptions& options);
  TransformerEncoderImpl(TransformerEncoderLayer encoder_layer, int64_t num_layers,
                         LayerNorm norm = nullptr)
      : TransformerEncoderImpl(TransformerEncoderOptions(std::move(encoder_layer), num_layers)
                                   .norm(std::move(norm))) {}
  void reset() override;
  /// Runs src through every layer with mask and src_key_padding_mask, then
  /// the norm.
  Variable forward(const Variable& src, const Variable& mask = Variable(),
                   const Variable& src_key_padding_mask = Variable());
  const TransformerEncoderOptions& options() const { return options_; }

  ModuleList layers = nullptr;
  /// Empty when no norm was given.
  LayerNorm norm = nullptr;

 private:
  TransformerEncoderOptions options_;
};
TORCHLET_MODULE(TransformerEncoder);

/// torch.nn.TransformerDecoder's arguments: num_layers copies of
/// decoder_layer, then norm when given.
struct TransformerDecoderOptions {
  TransformerDecoderOptions(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : decoder_layer_(std::move(decoder_layer)), num_layers_(num_layers) {}
  TORCHLET_ARG(TransformerDecoderLayer, decoder_layer);
  TORCHLET_ARG(int64_t, num_layers);
  TORCHLET_ARG(LayerNorm, norm) = nullptr;
};

/// A stack of decoder layers, each a deep copy of the one given, then an
/// optional norm (torch.nn.TransformerDecoder). Children: layers and norm.
class TransformerDecoderImpl : public Cloneable<TransformerDecoderImpl> {
 public:
  explicit TransformerDecoderImpl(const TransformerDecoderOptions& options);
  TransformerDecoderImpl(TransformerDecoderLayer decoder_layer, int64_t num_layers,
                         LayerNorm norm = nullptr)
      : TransformerDecoderImpl(TransformerDecoderOptions(std::move(decoder_layer), num_layers)
                                   .norm(std::move(norm))) {}
  void reset() override;
  /// Runs tgt through every layer (each attending over memory) with the
  /// masks, then the norm.
  Variable forward(const Variable& tgt, const Variable& memory,
                   const Variable& tgt_mask = Variable(), const Variable& memory_mask = Variable(),
                   const Variable& tgt_key_padding_mask = Variable(),
                   const Variable& memory_key_padding_mask = Variable());
  const TransformerDecoderOptions& options() const { return options_; }

  ModuleList layers = nullptr;
  /// Empty when no norm was given.
  LayerNorm norm = nullptr;

 private:
  TransformerDecoderOptions options_;
};
TORCHLET_MODULE(TransformerDecoder);

/// torch.nn.Transformer's arguments, with its defaults.
struct TransformerOptions {
  TransformerOptions() = default;
  TransformerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  TORCHLET_ARG(int64_t, d_model) = 512;
  TORCHLET_ARG(int64_t, nhead) = 8;
  TORCHLET_ARG(int64_t, num_encoder_layers) = 6;
  TORCHLET_ARG(int64_t, num_decoder_layers) = 6;
  TORCHLET_ARG(int64_t, dim_feedforward) = 2048;
  TORCHLET_ARG(double, dropout) = 0.1;
  TORCHLET_ARG(TransformerActivation, activation) = "relu";
  /// Used instead of the encoder built from the other options.
  TORCHLET_ARG(TransformerEncoder, custom_encoder) = nullptr;
  /// Used instead of the decoder built from the other options.
  TORCHLET_ARG(TransformerDecoder, custom_decoder) = nullptr;
  TORCHLET_ARG(double, layer_norm_eps) = 1e-5;
  TORCHLET_ARG(bool, batch_first) = false;
  TORCHLET_ARG(bool, norm_first) = false;
};

/// An encoder-decoder Transformer (torch.nn.Transformer): children encoder
/// and decoder, each with a final LayerNorm; every parameter of more than
/// one dimension starts xavier-uniform (PyTorch's _reset_parameters).
class TransformerImpl : public Cloneable<TransformerImpl> {
 public:
  explicit TransformerImpl(const TransformerOptions& options = {});
  void reset() override;
  /// Draws xavier-uniform values into every parameter of more than one
  /// dimension.
  void reset_parameters();
  /// src [S, N, d_model] and tgt [T, N, d_model] ([N, ...] with
  /// batch_first, or unbatched); the masks as the encoder's and decoder's.
  /// Returns the decoder's output, tgt's shape.
  Variable forward(const Variable& src, const Variable& tgt,
                   const Variable& src_mask = Variable(), const Variable& tgt_mask = Variable(),
                   const Variable& memory_mask = Variable(),
                   const Variable& src_key_padding_mask = Variable(),
                   const Variable& tgt_key_padding_mask = Variable(),
                   const Variable& memory_key_padding_mask = Variable());
  /// The [sz, sz] float32 mask of a causal self-attention: -inf above the
  /// diagonal (position i may not attend to j > i), 0 elsewhere.
  static Variable generate_square_subsequent_mask(int64_t sz, Device device = Device(kCPU));
  const TransformerOptions& options() const { return options_; }

  TransformerEncoder encoder = nullptr;
  TransformerDecoder decoder = nullptr;

 private:
  TransformerOptions options_;
};
TORCHLET_MODULE(Transformer);

}  // namespace torchlet::nn
