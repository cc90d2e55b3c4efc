// CPU loops of the normalization kernels: channels in parallel, each
// channel a few vectorized Eigen passes over its runs of elements.
#include "tensor/cpu/norm_kernels.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <utility>

#include "tensor/cpu/dispatch.h"
#include "tensor/parallel.h"

namespace torchlet::cpu {
namespace {

// Note [Batch norm channel runs]
// A channel c of a contiguous [N, C, S] tensor is N runs of S contiguous
// elements; with S == 1 ([N, C]) it is one run of N elements C apart. Each
// pass over a channel visits its runs with for_each_run() and maps the same
// run of every operand with Eigen, contiguous runs at compile-time stride 1
// so that Eigen vectorizes them.
struct Layout {
  int64_t n = 0;
  int64_t c = 0;
  int64_t s = 0;
  int64_t count() const { return n * s; }
};

Layout layout_of(const Tensor& input) { return {input.size(0), input.size(1), input.size(2)}; }

// Calls fn(offset, length, stride) for each run of channel c.
template <typename F>
void for_each_run(const Layout& l, int64_t c, F&& fn) {
  if (l.s == 1) {
    fn(c, l.n, Eigen::InnerStride<>(l.c));
    return;
  }
  for (int64_t i = 0; i < l.n; ++i) fn((i * l.c + c) * l.s, l.s, Eigen::InnerStride<1>());
}

template <typename T, typename Stride>
auto run(const T* p, int64_t length, Stride stride) {
  return Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>, 0, Stride>(p, length, stride);
}

template <typename T, typename Stride>
auto run(T* p, int64_t length, Stride stride) {
  return Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>, 0, Stride>(p, length, stride);
}

// Channels per parallel task: about kParallelGrain elements each.
int64_t channel_grain(const Layout& l) {
  return std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(l.count(), 1));
}

template <typename T>
const T* data_or_null(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.data_ptr()) : nullptr;
}

// Note [Batch norm statistics in one pass]
// A channel's sum and sum of squares are taken in one pass over its runs,
// of the values shifted by the channel's first value (which keeps the sum
// of squares from cancelling when the mean is large against the spread).
// Each run is reduced in T by Eigen's vectorized tree reduction (a run is
// at most one plane or one column of [N, C]) and the runs' results are
// accumulated in double.
template <typename T>
std::pair<double, double> channel_moments(const T* x, const Layout& l, int64_t c) {
  const T shift = x[l.s == 1 ? c : c * l.s];
  double sum = 0, sum_sq = 0;
  for_each_run(l, c, [&](int64_t offset, int64_t length, auto stride) {
    const auto d = run(x + offset, length, stride) - shift;
    sum += static_cast<double>(d.sum());
    sum_sq += static_cast<double>(d.square().sum());
  });
  const double m = static_cast<double>(l.count());
  const double mean_shifted = sum / m;
  return {shift + mean_shifted, std::max(0.0, sum_sq / m - mean_shifted * mean_shifted)};
}

// running = (1 - momentum) * running + momentum * value, element c of a
// [C] tensor of any stride.
template <typename T>
void update_running(const Tensor& running, int64_t c, double value, double momentum) {
  T& r = static_cast<T*>(running.data_ptr())[c * running.stride(0)];
  r = static_cast<T>((1 - momentum) * static_cast<double>(r) + momentum * value);
}

template <typename T>
void normalize_channel(T* y, const T* x, const Layout& l, int64_t c, T mean, T invstd, const T* w,
                       const T* b) {
  const T scale = w ? invstd * w[c] : invstd;
  const T offset = (b ? b[c] : T(0)) - mean * scale;
  for_each_run(l, c, [&](int64_t o, int64_t length, auto stride) {
    run(y + o, length, stride) = run(x + o, length, stride) * scale + offset;
  });
}

// Sums over channel c of g and of g * (x - mean), per run in T and across
// runs in double (Note [Batch norm statistics in one pass]).
template <typename T>
std::pair<double, double> channel_grad_sums(const T* g, const T* x, const Layout& l, int64_t c,
                                            T mean) {
  double sum_g = 0, sum_g_xmu = 0;
  for_each_run(l, c, [&](int64_t o, int64_t length, auto stride) {
    const auto grad = run(g + o, length, stride);
    sum_g += static_cast<double>(grad.sum());
    sum_g_xmu += static_cast<double>((grad * (run(x + o, length, stride) - mean)).sum());
  });
  return {sum_g, sum_g_xmu};
}

// dx = a * g + b * x + k, with a, b, k the channel's coefficients.
template <typename T>
void affine_grad_channel(T* dx, const T* g, const T* x, const Layout& l, int64_t c, T a, T b, T k) {
  for_each_run(l, c, [&](int64_t o, int64_t length, auto stride) {
    auto out = run(dx + o, length, stride);
    if (b == T(0)) {
      out = run(g + o, length, stride) * a + k;
    } else {
      out = run(g + o, length, stride) * a + run(x + o, length, stride) * b + k;
    }
  });
}

}  // namespace

void batch_norm_channels(const Tensor& out, const Tensor& mean, const Tensor& invstd,
                         const Tensor& input, const Tensor& weight, const Tensor& bias,
                         const Tensor& running_mean, const Tensor& running_var, bool training,
                         double momentum, double eps) {
  const Layout l = layout_of(input);
  dispatch_floating(input.dtype(), "batch_norm", [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(input.data_ptr());
    T* y = static_cast<T*>(out.data_ptr());
    T* m = static_cast<T*>(mean.data_ptr());
    T* s = static_cast<T*>(invstd.data_ptr());
    const T* w = data_or_null<T>(weight);
    const T* b = data_or_null<T>(bias);
    const double count = static_cast<double>(l.count());
    const double unbias = count / (count - 1);  // inf for one value, as PyTorch
    parallel_for(0, l.c, channel_grain(l), [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        if (training) {
          const auto [batch_mean, batch_var] = channel_moments(x, l, c);
          m[c] = static_cast<T>(batch_mean);
          s[c] = static_cast<T>(1 / std::sqrt(batch_var + eps));
          if (running_mean.defined()) update_running<T>(running_mean, c, batch_mean, momentum);
          if (running_var.defined()) {
            update_running<T>(running_var, c, batch_var * unbias, momentum);
          }
        }
        normalize_channel(y, x, l, c, m[c], s[c], w, b);
      }
    });
  });
}

void batch_norm_backward_channels(const Tensor& grad_input, const Tensor& grad_weight,
                                  const Tensor& grad_bias, const Tensor& grad_out,
                                  const Tensor& input, const Tensor& mean, const Tensor& invstd,
                                  const Tensor& weight, bool training) {
  const Layout l = layout_of(input);
  dispatch_floating(input.dtype(), "batch_norm_backward", [&](auto tag) {
    using T = decltype(tag);
    const T* g = static_cast<const T*>(grad_out.data_ptr());
    const T* x = static_cast<const T*>(input.data_ptr());
    const T* m = static_cast<const T*>(mean.data_ptr());
    const T* s = static_cast<const T*>(invstd.data_ptr());
    const T* w = data_or_null<T>(weight);
    T* dx = grad_input.defined() ? static_cast<T*>(grad_input.data_ptr()) : nullptr;
    T* dw = grad_weight.defined() ? static_cast<T*>(grad_weight.data_ptr()) : nullptr;
    T* db = grad_bias.defined() ? static_cast<T*>(grad_bias.data_ptr()) : nullptr;
    const bool need_sums = training || dw || db;
    const double count = static_cast<double>(l.count());
    parallel_for(0, l.c, channel_grain(l), [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        const auto [sum_g, sum_g_xmu] =
            need_sums ? channel_grad_sums(g, x, l, c, m[c]) : std::pair<double, double>{0, 0};
        if (dw) dw[c] = static_cast<T>(sum_g_xmu * s[c]);
        if (db) db[c] = static_cast<T>(sum_g);
        if (!dx) continue;
        const double a = static_cast<double>(s[c]) * (w ? static_cast<double>(w[c]) : 1.0);
        if (!training) {
          affine_grad_channel<T>(dx, g, x, l, c, static_cast<T>(a), T(0), T(0));
          continue;
        }
        // dx = a * (g - sum_g / M - (x - mean) * invstd^2 * sum_g_xmu / M).
        const double b = -a * static_cast<double>(s[c]) * s[c] * sum_g_xmu / count;
        const double k = -a * sum_g / count - b * static_cast<double>(m[c]);
        affine_grad_channel<T>(dx, g, x, l, c, static_cast<T>(a), static_cast<T>(b),
                               static_cast<T>(k));
      }
    });
  });
}

}  // namespace torchlet::cpu
