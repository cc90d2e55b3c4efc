#pragma once

#include <optional>
#include <vector>

#include "tensor/tensor_body.h"

namespace torchlet {

/// Concatenates along `dim` (dtypes promote; 1-D empty tensors are skipped,
/// as in PyTorch).
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
/// Stacks equal-shaped tensors along a new `dim`.
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
/// int64 one-hot encoding; num_classes = -1 means max(t) + 1.
Tensor one_hot(const Tensor& t, int64_t num_classes = -1);
/// self with alpha * source's slices added at `index` along `dim`.
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 Scalar alpha = 1);
/// self with source's slices written at `index` along `dim`.
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
/// self with the slices at `index` along `dim` set to `value`.
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, Scalar value);
/// gather with `indices` broadcast against self (but for `dim`); without
/// `dim`, over the flattened tensor.
Tensor take_along_dim(const Tensor& self, const Tensor& indices,
                      std::optional<int64_t> dim = std::nullopt);

}  // namespace torchlet
