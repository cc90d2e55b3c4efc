#pragma once

// Matrix decompositions and solvers: PyTorch's torch.linalg, and the torch.*
// functions built on them. Each works on the last two dims, batched over the
// leading ones, for float32 and float64. Errors follow PyTorch's words.

#include <optional>
#include <string>
#include <tuple>

#include "tensor/tensor_body.h"

namespace torchlet {

namespace linalg {

Tensor inv(const Tensor& a);
Tensor det(const Tensor& a);
/// (sign, logabsdet): the sign is 0 and logabsdet -inf for a singular matrix.
std::tuple<Tensor, Tensor> slogdet(const Tensor& a);
/// X with A X = B. B is a batch of matrices, or of vectors when its dim is
/// A's dim - 1 (or it is 1-D); batch dims broadcast.
Tensor solve(const Tensor& a, const Tensor& b);
/// The lower factor L of A = L L^H (the upper U of A = U^H U with `upper`).
Tensor cholesky(const Tensor& a, bool upper = false);
/// (Q, R); mode is "reduced", "complete" or "r" (Q then is empty).
std::tuple<Tensor, Tensor> qr(const Tensor& a, const std::string& mode = "reduced");
/// (eigenvalues ascending, eigenvectors as columns) of the symmetric matrix
/// stored in the lower ("L") or upper ("U") triangle.
std::tuple<Tensor, Tensor> eigh(const Tensor& a, const std::string& uplo = "L");
Tensor eigvalsh(const Tensor& a, const std::string& uplo = "L");
/// (U, S, Vh), S descending.
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& a, bool full_matrices = true);
Tensor svdvals(const Tensor& a);
/// The pseudoinverse; singular values below max(atol, rtol * largest) are
/// dropped. rtol defaults to eps * max(m, n) when neither is given (0 when
/// only atol is).
Tensor pinv(const Tensor& a, std::optional<double> atol = std::nullopt,
            std::optional<double> rtol = std::nullopt, bool hermitian = false);
/// The number of singular values (eigenvalue magnitudes with `hermitian`)
/// above the tolerance pinv uses; int64.
Tensor matrix_rank(const Tensor& a, std::optional<double> atol = std::nullopt,
                   std::optional<double> rtol = std::nullopt, bool hermitian = false);
/// torch.linalg.lstsq's result with the "gelsy" driver: residuals and
/// singular_values are empty, rank is the effective rank.
struct LstsqResult {
  Tensor solution;
  Tensor residuals;
  Tensor rank;
  Tensor singular_values;
};
/// Least squares solution of A X = B; `rcond` defaults to eps * max(m, n).
/// Only the "gelsy" driver (PyTorch's CPU default) is implemented.
LstsqResult lstsq(const Tensor& a, const Tensor& b, std::optional<double> rcond = std::nullopt,
                  std::optional<std::string> driver = std::nullopt);
/// A^n by repeated squaring; negative n through inv.
Tensor matrix_power(const Tensor& a, int64_t n);
Tensor matrix_exp(const Tensor& a);

}  // namespace linalg

// torch.* forms.
Tensor det(const Tensor& a);
Tensor logdet(const Tensor& a);
std::tuple<Tensor, Tensor> slogdet(const Tensor& a);
Tensor inverse(const Tensor& a);
Tensor cholesky(const Tensor& a, bool upper = false);
/// X with A X = b, A = L L^T given its factor `l` (U^T U with `upper`).
Tensor cholesky_solve(const Tensor& b, const Tensor& l, bool upper = false);
/// A^-1 for A = L L^T given its factor `l` (U^T U with `upper`).
Tensor cholesky_inverse(const Tensor& l, bool upper = false);
/// torch.qr: reduced with `some`, else complete.
std::tuple<Tensor, Tensor> qr(const Tensor& a, bool some = true);
/// torch.svd: (U, S, V), V not transposed.
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& a, bool some = true, bool compute_uv = true);
Tensor pinverse(const Tensor& a, double rcond = 1e-15);
Tensor matrix_power(const Tensor& a, int64_t n);
Tensor matrix_exp(const Tensor& a);

}  // namespace torchlet
