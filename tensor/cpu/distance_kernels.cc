// cdist's CPU loops: each output row (or gradient row) is one task.
#include "tensor/cpu/distance_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tensor/parallel.h"

namespace torchlet::cpu {
namespace {

// The p-norm of a - b over m elements, by the kind of p.
template <typename T>
T distance(const T* a, const T* b, int64_t m, double p) {
  if (p == 0) {
    T count = 0;
    for (int64_t k = 0; k < m; ++k) count += a[k] != b[k] ? T(1) : T(0);
    return count;
  }
  if (p == 1) {
    T sum = 0;
    for (int64_t k = 0; k < m; ++k) sum += std::abs(a[k] - b[k]);
    return sum;
  }
  if (p == 2) {
    T sum = 0;
    for (int64_t k = 0; k < m; ++k) sum += (a[k] - b[k]) * (a[k] - b[k]);
    return std::sqrt(sum);
  }
  if (std::isinf(p)) {
    T largest = 0;
    for (int64_t k = 0; k < m; ++k) largest = std::max(largest, std::abs(a[k] - b[k]));
    return largest;
  }
  const T tp = static_cast<T>(p);
  T sum = 0;
  for (int64_t k = 0; k < m; ++k) sum += std::pow(std::abs(a[k] - b[k]), tp);
  return std::pow(sum, T(1) / tp);
}

template <typename T>
T sign(T x) {
  return static_cast<T>((T(0) < x) - (x < T(0)));
}

// One element's term of _cdist_backward: d(dist)/d(diff) times grad.
template <typename T>
T backward_term(T diff, T grad, T dist, double p) {
  if (p == 1) return grad * sign(diff);
  if (std::isinf(p)) return std::abs(diff) == dist ? grad * sign(diff) : T(0);
  if (dist == 0) return 0;
  if (p == 2) return grad * diff / dist;
  const T tp = static_cast<T>(p);
  if (p < 2) {
    if (p < 1 && diff == 0) return 0;
    return sign(diff) * std::pow(std::abs(diff), tp - 1) * grad / std::pow(dist, tp - 1);
  }
  return diff * std::pow(std::abs(diff), tp - 2) * grad / std::pow(dist, tp - 1);
}

template <typename T>
void cdist_typed(const Tensor& out, const Tensor& x1, const Tensor& x2, double p) {
  const int64_t batches = x1.size(0), rows1 = x1.size(1), rows2 = x2.size(1), m = x1.size(2);
  const T* a = static_cast<const T*>(x1.data_ptr());
  const T* b = static_cast<const T*>(x2.data_ptr());
  T* o = static_cast<T*>(out.data_ptr());
  const int64_t grain = std::max<int64_t>(1, (1 << 14) / std::max<int64_t>(rows2 * m, 1));
  parallel_for(0, batches * rows1, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t batch = r / rows1;
      const T* row = a + r * m;
      const T* others = b + batch * rows2 * m;
      for (int64_t j = 0; j < rows2; ++j) o[r * rows2 + j] = distance(row, others + j * m, m, p);
    }
  });
}

// grad_a[b, i] = sign * sum_j term(a[b, i] - b[b, j]) with grad and dist
// read at [b, i, j] (or [b, j, i] when `transposed`).
template <typename T>
void backward_rows(T* grad_a, const T* a, const T* b, const T* grad, const T* dist,
                   int64_t batches, int64_t rows_a, int64_t rows_b, int64_t m, double p,
                   bool transposed) {
  const int64_t grain = std::max<int64_t>(1, (1 << 14) / std::max<int64_t>(rows_b * m, 1));
  parallel_for(0, batches * rows_a, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t batch = r / rows_a, i = r % rows_a;
      const T* row = a + r * m;
      T* g = grad_a + r * m;
      std::fill(g, g + m, T(0));
      for (int64_t j = 0; j < rows_b; ++j) {
        const int64_t at = transposed ? (batch * rows_b + j) * rows_a + i
                                      : (batch * rows_a + i) * rows_b + j;
        const T* other = b + (batch * rows_b + j) * m;
        for (int64_t k = 0; k < m; ++k) {
          g[k] += backward_term(row[k] - other[k], grad[at], dist[at], p);
        }
      }
    }
  });
}

template <typename T>
void cdist_backward_typed(const Tensor& grad_x1, const Tensor& grad_x2, const Tensor& grad,
                          const Tensor& x1, const Tensor& x2, const Tensor& dist, double p) {
  const int64_t batches = x1.size(0), rows1 = x1.size(1), rows2 = x2.size(1), m = x1.size(2);
  const T* a = static_cast<const T*>(x1.data_ptr());
  const T* b = static_cast<const T*>(x2.data_ptr());
  const T* g = static_cast<const T*>(grad.data_ptr());
  const T* d = static_cast<const T*>(dist.data_ptr());
  // The terms are odd in the difference, so x2's gradient is the same loop
  // with the roles swapped (the sign flip comes with the difference).
  backward_rows(static_cast<T*>(grad_x1.data_ptr()), a, b, g, d, batches, rows1, rows2, m, p,
                false);
  backward_rows(static_cast<T*>(grad_x2.data_ptr()), b, a, g, d, batches, rows2, rows1, m, p,
                true);
}

}  // namespace

void cdist(const Tensor& out, const Tensor& x1, const Tensor& x2, double p) {
  if (x1.dtype() == kFloat64) return cdist_typed<double>(out, x1, x2, p);
  cdist_typed<float>(out, x1, x2, p);
}

void cdist_backward(const Tensor& grad_x1, const Tensor& grad_x2, const Tensor& grad,
                    const Tensor& x1, const Tensor& x2, const Tensor& dist, double p) {
  if (x1.dtype() == kFloat64) {
    return cdist_backward_typed<double>(grad_x1, grad_x2, grad, x1, x2, dist, p);
  }
  cdist_backward_typed<float>(grad_x1, grad_x2, grad, x1, x2, dist, p);
}

}  // namespace torchlet::cpu
