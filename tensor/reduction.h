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
/// The gradient of softmax (or log_softmax) along `dim`, from the incoming
/// gradient and the op's output, in one pass: y * (g - sum(g * y)), or
/// g - exp(y) * sum(g) for log_softmax.
Tensor softmax_backward(const Tensor& grad, const Tensor& output, int64_t dim);
Tensor log_softmax_backward(const Tensor& grad, const Tensor& output, int64_t dim);
Tensor logsumexp(const Tensor& t, IntArrayRef dims, bool keepdim = false);
Tensor cumsum(const Tensor& t, int64_t dim);
Tensor cumprod(const Tensor& t, int64_t dim);

}  // namespace torchlet
