#pragma once

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

}  // namespace torchlet
