#include "nn/embedding.h"

#include "autograd/grad_mode.h"
#include "nn/functional/embedding.h"
#include "nn/init.h"
#include "nn/repr.h"

namespace torchlet::nn {

EmbeddingImpl::EmbeddingImpl(EmbeddingOptions options) : options(std::move(options)) {
  const int64_t rows = this->options.num_embeddings();
  if (std::optional<int64_t>& padding_idx = this->options.padding_idx()) {
    TORCHLET_CHECK(*padding_idx >= -rows && *padding_idx < rows,
                   "Padding_idx must be within num_embeddings");
    if (*padding_idx < 0) *padding_idx += rows;
  }
  reset();
}

void EmbeddingImpl::reset() {
  weight = register_parameter("weight",
                              empty({options.num_embeddings(), options.embedding_dim()}));
  reset_parameters();
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  if (!options.padding_idx()) return;
  NoGradGuard no_grad;
  Tensor row = weight.data()[*options.padding_idx()];
  row.fill_(0);
}

Variable EmbeddingImpl::forward(const Tensor& input) {
  return functional::embedding(input, weight, options.padding_idx(), options.max_norm(),
                               options.norm_type(), options.scale_grad_by_freq());
}

std::string EmbeddingImpl::extra_repr() const {
  std::string out =
      std::to_string(options.num_embeddings()) + ", " + std::to_string(options.embedding_dim());
  if (options.padding_idx()) out += ", padding_idx=" + std::to_string(*options.padding_idx());
  if (options.max_norm()) out += ", max_norm=" + detail::float_repr(*options.max_norm());
  if (options.norm_type() != 2) out += ", norm_type=" + detail::float_repr(options.norm_type());
  if (options.scale_grad_by_freq()) out += ", scale_grad_by_freq=True";
  return out;
}

Embedding Embedding::from_pretrained(const Tensor& embeddings,
                                     const EmbeddingFromPretrainedOptions& options) {
  TORCHLET_CHECK(embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional");
  Embedding embedding(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                          .padding_idx(options.padding_idx())
                          .max_norm(options.max_norm())
                          .norm_type(options.norm_type())
                          .scale_grad_by_freq(options.scale_grad_by_freq()));
  embedding->weight.set_data(embeddings);
  embedding->weight.requires_grad_(!options.freeze());
  return embedding;
}

Embedding Embedding::from_pretrained(const Tensor& embeddings, bool freeze) {
  return from_pretrained(embeddings, EmbeddingFromPretrainedOptions().freeze(freeze));
}

EmbeddingBagImpl::EmbeddingBagImpl(EmbeddingBagOptions options) : options(std::move(options)) {
  const int64_t rows = this->options.num_embeddings();
  if (std::optional<int64_t>& padding_idx = this->options.padding_idx()) {
    TORCHLET_CHECK(*padding_idx >= -rows && *padding_idx < rows,
                   "padding_idx must be within num_embeddings");
    if (*padding_idx < 0) *padding_idx += rows;
  }
  const std::string& mode = this->options.mode();
  TORCHLET_CHECK(mode == "sum" || mode == "mean" || mode == "max",
                 "mode has to be one of sum, mean or max");
  TORCHLET_CHECK(!this->options.sparse(),
                 "EmbeddingBag: sparse=True is not supported: torchlet has no sparse gradients; "
                 "pass sparse=False for a dense weight gradient");
  reset();
}

void EmbeddingBagImpl::reset() {
  weight = register_parameter("weight",
                              empty({options.num_embeddings(), options.embedding_dim()}));
  reset_parameters();
}

void EmbeddingBagImpl::reset_parameters() {
  init::normal_(weight);
  if (!options.padding_idx()) return;
  NoGradGuard no_grad;
  Tensor row = weight.data()[*options.padding_idx()];
  row.fill_(0);
}

Variable EmbeddingBagImpl::forward(const Tensor& input, const Tensor& offsets,
                                   const Variable& per_sample_weights) {
  return functional::embedding_bag(input, weight, offsets, options.max_norm(),
                                   options.norm_type(), options.scale_grad_by_freq(),
                                   options.mode(), options.sparse(), per_sample_weights,
                                   options.include_last_offset(), options.padding_idx());
}

std::string EmbeddingBagImpl::extra_repr() const {
  std::string out =
      std::to_string(options.num_embeddings()) + ", " + std::to_string(options.embedding_dim());
  if (options.max_norm()) out += ", max_norm=" + detail::float_repr(*options.max_norm());
  if (options.norm_type() != 2) out += ", norm_type=" + detail::float_repr(options.norm_type());
  if (options.scale_grad_by_freq()) out += ", scale_grad_by_freq=True";
  out += ", mode=" + options.mode();
  if (options.padding_idx()) out += ", padding_idx=" + std::to_string(*options.padding_idx());
  return out;
}

EmbeddingBag EmbeddingBag::from_pretrained(const Tensor& embeddings,
                                           const EmbeddingBagFromPretrainedOptions& options) {
  TORCHLET_CHECK(embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional");
  EmbeddingBag bag(EmbeddingBagOptions(embeddings.size(0), embeddings.size(1))
                       .max_norm(options.max_norm())
                       .norm_type(options.norm_type())
                       .scale_grad_by_freq(options.scale_grad_by_freq())
                       .mode(options.mode())
                       .sparse(options.sparse())
                       .include_last_offset(options.include_last_offset())
                       .padding_idx(options.padding_idx()));
  bag->weight.set_data(embeddings);
  bag->weight.requires_grad_(!options.freeze());
  return bag;
}

EmbeddingBag EmbeddingBag::from_pretrained(const Tensor& embeddings, bool freeze) {
  return from_pretrained(embeddings, EmbeddingBagFromPretrainedOptions().freeze(freeze));
}

}  // namespace torchlet::nn
