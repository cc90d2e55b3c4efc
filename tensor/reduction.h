#pragma once

#include <optional>

#include "tensor/tensor_body.h"

namespace torchlet {

// Reductions, softmax and scans. Method forms on Tensor (`t.sum({1}, true)`)
// are documented there; these free forms mirror torch.*.

Tensor sum(const Tensor& t, IntArrayRef dims = {}, bool keepdim = false,
           std::optional<DType> dtype = std::nullopt);
Tensor mean(const Tensor& t, IntArrayRef dims = {}, bool keepdim = false);
Tensor softmax(const Tensor& t, int64_t dim);
Tensor log_softmax(const Tensor& t, int64_t dim);
Tensor logsumexp(const Tensor& t, IntArrayRef dims, bool keepdim = false);
Tensor cumsum(const Tensor& t, int64_t dim);
Tensor cumprod(const Tensor& t, int64_t dim);

}  // namespace torchlet
