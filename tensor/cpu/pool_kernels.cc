// CPU loops of the pooling kernels: planes (batch x channel) in parallel,
// each plane a loop over its output elements and their windows.
#include "tensor/cpu/pool_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tensor/cpu/dispatch.h"
#include "tensor/parallel.h"

namespace torchlet::cpu {
namespace {

// Planes per parallel task: about kParallelGrain input elements each.
int64_t plane_grain(const PoolWindow& w) {
  return std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(w.in_plane(), 1));
}

// Runs fn(plane) for every plane, in parallel.
template <typename F>
void for_each_plane(const PoolWindow& w, const F& fn) {
  parallel_for(0, w.planes, plane_grain(w), [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) fn(p);
  });
}

// The input range [begin, end) one max-pool window covers in one dim,
// begin moved past the padding by whole dilation steps.
struct Span {
  int64_t begin;
  int64_t end;
};
Span max_span(const PoolWindow& w, int d, int64_t o) {
  int64_t begin = o * w.stride[d] - w.pad[d];
  const int64_t end = std::min(begin + (w.kernel[d] - 1) * w.dilation[d] + 1, w.in[d]);
  while (begin < 0) begin += w.dilation[d];
  return {begin, end};
}

// Note [Max pooling ties and NaN]
// As PyTorch's CPU kernel: the running maximum starts at -inf with the
// window's first position, and an element replaces it when it is greater
// or NaN. Ties keep the first maximum in row-major window order; a NaN
// propagates (the last NaN of the window is the one indexed).
template <typename T>
bool replaces(T value, T max) {
  return value > max || std::isnan(value);
}

template <typename T>
void max_pool_plane(const T* in, T* out, int64_t* indices, const PoolWindow& w) {
  const int64_t in_h = w.in[1], in_w = w.in[2];
  int64_t o = 0;
  for (int64_t od = 0; od < w.out[0]; ++od) {
    const Span sd = max_span(w, 0, od);
    for (int64_t oh = 0; oh < w.out[1]; ++oh) {
      const Span sh = max_span(w, 1, oh);
      for (int64_t ow = 0; ow < w.out[2]; ++ow, ++o) {
        const Span sw = max_span(w, 2, ow);
        T max = -std::numeric_limits<T>::infinity();
        int64_t max_index = (sd.begin * in_h + sh.begin) * in_w + sw.begin;
        for (int64_t d = sd.begin; d < sd.end; d += w.dilation[0]) {
          for (int64_t h = sh.begin; h < sh.end; h += w.dilation[1]) {
            for (int64_t x = sw.begin; x < sw.end; x += w.dilation[2]) {
              const int64_t index = (d * in_h + h) * in_w + x;
              if (replaces(in[index], max)) {
                max = in[index];
                max_index = index;
              }
            }
          }
        }
        out[o] = max;
        if (indices != nullptr) indices[o] = max_index;
      }
    }
  }
}

// Whether every window is 2x2 with stride 2, no padding or dilation, and
// inside the input: LeNet's pool, which gets its own loop.
bool is_plain_2x2(const PoolWindow& w) {
  return w.in[0] == 1 && w.kernel[0] == 1 && w.kernel[1] == 2 && w.kernel[2] == 2 &&
         w.stride[1] == 2 && w.stride[2] == 2 && w.pad[1] == 0 && w.pad[2] == 0 &&
         w.dilation[1] == 1 && w.dilation[2] == 1 && 2 * w.out[1] <= w.in[1] &&
         2 * w.out[2] <= w.in[2];
}

// max_pool_plane for is_plain_2x2 windows: the four elements in the same
// order (Note [Max pooling ties and NaN]; starting from the first element
// is the same as starting from -inf).
template <typename T, bool kIndices>
void max_pool_2x2_plane(const T* in, T* out, int64_t* indices, const PoolWindow& w) {
  const int64_t in_w = w.in[2], out_h = w.out[1], out_w = w.out[2];
  for (int64_t oh = 0; oh < out_h; ++oh) {
    const T* row = in + 2 * oh * in_w;
    T* out_row = out + oh * out_w;
    for (int64_t ow = 0; ow < out_w; ++ow) {
      const int64_t first = 2 * oh * in_w + 2 * ow;
      const int64_t offsets[4] = {0, 1, in_w, in_w + 1};
      T max = row[2 * ow];
      int64_t at = 0;
      for (int k = 1; k < 4; ++k) {
        const T value = row[2 * ow + offsets[k]];
        if (replaces(value, max)) {
          max = value;
          at = k;
        }
      }
      out_row[ow] = max;
      if constexpr (kIndices) indices[oh * out_w + ow] = first + offsets[at];
    }
  }
}

// Average pooling's window in one dim: the clipped input range and the
// size counting padding (PyTorch's pool_size).
struct AvgSpan {
  int64_t begin;
  int64_t end;
  int64_t padded_size;
};
AvgSpan avg_span(const PoolWindow& w, int d, int64_t o) {
  const int64_t begin = o * w.stride[d] - w.pad[d];
  const int64_t end = std::min(begin + w.kernel[d], w.in[d] + w.pad[d]);
  return {std::max<int64_t>(begin, 0), std::min(end, w.in[d]), end - begin};
}

// Calls fn(output offset, spans, divisor) for each output element.
template <typename F>
void for_each_avg_window(const PoolWindow& w, AvgDivisor divisor, const F& fn) {
  int64_t o = 0;
  for (int64_t od = 0; od < w.out[0]; ++od) {
    const AvgSpan sd = avg_span(w, 0, od);
    for (int64_t oh = 0; oh < w.out[1]; ++oh) {
      const AvgSpan sh = avg_span(w, 1, oh);
      for (int64_t ow = 0; ow < w.out[2]; ++ow, ++o) {
        const AvgSpan sw = avg_span(w, 2, ow);
        const int64_t covered = std::max<int64_t>(sd.end - sd.begin, 0) *
                                std::max<int64_t>(sh.end - sh.begin, 0) *
                                std::max<int64_t>(sw.end - sw.begin, 0);
        const int64_t count = divisor.divisor_override != 0 ? divisor.divisor_override
                              : divisor.count_include_pad
                                  ? sd.padded_size * sh.padded_size * sw.padded_size
                                  : covered;
        fn(o, sd, sh, sw, covered == 0 ? int64_t{1} : count);
      }
    }
  }
}

template <typename T>
void avg_pool_plane(const T* in, T* out, const PoolWindow& w, AvgDivisor divisor) {
  const int64_t in_h = w.in[1], in_w = w.in[2];
  for_each_avg_window(w, divisor, [&](int64_t o, AvgSpan sd, AvgSpan sh, AvgSpan sw,
                                      int64_t count) {
    T sum = 0;
    for (int64_t d = sd.begin; d < sd.end; ++d) {
      for (int64_t h = sh.begin; h < sh.end; ++h) {
        const T* row = in + (d * in_h + h) * in_w;
        for (int64_t x = sw.begin; x < sw.end; ++x) sum += row[x];
      }
    }
    out[o] = sum / static_cast<T>(count);
  });
}

template <typename T>
void avg_pool_backward_plane(T* grad_in, const T* grad_out, const PoolWindow& w,
                             AvgDivisor divisor) {
  const int64_t in_h = w.in[1], in_w = w.in[2];
  std::fill(grad_in, grad_in + w.in_plane(), T(0));
  for_each_avg_window(w, divisor, [&](int64_t o, AvgSpan sd, AvgSpan sh, AvgSpan sw,
                                      int64_t count) {
    const T g = grad_out[o] / static_cast<T>(count);
    for (int64_t d = sd.begin; d < sd.end; ++d) {
      for (int64_t h = sh.begin; h < sh.end; ++h) {
        T* row = grad_in + (d * in_h + h) * in_w;
        for (int64_t x = sw.begin; x < sw.end; ++x) row[x] += g;
      }
    }
  });
}

template <typename T>
T* data(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

// Note [Adaptive windows]
// Output element i of a dim of size out pools input elements
// [floor(i * in / out), ceil((i + 1) * in / out)), PyTorch's start_index and
// end_index: windows cover the input and overlap by at most one element.
Span adaptive_span(const PoolWindow& w, int d, int64_t o) {
  return {(o * w.in[d]) / w.out[d], ((o + 1) * w.in[d] + w.out[d] - 1) / w.out[d]};
}

// Calls fn(output offset, d span, h span, w span) for each output element.
template <typename F>
void for_each_adaptive_window(const PoolWindow& w, const F& fn) {
  int64_t o = 0;
  for (int64_t od = 0; od < w.out[0]; ++od) {
    const Span sd = adaptive_span(w, 0, od);
    for (int64_t oh = 0; oh < w.out[1]; ++oh) {
      const Span sh = adaptive_span(w, 1, oh);
      for (int64_t ow = 0; ow < w.out[2]; ++ow, ++o) fn(o, sd, sh, adaptive_span(w, 2, ow));
    }
  }
}

template <typename T>
void adaptive_avg_plane(const T* in, T* out, const PoolWindow& w) {
  const int64_t in_h = w.in[1], in_w = w.in[2];
  for_each_adaptive_window(w, [&](int64_t o, Span sd, Span sh, Span sw) {
    T sum = 0;
    for (int64_t d = sd.begin; d < sd.end; ++d) {
      for (int64_t h = sh.begin; h < sh.end; ++h) {
        const T* row = in + (d * in_h + h) * in_w;
        for (int64_t x = sw.begin; x < sw.end; ++x) sum += row[x];
      }
    }
    const int64_t count = (sd.end - sd.begin) * (sh.end - sh.begin) * (sw.end - sw.begin);
    out[o] = sum / static_cast<T>(count);
  });
}

template <typename T>
void adaptive_avg_backward_plane(T* grad_in, const T* grad_out, const PoolWindow& w) {
  const int64_t in_h = w.in[1], in_w = w.in[2];
  std::fill(grad_in, grad_in + w.in_plane(), T(0));
  for_each_adaptive_window(w, [&](int64_t o, Span sd, Span sh, Span sw) {
    const int64_t count = (sd.end - sd.begin) * (sh.end - sh.begin) * (sw.end - sw.begin);
    const T g = grad_out[o] / static_cast<T>(count);
    for (int64_t d = sd.begin; d < sd.end; ++d) {
      for (int64_t h = sh.begin; h < sh.end; ++h) {
        T* row = grad_in + (d * in_h + h) * in_w;
        for (int64_t x = sw.begin; x < sw.end; ++x) row[x] += g;
      }
    }
  });
}

template <typename T>
void adaptive_max_plane(const T* in, T* out, int64_t* indices, const PoolWindow& w) {
  const int64_t in_h = w.in[1], in_w = w.in[2];
  for_each_adaptive_window(w, [&](int64_t o, Span sd, Span sh, Span sw) {
    T max = -std::numeric_limits<T>::infinity();
    int64_t max_index = (sd.begin * in_h + sh.begin) * in_w + sw.begin;
    for (int64_t d = sd.begin; d < sd.end; ++d) {
      for (int64_t h = sh.begin; h < sh.end; ++h) {
        for (int64_t x = sw.begin; x < sw.end; ++x) {
          const int64_t index = (d * in_h + h) * in_w + x;
          if (replaces(in[index], max)) {
            max = in[index];
            max_index = index;
          }
        }
      }
    }
    out[o] = max;
    if (indices != nullptr) indices[o] = max_index;
  });
}

}  // namespace

void max_pool(const Tensor& out, const Tensor& indices, const Tensor& input,
              const PoolWindow& window) {
  dispatch_floating(input.dtype(), "max_pool", [&](auto tag) {
    using T = decltype(tag);
    const T* in = data<const T>(input);
    T* o = data<T>(out);
    int64_t* idx = indices.defined() ? data<int64_t>(indices) : nullptr;
    const int64_t in_plane = window.in_plane(), out_plane = window.out_plane();
    const bool plain = is_plain_2x2(window);
    for_each_plane(window, [&](int64_t p) {
      const T* src = in + p * in_plane;
      T* dst = o + p * out_plane;
      int64_t* dst_idx = idx ? idx + p * out_plane : nullptr;
      if (plain && dst_idx) {
        max_pool_2x2_plane<T, true>(src, dst, dst_idx, window);
      } else if (plain) {
        max_pool_2x2_plane<T, false>(src, dst, nullptr, window);
      } else {
        max_pool_plane(src, dst, dst_idx, window);
      }
    });
  });
}

void max_pool_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices,
                       const PoolWindow& window) {
  dispatch_floating(grad_out.dtype(), "max_pool_backward", [&](auto tag) {
    using T = decltype(tag);
    T* gi = data<T>(grad_input);
    const T* go = data<const T>(grad_out);
    const int64_t* idx = data<const int64_t>(indices);
    const int64_t in_plane = window.in_plane(), out_plane = window.out_plane();
    for_each_plane(window, [&](int64_t p) {
      T* dst = gi + p * in_plane;
      std::fill(dst, dst + in_plane, T(0));
      const T* src = go + p * out_plane;
      const int64_t* at = idx + p * out_plane;
      for (int64_t o = 0; o < out_plane; ++o) dst[at[o]] += src[o];
    });
  });
}

void avg_pool(const Tensor& out, const Tensor& input, const PoolWindow& window,
              AvgDivisor divisor) {
  dispatch_floating(input.dtype(), "avg_pool", [&](auto tag) {
    using T = decltype(tag);
    const T* in = data<const T>(input);
    T* o = data<T>(out);
    for_each_plane(window, [&](int64_t p) {
      avg_pool_plane(in + p * window.in_plane(), o + p * window.out_plane(), window, divisor);
    });
  });
}

void avg_pool_backward(const Tensor& grad_input, const Tensor& grad_out, const PoolWindow& window,
                       AvgDivisor divisor) {
  dispatch_floating(grad_out.dtype(), "avg_pool_backward", [&](auto tag) {
    using T = decltype(tag);
    T* gi = data<T>(grad_input);
    const T* go = data<const T>(grad_out);
    for_each_plane(window, [&](int64_t p) {
      avg_pool_backward_plane(gi + p * window.in_plane(), go + p * window.out_plane(), window,
                              divisor);
    });
  });
}

void adaptive_avg_pool(const Tensor& out, const Tensor& input, const PoolWindow& window) {
  dispatch_floating(input.dtype(), "adaptive_avg_pool", [&](auto tag) {
    using T = decltype(tag);
    const T* in = data<const T>(input);
    T* o = data<T>(out);
    for_each_plane(window, [&](int64_t p) {
      adaptive_avg_plane(in + p * window.in_plane(), o + p * window.out_plane(), window);
    });
  });
}

void adaptive_avg_pool_backward(const Tensor& grad_input, const Tensor& grad_out,
                                const PoolWindow& window) {
  dispatch_floating(grad_out.dtype(), "adaptive_avg_pool_backward", [&](auto tag) {
    using T = decltype(tag);
    T* gi = data<T>(grad_input);
    const T* go = data<const T>(grad_out);
    for_each_plane(window, [&](int64_t p) {
      adaptive_avg_backward_plane(gi + p * window.in_plane(), go + p * window.out_plane(), window);
    });
  });
}

void adaptive_max_pool(const Tensor& out, const Tensor& indices, const Tensor& input,
                       const PoolWindow& window) {
  dispatch_floating(input.dtype(), "adaptive_max_pool", [&](auto tag) {
    using T = decltype(tag);
    const T* in = data<const T>(input);
    T* o = data<T>(out);
    int64_t* idx = indices.defined() ? data<int64_t>(indices) : nullptr;
    const int64_t in_plane = window.in_plane(), out_plane = window.out_plane();
    for_each_plane(window, [&](int64_t p) {
      adaptive_max_plane(in + p * in_plane, o + p * out_plane, idx ? idx + p * out_plane : nullptr,
                         window);
    });
  });
}

bool max_unpool(const Tensor& out, const Tensor& input, const Tensor& indices,
                const PoolWindow& window, int64_t* bad_index) {
  const int64_t* idx = data<const int64_t>(indices);
  const int64_t in_plane = window.in_plane(), out_plane = window.out_plane();
  for (int64_t i = 0; i < window.planes * in_plane; ++i) {
    if (idx[i] < 0 || idx[i] >= out_plane) {
      *bad_index = idx[i];
      return false;
    }
  }
  dispatch_floating(input.dtype(), "max_unpool2d", [&](auto tag) {
    using T = decltype(tag);
    const T* in = data<const T>(input);
    T* o = data<T>(out);
    for_each_plane(window, [&](int64_t p) {
      T* dst = o + p * out_plane;
      std::fill(dst, dst + out_plane, T(0));
      for (int64_t i = 0; i < in_plane; ++i) dst[idx[p * in_plane + i]] = in[p * in_plane + i];
    });
  });
  return true;
}

}  // namespace torchlet::cpu
