#pragma once

// Free-function forms of the differentiable ops (torch.* on Variables).

#include <optional>
#include <string>
#include <tuple>
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
/// The tensor contraction `equation` describes ("bij,bjk->bik"): torch.einsum.
Variable einsum(const std::string& equation, const std::vector<Variable>& operands);
/// The last `dims` dims of `a` contracted with the first `dims` of `b`.
Variable tensordot(const Variable& a, const Variable& b, int64_t dims = 2);
/// Dims `dims_a` of `a` contracted with dims `dims_b` of `b`, pairwise.
Variable tensordot(const Variable& a, const Variable& b, IntArrayRef dims_a,
                   IntArrayRef dims_b);
Variable kron(const Variable& a, const Variable& b);
/// torch.cross: without `dim`, along the first dim of size 3.
Variable cross(const Variable& a, const Variable& b, std::optional<int64_t> dim = std::nullopt);
/// The p-norm distance between each row of x1 and each row of x2 (batched).
Variable cdist(const Variable& x1, const Variable& x2, double p = 2,
               const std::string& compute_mode = "use_mm_for_euclid_dist_if_necessary");

namespace linalg {
Variable cross(const Variable& a, const Variable& b, int64_t dim = -1);
/// sum(x * y, dim) for real x and y.
Variable vecdot(const Variable& x, const Variable& y, int64_t dim = -1);
/// The product of a chain of matrices, in the cheapest order (the first and
/// last may be vectors).
Variable multi_dot(const std::vector<Variable>& tensors);
/// The `ord`-norm over `dim` (every dim when empty) of the flattened vectors.
Variable vector_norm(const Variable& x, double ord = 2, IntArrayRef dim = {},
                     bool keepdim = false, std::optional<DType> dtype = std::nullopt);
/// The matrix norm over the two dims `dim`: "fro" or "nuc".
Variable matrix_norm(const Variable& a, const std::string& ord = "fro",
                     IntArrayRef dim = {-2, -1}, bool keepdim = false,
                     std::optional<DType> dtype = std::nullopt);
/// The matrix norm over `dim` for ord inf, -inf, 1, -1, 2 or -2.
Variable matrix_norm(const Variable& a, double ord, IntArrayRef dim = {-2, -1},
                     bool keepdim = false, std::optional<DType> dtype = std::nullopt);
/// torch.linalg.norm: without `ord`, the 2-norm of the flattened input (or
/// over a 1-D `dim`) or the Frobenius norm over a 2-D `dim`.
Variable norm(const Variable& a, std::optional<double> ord = std::nullopt,
              std::optional<std::vector<int64_t>> dim = std::nullopt, bool keepdim = false,
              std::optional<DType> dtype = std::nullopt);
Variable norm(const Variable& a, const std::string& ord,
              std::optional<std::vector<int64_t>> dim = std::nullopt, bool keepdim = false,
              std::optional<DType> dtype = std::nullopt);
}  // namespace linalg
Variable cat(const std::vector<Variable>& tensors, int64_t dim = 0);
Variable stack(const std::vector<Variable>& tensors, int64_t dim = 0);
/// Elements of `a` where `condition`, else of `b`.
Variable where(const Tensor& condition, const Variable& a, const Variable& b);
Variable softmax(const Variable& x, int64_t dim);
/// self * log(other) with a number as self.
Variable xlogy(Scalar self, const Variable& other);
Variable log_softmax(const Variable& x, int64_t dim);
/// (std, mean) and (var, mean) over `dims` (every dim when empty).
std::tuple<Variable, Variable> std_mean(const Variable& x, IntArrayRef dims = {},
                                        bool unbiased = true, bool keepdim = false);
std::tuple<Variable, Variable> var_mean(const Variable& x, IntArrayRef dims = {},
                                        bool unbiased = true, bool keepdim = false);

// Shape and index ops: the methods of the same name (torch.tril, ...).
Variable tril(const Variable& x, int64_t diagonal = 0);
Variable triu(const Variable& x, int64_t diagonal = 0);
Variable flip(const Variable& x, IntArrayRef dims);
Variable fliplr(const Variable& x);
Variable flipud(const Variable& x);
Variable roll(const Variable& x, IntArrayRef shifts, IntArrayRef dims = {});
Variable rot90(const Variable& x, int64_t k = 1, IntArrayRef dims = {0, 1});
Variable diagonal(const Variable& x, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
Variable diag(const Variable& x, int64_t diagonal = 0);
Variable diag_embed(const Variable& x, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
Variable trace(const Variable& x);
Variable tile(const Variable& x, IntArrayRef dims);
Variable repeat_interleave(const Variable& x, int64_t repeats,
                           std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt);
Variable repeat_interleave(const Variable& x, const Tensor& repeats,
                           std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt);
Variable movedim(const Variable& x, IntArrayRef source, IntArrayRef destination);
Variable movedim(const Variable& x, int64_t source, int64_t destination);
Variable moveaxis(const Variable& x, IntArrayRef source, IntArrayRef destination);
Variable moveaxis(const Variable& x, int64_t source, int64_t destination);
/// Coordinate grids of 1-D (or 0-dim) inputs; `indexing` is "ij" or "xy".
/// Without it "ij", with PyTorch 1.13's warning.
std::vector<Variable> meshgrid(const std::vector<Variable>& tensors);
std::vector<Variable> meshgrid(const std::vector<Variable>& tensors, const std::string& indexing);
Variable index_add(const Variable& x, int64_t dim, const Tensor& index, const Variable& source,
                   Scalar alpha = 1);
Variable index_copy(const Variable& x, int64_t dim, const Tensor& index, const Variable& source);
Variable index_fill(const Variable& x, int64_t dim, const Tensor& index, Scalar value);
Variable take_along_dim(const Variable& x, const Tensor& indices,
                        std::optional<int64_t> dim = std::nullopt);

}  // namespace torchlet
