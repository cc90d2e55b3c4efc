// CPU loops of the fused nn kernels: rows in parallel, each row a few
// vectorized Eigen passes.
#include "tensor/cpu/nn_kernels.h"
#include "tensor/cpu/cpu_features.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <type_traits>

#include <Eigen/Core>

#include "tensor/cpu/dispatch.h"
#include "tensor/cpu/vector_math.h"
#include "tensor/parallel.h"

namespace torchlet::cpu {
namespace {

template <typename T>
using Row = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstRow = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// Rows per parallel task: about kParallelGrain elements each.
int64_t row_grain(int64_t row_size) {
  return std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(row_size, 1));
}

template <typename T>
const T* data_or_null(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.data_ptr()) : nullptr;
}

// exp(x - shift) over a row and its sum, 8 floats at a time (Note [AVX2 exp]
// in tensor/cpu/vector_math.h): softmax's exp dominates cross-entropy.
__attribute__((target("avx2,fma"))) float exp_sum_avx2(const float* x, float shift, float* out,
                                                       int64_t n) {
  const __m256 offset = _mm256_set1_ps(shift);
  __m256 acc = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 y = exp8_avx2(_mm256_loadu_ps(x + i), offset);
    _mm256_storeu_ps(out + i, y);
    acc = _mm256_add_ps(acc, y);
  }
  if (i < n) {
    // The last n - i elements, through masked loads and stores (a row of a
    // few classes is nothing but this); the lanes past the end add 0.
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n - i)),
                                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    const __m256 y =
        _mm256_and_ps(exp8_avx2(_mm256_maskload_ps(x + i, mask), offset), _mm256_castsi256_ps(mask));
    _mm256_maskstore_ps(out + i, mask, y);
    acc = _mm256_add_ps(acc, y);
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, acc);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3] + lanes[4] + lanes[5] + lanes[6] + lanes[7];
}

// out = exp(x - shift) over a row; returns the sum.
template <typename T>
T shifted_exp(const T* x, T shift, T* out, int64_t n) {
  if constexpr (std::is_same_v<T, float>) {
    if (cpu_has_avx2_fma()) return exp_sum_avx2(x, shift, out, n);
  }
  Row<T> row(out, n);
  row = (ConstRow<T>(x, n) - shift).exp();
  return row.sum();
}

// Note [Fused cross-entropy]
// One pass per row computes softmax (kept for the backward) and the loss
// lse - x[t], weighted by w[t]; label smoothing adds s / C times the
// weighted sum over classes of lse - x[c]. The backward needs no exp: the
// gradient of a row is
//   g * ((1 - s) * w[t] * (p - onehot(t)) + s / C * (p * sum(w) - w)).
template <typename T>
void cross_entropy_row(const T* x, T* p, T* loss, int64_t t, const T* w, int64_t classes,
                       int64_t ignore_index, double smoothing) {
  if (classes == 0) {  // every target is ignored (else the op layer threw)
    *loss = 0;
    return;
  }
  const ConstRow<T> in(x, classes);
  Row<T> probs(p, classes);
  const T max = in.maxCoeff();
  const T sum = shifted_exp(x, max, p, classes);
  probs *= T(1) / sum;
  if (t == ignore_index) {
    *loss = 0;
    return;
  }
  const double lse = static_cast<double>(max) + std::log(static_cast<double>(sum));
  const double wt = w ? w[t] : 1.0;
  double value = wt * (lse - x[t]);
  if (smoothing > 0) {
    const double smooth = w ? lse * ConstRow<T>(w, classes).sum() - (in * ConstRow<T>(w, classes)).sum()
                            : lse * classes - in.sum();
    value = (1 - smoothing) * value + smoothing / classes * smooth;
  }
  *loss = static_cast<T>(value);
}

template <typename T>
void cross_entropy_backward_row(T* out, T g, const T* p, int64_t t, const T* w, double w_sum,
                                int64_t classes, int64_t ignore_index, double smoothing) {
  Row<T> grad(out, classes);
  if (t == ignore_index) {
    grad.setZero();
    return;
  }
  const ConstRow<T> probs(p, classes);
  const double wt = w ? w[t] : 1.0;
  const double uniform = smoothing / classes;
  grad = probs * static_cast<T>(g * ((1 - smoothing) * wt + uniform * w_sum));
  if (uniform > 0) {
    if (w) {
      grad -= ConstRow<T>(w, classes) * static_cast<T>(g * uniform);
    } else {
      grad -= static_cast<T>(g * uniform);
    }
  }
  out[t] -= static_cast<T>(g * (1 - smoothing) * wt);
}

template <typename T>
void layer_norm_row(const T* x, T* y, T* mean_out, T* rstd_out, const T* w, const T* b, int64_t n,
                    double eps) {
  const ConstRow<T> in(x, n);
  const double mean = static_cast<double>(in.template cast<double>().sum()) / n;
  const double var = (in.template cast<double>() - mean).square().sum() / n;
  const double rstd = 1.0 / std::sqrt(var + eps);
  Row<T> out(y, n);
  out = (in - static_cast<T>(mean)) * static_cast<T>(rstd);
  if (w) out *= ConstRow<T>(w, n);
  if (b) out += ConstRow<T>(b, n);
  *mean_out = static_cast<T>(mean);
  *rstd_out = static_cast<T>(rstd);
}

// dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat)), gw = g * w.
template <typename T>
void layer_norm_backward_row(T* dx, const T* g, const T* x, T mean, T rstd, const T* w,
                             int64_t n) {
  const ConstRow<T> grad(g, n), in(x, n);
  Row<T> out(dx, n);
  out = (in - mean) * rstd;  // xhat, for now
  Eigen::Array<T, Eigen::Dynamic, 1> gw = grad;
  if (w) gw *= ConstRow<T>(w, n);
  const T mean_gw = gw.sum() / static_cast<T>(n);
  const T mean_gw_xhat = (gw * out).sum() / static_cast<T>(n);
  out = (gw - mean_gw - out * mean_gw_xhat) * rstd;
}

}  // namespace

TargetScan scan_targets(const Tensor& target, const Tensor& weight, int64_t classes,
                        int64_t ignore_index) {
  const int64_t* t = static_cast<const int64_t*>(target.data_ptr());
  TargetScan scan;
  const auto weight_of = [&](int64_t c) -> double {
    if (!weight.defined()) return 1.0;
    return dispatch_floating(weight.dtype(), "cross_entropy", [&](auto tag) {
      return static_cast<double>(static_cast<const decltype(tag)*>(weight.data_ptr())[c]);
    });
  };
  for (int64_t r = 0; r < target.numel(); ++r) {
    if (t[r] == ignore_index) continue;
    if (t[r] < 0 || t[r] >= classes) {
      scan.all_valid = false;
      scan.first_invalid = t[r];
      return scan;
    }
    scan.total_weight += weight_of(t[r]);
  }
  return scan;
}

void cross_entropy_rows(const Tensor& loss, const Tensor& probs, const Tensor& input,
                        const Tensor& target, const Tensor& weight, int64_t ignore_index,
                        double label_smoothing) {
  const int64_t rows = input.size(0), classes = input.size(1);
  dispatch_floating(input.dtype(), "cross_entropy", [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(input.data_ptr());
    T* p = static_cast<T*>(probs.data_ptr());
    T* l = static_cast<T*>(loss.data_ptr());
    const int64_t* t = static_cast<const int64_t*>(target.data_ptr());
    const T* w = data_or_null<T>(weight);
    parallel_for(0, rows, row_grain(classes), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        cross_entropy_row(x + r * classes, p + r * classes, l + r, t[r], w, classes, ignore_index,
                          label_smoothing);
      }
    });
  });
}

void cross_entropy_backward_rows(const Tensor& grad_input, const Tensor& grad_loss, double scale,
                                 const Tensor& probs, const Tensor& target, const Tensor& weight,
                                 int64_t ignore_index, double label_smoothing) {
  const int64_t rows = probs.size(0), classes = probs.size(1);
  dispatch_floating(probs.dtype(), "cross_entropy_backward", [&](auto tag) {
    using T = decltype(tag);
    T* out = static_cast<T*>(grad_input.data_ptr());
    const T* g = static_cast<const T*>(grad_loss.data_ptr());
    const bool broadcast = grad_loss.numel() == 1;
    const T* p = static_cast<const T*>(probs.data_ptr());
    const int64_t* t = static_cast<const int64_t*>(target.data_ptr());
    const T* w = data_or_null<T>(weight);
    const double w_sum = w ? static_cast<double>(ConstRow<T>(w, classes).sum()) : classes;
    parallel_for(0, rows, row_grain(classes), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const T gr = static_cast<T>((broadcast ? g[0] : g[r]) * scale);
        cross_entropy_backward_row(out + r * classes, gr, p + r * classes, t[r], w, w_sum, classes,
                                   ignore_index, label_smoothing);
      }
    });
  });
}

void layer_norm_rows(const Tensor& out, const Tensor& mean, const Tensor& rstd,
                     const Tensor& input, const Tensor& weight, const Tensor& bias, double eps) {
  const int64_t rows = input.size(0), n = input.size(1);
  dispatch_floating(input.dtype(), "layer_norm", [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(input.data_ptr());
    T* y = static_cast<T*>(out.data_ptr());
    T* m = static_cast<T*>(mean.data_ptr());
    T* s = static_cast<T*>(rstd.data_ptr());
    const T* w = data_or_null<T>(weight);
    const T* b = data_or_null<T>(bias);
    parallel_for(0, rows, row_grain(n), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        layer_norm_row(x + r * n, y + r * n, m + r, s + r, w, b, n, eps);
      }
    });
  });
}

void layer_norm_backward_rows(const Tensor& grad_input, const Tensor& grad_weight,
                              const Tensor& grad_bias, const Tensor& grad_out,
                              const Tensor& input, const Tensor& mean, const Tensor& rstd,
                              const Tensor& weight) {
  const int64_t rows = input.size(0), n = input.size(1);
  dispatch_floating(input.dtype(), "layer_norm_backward", [&](auto tag) {
    using T = decltype(tag);
    T* dx = static_cast<T*>(grad_input.data_ptr());
    const T* g = static_cast<const T*>(grad_out.data_ptr());
    const T* x = static_cast<const T*>(input.data_ptr());
    const T* m = static_cast<const T*>(mean.data_ptr());
    const T* s = static_cast<const T*>(rstd.data_ptr());
    const T* w = data_or_null<T>(weight);
    parallel_for(0, rows, row_grain(n), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        layer_norm_backward_row(dx + r * n, g + r * n, x + r * n, m[r], s[r], w, n);
      }
    });
    if (grad_weight.defined()) {
      Row<T> dw(static_cast<T*>(grad_weight.data_ptr()), n);
      dw.setZero();
      for (int64_t r = 0; r < rows; ++r) {
        dw += ConstRow<T>(g + r * n, n) * ((ConstRow<T>(x + r * n, n) - m[r]) * s[r]);
      }
    }
    if (grad_bias.defined()) {
      Row<T> db(static_cast<T*>(grad_bias.data_ptr()), n);
      db.setZero();
      for (int64_t r = 0; r < rows; ++r) db += ConstRow<T>(g + r * n, n);
    }
  });
}

void renorm_rows(const Tensor& weight, const Tensor& rows, double max_norm, double norm_type) {
  const int64_t dim = weight.size(1);
  const int64_t* index = static_cast<const int64_t*>(rows.data_ptr());
  dispatch_floating(weight.dtype(), "embedding_renorm_", [&](auto tag) {
    using T = decltype(tag);
    T* w = static_cast<T*>(weight.data_ptr());
    for (int64_t i = 0; i < rows.numel(); ++i) {
      if (i > 0 && index[i] == index[i - 1]) continue;
      Row<T> row(w + index[i] * dim, dim);
      const auto a = row.abs().template cast<double>();
      const double norm = norm_type == 1   ? a.sum()
                          : norm_type == 2 ? std::sqrt(a.square().sum())
                                           : std::pow(a.pow(norm_type).sum(), 1.0 / norm_type);
      if (norm > max_norm) row *= static_cast<T>(max_norm / (norm + 1e-7));
    }
  });
}

}  // namespace torchlet::cpu
