#pragma once

// Free-function forms of the differentiable ops (torch.* on Variables).

#include <vector>

#include "autograd/variable.h"

namespace torchlet {

Variable mm(const Variable& a, const Variable& b);
Variable bmm(const Variable& a, const Variable& b);
/// PyTorch's matmul rules: 1-D and 2-D operands, and batched broadcasting.
Variable matmul(const Variable& a, const Variable& b);
Variable mv(const Variable& m, const Variable& v);
/// beta * self + alpha * (m1 @ m2).
Variable addmm(const Variable& self, const Variable& m1, const Variable& m2, Scalar beta = 1,
               Scalar alpha = 1);
/// input @ weight^T + bias, for a 2-D input and weight and a 1-D bias:
/// addmm(bias, input, weight.t()) recorded as one node, without the t()
/// (Note [A Linear layer is one node]).
Variable linear(const Variable& input, const Variable& weight, const Variable& bias);
/// beta * self + alpha * (batch1 @ batch2), batched.
Variable baddbmm(const Variable& self, const Variable& batch1, const Variable& batch2,
                 Scalar beta = 1, Scalar alpha = 1);
Variable dot(const Variable& a, const Variable& b);
Variable outer(const Variable& a, const Variable& b);
Variable cat(const std::vector<Variable>& tensors, int64_t dim = 0);
Variable stack(const std::vector<Variable>& tensors, int64_t dim = 0);
/// Elements of `a` where `condition`, else of `b`.
Variable where(const Tensor& condition, const Variable& a, const Variable& b);
Variable softmax(const Variable& x, int64_t dim);
/// self * log(other) with a number as self.
Variable xlogy(Scalar self, const Variable& other);
Variable log_softmax(const Variable& x, int64_t dim);

}  // namespace torchlet
