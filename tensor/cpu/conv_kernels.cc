// CPU loops of convolution: direct loops for depthwise-like convolutions,
// im2col + GEMM for the rest. See Note [Convolution algorithms].
#include "tensor/cpu/conv_kernels.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include <Eigen/Core>

#include "tensor/cpu/dispatch.h"
#include "tensor/cpu/gemm.h"
#include "tensor/parallel.h"

namespace torchlet::cpu {

// Note [Convolution algorithms]
// - kDirect: each output channel reads one input channel (in_channels ==
//   groups: depthwise, or any convolution of a single input channel). The
//   loops run over output rows and kernel taps, each tap one vectorized
//   multiply-add along the row: memory-bound work with no extra copies.
// - kPointwiseGemm: a 1x1 kernel with stride 1 and no padding is a plain
//   matrix product per sample and group; the input is its own column matrix.
// - kIm2colGemm: everything else. Each sample's patches are copied into a
//   column matrix [in_channels * prod(kernel), prod(output)] (im2col), then
//   one GEMM per group multiplies the weight [out / groups, in / groups *
//   prod(kernel)] by it. The backward is the same in reverse: grad_input's
//   columns are weightᵀ @ grad_out (then col2im), grad_weight is grad_out @
//   columnsᵀ summed over the batch.
// Samples run in parallel when there are at least as many as intra-op
// threads, each thread with one column buffer for all its samples (and its
// own grad_weight accumulator); otherwise samples run in turn and each GEMM
// is split across the threads.

namespace {

int64_t product(const std::array<int64_t, 3>& a) { return a[0] * a[1] * a[2]; }

int64_t kernel_volume(const ConvGeometry& g) { return product(g.kernel); }
int64_t output_volume(const ConvGeometry& g) { return product(g.output); }
int64_t input_volume(const ConvGeometry& g) { return product(g.input); }

template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using StridedConstMap =
    Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>, 0, Eigen::InnerStride<>>;
template <typename T>
using StridedMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>, 0, Eigen::InnerStride<>>;

// The outputs ow of a row whose input position ow * stride + offset lies in
// [0, width): [begin, end).
struct RowSpan {
  int64_t begin;
  int64_t end;
};

int64_t ceil_div_nonneg(int64_t a, int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; }

RowSpan valid_span(int64_t offset, int64_t stride, int64_t width, int64_t outputs) {
  const int64_t begin = std::min(ceil_div_nonneg(-offset, stride), outputs);
  const int64_t end = std::min(ceil_div_nonneg(width - offset, stride), outputs);
  return {begin, std::max(begin, end)};
}

bool in_range(int64_t i, int64_t size) { return i >= 0 && i < size; }

// Calls fn(out_row_index, in_row_index, kw_offset) for every output row
// (od, oh) and kernel tap (kd, kh) of one plane whose input row (id, ih)
// exists; the offsets of kw are left to fn.
template <typename F>
void for_each_row_tap(const ConvGeometry& g, int64_t kd, int64_t kh, F&& fn) {
  for (int64_t od = 0; od < g.output[0]; ++od) {
    const int64_t id = od * g.stride[0] - g.padding[0] + kd * g.dilation[0];
    if (!in_range(id, g.input[0])) continue;
    for (int64_t oh = 0; oh < g.output[1]; ++oh) {
      const int64_t ih = oh * g.stride[1] - g.padding[1] + kh * g.dilation[1];
      if (!in_range(ih, g.input[1])) continue;
      fn((od * g.output[1] + oh) * g.output[2], (id * g.input[1] + ih) * g.input[2]);
    }
  }
}

int64_t kw_offset(const ConvGeometry& g, int64_t kw) {
  return kw * g.dilation[2] - g.padding[2];
}

// ---- im2col / col2im, one sample ----

template <typename T>
void im2col_row(T* dst, const T* src, const ConvGeometry& g, int64_t kw) {
  const int64_t offset = kw_offset(g, kw), s = g.stride[2], ow = g.output[2];
  const RowSpan span = valid_span(offset, s, g.input[2], ow);
  std::fill(dst, dst + span.begin, T(0));
  const int64_t n = span.end - span.begin;
  if (s == 1) {
    std::memcpy(dst + span.begin, src + span.begin + offset, sizeof(T) * n);
  } else {
    const T* from = src + span.begin * s + offset;
    for (int64_t i = 0; i < n; ++i) dst[span.begin + i] = from[i * s];
  }
  std::fill(dst + span.end, dst + ow, T(0));
}

// Column rows [first, last) (channel-major: c, kd, kh, kw) of one sample.
template <typename T>
void im2col_rows(T* col, const T* in, const ConvGeometry& g, int64_t first, int64_t last) {
  const int64_t kvol = kernel_volume(g), lvol = output_volume(g), ivol = input_volume(g);
  for (int64_t r = first; r < last; ++r) {
    const int64_t c = r / kvol, k = r % kvol;
    const int64_t kd = k / (g.kernel[1] * g.kernel[2]), kh = k / g.kernel[2] % g.kernel[1],
                  kw = k % g.kernel[2];
    T* row = col + r * lvol;
    const T* plane = in + c * ivol;
    for (int64_t od = 0; od < g.output[0]; ++od) {
      const int64_t id = od * g.stride[0] - g.padding[0] + kd * g.dilation[0];
      for (int64_t oh = 0; oh < g.output[1]; ++oh) {
        const int64_t ih = oh * g.stride[1] - g.padding[1] + kh * g.dilation[1];
        T* dst = row + (od * g.output[1] + oh) * g.output[2];
        if (in_range(id, g.input[0]) && in_range(ih, g.input[1])) {
          im2col_row(dst, plane + (id * g.input[1] + ih) * g.input[2], g, kw);
        } else {
          std::fill(dst, dst + g.output[2], T(0));
        }
      }
    }
  }
}

template <typename T>
void col2im_row(T* dst, const T* src, const ConvGeometry& g, int64_t kw) {
  const int64_t offset = kw_offset(g, kw), s = g.stride[2];
  const RowSpan span = valid_span(offset, s, g.input[2], g.output[2]);
  const int64_t n = span.end - span.begin;
  if (n <= 0) return;
  if (s == 1) {
    ArrayMap<T>(dst + span.begin + offset, n) += ConstArrayMap<T>(src + span.begin, n);
  } else {
    T* to = dst + span.begin * s + offset;
    for (int64_t i = 0; i < n; ++i) to[i * s] += src[span.begin + i];
  }
}

// Channels [first, last) of one sample's input from its columns.
template <typename T>
void col2im_channels(T* in, const T* col, const ConvGeometry& g, int64_t first, int64_t last) {
  const int64_t kvol = kernel_volume(g), lvol = output_volume(g), ivol = input_volume(g);
  std::fill(in + first * ivol, in + last * ivol, T(0));
  for (int64_t c = first; c < last; ++c) {
    T* plane = in + c * ivol;
    for (int64_t k = 0; k < kvol; ++k) {
      const int64_t kd = k / (g.kernel[1] * g.kernel[2]), kh = k / g.kernel[2] % g.kernel[1],
                    kw = k % g.kernel[2];
      const T* row = col + (c * kvol + k) * lvol;
      for_each_row_tap(g, kd, kh, [&](int64_t out_row, int64_t in_row) {
        col2im_row(plane + in_row, row + out_row, g, kw);
      });
    }
  }
}

// ---- batch scheduling ----

bool samples_in_parallel(int64_t batch) {
  const int threads = get_num_threads();
  return threads > 1 && batch >= threads && !detail::in_parallel_region();
}

// fn(begin, end) over the samples: in parallel chunks (one per thread) or,
// with fewer samples than threads, all at once on this thread (each GEMM
// then splits across the threads).
template <typename F>
void over_batch(int64_t batch, const F& fn) {
  if (samples_in_parallel(batch)) {
    parallel_for(0, batch, 0, fn);
  } else if (batch > 0) {
    fn(0, batch);
  }
}

template <typename T>
GemmArgs gemm_args(int64_t m, int64_t n, int64_t k, const T* a, int64_t a_row, int64_t a_col,
                   const T* b, int64_t b_row, int64_t b_col, T* c, int64_t ldc, double beta) {
  return GemmArgs{m, n, k, a, a_row, a_col, b, b_row, b_col, c, ldc, 1.0, beta};
}

template <typename T>
void run_gemm(const GemmArgs& args) {
  gemm(args, std::is_same_v<T, double>);
}

// ---- GEMM algorithms ----

template <typename T>
void gemm_forward(T* out, const T* in, const T* w, const T* bias, const ConvGeometry& g) {
  const int64_t kvol = kernel_volume(g), lvol = output_volume(g), ivol = input_volume(g);
  const int64_t cin_g = g.in_channels / g.groups, cout_g = g.out_channels / g.groups;
  const bool pointwise = conv_algorithm(g) == ConvAlgorithm::kPointwiseGemm;
  over_batch(g.batch, [&](int64_t begin, int64_t end) {
    std::vector<T> col(pointwise ? 0 : static_cast<size_t>(g.in_channels * kvol * lvol));
    for (int64_t n = begin; n < end; ++n) {
      const T* x = in + n * g.in_channels * ivol;
      T* y = out + n * g.out_channels * lvol;
      if (!pointwise) im2col_rows(col.data(), x, g, 0, g.in_channels * kvol);
      const T* cols = pointwise ? x : col.data();
      if (bias != nullptr) {
        for (int64_t oc = 0; oc < g.out_channels; ++oc) {
          std::fill(y + oc * lvol, y + (oc + 1) * lvol, bias[oc]);
        }
      }
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        run_gemm<T>(gemm_args<T>(cout_g, lvol, cin_g * kvol, w + grp * cout_g * cin_g * kvol,
                                 cin_g * kvol, 1, cols + grp * cin_g * kvol * lvol, lvol, 1,
                                 y + grp * cout_g * lvol, lvol, bias != nullptr ? 1.0 : 0.0));
      }
    }
  });
}

template <typename T>
void gemm_backward_input(T* grad_in, const T* grad_out, const T* w, const ConvGeometry& g) {
  const int64_t kvol = kernel_volume(g), lvol = output_volume(g), ivol = input_volume(g);
  const int64_t cin_g = g.in_channels / g.groups, cout_g = g.out_channels / g.groups;
  const bool pointwise = conv_algorithm(g) == ConvAlgorithm::kPointwiseGemm;
  over_batch(g.batch, [&](int64_t begin, int64_t end) {
    std::vector<T> col(pointwise ? 0 : static_cast<size_t>(g.in_channels * kvol * lvol));
    for (int64_t n = begin; n < end; ++n) {
      T* gx = grad_in + n * g.in_channels * ivol;
      T* cols = pointwise ? gx : col.data();
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        run_gemm<T>(gemm_args<T>(cin_g * kvol, lvol, cout_g, w + grp * cout_g * cin_g * kvol, 1,
                                 cin_g * kvol, grad_out + (n * g.out_channels + grp * cout_g) * lvol,
                                 lvol, 1, cols + grp * cin_g * kvol * lvol, lvol, 0.0));
      }
      if (!pointwise) col2im_channels(gx, cols, g, 0, g.in_channels);
    }
  });
}

template <typename T>
void gemm_backward_weight(T* grad_w, const T* grad_out, const T* in, const ConvGeometry& g) {
  const int64_t kvol = kernel_volume(g), lvol = output_volume(g), ivol = input_volume(g);
  const int64_t cin_g = g.in_channels / g.groups, cout_g = g.out_channels / g.groups;
  const int64_t wsize = g.out_channels * cin_g * kvol;
  const bool pointwise = conv_algorithm(g) == ConvAlgorithm::kPointwiseGemm;
  std::fill(grad_w, grad_w + wsize, T(0));
  std::mutex sum_mutex;
  over_batch(g.batch, [&](int64_t begin, int64_t end) {
    std::vector<T> col(pointwise ? 0 : static_cast<size_t>(g.in_channels * kvol * lvol));
    std::vector<T> partial(static_cast<size_t>(wsize), T(0));
    for (int64_t n = begin; n < end; ++n) {
      const T* x = in + n * g.in_channels * ivol;
      if (!pointwise) im2col_rows(col.data(), x, g, 0, g.in_channels * kvol);
      const T* cols = pointwise ? x : col.data();
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        run_gemm<T>(gemm_args<T>(cout_g, cin_g * kvol, lvol,
                                 grad_out + (n * g.out_channels + grp * cout_g) * lvol, lvol, 1,
                                 cols + grp * cin_g * kvol * lvol, 1, lvol,
                                 partial.data() + grp * cout_g * cin_g * kvol, cin_g * kvol, 1.0));
      }
    }
    std::lock_guard<std::mutex> lock(sum_mutex);
    ArrayMap<T>(grad_w, wsize) += ConstArrayMap<T>(partial.data(), wsize);
  });
}

// ---- direct algorithm (one input channel per output channel) ----

// out_row[ow] += w * in_row[ow * stride + offset] over the valid ow.
template <typename T>
void axpy_row(T* out_row, T w, const T* in_row, const ConvGeometry& g, int64_t kw) {
  const int64_t offset = kw_offset(g, kw), s = g.stride[2];
  const RowSpan span = valid_span(offset, s, g.input[2], g.output[2]);
  const int64_t n = span.end - span.begin;
  if (n <= 0) return;
  const T* src = in_row + span.begin * s + offset;
  if (s == 1) {
    ArrayMap<T>(out_row + span.begin, n) += w * ConstArrayMap<T>(src, n);
  } else {
    ArrayMap<T>(out_row + span.begin, n) += w * StridedConstMap<T>(src, n, Eigen::InnerStride<>(s));
  }
}

// in_row[ow * stride + offset] += w * out_row[ow] over the valid ow.
template <typename T>
void axpy_row_transposed(T* in_row, T w, const T* out_row, const ConvGeometry& g, int64_t kw) {
  const int64_t offset = kw_offset(g, kw), s = g.stride[2];
  const RowSpan span = valid_span(offset, s, g.input[2], g.output[2]);
  const int64_t n = span.end - span.begin;
  if (n <= 0) return;
  T* dst = in_row + span.begin * s + offset;
  if (s == 1) {
    ArrayMap<T>(dst, n) += w * ConstArrayMap<T>(out_row + span.begin, n);
  } else {
    StridedMap<T>(dst, n, Eigen::InnerStride<>(s)) += w * ConstArrayMap<T>(out_row + span.begin, n);
  }
}

// sum over ow of out_row[ow] * in_row[ow * stride + offset].
template <typename T>
T dot_row(const T* out_row, const T* in_row, const ConvGeometry& g, int64_t kw) {
  const int64_t offset = kw_offset(g, kw), s = g.stride[2];
  const RowSpan span = valid_span(offset, s, g.input[2], g.output[2]);
  const int64_t n = span.end - span.begin;
  if (n <= 0) return T(0);
  const T* src = in_row + span.begin * s + offset;
  const ConstArrayMap<T> o(out_row + span.begin, n);
  if (s == 1) return (o * ConstArrayMap<T>(src, n)).sum();
  return (o * StridedConstMap<T>(src, n, Eigen::InnerStride<>(s))).sum();
}

// Calls fn(kd, kh, kw, k) for every kernel tap, k its flat index.
template <typename F>
void for_each_tap(const ConvGeometry& g, F&& fn) {
  int64_t k = 0;
  for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
    for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
      for (int64_t kw = 0; kw < g.kernel[2]; ++kw) fn(kd, kh, kw, k++);
    }
  }
}

int64_t plane_grain(int64_t work_per_plane) {
  return std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(work_per_plane, 1));
}

template <typename T>
void direct_forward(T* out, const T* in, const T* w, const T* bias, const ConvGeometry& g) {
  const int64_t kvol = kernel_volume(g), lvol = output_volume(g), ivol = input_volume(g);
  const int64_t cout_g = g.out_channels / g.groups;
  parallel_for(0, g.batch * g.out_channels, plane_grain(lvol * kvol), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const int64_t n = p / g.out_channels, oc = p % g.out_channels;
      T* y = out + p * lvol;
      const T* x = in + (n * g.in_channels + oc / cout_g) * ivol;
      std::fill(y, y + lvol, bias != nullptr ? bias[oc] : T(0));
      for_each_tap(g, [&](int64_t kd, int64_t kh, int64_t kw, int64_t k) {
        const T wk = w[oc * kvol + k];
        for_each_row_tap(g, kd, kh, [&](int64_t out_row, int64_t in_row) {
          axpy_row(y + out_row, wk, x + in_row, g, kw);
        });
      });
    }
  });
}

template <typename T>
void direct_backward_input(T* grad_in, const T* grad_out, const T* w, const ConvGeometry& g) {
  const int64_t kvol = kernel_volume(g), lvol = output_volume(g), ivol = input_volume(g);
  const int64_t cout_g = g.out_channels / g.groups;
  parallel_for(0, g.batch * g.in_channels, plane_grain(lvol * kvol * cout_g),
               [&](int64_t b, int64_t e) {
                 for (int64_t p = b; p < e; ++p) {
                   const int64_t n = p / g.in_channels, ic = p % g.in_channels;
                   T* gx = grad_in + p * ivol;
                   std::fill(gx, gx + ivol, T(0));
                   for (int64_t oc = ic * cout_g; oc < (ic + 1) * cout_g; ++oc) {
                     const T* gy = grad_out + (n * g.out_channels + oc) * lvol;
                     for_each_tap(g, [&](int64_t kd, int64_t kh, int64_t kw, int64_t k) {
                       const T wk = w[oc * kvol + k];
                       for_each_row_tap(g, kd, kh, [&](int64_t out_row, int64_t in_row) {
                         axpy_row_transposed(gx + in_row, wk, gy + out_row, g, kw);
                       });
                     });
                   }
                 }
               });
}

template <typename T>
void direct_backward_weight(T* grad_w, const T* grad_out, const T* in, const ConvGeometry& g) {
  const int64_t kvol = kernel_volume(g), lvol = output_volume(g), ivol = input_volume(g);
  const int64_t cout_g = g.out_channels / g.groups;
  parallel_for(0, g.out_channels, plane_grain(g.batch * lvol * kvol), [&](int64_t b, int64_t e) {
    for (int64_t oc = b; oc < e; ++oc) {
      T* gw = grad_w + oc * kvol;
      std::fill(gw, gw + kvol, T(0));
      for (int64_t n = 0; n < g.batch; ++n) {
        const T* gy = grad_out + (n * g.out_channels + oc) * lvol;
        const T* x = in + (n * g.in_channels + oc / cout_g) * ivol;
        for_each_tap(g, [&](int64_t kd, int64_t kh, int64_t kw, int64_t k) {
          for_each_row_tap(g, kd, kh, [&](int64_t out_row, int64_t in_row) {
            gw[k] += dot_row(gy + out_row, x + in_row, g, kw);
          });
        });
      }
    }
  });
}

template <typename T>
const T* data_or_null(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.data_ptr()) : nullptr;
}

template <typename T>
T* mutable_data(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

}  // namespace

ConvAlgorithm conv_algorithm(const ConvGeometry& g) {
  if (g.in_channels == g.groups) return ConvAlgorithm::kDirect;
  const std::array<int64_t, 3> ones{1, 1, 1}, zeros{0, 0, 0};
  if (g.kernel == ones && g.stride == ones && g.padding == zeros) {
    return ConvAlgorithm::kPointwiseGemm;
  }
  return ConvAlgorithm::kIm2colGemm;
}

void conv_forward(const Tensor& out, const Tensor& input, const Tensor& weight,
                  const Tensor& bias, const ConvGeometry& g) {
  dispatch_floating(input.dtype(), "convolution", [&](auto tag) {
    using T = decltype(tag);
    T* y = mutable_data<T>(out);
    const T* x = data_or_null<T>(input);
    const T* w = data_or_null<T>(weight);
    const T* b = data_or_null<T>(bias);
    if (conv_algorithm(g) == ConvAlgorithm::kDirect) {
      direct_forward(y, x, w, b, g);
    } else {
      gemm_forward(y, x, w, b, g);
    }
  });
}

void conv_backward_input(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                         const ConvGeometry& g) {
  dispatch_floating(grad_out.dtype(), "convolution_backward", [&](auto tag) {
    using T = decltype(tag);
    T* gx = mutable_data<T>(grad_input);
    const T* gy = data_or_null<T>(grad_out);
    const T* w = data_or_null<T>(weight);
    if (conv_algorithm(g) == ConvAlgorithm::kDirect) {
      direct_backward_input(gx, gy, w, g);
    } else {
      gemm_backward_input(gx, gy, w, g);
    }
  });
}

void conv_backward_weight(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                          const ConvGeometry& g) {
  dispatch_floating(grad_out.dtype(), "convolution_backward", [&](auto tag) {
    using T = decltype(tag);
    T* gw = mutable_data<T>(grad_weight);
    const T* gy = data_or_null<T>(grad_out);
    const T* x = data_or_null<T>(input);
    if (conv_algorithm(g) == ConvAlgorithm::kDirect) {
      direct_backward_weight(gw, gy, x, g);
    } else {
      gemm_backward_weight(gw, gy, x, g);
    }
  });
}

void im2col(const Tensor& columns, const Tensor& input, const ConvGeometry& g) {
  dispatch_floating(input.dtype(), "im2col", [&](auto tag) {
    using T = decltype(tag);
    T* col = mutable_data<T>(columns);
    const T* x = data_or_null<T>(input);
    const int64_t rows = g.in_channels * kernel_volume(g), lvol = output_volume(g);
    parallel_for(0, g.batch * rows, plane_grain(lvol), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const int64_t n = r / rows, row = r % rows;
        im2col_rows(col + n * rows * lvol, x + n * g.in_channels * input_volume(g), g, row,
                    row + 1);
      }
    });
  });
}

void col2im(const Tensor& input, const Tensor& columns, const ConvGeometry& g) {
  dispatch_floating(columns.dtype(), "col2im", [&](auto tag) {
    using T = decltype(tag);
    T* x = mutable_data<T>(input);
    const T* col = data_or_null<T>(columns);
    const int64_t rows = g.in_channels * kernel_volume(g), lvol = output_volume(g);
    parallel_for(0, g.batch * g.in_channels, plane_grain(rows / std::max<int64_t>(g.in_channels, 1) * lvol),
                 [&](int64_t b, int64_t e) {
                   for (int64_t p = b; p < e; ++p) {
                     const int64_t n = p / g.in_channels, c = p % g.in_channels;
                     col2im_channels(x + n * g.in_channels * input_volume(g),
                                     col + n * rows * lvol, g, c, c + 1);
                   }
                 });
  });
}

}  // namespace torchlet::cpu
