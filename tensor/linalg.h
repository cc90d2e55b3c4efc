#pragma once

#include "tensor/tensor_body.h"

namespace torchlet {

// Matrix products through Eigen, split across the current device's intra-op
// threads. float32 and float64. Method forms on Tensor mirror these.

Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
/// PyTorch's matmul: 1-D/2-D products, and batched broadcasting beyond.
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mv(const Tensor& mat, const Tensor& vec);
Tensor dot(const Tensor& a, const Tensor& b);
Tensor outer(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, Scalar beta = 1,
             Scalar alpha = 1);
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, Scalar beta = 1,
               Scalar alpha = 1);

}  // namespace torchlet
