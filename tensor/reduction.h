#pragma once

#include <optional>
#include <tuple>

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

// Statistics (the methods of the same name are documented on Tensor).
Tensor nansum(const Tensor& t, IntArrayRef dims = {}, bool keepdim = false,
              std::optional<DType> dtype = std::nullopt);
Tensor nanmean(const Tensor& t, IntArrayRef dims = {}, bool keepdim = false,
               std::optional<DType> dtype = std::nullopt);
/// (std, mean) and (var, mean) over `dims` (every dim when empty).
std::tuple<Tensor, Tensor> std_mean(const Tensor& t, IntArrayRef dims = {}, bool unbiased = true,
                                    bool keepdim = false);
std::tuple<Tensor, Tensor> var_mean(const Tensor& t, IntArrayRef dims = {}, bool unbiased = true,
                                    bool keepdim = false);
std::tuple<Tensor, Tensor> aminmax(const Tensor& t, std::optional<int64_t> dim = std::nullopt,
                                   bool keepdim = false);
Tensor count_nonzero(const Tensor& t, IntArrayRef dims = {});
std::tuple<Tensor, Tensor> cummax(const Tensor& t, int64_t dim);
std::tuple<Tensor, Tensor> cummin(const Tensor& t, int64_t dim);
Tensor logcumsumexp(const Tensor& t, int64_t dim);

}  // namespace torchlet
