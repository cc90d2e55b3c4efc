// Matrix decompositions and solvers on Eigen, one matrix per batch element,
// the batch split across the intra-op pool. Instantiated for float and
// double only: Eigen's decompositions are slow to compile.
#include "tensor/cpu/linalg_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/QR>

#include "tensor/parallel.h"

namespace torchlet::cpu {
namespace {

template <typename T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ColMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
template <typename T>
using RowMap = Eigen::Map<RowMat<T>>;
template <typename T>
using ColMap = Eigen::Map<ColMat<T>>;

int64_t rows(const Tensor& t) { return t.size(-2); }
int64_t cols(const Tensor& t) { return t.size(-1); }
int64_t batch(const Tensor& t) { return t.size(0); }

// Matrix `i` of a [batch, rows, cols] tensor, row-major.
template <typename T>
RowMap<T> matrix(const Tensor& t, int64_t i) {
  const int64_t r = rows(t), c = cols(t);
  return RowMap<T>(static_cast<T*>(t.data_ptr()) + i * r * c, r, c);
}

// The same storage read column-major: the transpose of matrix().
template <typename T>
ColMap<T> transposed(const Tensor& t, int64_t i) {
  const int64_t r = rows(t), c = cols(t);
  return ColMap<T>(static_cast<T*>(t.data_ptr()) + i * r * c, c, r);
}

// Runs fn(i) for every batch element, splitting the batch across the pool
// when the work (about `flops_per_item` each) is worth it.
template <typename F>
void for_each_matrix(int64_t count, int64_t flops_per_item, const F& fn) {
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(flops_per_item, 1));
  parallel_for(0, count, grain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) fn(i);
  });
}

int64_t cube(int64_t n) { return n * n * n; }

// 1-based index of the first zero on U's diagonal, 0 if none.
template <typename T>
int64_t first_zero_pivot(const RowMat<T>& lu) {
  for (int64_t k = 0; k < lu.rows(); ++k) {
    if (lu(k, k) == T(0)) return k + 1;
  }
  return 0;
}

template <typename T>
void lu_det_impl(const Tensor& a, const Tensor& det, const Tensor& sign, const Tensor& logabs) {
  const int64_t n = rows(a);
  for_each_matrix(batch(a), cube(n), [&](int64_t i) {
    T d = 1, s = 1, l = 0;
    if (n > 0) {
      const Eigen::PartialPivLU<RowMat<T>> lu(matrix<T>(a, i));
      const RowMat<T>& m = lu.matrixLU();
      s = static_cast<T>(lu.permutationP().determinant());
      d = s;
      for (int64_t k = 0; k < n; ++k) {
        const T v = m(k, k);
        d *= v;
        if (v < 0) s = -s;
        l += std::log(std::abs(v));
      }
      if (first_zero_pivot<T>(m) != 0) s = 0;
    }
    if (det.defined()) det.data<T>()[i] = d;
    if (sign.defined()) sign.data<T>()[i] = s;
    if (logabs.defined()) logabs.data<T>()[i] = l;
  });
}

template <typename T>
void lu_solve_impl(const Tensor& a, const Tensor& b, const Tensor& x, std::vector<int64_t>& info) {
  const int64_t n = rows(a);
  if (n == 0) return;
  const int64_t rhs = cols(x);
  for_each_matrix(batch(a), cube(n) + n * n * rhs, [&](int64_t i) {
    const Eigen::PartialPivLU<RowMat<T>> lu(matrix<T>(a, i));
    info[i] = first_zero_pivot<T>(lu.matrixLU());
    if (info[i] != 0) return;
    // The right-hand sides (the identity's columns for an inverse) split
    // across the threads when the batch has not already split: the two
    // triangular solves are three quarters of an inverse's work.
    RowMap<T> out = matrix<T>(x, i);
    const int64_t grain = std::max<int64_t>(16, kParallelGrain / std::max<int64_t>(n * n, 1));
    parallel_for(0, rhs, grain, [&](int64_t c0, int64_t c1) {
      if (b.defined()) {
        out.middleCols(c0, c1 - c0) = lu.solve(matrix<T>(b, i).middleCols(c0, c1 - c0));
      } else {
        out.middleCols(c0, c1 - c0) = lu.solve(RowMat<T>::Identity(n, n).middleCols(c0, c1 - c0));
      }
    });
  });
}

template <typename T>
void cholesky_impl(const Tensor& a, const Tensor& out, bool upper, std::vector<int64_t>& info) {
  const int64_t n = rows(a);
  for_each_matrix(batch(a), cube(n) / 3, [&](int64_t i) {
    // The lower factor L' of the lower triangle of m (a, or a^T for the
    // upper one), written column-major when U = L'^T is wanted.
    ColMat<T> m = upper ? ColMat<T>(transposed<T>(a, i)) : ColMat<T>(matrix<T>(a, i));
    const Eigen::Index failed = Eigen::internal::llt_inplace<T, Eigen::Lower>::blocked(m);
    info[i] = failed < 0 ? 0 : failed + 1;
    if (failed >= 0) return;
    m.template triangularView<Eigen::StrictlyUpper>().setZero();
    if (upper) {
      transposed<T>(out, i) = m;
    } else {
      matrix<T>(out, i) = m;
    }
  });
}

template <typename T>
void cholesky_solve_impl(const Tensor& b, const Tensor& l, const Tensor& x, bool upper) {
  const int64_t n = rows(l);
  if (n == 0) return;
  for_each_matrix(batch(l), 2 * n * n * cols(x), [&](int64_t i) {
    const RowMap<T> f = matrix<T>(l, i);
    RowMap<T> out = matrix<T>(x, i);
    out = matrix<T>(b, i);
    if (upper) {  // A = U^T U
      f.transpose().template triangularView<Eigen::Lower>().solveInPlace(out);
      f.template triangularView<Eigen::Upper>().solveInPlace(out);
    } else {  // A = L L^T
      f.template triangularView<Eigen::Lower>().solveInPlace(out);
      f.transpose().template triangularView<Eigen::Upper>().solveInPlace(out);
    }
  });
}

template <typename T>
void qr_impl(const Tensor& a, const Tensor& q, const Tensor& r) {
  const int64_t m = rows(a), n = cols(a);
  for_each_matrix(batch(a), m * n * std::min(m, n), [&](int64_t i) {
    const Eigen::HouseholderQR<RowMat<T>> f(matrix<T>(a, i));
    RowMap<T> ri = matrix<T>(r, i);
    ri = f.matrixQR().topRows(rows(r)).template triangularView<Eigen::Upper>();
    if (q.defined()) {
      matrix<T>(q, i) = f.householderQ() * RowMat<T>::Identity(m, cols(q));
    }
  });
}

template <typename T>
void eigh_impl(const Tensor& a, const Tensor& w, const Tensor& v, bool upper) {
  const int64_t n = rows(a);
  if (n == 0) return;
  const int options = v.defined() ? Eigen::ComputeEigenvectors : Eigen::EigenvaluesOnly;
  for_each_matrix(batch(a), 4 * cube(n), [&](int64_t i) {
    // The solver reads the lower triangle; a^T's is a's upper one.
    const ColMat<T> m = upper ? ColMat<T>(transposed<T>(a, i)) : ColMat<T>(matrix<T>(a, i));
    const Eigen::SelfAdjointEigenSolver<ColMat<T>> es(m, options);
    Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(w.data<T>() + i * n, n) = es.eigenvalues();
    if (v.defined()) matrix<T>(v, i) = es.eigenvectors();
  });
}

template <typename T>
void lstsq_impl(const Tensor& a, const Tensor& b, const Tensor& x, const Tensor& rank,
                double rcond) {
  const int64_t m = rows(a), n = cols(a);
  for_each_matrix(batch(a), m * n * std::max<int64_t>(std::min(m, n), 1), [&](int64_t i) {
    if (m == 0 || n == 0) {
      matrix<T>(x, i).setZero();
      rank.data<int64_t>()[i] = 0;
      return;
    }
    Eigen::CompleteOrthogonalDecomposition<ColMat<T>> f;
    f.setThreshold(static_cast<T>(rcond));
    f.compute(ColMat<T>(matrix<T>(a, i)));
    matrix<T>(x, i) = f.solve(ColMat<T>(matrix<T>(b, i)));
    rank.data<int64_t>()[i] = f.rank();
  });
}

}  // namespace

void lu_det(const Tensor& a, const Tensor& det, const Tensor& sign, const Tensor& logabsdet) {
  if (a.dtype() == kFloat64) return lu_det_impl<double>(a, det, sign, logabsdet);
  lu_det_impl<float>(a, det, sign, logabsdet);
}

void lu_inverse(const Tensor& a, const Tensor& out, std::vector<int64_t>& info) {
  if (a.dtype() == kFloat64) return lu_solve_impl<double>(a, Tensor(), out, info);
  lu_solve_impl<float>(a, Tensor(), out, info);
}

void lu_solve(const Tensor& a, const Tensor& b, const Tensor& x, std::vector<int64_t>& info) {
  if (a.dtype() == kFloat64) return lu_solve_impl<double>(a, b, x, info);
  lu_solve_impl<float>(a, b, x, info);
}

void cholesky(const Tensor& a, const Tensor& out, bool upper, std::vector<int64_t>& info) {
  if (a.dtype() == kFloat64) return cholesky_impl<double>(a, out, upper, info);
  cholesky_impl<float>(a, out, upper, info);
}

void cholesky_solve(const Tensor& b, const Tensor& l, const Tensor& x, bool upper) {
  if (l.dtype() == kFloat64) return cholesky_solve_impl<double>(b, l, x, upper);
  cholesky_solve_impl<float>(b, l, x, upper);
}

void qr(const Tensor& a, const Tensor& q, const Tensor& r) {
  if (a.dtype() == kFloat64) return qr_impl<double>(a, q, r);
  qr_impl<float>(a, q, r);
}

void eigh(const Tensor& a, const Tensor& w, const Tensor& v, bool upper) {
  if (a.dtype() == kFloat64) return eigh_impl<double>(a, w, v, upper);
  eigh_impl<float>(a, w, v, upper);
}

void lstsq(const Tensor& a, const Tensor& b, const Tensor& x, const Tensor& rank, double rcond) {
  if (a.dtype() == kFloat64) return lstsq_impl<double>(a, b, x, rank, rcond);
  lstsq_impl<float>(a, b, x, rank, rcond);
}

}  // namespace torchlet::cpu
