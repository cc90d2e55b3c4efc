#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options.h"

namespace torchlet::nn {

/// torch.nn.Embedding's arguments.
struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  TORCHLET_ARG(int64_t, num_embeddings);
  TORCHLET_ARG(int64_t, embedding_dim);
  /// This row gets no gradient and starts as zeros; negative counts from
  /// the end.
  TORCHLET_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  /// Rows looked up whose norm_type-norm exceeds max_norm are rescaled to it,
  /// in place.
  TORCHLET_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCHLET_ARG(double, norm_type) = 2.0;
  TORCHLET_ARG(bool, scale_grad_by_freq) = false;
};

/// Embedding::from_pretrained's arguments; freeze keeps the weight out of
/// training (requires_grad false).
struct EmbeddingFromPretrainedOptions {
  TORCHLET_ARG(bool, freeze) = true;
  TORCHLET_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  TORCHLET_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCHLET_ARG(double, norm_type) = 2.0;
  TORCHLET_ARG(bool, scale_grad_by_freq) = false;
};

/// A lookup table of num_embeddings vectors of embedding_dim
/// (torch.nn.Embedding): forward(indices) gives indices.shape +
/// [embedding_dim]. The weight starts as PyTorch's: normal(0, 1), with the
/// padding_idx row zeroed.
class EmbeddingImpl : public Cloneable<EmbeddingImpl> {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(EmbeddingOptions options);
  void reset() override;
  /// Draws a new weight (PyTorch's reset_parameters).
  void reset_parameters();
  /// `input` holds int64 (or int32) indices.
  Variable forward(const Tensor& input);
  Variable forward(const Variable& input) { return forward(input.data()); }
  std::string extra_repr() const override;

  /// padding_idx made non-negative, as PyTorch stores it.
  EmbeddingOptions options;
  Parameter weight;
};

/// The holder of EmbeddingImpl, with from_pretrained.
class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  using Impl = EmbeddingImpl;

  /// An Embedding whose weight is `embeddings` (2-D, shared, not copied), as
  /// torch.nn.Embedding.from_pretrained.
  static Embedding from_pretrained(const Tensor& embeddings,
                                   const EmbeddingFromPretrainedOptions& options = {});
  static Embedding from_pretrained(const Tensor& embeddings, bool freeze);
};

/// torch.nn.EmbeddingBag's arguments. mode is "sum", "mean" or "max"; sparse
/// must stay false (sparse gradients are not supported).
struct EmbeddingBagOptions {
  EmbeddingBagOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  TORCHLET_ARG(int64_t, num_embeddings);
  TORCHLET_ARG(int64_t, embedding_dim);
  /// Rows looked up whose norm_type-norm exceeds max_norm are rescaled to it,
  /// in place.
  TORCHLET_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCHLET_ARG(double, norm_type) = 2.0;
  TORCHLET_ARG(bool, scale_grad_by_freq) = false;
  TORCHLET_ARG(std::string, mode) = "mean";
  TORCHLET_ARG(bool, sparse) = false;
  /// offsets has one more entry than there are bags: where the last ends.
  TORCHLET_ARG(bool, include_last_offset) = false;
  /// Entries equal to this index are left out of their bag; its row starts
  /// as zeros. Negative counts from the end.
  TORCHLET_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

/// EmbeddingBag::from_pretrained's arguments; freeze keeps the weight out of
/// training (requires_grad false).
struct EmbeddingBagFromPretrainedOptions {
  TORCHLET_ARG(bool, freeze) = true;
  TORCHLET_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCHLET_ARG(double, norm_type) = 2.0;
  TORCHLET_ARG(bool, scale_grad_by_freq) = false;
  TORCHLET_ARG(std::string, mode) = "mean";
  TORCHLET_ARG(bool, sparse) = false;
  TORCHLET_ARG(bool, include_last_offset) = false;
  TORCHLET_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

/// Sums, means or maxes of bags of embedding vectors (torch.nn.EmbeddingBag;
/// see nn::functional::embedding_bag): forward gives [num_bags,
/// embedding_dim]. The weight starts as PyTorch's: normal(0, 1), with the
/// padding_idx row zeroed.
class EmbeddingBagImpl : public Cloneable<EmbeddingBagImpl> {
 public:
  EmbeddingBagImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBagImpl(EmbeddingBagOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingBagImpl(EmbeddingBagOptions options);
  void reset() override;
  /// Draws a new weight (PyTorch's reset_parameters).
  void reset_parameters();
  /// `input` holds int64 (or int32) indices: [B, L] for B bags of L, or [N]
  /// cut into bags at `offsets`. per_sample_weights (mode "sum" only) has
  /// input's shape; undefined tensors stand for None.
  Variable forward(const Tensor& input, const Tensor& offsets = Tensor(),
                   const Variable& per_sample_weights = Variable());
  Variable forward(const Variable& input, const Tensor& offsets = Tensor(),
                   const Variable& per_sample_weights = Variable()) {
    return forward(input.data(), offsets, per_sample_weights);
  }
  std::string extra_repr() const override;

  /// padding_idx made non-negative, as PyTorch stores it.
  EmbeddingBagOptions options;
  Parameter weight;
};

/// The holder of EmbeddingBagImpl, with from_pretrained.
class EmbeddingBag : public ModuleHolder<EmbeddingBagImpl> {
 public:
  using ModuleHolder<EmbeddingBagImpl>::ModuleHolder;
  using Impl = EmbeddingBagImpl;

  /// An EmbeddingBag whose weight is `embeddings` (2-D, shared, not copied),
  /// as torch.nn.EmbeddingBag.from_pretrained.
  static EmbeddingBag from_pretrained(const Tensor& embeddings,
                                      const EmbeddingBagFromPretrainedOptions& options = {});
  static EmbeddingBag from_pretrained(const Tensor& embeddings, bool freeze);
};

}  // namespace torchlet::nn
