#pragma once

// Differentiable matrix decompositions and solvers on Variables: the
// autograd side of tensor/linalg_decompositions.h (PyTorch's torch.linalg
// and the torch.* functions built on it), float32 and float64, batched over
// leading dims.

#include <optional>
#include <string>
#include <tuple>

#include "autograd/variable.h"
#include "tensor/linalg_decompositions.h"

namespace torchlet {

namespace linalg {

Variable inv(const Variable& a);
Variable det(const Variable& a);
/// (sign, logabsdet); the sign has no gradient.
std::tuple<Tensor, Variable> slogdet(const Variable& a);
/// X with A X = B (B a batch of vectors when its dim is A's dim - 1, or 1).
Variable solve(const Variable& a, const Variable& b);
Variable cholesky(const Variable& a, bool upper = false);
/// (Q, R). Differentiable in "reduced" mode, and in "complete" mode when
/// rows <= cols; not in "r" mode (Q is not computed), as in PyTorch.
std::tuple<Variable, Variable> qr(const Variable& a, const std::string& mode = "reduced");
/// (eigenvalues, eigenvectors); the gradient assumes distinct eigenvalues
/// and a loss invariant to the eigenvectors' signs.
std::tuple<Variable, Variable> eigh(const Variable& a, const std::string& uplo = "L");
Variable eigvalsh(const Variable& a, const std::string& uplo = "L");
/// (U, S, Vh); the gradient assumes distinct nonzero singular values and a
/// loss invariant to the singular vectors' signs.
std::tuple<Variable, Variable, Variable> svd(const Variable& a, bool full_matrices = true);
Variable svdvals(const Variable& a);
Variable pinv(const Variable& a, std::optional<double> atol = std::nullopt,
              std::optional<double> rtol = std::nullopt, bool hermitian = false);
/// int64 counts: no gradient.
Tensor matrix_rank(const Variable& a, std::optional<double> atol = std::nullopt,
                   std::optional<double> rtol = std::nullopt, bool hermitian = false);
/// torch.linalg.lstsq on Variables: the solution is differentiable (through
/// the pseudoinverse, for full-rank A); the rest are plain tensors.
struct VariableLstsqResult {
  Variable solution;
  Tensor residuals;
  Tensor rank;
  Tensor singular_values;
};
VariableLstsqResult lstsq(const Variable& a, const Variable& b,
                          std::optional<double> rcond = std::nullopt,
                          std::optional<std::string> driver = std::nullopt);
Variable matrix_power(const Variable& a, int64_t n);
Variable matrix_exp(const Variable& a);

}  // namespace linalg

Variable det(const Variable& a);
Variable logdet(const Variable& a);
std::tuple<Tensor, Variable> slogdet(const Variable& a);
Variable inverse(const Variable& a);
Variable cholesky(const Variable& a, bool upper = false);
Variable cholesky_solve(const Variable& b, const Variable& l, bool upper = false);
Variable cholesky_inverse(const Variable& l, bool upper = false);
std::tuple<Variable, Variable> qr(const Variable& a, bool some = true);
/// torch.svd: (U, S, V), V not transposed; without `compute_uv`, U and V are
/// zeros and only S is differentiable.
std::tuple<Variable, Variable, Variable> svd(const Variable& a, bool some = true,
                                             bool compute_uv = true);
Variable pinverse(const Variable& a, double rcond = 1e-15);
Variable matrix_power(const Variable& a, int64_t n);
Variable matrix_exp(const Variable& a);

}  // namespace torchlet
