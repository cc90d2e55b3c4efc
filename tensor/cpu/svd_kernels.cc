// The singular value decomposition on Eigen's divide-and-conquer BDCSVD
// (LAPACK's gesdd, as PyTorch's CPU path uses), in a file of its own: its
// templates are the slowest of Eigen's to compile, and here they compile
// beside the other kernels rather than after them. Instantiated for double
// only: float32 matrices are decomposed in double and rounded, which halves
// the compile time and is the more accurate result.
//
// BDCSVD checks its internal invariants with plain assert(), which would
// abort a build without NDEBUG on inputs where rounding breaks one of them
// (LAPACK's gesdd carries on there, and so does BDCSVD with NDEBUG): this
// file is compiled as in an optimized build in every mode.
#ifndef NDEBUG
#define NDEBUG
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <Eigen/Core>
#include <Eigen/SVD>

#include "tensor/cpu/linalg_kernels.h"
#include "tensor/parallel.h"

namespace torchlet::cpu {
namespace {

using ColMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
template <typename T>
using RowMap = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
template <typename T>
using VecMap = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>;

int64_t rows(const Tensor& t) { return t.size(-2); }
int64_t cols(const Tensor& t) { return t.size(-1); }

// Matrix `i` of a [batch, rows, cols] tensor, row-major.
template <typename T>
RowMap<T> matrix(const Tensor& t, int64_t i) {
  const int64_t r = rows(t), c = cols(t);
  return RowMap<T>(static_cast<T*>(t.data_ptr()) + i * r * c, r, c);
}

// Whether matrix `i` of `a` holds a NaN, or else an infinity.
template <typename T>
void scan_non_finite(const Tensor& a, int64_t i, bool& has_nan, bool& has_inf) {
  const int64_t size = rows(a) * cols(a);
  const T* p = static_cast<const T*>(a.data_ptr()) + i * size;
  has_nan = has_inf = false;
  for (int64_t j = 0; j < size; ++j) {
    if (std::isnan(p[j])) has_nan = true;
    if (std::isinf(p[j])) has_inf = true;
  }
}

template <typename T>
void fill_nan(const Tensor& u, const Tensor& s, const Tensor& vh, int64_t i, int64_t k) {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  VecMap<T>(s.data<T>() + i * k, k).setConstant(nan);
  if (u.defined()) matrix<T>(u, i).setConstant(nan);
  if (vh.defined()) matrix<T>(vh, i).setConstant(nan);
}

template <typename T>
void svd_impl(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh,
              std::vector<int64_t>& info) {
  const int64_t m = rows(a), n = cols(a), k = std::min(m, n);
  const bool full_u = u.defined() && cols(u) == m && m != k;
  const bool full_v = vh.defined() && rows(vh) == n && n != k;
  unsigned options = 0;
  if (u.defined()) options |= full_u ? Eigen::ComputeFullU : Eigen::ComputeThinU;
  if (vh.defined()) options |= full_v ? Eigen::ComputeFullV : Eigen::ComputeThinV;
  const int64_t flops = 8 * m * n * std::max<int64_t>(k, 1);
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(flops, 1));
  parallel_for(0, a.size(0), grain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      if (k == 0) {  // nothing to decompose: the full bases are identities
        if (u.defined()) matrix<T>(u, i).setIdentity();
        if (vh.defined()) matrix<T>(vh, i).setIdentity();
        continue;
      }
      // As gesdd: a NaN is refused (LAPACK's info -4), an infinity gives
      // NaN throughout.
      bool has_nan = false, has_inf = false;
      scan_non_finite<T>(a, i, has_nan, has_inf);
      if (has_nan || has_inf) {
        if (has_nan) info[i] = -4;
        fill_nan<T>(u, s, vh, i, k);
        continue;
      }
      const Eigen::BDCSVD<ColMat> f(ColMat(matrix<T>(a, i).template cast<double>()), options);
      if (f.info() != Eigen::Success && f.info() != Eigen::NoConvergence) {
        info[i] = 1;
        fill_nan<T>(u, s, vh, i, k);
        continue;
      }
      VecMap<T>(s.data<T>() + i * k, k) = f.singularValues().template cast<T>();
      if (u.defined()) matrix<T>(u, i) = f.matrixU().template cast<T>();
      if (vh.defined()) matrix<T>(vh, i) = f.matrixV().transpose().template cast<T>();
    }
  });
}

}  // namespace

void svd(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh,
         std::vector<int64_t>& info) {
  if (a.dtype() == kFloat64) return svd_impl<double>(a, u, s, vh, info);
  svd_impl<float>(a, u, s, vh, info);
}

}  // namespace torchlet::cpu
