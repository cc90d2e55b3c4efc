// CPU loops of the pooling kernels: planes (batch x channel) in parallel,
// each plane a loop over its output elements and their windows.
#include "tensor/cpu/pool_kernels.h"
#include "tensor/cpu/cpu_features.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "tensor/cpu/dispatch.h"
#include "tensor/cpu/partial_store.h"
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

// One step of the running maximum (Note [Max pooling ties and NaN]) as
// selects rather than branches.
template <typename T>
void take(T value, int64_t offset, T& max, int64_t& at) {
  const bool replace = replaces(value, max);
  max = replace ? value : max;
  at = replace ? offset : at;
}

// max_pool_plane for is_plain_2x2 windows: the four elements in the same
// order (Note [Max pooling ties and NaN]; starting from the first element
// is the same as starting from -inf).
template <typename T, bool kIndices>
void max_pool_2x2_plane(const T* in, T* out, int64_t* indices, const PoolWindow& w) {
  const int64_t in_w = w.in[2], out_h = w.out[1], out_w = w.out[2];
  for (int64_t oh = 0; oh < out_h; ++oh) {
    const T* top = in + 2 * oh * in_w;
    const T* bottom = top + in_w;
    T* out_row = out + oh * out_w;
    for (int64_t ow = 0; ow < out_w; ++ow) {
      T max = top[2 * ow];
      int64_t at = 0;
      take(top[2 * ow + 1], 1, max, at);
      take(bottom[2 * ow], in_w, max, at);
      take(bottom[2 * ow + 1], in_w + 1, max, at);
      out_row[ow] = max;
      if constexpr (kIndices) indices[oh * out_w + ow] = 2 * oh * in_w + 2 * ow + at;
    }
  }
}

// Note [AVX2 2x2 max pooling]
// Float 2x2 windows, 8 at a time: two loads per input row (16 elements),
// split into even and odd columns by shuffles, then the same four selects as
// take() (greater, or NaN) on the values and on each window's offset
// (0, 1, in_w, in_w + 1). A row at least 8 windows wide ends with 8
// windows overlapping those before; a narrower one uses masked loads, whose
// masked-off lanes are not read, and stores its n windows 4, 2 and 1 at a
// time (masked stores are slow on AMD's CPUs; tensor/cpu/partial_store.h).
// Taken where cpu_has_avx2() (tensor/cpu/cpu_features.h).

// Lanes [0, 8) below n, as a mask.
__attribute__((target("avx2"))) inline __m256i lanes_below(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(std::min<int64_t>(n, 8))),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// The even and odd elements of row[0, 2 * n), n <= 8 windows.
struct EvenOdd {
  __m256 even, odd;
};
__attribute__((target("avx2"))) inline EvenOdd split_pairs(const float* row, int64_t n) {
  __m256 a, b;
  if (n == 8) {
    a = _mm256_loadu_ps(row);
    b = _mm256_loadu_ps(row + 8);
  } else {
    a = _mm256_maskload_ps(row, lanes_below(2 * n));
    b = _mm256_maskload_ps(row + 8, lanes_below(2 * n - 8));
  }
  // Within each 128-bit half: a0 a2 b0 b2 | a4 a6 b4 b6; then reorder the
  // 64-bit quarters to a0 a2 a4 a6 b0 b2 b4 b6.
  const __m256 even = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
  const __m256 odd = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
  return {_mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(even), _MM_SHUFFLE(3, 1, 2, 0))),
          _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(odd), _MM_SHUFFLE(3, 1, 2, 0)))};
}

// take() on 8 lanes: where value is greater than max or NaN, it replaces
// max and offset replaces at.
__attribute__((target("avx2"))) inline void take8(__m256 value, int offset, __m256& max,
                                                  __m256i& at) {
  const __m256 replace = _mm256_or_ps(_mm256_cmp_ps(value, max, _CMP_GT_OQ),
                                      _mm256_cmp_ps(value, value, _CMP_UNORD_Q));
  max = _mm256_blendv_ps(max, value, replace);
  at = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(at),
                                            _mm256_castsi256_ps(_mm256_set1_epi32(offset)),
                                            replace));
}

// indices[0, n) = base + 2 * lane + at, as int64.
__attribute__((target("avx2"))) inline void store_indices(int64_t* indices, int64_t base,
                                                          __m256i at, int64_t n) {
  const __m256i local =
      _mm256_add_epi32(at, _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14));
  const __m256i lo = _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(local)),
                                      _mm256_set1_epi64x(base));
  const __m256i hi = _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_extracti128_si256(local, 1)),
                                      _mm256_set1_epi64x(base));
  if (n == 8) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(indices), lo);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(indices + 4), hi);
    return;
  }
  store_first(indices, lo, hi, n);  // no masked stores (tensor/cpu/partial_store.h)
}

template <bool kIndices>
__attribute__((target("avx2"))) void max_pool_2x2_plane_avx2(const float* in, float* out,
                                                             int64_t* indices,
                                                             const PoolWindow& w) {
  const int64_t in_w = w.in[2], out_h = w.out[1], out_w = w.out[2];
  const int row_offset = static_cast<int>(in_w);
  for (int64_t oh = 0; oh < out_h; ++oh) {
    const float* top = in + 2 * oh * in_w;
    for (int64_t next = 0; next < out_w;) {
      // The last 8 windows of a row at least 8 wide overlap the 8 before
      // (they store the same values there), so that every store is whole.
      const int64_t ow = out_w >= 8 ? std::min(next, out_w - 8) : 0;
      const int64_t n = std::min<int64_t>(8, out_w - ow);
      next = ow + 8;
      const EvenOdd t = split_pairs(top + 2 * ow, n);
      const EvenOdd b = split_pairs(top + in_w + 2 * ow, n);
      __m256 max = t.even;
      __m256i at = _mm256_setzero_si256();
      take8(t.odd, 1, max, at);
      take8(b.even, row_offset, max, at);
      take8(b.odd, row_offset + 1, max, at);
      float* dst = out + oh * out_w + ow;
      if (n == 8) {
        _mm256_storeu_ps(dst, max);
      } else {
        store_first(dst, max, n);
      }
      if constexpr (kIndices) store_indices(indices + oh * out_w + ow, 2 * (oh * in_w + ow), at, n);
    }
  }
}

// Whether a plain 2x2 pool over T takes the AVX2 loop (32-bit row offsets).
template <typename T>
bool avx2_2x2(const PoolWindow& w) {
  return std::is_same_v<T, float> && w.in[2] < (int64_t{1} << 30) && cpu_has_avx2();
}

template <typename T, bool kIndices>
void max_pool_2x2(const T* in, T* out, int64_t* indices, const PoolWindow& w) {
  if constexpr (std::is_same_v<T, float>) {
    if (avx2_2x2<T>(w)) return max_pool_2x2_plane_avx2<kIndices>(in, out, indices, w);
  }
  max_pool_2x2_plane<T, kIndices>(in, out, indices, w);
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

// Note [Resampling indices]
// As PyTorch 1.13's CPU kernels: nearest maps output index o to
// min(floor(o * scale), in - 1) in float arithmetic, the scale being
// 1 / scale_factor when one was given, else in / out (the same size and
// doubling are exact shortcuts). Bilinear maps o to the source coordinate
// scale * (o + 0.5) - 0.5 clamped at 0 (scale * o with align_corners,
// whose scale is (in - 1) / (out - 1)), computed in the element type.
// "nearest-exact" reads min(floor((o + 0.5) * scale), in - 1), its product
// in double rounded to float, with no shortcuts.
int64_t nearest_index(int64_t o, int64_t in, int64_t out, double scale, bool exact) {
  if (exact) {
    const float s = scale > 0 ? static_cast<float>(1.0 / scale)
                              : static_cast<float>(in) / static_cast<float>(out);
    const double src = (static_cast<double>(o) + 0.5) * static_cast<double>(s);
    return std::min(static_cast<int64_t>(std::floor(static_cast<float>(src))), in - 1);
  }
  if (out == in) return o;
  if (out == 2 * in) return o >> 1;
  const float s = scale > 0 ? static_cast<float>(1.0 / scale)
                            : static_cast<float>(in) / static_cast<float>(out);
  return std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * s)), in - 1);
}

// Input offsets (in elements of its dim) for each output index of dim d.
std::vector<int64_t> nearest_table(const Resample& r, int d) {
  std::vector<int64_t> table(static_cast<size_t>(r.out[d]));
  for (int64_t o = 0; o < r.out[d]; ++o) {
    table[static_cast<size_t>(o)] =
        nearest_index(o, r.in[d], r.out[d], r.scales[d], r.nearest_exact);
  }
  return table;
}

template <typename T, bool kBackward>
void nearest_plane(T* out, T* in, const Resample& r, const std::vector<int64_t> (&table)[3]) {
  const int64_t in_h = r.in[1], in_w = r.in[2], out_h = r.out[1], out_w = r.out[2];
  for (int64_t od = 0; od < r.out[0]; ++od) {
    for (int64_t oh = 0; oh < out_h; ++oh) {
      T* row = in + (table[0][od] * in_h + table[1][oh]) * in_w;
      T* dst = out + (od * out_h + oh) * out_w;
      for (int64_t ow = 0; ow < out_w; ++ow) {
        if constexpr (kBackward) {
          row[table[2][ow]] += dst[ow];
        } else {
          dst[ow] = row[table[2][ow]];
        }
      }
    }
  }
}

// One dim's bilinear taps: output o reads i0 and i0 + step with weights
// w0 and w1.
template <typename T>
struct Taps {
  int64_t i0;
  int64_t step;
  T w0;
  T w1;
};

template <typename T>
std::vector<Taps<T>> linear_table(const Resample& r, int d) {
  const int64_t in = r.in[d], out = r.out[d];
  T scale;
  if (r.align_corners) {
    scale = out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  } else {
    scale = r.scales[d] > 0 ? static_cast<T>(1.0 / r.scales[d])
                            : static_cast<T>(in) / static_cast<T>(out);
  }
  std::vector<Taps<T>> table(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    if (in == out) {  // PyTorch copies a dim whose size is unchanged, whatever the scale
      table[static_cast<size_t>(o)] = {o, 0, T(1), T(0)};
      continue;
    }
    T src = r.align_corners ? scale * static_cast<T>(o)
                            : scale * (static_cast<T>(o) + T(0.5)) - T(0.5);
    if (!r.align_corners && src < 0) src = 0;
    // Clamped so scales inconsistent with the sizes still read in bounds.
    const int64_t i0 = std::min<int64_t>(static_cast<int64_t>(src), in - 1);
    const T w1 = std::min(std::max(src - static_cast<T>(i0), T(0)), T(1));
    table[static_cast<size_t>(o)] = {i0, i0 < in - 1 ? 1 : 0, T(1) - w1, w1};
  }
  return table;
}

// Note [Separable resampling]
// linear, trilinear and bicubic read, for each dim, `taps` inputs per
// output index with weights; a dim that is copied has one tap of weight 1,
// so 1-D and 2-D resamplings run as 3-D ones with copied leading dims.
// Cubic taps follow PyTorch 1.13: source coordinate scale * (o + 0.5) - 0.5
// unclamped (scale * o with align_corners), inputs floor(src) - 1 to
// floor(src) + 2 clamped to [0, in - 1], weights the cubic convolution
// (A = -0.75) of t = src - floor(src).
template <typename T>
struct SepTable {
  int taps = 1;
  std::vector<int64_t> index;  // [out][taps]
  std::vector<T> weight;       // [out][taps]
};

template <typename T>
T cubic_near(T x, T a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
template <typename T>
T cubic_far(T x, T a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }

template <typename T>
SepTable<T> separable_table(const Resample& r, int d, bool cubic) {
  const int64_t in = r.in[d], out = r.out[d];
  SepTable<T> t;
  if (!cubic || (in == 1 && out == 1)) {
    if (!cubic && in != out) t.taps = 2;
    for (const Taps<T>& tap : linear_table<T>(r, d)) {
      t.index.push_back(tap.i0);
      t.weight.push_back(tap.w0);
      if (t.taps == 2) {
        t.index.push_back(tap.i0 + tap.step);
        t.weight.push_back(tap.w1);
      }
    }
    return t;
  }
  t.taps = 4;
  T scale;
  if (r.align_corners) {
    scale = out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  } else {
    scale = r.scales[d] > 0 ? static_cast<T>(1.0 / r.scales[d])
                            : static_cast<T>(in) / static_cast<T>(out);
  }
  const T a = T(-0.75);
  for (int64_t o = 0; o < out; ++o) {
    const T src = r.align_corners ? scale * static_cast<T>(o)
                                  : scale * (static_cast<T>(o) + T(0.5)) - T(0.5);
    const T floor_src = std::floor(src);
    const int64_t i = static_cast<int64_t>(floor_src);
    const T x = src - floor_src;
    const T w[4] = {cubic_far<T>(x + T(1), a), cubic_near<T>(x, a), cubic_near<T>(T(1) - x, a),
                    cubic_far<T>(T(1) - x + T(1), a)};
    for (int64_t k = 0; k < 4; ++k) {
      t.index.push_back(std::max<int64_t>(std::min<int64_t>(i - 1 + k, in - 1), 0));
      t.weight.push_back(w[k]);
    }
  }
  return t;
}

template <typename T>
void separable_plane(T* out, const T* in, const Resample& r, const SepTable<T> (&t)[3]) {
  const int64_t in_h = r.in[1], in_w = r.in[2];
  const int kd = t[0].taps, kh = t[1].taps, kw = t[2].taps;
  for (int64_t od = 0; od < r.out[0]; ++od) {
    for (int64_t oh = 0; oh < r.out[1]; ++oh) {
      for (int64_t ow = 0; ow < r.out[2]; ++ow) {
        T sum_d = 0;
        for (int a = 0; a < kd; ++a) {
          const T* plane = in + t[0].index[od * kd + a] * in_h * in_w;
          T sum_h = 0;
          for (int b = 0; b < kh; ++b) {
            const T* row = plane + t[1].index[oh * kh + b] * in_w;
            T sum_w = 0;
            for (int c = 0; c < kw; ++c) {
              sum_w += row[t[2].index[ow * kw + c]] * t[2].weight[ow * kw + c];
            }
            sum_h += sum_w * t[1].weight[oh * kh + b];
          }
          sum_d += sum_h * t[0].weight[od * kd + a];
        }
        *out++ = sum_d;
      }
    }
  }
}

template <typename T>
void separable_backward_plane(T* grad_in, const T* grad_out, const Resample& r,
                              const SepTable<T> (&t)[3]) {
  const int64_t in_h = r.in[1], in_w = r.in[2];
  const int kd = t[0].taps, kh = t[1].taps, kw = t[2].taps;
  std::fill(grad_in, grad_in + r.in[0] * in_h * in_w, T(0));
  for (int64_t od = 0; od < r.out[0]; ++od) {
    for (int64_t oh = 0; oh < r.out[1]; ++oh) {
      for (int64_t ow = 0; ow < r.out[2]; ++ow) {
        const T g = *grad_out++;
        for (int a = 0; a < kd; ++a) {
          T* plane = grad_in + t[0].index[od * kd + a] * in_h * in_w;
          const T gd = g * t[0].weight[od * kd + a];
          for (int b = 0; b < kh; ++b) {
            T* row = plane + t[1].index[oh * kh + b] * in_w;
            const T gh = gd * t[1].weight[oh * kh + b];
            for (int c = 0; c < kw; ++c) {
              row[t[2].index[ow * kw + c]] += gh * t[2].weight[ow * kw + c];
            }
          }
        }
      }
    }
  }
}

template <typename T>
void bilinear_plane(T* out, const T* in, const Resample& r, const std::vector<Taps<T>>& th,
                    const std::vector<Taps<T>>& tw) {
  const int64_t in_w = r.in[2], out_w = r.out[2];
  for (int64_t oh = 0; oh < r.out[1]; ++oh) {
    const Taps<T>& h = th[static_cast<size_t>(oh)];
    const T* row0 = in + h.i0 * in_w;
    const T* row1 = row0 + h.step * in_w;
    for (int64_t ow = 0; ow < out_w; ++ow) {
      const Taps<T>& w = tw[static_cast<size_t>(ow)];
      const T top = row0[w.i0] * w.w0 + row0[w.i0 + w.step] * w.w1;
      const T bottom = row1[w.i0] * w.w0 + row1[w.i0 + w.step] * w.w1;
      out[oh * out_w + ow] = top * h.w0 + bottom * h.w1;
    }
  }
}

template <typename T>
void bilinear_backward_plane(T* grad_in, const T* grad_out, const Resample& r,
                             const std::vector<Taps<T>>& th, const std::vector<Taps<T>>& tw) {
  const int64_t in_w = r.in[2], out_w = r.out[2];
  std::fill(grad_in, grad_in + r.in[1] * in_w, T(0));
  for (int64_t oh = 0; oh < r.out[1]; ++oh) {
    const Taps<T>& h = th[static_cast<size_t>(oh)];
    T* row0 = grad_in + h.i0 * in_w;
    T* row1 = row0 + h.step * in_w;
    for (int64_t ow = 0; ow < out_w; ++ow) {
      const Taps<T>& w = tw[static_cast<size_t>(ow)];
      const T g = grad_out[oh * out_w + ow];
      row0[w.i0] += h.w0 * w.w0 * g;
      row0[w.i0 + w.step] += h.w0 * w.w1 * g;
      row1[w.i0] += h.w1 * w.w0 * g;
      row1[w.i0 + w.step] += h.w1 * w.w1 * g;
    }
  }
}

// Runs fn(plane) over the planes of a resampling, in parallel.
template <typename F>
void for_each_resample_plane(const Resample& r, const F& fn) {
  const int64_t plane = std::max<int64_t>(r.out[0] * r.out[1] * r.out[2], 1);
  parallel_for(0, r.planes, std::max<int64_t>(1, kParallelGrain / plane),
               [&](int64_t begin, int64_t end) {
                 for (int64_t p = begin; p < end; ++p) fn(p);
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
        max_pool_2x2<T, true>(src, dst, dst_idx, window);
      } else if (plain) {
        max_pool_2x2<T, false>(src, dst, nullptr, window);
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
      // A window that covers only padding (possible with dilation) keeps
      // PyTorch's out-of-plane index; it has no input to pass a gradient to.
      for (int64_t o = 0; o < out_plane; ++o) {
        if (at[o] >= 0 && at[o] < in_plane) dst[at[o]] += src[o];
      }
    });
  });
}

void avg_pool(const Tensor& out, const Tensor& input, const PoolWindow& window,
              AvgDivisor divisor) {
  // int64 as PyTorch: summed in int64, divided with truncation toward zero.
  const auto dispatch = [&](auto&& fn) {
    if (input.dtype() == kInt64) return fn(int64_t{});
    return dispatch_floating(input.dtype(), "avg_pool", fn);
  };
  dispatch([&](auto tag) {
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

void upsample_nearest(const Tensor& out, const Tensor& input, const Resample& r) {
  const std::vector<int64_t> tables[3] = {nearest_table(r, 0), nearest_table(r, 1),
                                          nearest_table(r, 2)};
  const int64_t in_plane = r.in[0] * r.in[1] * r.in[2], out_plane = r.out[0] * r.out[1] * r.out[2];
  dispatch_floating(input.dtype(), "upsample_nearest", [&](auto tag) {
    using T = decltype(tag);
    T* in = data<T>(input);
    T* o = data<T>(out);
    for_each_resample_plane(r, [&](int64_t p) {
      nearest_plane<T, false>(o + p * out_plane, in + p * in_plane, r, tables);
    });
  });
}

void upsample_nearest_backward(const Tensor& grad_input, const Tensor& grad_out,
                               const Resample& r) {
  const std::vector<int64_t> tables[3] = {nearest_table(r, 0), nearest_table(r, 1),
                                          nearest_table(r, 2)};
  const int64_t in_plane = r.in[0] * r.in[1] * r.in[2], out_plane = r.out[0] * r.out[1] * r.out[2];
  dispatch_floating(grad_out.dtype(), "upsample_nearest_backward", [&](auto tag) {
    using T = decltype(tag);
    T* gi = data<T>(grad_input);
    T* go = data<T>(grad_out);
    for_each_resample_plane(r, [&](int64_t p) {
      std::fill(gi + p * in_plane, gi + (p + 1) * in_plane, T(0));
      nearest_plane<T, true>(go + p * out_plane, gi + p * in_plane, r, tables);
    });
  });
}

std::vector<int64_t> resample_nearest_indices(const Resample& r, int d) {
  return nearest_table(r, d);
}

LinearTaps resample_linear_taps(const Resample& r, int d, DType dtype) {
  LinearTaps taps;
  dispatch_floating(dtype, "upsample_bilinear2d", [&](auto tag) {
    using T = decltype(tag);
    for (const Taps<T>& t : linear_table<T>(r, d)) {
      taps.i0.push_back(t.i0);
      taps.i1.push_back(t.i0 + t.step);
      taps.w0.push_back(static_cast<double>(t.w0));
      taps.w1.push_back(static_cast<double>(t.w1));
    }
  });
  return taps;
}

SeparableTaps resample_separable_taps(const Resample& r, int d, bool cubic, DType dtype) {
  SeparableTaps taps;
  dispatch_floating(dtype, cubic ? "upsample_bicubic2d" : "upsample_linear", [&](auto tag) {
    using T = decltype(tag);
    const SepTable<T> t = separable_table<T>(r, d, cubic);
    taps.taps = t.taps;
    taps.index = t.index;
    taps.weight.assign(t.weight.begin(), t.weight.end());
  });
  return taps;
}

void upsample_bilinear(const Tensor& out, const Tensor& input, const Resample& r) {
  dispatch_floating(input.dtype(), "upsample_bilinear2d", [&](auto tag) {
    using T = decltype(tag);
    const std::vector<Taps<T>> th = linear_table<T>(r, 1), tw = linear_table<T>(r, 2);
    const T* in = data<const T>(input);
    T* o = data<T>(out);
    const int64_t in_plane = r.in[1] * r.in[2], out_plane = r.out[1] * r.out[2];
    for_each_resample_plane(r, [&](int64_t p) {
      bilinear_plane(o + p * out_plane, in + p * in_plane, r, th, tw);
    });
  });
}

void upsample_bilinear_backward(const Tensor& grad_input, const Tensor& grad_out,
                                const Resample& r) {
  dispatch_floating(grad_out.dtype(), "upsample_bilinear2d_backward", [&](auto tag) {
    using T = decltype(tag);
    const std::vector<Taps<T>> th = linear_table<T>(r, 1), tw = linear_table<T>(r, 2);
    T* gi = data<T>(grad_input);
    const T* go = data<const T>(grad_out);
    const int64_t in_plane = r.in[1] * r.in[2], out_plane = r.out[1] * r.out[2];
    for_each_resample_plane(r, [&](int64_t p) {
      bilinear_backward_plane(gi + p * in_plane, go + p * out_plane, r, th, tw);
    });
  });
}

void upsample_separable(const Tensor& out, const Tensor& input, const Resample& r, bool cubic) {
  dispatch_floating(input.dtype(), cubic ? "upsample_bicubic2d" : "upsample_linear", [&](auto tag) {
    using T = decltype(tag);
    const SepTable<T> t[3] = {separable_table<T>(r, 0, cubic), separable_table<T>(r, 1, cubic),
                              separable_table<T>(r, 2, cubic)};
    const T* in = data<const T>(input);
    T* o = data<T>(out);
    const int64_t in_plane = r.in[0] * r.in[1] * r.in[2];
    const int64_t out_plane = r.out[0] * r.out[1] * r.out[2];
    for_each_resample_plane(r, [&](int64_t p) {
      separable_plane(o + p * out_plane, in + p * in_plane, r, t);
    });
  });
}

void upsample_separable_backward(const Tensor& grad_input, const Tensor& grad_out,
                                 const Resample& r, bool cubic) {
  dispatch_floating(grad_out.dtype(),
                    cubic ? "upsample_bicubic2d_backward" : "upsample_linear_backward",
                    [&](auto tag) {
                      using T = decltype(tag);
                      const SepTable<T> t[3] = {separable_table<T>(r, 0, cubic),
                                                separable_table<T>(r, 1, cubic),
                                                separable_table<T>(r, 2, cubic)};
                      T* gi = data<T>(grad_input);
                      const T* go = data<const T>(grad_out);
                      const int64_t in_plane = r.in[0] * r.in[1] * r.in[2];
                      const int64_t out_plane = r.out[0] * r.out[1] * r.out[2];
                      for_each_resample_plane(r, [&](int64_t p) {
                        separable_backward_plane(gi + p * in_plane, go + p * out_plane, r, t);
                      });
                    });
}

}  // namespace torchlet::cpu
