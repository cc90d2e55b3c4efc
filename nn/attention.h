#pragma once

// Multi-head attention (torch.nn.MultiheadAttention), with libtorch-style
// options. The computation is nn::functional::multi_head_attention_forward.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

#include "nn/cloneable.h"
#include "nn/linear.h"
#include "nn/module_holder.h"
#include "nn/options.h"

namespace torchlet::nn {

/// torch.nn.MultiheadAttention's arguments. kdim and vdim default to
/// embed_dim.
struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads) {}
  TORCHLET_ARG(int64_t, embed_dim);
  TORCHLET_ARG(int64_t, num_heads);
  /// Dropout on the attention weights, in training.
  TORCHLET_ARG(double, dropout) = 0.0;
  /// Biases of the input and output projections.
  TORCHLET_ARG(bool, bias) = true;
  /// Learned bias_k and bias_v appended to the key and value sequences.
  TORCHLET_ARG(bool, add_bias_kv) = false;
  /// A step of zeros appended to the key and value sequences.
  TORCHLET_ARG(bool, add_zero_attn) = false;
  /// Features of the key and value (embed_dim when unset).
  TORCHLET_ARG(std::optional<int64_t>, kdim);
  TORCHLET_ARG(std::optional<int64_t>, vdim);
  /// Inputs and outputs [batch, seq, feature] instead of [seq, batch, feature].
  TORCHLET_ARG(bool, batch_first) = false;
};

/// The output projection of MultiheadAttention: a Linear that prints as
/// PyTorch's NonDynamicallyQuantizableLinear.
class NonDynamicallyQuantizableLinearImpl : public LinearImpl {
 public:
  using LinearImpl::LinearImpl;
  std::shared_ptr<Module> clone(
      const std::optional<Device>& device = std::nullopt) const override;
};
TORCHLET_MODULE(NonDynamicallyQuantizableLinear);

/// Attention with num_heads heads over embed_dim features
/// (torch.nn.MultiheadAttention). Parameters, by PyTorch's names and in its
/// order: in_proj_weight [3 * embed_dim, embed_dim] when kdim and vdim are
/// embed_dim, else q_proj_weight [embed_dim, embed_dim], k_proj_weight
/// [embed_dim, kdim] and v_proj_weight [embed_dim, vdim]; in_proj_bias [3 *
/// embed_dim] (with bias); bias_k and bias_v [1, 1, embed_dim] (with
/// add_bias_kv); then out_proj.weight and out_proj.bias. The projection
/// weights start xavier-uniform, the biases at zero, bias_k and bias_v
/// xavier-normal (PyTorch's _reset_parameters). PyTorch computes some
/// inference calls with a fused kernel (_native_multi_head_attention) that
/// gives the same numbers; torchlet always takes the ordinary path.
class MultiheadAttentionImpl : public Cloneable<MultiheadAttentionImpl> {
 public:
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  void reset() override;
  /// Draws new weights (PyTorch's _reset_parameters).
  void reset_parameters();

  /// query [L, N, embed_dim], key [S, N, kdim], value [S, N, vdim] ([N, L,
  /// ...] with batch_first; unbatched [L, embed_dim], [S, kdim], [S, vdim]
  /// whatever batch_first). Masks as multi_head_attention_forward's. Returns
  /// the output (query's layout) and, with need_weights, the attention
  /// weights [N, L, S] ([N, num_heads, L, S] without average_attn_weights),
  /// else an undefined Variable.
  std::tuple<Variable, Variable> forward(const Variable& query, const Variable& key,
                                         const Variable& value,
                                         const Variable& key_padding_mask = Variable(),
                                         bool need_weights = true,
                                         const Variable& attn_mask = Variable(),
                                         bool average_attn_weights = true);

  const MultiheadAttentionOptions& options() const { return options_; }
  int64_t embed_dim() const { return options_.embed_dim(); }
  int64_t num_heads() const { return options_.num_heads(); }
  int64_t kdim() const { return kdim_; }
  int64_t vdim() const { return vdim_; }
  int64_t head_dim() const { return head_dim_; }
  /// Whether kdim and vdim are embed_dim (one packed in_proj_weight).
  bool qkv_same_embed_dim() const { return kdim_ == embed_dim() && vdim_ == embed_dim(); }

  /// Undefined when kdim or vdim differ from embed_dim.
  Parameter in_proj_weight;
  /// Defined only when kdim or vdim differ from embed_dim.
  Parameter q_proj_weight;
  Parameter k_proj_weight;
  Parameter v_proj_weight;
  /// Undefined without bias.
  Parameter in_proj_bias;
  /// Defined only with add_bias_kv.
  Parameter bias_k;
  Parameter bias_v;
  NonDynamicallyQuantizableLinear out_proj = nullptr;

 private:
  MultiheadAttentionOptions options_;
  int64_t kdim_;
  int64_t vdim_;
  int64_t head_dim_;
};
TORCHLET_MODULE(MultiheadAttention);

}  // namespace torchlet::nn
