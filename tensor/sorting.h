#pragma once

#include <tuple>

#include "tensor/tensor_body.h"

namespace torchlet {

/// torch.unique: the sorted distinct values (1-D), and when asked, the
/// inverse indices (shape of `t`) and counts; unrequested results are
/// undefined tensors.
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& t, bool sorted = true,
                                          bool return_inverse = false,
                                          bool return_counts = false);

}  // namespace torchlet
