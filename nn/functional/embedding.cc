#include "nn/functional/embedding.h"

#include "autograd/grad_mode.h"
#include "autograd/nn_ops.h"
#include "tensor/nn_kernels.h"

namespace torchlet::nn::functional {

Variable embedding(const Tensor& input, const Variable& weight, std::optional<int64_t> padding_idx,
                   std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq) {
  TORCHLET_CHECK(input.dtype() == kInt64 || input.dtype() == kInt32,
                 "Expected tensor for argument #1 'indices' to have one of the following scalar "
                 "types: Long, Int; but got ", legacy_tensor_type_name(input.dtype()),
                 " instead (while checking arguments for embedding)");
  TORCHLET_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  const int64_t num_embeddings = weight.size(0);
  if (padding_idx) {
    TORCHLET_CHECK(*padding_idx >= -num_embeddings && *padding_idx < num_embeddings,
                   "Padding_idx must be within num_embeddings");
    if (*padding_idx < 0) *padding_idx += num_embeddings;
  }
  const Tensor indices = input.to(kInt64);
  TORCHLET_CHECK(!indices.lt(0).logical_or(indices.ge(num_embeddings)).any().item<bool>(),
                 "index out of range in self");
  if (max_norm) {
    NoGradGuard no_grad;
    embedding_renorm_(weight.data(), indices, *max_norm, norm_type);
  }
  return torchlet::embedding(weight, indices, padding_idx, scale_grad_by_freq);
}

}  // namespace torchlet::nn::functional
