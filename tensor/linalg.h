#pragma once

#include <optional>
#include <string>
#include <vector>

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

/// The tensor contraction `equation` describes ("bij,bjk->bik"): torch.einsum.
/// Each pairwise contraction is one bmm.
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);
/// The last `dims` dims of `a` contracted with the first `dims` of `b`.
Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims = 2);
/// Dims `dims_a` of `a` contracted with dims `dims_b` of `b`, pairwise.
Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b);
Tensor kron(const Tensor& a, const Tensor& b);
/// torch.cross: without `dim`, along the first dim of size 3.
Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim = std::nullopt);
/// The p-norm distance between each row of x1 [.., P, M] and each row of x2
/// [.., R, M]: [.., P, R]. For p = 2 "use_mm_for_euclid_dist_if_necessary"
/// takes the matrix-product path when P or R exceeds 25;
/// "use_mm_for_euclid_dist" always, "donot_use_mm_for_euclid_dist" never.
Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2,
             const std::string& compute_mode = "use_mm_for_euclid_dist_if_necessary");
/// Whether cdist(x1, x2, p, compute_mode) takes the matrix-product path.
bool cdist_uses_mm(const Tensor& x1, const Tensor& x2, double p,
                   const std::string& compute_mode);
/// cdist's gradients (PyTorch's _cdist_backward, or _euclidean_dist_backward
/// for the matrix-product path): {d x1, d x2} given the output's gradient
/// and the output `dist`.
std::vector<Tensor> cdist_backward(const Tensor& grad, const Tensor& x1, const Tensor& x2,
                                   double p, const Tensor& dist, bool used_mm);

namespace linalg {
Tensor cross(const Tensor& a, const Tensor& b, int64_t dim = -1);
/// sum(x * y, dim) for real x and y.
Tensor vecdot(const Tensor& x, const Tensor& y, int64_t dim = -1);
/// The product of a chain of matrices, in the cheapest order (the first and
/// last may be vectors).
Tensor multi_dot(const std::vector<Tensor>& tensors);
/// The `ord`-norm over `dim` (every dim when empty) of the flattened vectors;
/// ord may be any float, inf, -inf or 0 (the count of nonzeros).
Tensor vector_norm(const Tensor& x, double ord = 2, IntArrayRef dim = {}, bool keepdim = false,
                   std::optional<DType> dtype = std::nullopt);
/// The matrix norm over the two dims `dim`: "fro" or "nuc".
Tensor matrix_norm(const Tensor& a, const std::string& ord = "fro", IntArrayRef dim = {-2, -1},
                   bool keepdim = false, std::optional<DType> dtype = std::nullopt);
/// The matrix norm over `dim` for ord inf, -inf, 1, -1, 2 or -2.
Tensor matrix_norm(const Tensor& a, double ord, IntArrayRef dim = {-2, -1}, bool keepdim = false,
                   std::optional<DType> dtype = std::nullopt);
/// torch.linalg.norm: without `ord`, the 2-norm of the flattened input (or
/// over a 1-D `dim`) or the Frobenius norm over a 2-D `dim`.
Tensor norm(const Tensor& a, std::optional<double> ord = std::nullopt,
            std::optional<std::vector<int64_t>> dim = std::nullopt, bool keepdim = false,
            std::optional<DType> dtype = std::nullopt);
Tensor norm(const Tensor& a, const std::string& ord,
            std::optional<std::vector<int64_t>> dim = std::nullopt, bool keepdim = false,
            std::optional<DType> dtype = std::nullopt);
}  // namespace linalg

}  // namespace torchlet
