#pragma once

// CPU loops of the matrix decompositions and solvers
// (tensor/linalg_decompositions.h validates and lays out their arguments).
// Every tensor here is a contiguous CPU float32 or float64 tensor whose
// matrices are row-major and whose batch dims are flattened into one:
// [batch, rows, cols]. The batch is split across the intra-op pool. Where a
// factorization can fail, `info[b]` gets batch element b's LAPACK-style
// status: 0 on success, else the 1-based index the failure names.

#include <cstdint>
#include <vector>

#include "tensor/tensor_body.h"

namespace torchlet::cpu {

/// LU with partial pivoting of each square matrix of `a` [batch, n, n]; each
/// defined output [batch] gets the determinant, its sign (0 for a singular
/// matrix) and log|det| (-inf for a singular one).
void lu_det(const Tensor& a, const Tensor& det, const Tensor& sign, const Tensor& logabsdet);
/// out = a^-1; info: the first zero diagonal element of U.
void lu_inverse(const Tensor& a, const Tensor& out, std::vector<int64_t>& info);
/// x = a^-1 b for a [batch, n, n] and b, x [batch, n, k]; info as lu_inverse.
void lu_solve(const Tensor& a, const Tensor& b, const Tensor& x, std::vector<int64_t>& info);
/// The Cholesky factor L (or U = L^T with `upper`) of a's lower (upper)
/// triangle; the other triangle of `out` is zero. info: the order of the
/// first leading minor that is not positive-definite.
void cholesky(const Tensor& a, const Tensor& out, bool upper, std::vector<int64_t>& info);
/// x = (L L^T)^-1 b (or (U^T U)^-1 b) for the factor `l` [batch, n, n] and
/// b, x [batch, n, k].
void cholesky_solve(const Tensor& b, const Tensor& l, const Tensor& x, bool upper);
/// Householder QR of a [batch, m, n]: r [batch, rows_r, n] (rows_r = k or m,
/// k = min(m, n)) and, when defined, q [batch, m, cols_q].
void qr(const Tensor& a, const Tensor& q, const Tensor& r);
/// Eigenvalues w [batch, n] (ascending) and, when defined, eigenvectors v
/// [batch, n, n] (columns) of the symmetric matrix stored in a's lower (or
/// `upper`) triangle.
void eigh(const Tensor& a, const Tensor& w, const Tensor& v, bool upper);
/// Singular values s [batch, k] (descending) and, when defined, u [batch, m,
/// m or k] and vh [batch, n or k, n], by divide and conquer (LAPACK's gesdd;
/// in svd_kernels.cc). As gesdd: a matrix holding a NaN gets info -4, one
/// holding an infinity NaN results; either way its outputs are NaN.
void svd(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh,
         std::vector<int64_t>& info);
/// Least squares through a complete orthogonal decomposition (LAPACK's
/// gelsy): x [batch, n, k] minimizes |a x - b| for a [batch, m, n] and b
/// [batch, m, k]; rank [batch] (int64) is the effective rank with relative
/// threshold `rcond`.
void lstsq(const Tensor& a, const Tensor& b, const Tensor& x, const Tensor& rank, double rcond);

}  // namespace torchlet::cpu
