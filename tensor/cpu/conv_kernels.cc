// CPU loops of convolution: direct loops for depthwise-like convolutions,
// im2col + GEMM for the rest. See Note [Convolution algorithms].
#include "tensor/cpu/conv_kernels.h"
#include "tensor/cpu/cpu_features.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "tensor/cpu/conv_winograd.h"
#include "tensor/cpu/dispatch.h"
#include "tensor/cpu/gemm.h"
#include "tensor/cpu/partial_store.h"
#include "tensor/parallel.h"

namespace torchlet::cpu {

// Note [Convolution algorithms]
// - kDirect: each output channel reads one input channel (in_channels ==
//   groups > 1: depthwise; or one input and one output channel). The
//   loops run over output rows and kernel taps, each tap one vectorized
//   multiply-add along the row: memory-bound work with no extra copies. A
//   float 3x3 kernel with stride 1 keeps its nine weights in registers and
//   computes two output rows at once (depthwise3x3_avx2).
// - kPointwiseGemm: a 1x1 kernel with stride 1 and no padding is a plain
//   matrix product per sample and group; the input is its own column matrix.
// - kIm2colGemm: everything else, including one input channel into several
//   output channels (LeNet's first layer): there the GEMM reads each patch
//   once for all output channels, where the direct loops read it once per
//   channel (1.3x faster forward, and the weight gradient becomes a GEMM
//   instead of a reduction per tap). Each sample's patches are copied into
//   a column matrix [in_channels * prod(kernel), prod(output)] (im2col),
//   then one GEMM per group multiplies the weight [out / groups, in /
//   groups * prod(kernel)] by it. The backward is the same in reverse:
//   grad_input's columns are weightᵀ @ grad_out (then col2im), grad_weight
//   is grad_out @ columnsᵀ summed over the batch. The forward of a float
//   3x3 convolution with stride 1, one group and at least 16 channels in
//   and out takes Winograd's F(2x2, 3x3) instead (Note [Winograd
//   convolution]), and so does its input gradient where the padding is at
//   most 2.
// Samples run in parallel when there are at least as many as intra-op
// threads, each thread with one column buffer for all its samples (and its
// own grad_weight accumulator); otherwise samples run in turn and each GEMM
// is split across the threads. Float products with at most 16 output
// channels per group run in AVX2 tiles instead of Eigen (Note [Small
// GEMMs]), and where output rows are wide enough the forward and the weight
// gradient read the input in place instead of im2col's copy (Note [Implicit
// columns]); with 9 to 16 output channels per group they read it in place
// at any width, through tables, in tiles of output positions x channels
// (Notes [Implicit weight gradient] and [Transposed forward tiles]). For
// LeNet: conv1's forward and weight gradient read the input in place by
// rows; conv2's forward and weight gradient through tables; conv2's input
// gradient runs in tiles of input rows over (kh, o, kw) (Note [Input
// gradient by input row]); other input gradients are tiles + col2im, summed
// by input row (Note [Column sums by input row]).

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

int64_t kw_offset(const ConvGeometry& g, int64_t kw) {
  return kw * g.dilation[2] - g.padding[2];
}

// ---- im2col / col2im over a block of output rows ----

// The kernels' output rows are the (od, oh) pairs, O0 * O1 of them, each
// output[2] long; a block of rows [row0, row1) is the columns [row0 *
// output[2], row1 * output[2]) of the column matrix.
int64_t output_rows(const ConvGeometry& g) { return g.output[0] * g.output[1]; }

// Note [Row tables]
// im2col and col2im move one column row (one channel and tap (kd, kh, kw))
// at a time. At a tap, each output row of the block reads one input row (or
// none, in the padding), and the same outputs [begin, end) of every row
// read inside the input. So a block first tabulates, per (kd, kh), the
// input row of each of its output rows (no division per row), and each
// column row is then one call that moves all its rows. With stride 1, float
// and AVX2, each 8 outputs of a row are one masked load and store, the
// mask also writing the padding's zeros (masked-off lanes are not read):
// no call and no branch per row, which matters for LeNet's 10-wide rows.
struct RowTable {
  int64_t rows;                 // output rows in the block
  std::vector<int64_t> offset;  // [kernel[0] * kernel[1]][rows]: input row * I2, or -1
};

RowTable row_table(const ConvGeometry& g, int64_t row0, int64_t row1) {
  RowTable t{row1 - row0, {}};
  t.offset.reserve(static_cast<size_t>(g.kernel[0] * g.kernel[1] * t.rows));
  for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
    for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
      int64_t od = row0 / g.output[1], oh = row0 % g.output[1];
      for (int64_t j = row0; j < row1; ++j) {
        const int64_t id = od * g.stride[0] - g.padding[0] + kd * g.dilation[0];
        const int64_t ih = oh * g.stride[1] - g.padding[1] + kh * g.dilation[1];
        const bool inside = in_range(id, g.input[0]) && in_range(ih, g.input[1]);
        t.offset.push_back(inside ? (id * g.input[1] + ih) * g.input[2] : -1);
        if (++oh == g.output[1]) {
          oh = 0;
          ++od;
        }
      }
    }
  }
  return t;
}

// One column row's move: the input rows of each output row, the width
// offset of its tap and the outputs that read inside the input.
struct RowMove {
  const int64_t* rows;  // RowTable offsets of the tap's (kd, kh)
  int64_t count;
  int64_t offset;       // kw * dilation - padding
  RowSpan span;
  int64_t width;        // output[2]
  int64_t stride;       // stride[2]
};

RowMove row_move(const ConvGeometry& g, const RowTable& t, int64_t k) {
  const int64_t kw = k % g.kernel[2], offset = kw_offset(g, kw);
  return {t.offset.data() + k / g.kernel[2] * t.rows, t.rows, offset,
          valid_span(offset, g.stride[2], g.input[2], g.output[2]), g.output[2], g.stride[2]};
}

// Whether a row move can take the AVX2 loops, whose lane indices are 32-bit.
bool avx2_rows(const RowMove& m) {
  return m.stride == 1 && m.width < (int64_t{1} << 30) && cpu_has_avx2_fma();
}

// Lanes i + [0, 8) that lie in [begin, end).
__attribute__((target("avx2"))) inline __m256i lanes_in(int64_t i, int64_t begin, int64_t end) {
  const __m256i lane = _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                        _mm256_set1_epi32(static_cast<int>(i)));
  return _mm256_and_si256(_mm256_cmpgt_epi32(lane, _mm256_set1_epi32(static_cast<int>(begin) - 1)),
                          _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(end)), lane));
}

// Lanes [0, 8) below n, as a mask.
__attribute__((target("avx2"))) inline __m256i lanes_below(int64_t n) {
  return lanes_in(0, 0, std::clamp<int64_t>(n, 0, 8));
}

__attribute__((target("avx2"))) inline __m256 load_lanes(const float* p, int64_t n, bool full) {
  return full ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, lanes_below(n));
}

// Stores v[0, n) at p (all 8 if full), without masked stores, which are
// slow on AMD's CPUs (tensor/cpu/partial_store.h).
__attribute__((target("avx2"))) inline void store_lanes(float* p, __m256 v, int64_t n, bool full) {
  if (full) {
    _mm256_storeu_ps(p, v);
  } else if (n > 0) {
    store_first(p, v, std::min<int64_t>(n, 8));
  }
}

// src[offset + i + [0, 8)] where the index i + lane is in span, else 0
// (a plain load where all 8 are).
__attribute__((target("avx2"))) inline __m256 load_span(const float* src, int64_t offset,
                                                        int64_t i, RowSpan span) {
  if (i >= span.begin && i + 8 <= span.end) return _mm256_loadu_ps(src + (offset + i));
  return _mm256_maskload_ps(src + (offset + i), lanes_in(i, span.begin, span.end));
}

// dst[0, width) = src[offset + i] where i is in span, else 0; src null: all
// zeros. Full 8-lane stores, the last one overlapping the one before where
// width is no multiple of 8 (it writes the same values).
__attribute__((target("avx2"))) void gather_row_avx2(float* dst, const float* src,
                                                     int64_t offset, RowSpan span,
                                                     int64_t width) {
  const RowSpan valid = src != nullptr ? span : RowSpan{0, 0};
  const float* from = src != nullptr ? src : dst;
  if (width < 8) {
    store_lanes(dst, load_span(from, offset, 0, valid), width, false);
    return;
  }
  for (int64_t i = 0; i + 8 <= width; i += 8) {
    _mm256_storeu_ps(dst + i, load_span(from, offset, i, valid));
  }
  if (width % 8 != 0) {
    _mm256_storeu_ps(dst + width - 8, load_span(from, offset, width - 8, valid));
  }
}

__attribute__((target("avx2"))) void gather_rows_avx2(float* dst, const float* plane,
                                                      const RowMove& m) {
  for (int64_t j = 0; j < m.count; ++j, dst += m.width) {
    gather_row_avx2(dst, m.rows[j] >= 0 ? plane + m.rows[j] : nullptr, m.offset, m.span, m.width);
  }
}

template <typename T>
void gather_row(T* dst, const T* src, const RowMove& m) {
  std::fill(dst, dst + m.span.begin, T(0));
  const int64_t n = m.span.end - m.span.begin;
  const T* from = src + m.span.begin * m.stride + m.offset;
  if (m.stride == 1) {
    std::copy(from, from + n, dst + m.span.begin);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[m.span.begin + i] = from[i * m.stride];
  }
  std::fill(dst + m.span.end, dst + m.width, T(0));
}

// The column row [count * width] of one tap of one input plane.
template <typename T>
void gather_rows(T* dst, const T* plane, const RowMove& m) {
  if constexpr (std::is_same_v<T, float>) {
    if (avx2_rows(m)) return gather_rows_avx2(dst, plane, m);
  }
  for (int64_t j = 0; j < m.count; ++j, dst += m.width) {
    if (m.rows[j] >= 0) {
      gather_row(dst, plane + m.rows[j], m);
    } else {
      std::fill(dst, dst + m.width, T(0));
    }
  }
}

// Adds the column row [count * width] of one tap into one input plane.
template <typename T>
void scatter_add_rows(T* plane, const T* src, const RowMove& m) {
  const int64_t n = m.span.end - m.span.begin;
  for (int64_t j = 0; j < m.count; ++j, src += m.width) {
    if (m.rows[j] < 0 || n <= 0) continue;
    T* dst = plane + m.rows[j] + m.span.begin * m.stride + m.offset;
    if (m.stride == 1) {
      ArrayMap<T>(dst, n) += ConstArrayMap<T>(src + m.span.begin, n);
    } else {
      StridedMap<T>(dst, n, Eigen::InnerStride<>(m.stride)) +=
          ConstArrayMap<T>(src + m.span.begin, n);
    }
  }
}

// Each tap's row move for a block (row_move per kernel tap).
std::vector<RowMove> row_moves(const ConvGeometry& g, const RowTable& t) {
  std::vector<RowMove> moves;
  moves.reserve(static_cast<size_t>(kernel_volume(g)));
  for (int64_t k = 0; k < kernel_volume(g); ++k) moves.push_back(row_move(g, t, k));
  return moves;
}

// Adds the column rows of one (kd, kh)'s taps (tap_stride apart) into one
// input plane, one tap at a time (where col2im_plane_avx2 does not apply).
template <typename T>
void scatter_add_taps(T* plane, const T* src, const RowMove* moves, int64_t taps,
                      int64_t tap_stride) {
  for (int64_t t = 0; t < taps; ++t) scatter_add_rows(plane, src + t * tap_stride, moves[t]);
}

// Column rows of channels [first, last) (each with its taps (kd, kh, kw))
// of one sample, for output rows [row0, row1): col is [(last - first) *
// prod(kernel), (row1 - row0) * output[2]].
template <typename T>
void im2col_block(T* col, const T* in, const ConvGeometry& g, int64_t first, int64_t last,
                  int64_t row0, int64_t row1) {
  const int64_t ivol = input_volume(g);
  const RowTable table = row_table(g, row0, row1);
  const std::vector<RowMove> moves = row_moves(g, table);
  const int64_t width = table.rows * g.output[2];
  for (int64_t c = first; c < last; ++c) {
    for (const RowMove& m : moves) {
      gather_rows(col, in + c * ivol, m);
      col += width;
    }
  }
}

// Adds the column block of channels [first, last) and output rows [row0,
// row1) (laid out as im2col_block's) into one sample's input.
// Note [Column sums by input row]
// col2im adds the kernel[2] column rows of one (c, kd, kh) into the same
// input rows, each shifted by its tap's offset. With AVX2 and stride 1
// along the width (col2im_plane_avx2), each input row is loaded once, the
// column elements of every (kd, kh, kw) that land on it added, 8 elements
// at a time with one mask per chunk and kw computed once per block (masked
// where a tap has none), and stored once: one read-modify-write per input
// element instead of one per tap. The sums run in the same order as one
// tap at a time. For LeNet's second layer at batch 32 this took the input
// gradient from 431 to 325 us (one read-modify-write per (kd, kh) and
// masks computed per load before).

// The column rows (of one channel) that reach each input row, as the
// offset in the channel's column rows of their kw = 0 tap's output row and
// the index of their (kd, kh), in order of (kd, kh): rows [start[r],
// start[r + 1]).
struct InputRowSources {
  std::vector<int64_t> start;   // [input rows + 1]
  std::vector<int64_t> offset;  // into the channel's column rows
  std::vector<int64_t> tap;     // (kd, kh): moves[tap * kernel[2] + kw]
};

InputRowSources input_row_sources(const ConvGeometry& g, const RowTable& t) {
  const int64_t input_rows = g.input[0] * g.input[1], width = t.rows * g.output[2];
  const int64_t taps = g.kernel[0] * g.kernel[1];
  InputRowSources s;
  s.start.assign(static_cast<size_t>(input_rows + 1), 0);
  for (int64_t o : t.offset) {
    if (o >= 0) ++s.start[static_cast<size_t>(o / g.input[2] + 1)];
  }
  for (size_t r = 1; r < s.start.size(); ++r) s.start[r] += s.start[r - 1];
  s.offset.resize(static_cast<size_t>(s.start.back()));
  s.tap.resize(s.offset.size());
  std::vector<int64_t> next(s.start.begin(), s.start.end() - 1);
  for (int64_t q = 0; q < taps; ++q) {
    for (int64_t j = 0; j < t.rows; ++j) {
      const int64_t o = t.offset[static_cast<size_t>(q * t.rows + j)];
      if (o < 0) continue;
      const size_t at = static_cast<size_t>(next[static_cast<size_t>(o / g.input[2])]++);
      s.offset[at] = q * g.kernel[2] * width + j * g.output[2];
      s.tap[at] = q;
    }
  }
  return s;
}

// The lanes of each 8-wide chunk of an input row that each kw tap reaches,
// as maskload masks [chunk][kw][8]: they depend on neither the row nor the
// channel. Lanes past the row's end are off.
std::vector<int32_t> tap_masks(const RowMove* moves, int64_t kernel_width, int64_t input_width) {
  const int64_t chunks = (input_width + 7) / 8;
  std::vector<int32_t> masks(static_cast<size_t>(chunks * kernel_width * 8));
  for (int64_t ch = 0; ch < chunks; ++ch) {
    for (int64_t t = 0; t < kernel_width; ++t) {
      for (int64_t lane = 0; lane < 8; ++lane) {
        const int64_t x = ch * 8 + lane, i = x - moves[t].offset;
        const bool on = x < input_width && i >= moves[t].span.begin && i < moves[t].span.end;
        masks[static_cast<size_t>((ch * kernel_width + t) * 8 + lane)] = on ? -1 : 0;
      }
    }
  }
  return masks;
}

// Sums into one input chunk (8 lanes at `dst`): the masked column elements
// of every tap that reaches the row, in the order of `sources`.
struct ChunkSum {
  __attribute__((target("avx2"))) static __m256 add(__m256 acc, const float* col,
                                                    const int64_t* offset, int64_t count,
                                                    const RowMove* moves, const int32_t* mask,
                                                    int64_t kernel_width, int64_t width) {
    for (int64_t i = 0; i < count; ++i) {
      const float* row = col + offset[i];
      for (int64_t t = 0; t < kernel_width; ++t) {
        acc = _mm256_add_ps(
            acc, _mm256_maskload_ps(row + (t * width - moves[t].offset),
                                    _mm256_loadu_si256(reinterpret_cast<const __m256i*>(mask + t * 8))));
      }
    }
    return acc;
  }
};

// Channels `planes` (1 or 2) of the column rows `col` (one channel's rows
// `channel_col` apart) added into their input planes (`ivol` apart), each
// input row loaded and stored once for all the taps that reach it, 8-wide
// chunks of both planes at once (stride 1 along the width; avx2_rows).
// Note [Two planes at a time]: an input row sums up to kernel[1] x
// kernel[2] taps (25 for 5x5) into each chunk, a chain of dependent adds;
// with the two chunks of one 16-wide row alone in flight, the loop waited
// on the adds' latency. Two channels share every table, so their chunks
// interleave as four independent chains, each summing in the same order as
// before (the results do not change).
__attribute__((target("avx2"))) void col2im_planes_avx2(float* plane, int64_t ivol, const float* col,
                                                        int64_t channel_col, int planes,
                                                        const RowMove* moves,
                                                        const InputRowSources& sources,
                                                        const int32_t* masks,
                                                        int64_t kernel_width, int64_t width,
                                                        int64_t input_width) {
  const int64_t input_rows = static_cast<int64_t>(sources.start.size()) - 1;
  for (int64_t r = 0; r < input_rows; ++r) {
    const int64_t begin = sources.start[static_cast<size_t>(r)];
    const int64_t count = sources.start[static_cast<size_t>(r + 1)] - begin;
    if (count == 0) continue;
    const int64_t* offset = sources.offset.data() + begin;
    for (int64_t x = 0; x < input_width; x += 16) {
      const bool two = x + 8 < input_width;
      const bool full0 = x + 8 <= input_width, full1 = x + 16 <= input_width;
      const int32_t* m0 = masks + (x / 8) * kernel_width * 8;
      const int32_t* m1 = m0 + kernel_width * 8;
      for (int pl = 0; pl < planes; pl += 2) {
        float* dst = plane + pl * ivol + r * input_width + x;
        const float* c0 = col + pl * channel_col + x;
        if (planes - pl >= 2 && two) {
          float* dst_b = dst + ivol;
          const float* c1 = c0 + channel_col;
          __m256 a0 = load_lanes(dst, input_width - x, full0);
          __m256 a1 = load_lanes(dst + 8, input_width - x - 8, full1);
          __m256 b0 = load_lanes(dst_b, input_width - x, full0);
          __m256 b1 = load_lanes(dst_b + 8, input_width - x - 8, full1);
          for (int64_t i = 0; i < count; ++i) {
            const float* ra = c0 + offset[i];
            const float* rb = c1 + offset[i];
            for (int64_t t = 0; t < kernel_width; ++t) {
              const int64_t shift = t * width - moves[t].offset;
              const __m256i k0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m0 + t * 8));
              const __m256i k1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m1 + t * 8));
              a0 = _mm256_add_ps(a0, _mm256_maskload_ps(ra + shift, k0));
              a1 = _mm256_add_ps(a1, _mm256_maskload_ps(ra + shift + 8, k1));
              b0 = _mm256_add_ps(b0, _mm256_maskload_ps(rb + shift, k0));
              b1 = _mm256_add_ps(b1, _mm256_maskload_ps(rb + shift + 8, k1));
            }
          }
          store_lanes(dst, a0, input_width - x, full0);
          store_lanes(dst + 8, a1, input_width - x - 8, full1);
          store_lanes(dst_b, b0, input_width - x, full0);
          store_lanes(dst_b + 8, b1, input_width - x - 8, full1);
          continue;
        }
        for (int q = pl; q < std::min(planes, pl + 2); ++q) {
          float* d = plane + q * ivol + r * input_width + x;
          const float* cq = col + q * channel_col + x;
          store_lanes(d, ChunkSum::add(load_lanes(d, input_width - x, full0), cq, offset, count,
                                       moves, m0, kernel_width, width),
                      input_width - x, full0);
          if (two) {
            store_lanes(d + 8, ChunkSum::add(load_lanes(d + 8, input_width - x - 8, full1),
                                             cq + 8, offset, count, moves, m1, kernel_width, width),
                        input_width - x - 8, full1);
          }
        }
      }
    }
  }
}

// What col2im_block needs of a block of output rows [row0, row1), the same
// for every sample and channel: tabulated once per block of a call rather
// than per sample (rebuilt per sample, the tables took a tenth of LeNet's
// second-layer input gradient).
struct Col2imPlan {
  Col2imPlan(const ConvGeometry& g, int64_t row0, int64_t row1)
      : table(row_table(g, row0, row1)), moves(row_moves(g, table)) {
    avx2 = avx2_rows(moves[0]) && g.input[2] < (int64_t{1} << 30);
    if (avx2) {
      sources = input_row_sources(g, table);
      masks = tap_masks(moves.data(), g.kernel[2], g.input[2]);
    }
  }
  Col2imPlan(const Col2imPlan&) = delete;
  Col2imPlan& operator=(const Col2imPlan&) = delete;
  Col2imPlan(Col2imPlan&&) = default;  // moves keep pointing into table.offset

  RowTable table;
  std::vector<RowMove> moves;
  bool avx2 = false;
  InputRowSources sources;
  std::vector<int32_t> masks;
};

template <typename T>
void col2im_block(T* in, const T* col, const ConvGeometry& g, int64_t first, int64_t last,
                  const Col2imPlan& plan) {
  const int64_t ivol = input_volume(g);
  const std::vector<RowMove>& moves = plan.moves;
  const int64_t width = plan.table.rows * g.output[2];
  if constexpr (std::is_same_v<T, float>) {
    if (plan.avx2) {
      const int64_t channel_col = kernel_volume(g) * width;
      for (int64_t c = first; c < last; c += 2) {
        col2im_planes_avx2(in + c * ivol, ivol, col + (c - first) * channel_col, channel_col,
                           static_cast<int>(std::min<int64_t>(2, last - c)), moves.data(),
                           plan.sources, plan.masks.data(), g.kernel[2], width, g.input[2]);
      }
      return;
    }
  }
  for (int64_t c = first; c < last; ++c) {
    for (size_t q = 0; q < moves.size(); q += static_cast<size_t>(g.kernel[2])) {
      scatter_add_taps(in + c * ivol, col, &moves[q], g.kernel[2], width);
      col += g.kernel[2] * width;
    }
  }
}

// ---- batch scheduling ----

// Whether this thread's products of a convolution run on it alone, in the
// one-thread small-tile kernels, rather than split across threads: inside a
// chunk of samples (a parallel region), with one thread, or on a replica's
// thread whose loops split only for other replicas to help (Note [Replicas
// that finish first help] in tensor/parallel.cc), where the one-thread
// kernels beat a split of one sample's products that nobody may help:
// through DataParallel at one sample per device, the split took LeNet-5's
// step 21% longer.
bool products_on_one_thread() {
  return detail::in_parallel_region() || detail::split_threads() == 1 ||
         detail::splits_for_helpers_only();
}

bool samples_in_parallel(int64_t batch) {
  const int threads = detail::split_threads();
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
void run_gemm(int64_t m, int64_t n, int64_t k, const T* a, int64_t a_row, int64_t a_col,
              const T* b, int64_t b_row, int64_t b_col, T* c, int64_t ldc, double beta) {
  gemm(GemmArgs{m, n, k, a, a_row, a_col, b, b_row, b_col, c, ldc, 1.0, beta},
       std::is_same_v<T, double>);
}

// ---- small GEMMs ----

// Note [Small GEMMs]
// LeNet's convolutions have few output channels (6 and 16), so one side of
// each product is small: the forward is weight [cout, K] @ columns [K, L],
// the input gradient's columns are weightᵀ [K, cout] @ grad_out [cout, L]
// and the weight gradient is grad_out [cout, L] @ columnsᵀ. Eigen packs both
// operands on every call (the column matrix transposed, for the weight
// gradient) into panels sized for large products. With AVX2 and FMA, a
// float product whose small side is at most kSmallGemmSide and that runs on
// one thread (samples in parallel) takes one of two kernels instead, which
// read the operands in place:
// - broadcast_gemm, C (+)= A @ B with B's rows contiguous: tiles of 6 rows
//   x 16 columns of C in 12 registers; each step along k loads 16 of B's
//   row and broadcasts 6 elements of A (the forward and the input gradient).
//   With AVX-512, 12 rows x 16 columns in 12 registers (Note [Wide
//   broadcast tiles]).
// - dot_gemm, C += A @ Bᵀ with A's and B's rows contiguous: tiles of 3 x 4
//   dot products along the rows in 12 registers, each summed across lanes
//   at the end (the weight gradient).
// A tile's columns past the end are masked (neither read nor written); a
// dot tile's run of 8 or more ends instead with the 8 elements before its
// end, the lanes already summed zeroed in both operands.
constexpr int64_t kSmallGemmSide = 16;

// One strided matrix operand: element (i, j) at data[i * row + j * col].
struct Operand {
  const float* data;
  int64_t row, col;
  const float* row_data(int64_t i) const { return data + i * row; }
  int64_t at(int64_t j) const { return j * col; }
  Operand from_row(int64_t i) const { return {data + i * row, row, col}; }
};

// An operand read through two tables: element (i, j) at data[row_offset[i]
// + col_offset[j]] (Note [Implicit weight gradient]).
struct TableOperand {
  const float* data;
  const int64_t* row_offset;
  const int64_t* col_offset;
  const float* row_data(int64_t i) const { return data + row_offset[i]; }
  int64_t at(int64_t j) const { return col_offset[j]; }
  TableOperand from_row(int64_t i) const { return {data, row_offset + i, col_offset}; }
};

// Note [Named accumulators]
// The tiles keep their 12 accumulators in named variables: GCC keeps an
// array of them in memory, storing every accumulator on every step.
// Partial tiles repeat their last row (computed, never stored).

// One row of a broadcast tile: 16 columns in two registers.
struct RowAcc {
  __m256 lo, hi;
};

__attribute__((target("avx2,fma"))) inline void fma_row(RowAcc& acc, const float* a, __m256 b0,
                                                        __m256 b1) {
  const __m256 x = _mm256_broadcast_ss(a);
  acc.lo = _mm256_fmadd_ps(x, b0, acc.lo);
  acc.hi = _mm256_fmadd_ps(x, b1, acc.hi);
}

template <bool kFull>
__attribute__((target("avx2"))) inline RowAcc load_row(const float* c, int64_t cols,
                                                      bool accumulate) {
  if (!accumulate) return {_mm256_setzero_ps(), _mm256_setzero_ps()};
  return {load_lanes(c, cols, kFull), load_lanes(c + 8, cols - 8, kFull)};
}

template <bool kFull>
__attribute__((target("avx2"))) inline void store_row(float* c, const RowAcc& acc,
                                                     int64_t cols) {
  store_lanes(c, acc.lo, cols, kFull);
  store_lanes(c + 8, acc.hi, cols - 8, kFull);
}

// B's rows for broadcast_gemm: row p at data + p * ld.
struct StridedRows {
  const float* data;
  int64_t ld;
  const float* row(int64_t p) const { return data + p * ld; }
  StridedRows shifted(int64_t j) const { return {data + j, ld}; }
};

// B's rows at data + offset[p]: the implicit column matrix of Note
// [Implicit columns].
struct TableRows {
  const float* data;
  const int64_t* offset;
  const float* row(int64_t p) const { return data + offset[p]; }
  TableRows shifted(int64_t j) const { return {data + j, offset}; }
};

// C[rows x cols] (+)= A[rows x k] @ B[k x cols], rows <= kRows (6 or 4),
// cols <= 16 (16 if kFull).
template <bool kFull, int kRows, typename Rows, typename A>
__attribute__((target("avx2,fma"))) void broadcast_tile(int64_t rows, int64_t cols, int64_t k,
                                                        A a, Rows b, float* c, int64_t ldc,
                                                        bool accumulate) {
  static_assert(kRows == 6 || kRows == 4, "tiles of 6 or 4 rows");
  const float* ar[6];
  for (int r = 0; r < 6; ++r) ar[r] = a.row_data(std::min<int64_t>(r, rows - 1));
  auto row_c = [&](int r) { return c + std::min<int64_t>(r, rows - 1) * ldc; };
  RowAcc c0 = load_row<kFull>(row_c(0), cols, accumulate);
  RowAcc c1 = load_row<kFull>(row_c(1), cols, accumulate);
  RowAcc c2 = load_row<kFull>(row_c(2), cols, accumulate);
  RowAcc c3 = load_row<kFull>(row_c(3), cols, accumulate);
  RowAcc c4 = kRows == 6 ? load_row<kFull>(row_c(4), cols, accumulate) : RowAcc{};
  RowAcc c5 = kRows == 6 ? load_row<kFull>(row_c(5), cols, accumulate) : RowAcc{};
  const float *a0 = ar[0], *a1 = ar[1], *a2 = ar[2], *a3 = ar[3], *a4 = ar[4], *a5 = ar[5];
  // A partial tile's first 8 columns are a plain load when all are there:
  // masked loads are slow on AMD's CPUs, and LeNet's first layer's 28-wide
  // rows end in a tile of 12.
  const bool whole0 = kFull || cols >= 8;
  for (int64_t p = 0; p < k; ++p) {
    const float* br = b.row(p);
    const __m256 b0 = load_lanes(br, cols, whole0), b1 = load_lanes(br + 8, cols - 8, kFull);
    const int64_t at = a.at(p);
    fma_row(c0, a0 + at, b0, b1);
    fma_row(c1, a1 + at, b0, b1);
    fma_row(c2, a2 + at, b0, b1);
    fma_row(c3, a3 + at, b0, b1);
    if constexpr (kRows == 6) {
      fma_row(c4, a4 + at, b0, b1);
      fma_row(c5, a5 + at, b0, b1);
    }
  }
  const RowAcc done[6] = {c0, c1, c2, c3, c4, c5};
  for (int64_t r = 0; r < rows; ++r) store_row<kFull>(c + r * ldc, done[r], cols);
}

// Note [Wide broadcast tiles]
// With AVX-512 a broadcast tile's 16 columns are one register per row: each
// step along k loads one vector of B and multiplies it by kRows elements of
// A broadcast from memory (one instruction each), where AVX2's tile needs
// two loads of B and twice as many 8-lane multiply-adds. Each row is one
// chain of dependent multiply-adds, so broadcast_gemm takes 12 rows at a
// time (12 chains in flight, as many as two FMA units with a latency of 4
// need, and 13 of the 32 registers) and 6 or 4 for the last rows; the input
// gradient by input row (6 channels for LeNet) keeps 6. Partial tiles mask
// B's loads and C's loads and stores (masked lanes are neither read nor
// written). The accumulators are an array: fully unrolled, GCC keeps them
// in registers here (unlike Note [Named accumulators]'s AVX2 tiles). Every
// element is the same chain of fused multiply-adds in the same order as in
// broadcast_tile: the same results, bit for bit. On a 2-core Intel Xeon
// (model 207) the tiles of LeNet's step at batch 32 on one core took 0.82
// of the AVX2 tiles' time (their share of perf's samples against the rest
// of the step); 6 rows of one register each gained about half as much.
template <int kRows, typename Rows, typename A>
__attribute__((target("avx512f,avx512vl,avx2,fma"))) void broadcast_tile_wide(
    int64_t rows, int64_t cols, int64_t k, A a, Rows b, float* c, int64_t ldc, bool accumulate) {
  static_assert(kRows == 12 || kRows == 6 || kRows == 4, "tiles of 12, 6 or 4 rows");
  const __mmask16 mask = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
  const float* ar[kRows];
  __m512 acc[kRows];
#pragma GCC unroll 12
  for (int r = 0; r < kRows; ++r) {
    ar[r] = a.row_data(std::min<int64_t>(r, rows - 1));
    acc[r] = accumulate && r < rows ? _mm512_maskz_loadu_ps(mask, c + r * ldc) : _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < k; ++p) {
    const __m512 bv = _mm512_maskz_loadu_ps(mask, b.row(p));
    const int64_t at = a.at(p);
#pragma GCC unroll 12
    for (int r = 0; r < kRows; ++r) acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(ar[r][at]), bv, acc[r]);
  }
#pragma GCC unroll 12
  for (int r = 0; r < kRows; ++r) {
    if (r < rows) _mm512_mask_storeu_ps(c + r * ldc, mask, acc[r]);
  }
}

// A tile of C[rows x cols] (+)= A @ B: the wide one where the CPU has
// AVX-512 (Note [Wide broadcast tiles]).
template <bool kFull, int kRows, typename Rows, typename A>
inline void small_tile(int64_t rows, int64_t cols, int64_t k, A a, Rows b, float* c, int64_t ldc,
                       bool accumulate) {
  if (cpu_has_avx512vl()) return broadcast_tile_wide<kRows>(rows, cols, k, a, b, c, ldc, accumulate);
  broadcast_tile<kFull, kRows>(rows, cols, k, a, b, c, ldc, accumulate);
}

// Note [Tiles in pairs]
// Where a layer has at most 6 output channels (LeNet's first layer), a wide
// forward tile (Note [Wide broadcast tiles]) holds only 6 chains of
// multiply-adds, too few to hide their latency. The forward then computes
// output rows oh and oh + 1 together: the same weights, the input's tables
// one input row apart. Each step loads 16 lanes of both input rows and
// broadcasts each weight once for two multiply-adds: 12 chains, 8 loads per
// 12 multiply-adds. Every element is the same chain as alone. On a 2-core
// Intel Xeon (model 207) BM_Conv2d/1/6/28/5/1 (LeNet's first layer at batch
// 32, one core) took 0.12-0.14 ms against 0.16-0.24 alone, six
// alternating rounds. The input gradient by input row (6 input channels
// for LeNet's second layer) taking two samples at once this way was not
// faster (BM_Conv2dLenetSecondLayer/1: 299-411 against 290-454 µs, five
// rounds), so it keeps one sample's 6 rows.
// C0 (+)= A @ B0 and C1 (+)= A @ B1, rows <= kRows (6 or 4), cols <= 16.
template <int kRows, typename Rows, typename A>
__attribute__((target("avx512f,avx512vl,avx2,fma"))) void broadcast_tile_pair(
    int64_t rows, int64_t cols, int64_t k, A a, Rows b0, Rows b1, float* c0, float* c1,
    int64_t ldc, bool accumulate) {
  static_assert(kRows == 6 || kRows == 4, "tiles of 6 or 4 rows");
  const __mmask16 mask = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
  const float* ar[kRows];
  __m512 x[kRows], y[kRows];
#pragma GCC unroll 6
  for (int r = 0; r < kRows; ++r) {
    ar[r] = a.row_data(std::min<int64_t>(r, rows - 1));
    const bool load = accumulate && r < rows;
    x[r] = load ? _mm512_maskz_loadu_ps(mask, c0 + r * ldc) : _mm512_setzero_ps();
    y[r] = load ? _mm512_maskz_loadu_ps(mask, c1 + r * ldc) : _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < k; ++p) {
    const __m512 v0 = _mm512_maskz_loadu_ps(mask, b0.row(p));
    const __m512 v1 = _mm512_maskz_loadu_ps(mask, b1.row(p));
    const int64_t at = a.at(p);
#pragma GCC unroll 6
    for (int r = 0; r < kRows; ++r) {
      const __m512 w = _mm512_set1_ps(ar[r][at]);
      x[r] = _mm512_fmadd_ps(w, v0, x[r]);
      y[r] = _mm512_fmadd_ps(w, v1, y[r]);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < kRows; ++r) {
    if (r < rows) {
      _mm512_mask_storeu_ps(c0 + r * ldc, mask, x[r]);
      _mm512_mask_storeu_ps(c1 + r * ldc, mask, y[r]);
    }
  }
}

// Two row blocks of at most 6 rows that share A, all their columns
// (Note [Tiles in pairs]); only where the CPU has AVX-512.
template <typename Rows, typename A>
void broadcast_pair_tiles(int64_t rows, int64_t n, int64_t k, A a, Rows b0, Rows b1, float* c0,
                          float* c1, int64_t ldc, bool accumulate) {
  for (int64_t j = 0; j < n; j += 16) {
    const int64_t cols = std::min<int64_t>(16, n - j);
    if (rows > 4) {
      broadcast_tile_pair<6>(rows, cols, k, a, b0.shifted(j), b1.shifted(j), c0 + j, c1 + j, ldc,
                             accumulate);
    } else {
      broadcast_tile_pair<4>(rows, cols, k, a, b0.shifted(j), b1.shifted(j), c0 + j, c1 + j, ldc,
                             accumulate);
    }
  }
}

// One row block's tiles: 6 rows, or 4 where at most 4 remain.
template <int kRows, typename Rows, typename A>
void broadcast_row_tiles(int64_t rows, int64_t n, int64_t k, A a, Rows b, float* c,
                         int64_t ldc, bool accumulate) {
  for (int64_t j = 0; j < n; j += 16) {
    const int64_t cols = std::min<int64_t>(16, n - j);
    if (cols == 16) {
      small_tile<true, kRows>(rows, cols, k, a, b.shifted(j), c + j, ldc, accumulate);
    } else {
      small_tile<false, kRows>(rows, cols, k, a, b.shifted(j), c + j, ldc, accumulate);
    }
  }
}

// C[m x n] (+)= A[m x k] @ B[k x n]; C row-major.
template <typename Rows, typename A = Operand>
void broadcast_gemm(int64_t m, int64_t n, int64_t k, A a, Rows b, float* c, int64_t ldc,
                    bool accumulate) {
  const bool wide = cpu_has_avx512vl();
  for (int64_t i = 0; i < m;) {
    // Twelve rows at a time where the tiles are wide (Note [Wide broadcast
    // tiles]): 12 independent chains of multiply-adds hide their latency.
    if (wide && m - i > 6) {
      const int64_t rows = std::min<int64_t>(12, m - i);
      const A at = a.from_row(i);
      for (int64_t j = 0; j < n; j += 16) {
        broadcast_tile_wide<12>(rows, std::min<int64_t>(16, n - j), k, at, b.shifted(j),
                                c + i * ldc + j, ldc, accumulate);
      }
      i += rows;
      continue;
    }
    const int64_t rows = std::min<int64_t>(6, m - i);
    const A at = a.from_row(i);
    if (rows > 4) {
      broadcast_row_tiles<6>(rows, n, k, at, b, c + i * ldc, ldc, accumulate);
    } else {
      broadcast_row_tiles<4>(rows, n, k, at, b, c + i * ldc, ldc, accumulate);
    }
    i += rows;
  }
}

__attribute__((target("avx2"))) inline float lane_sum(__m256 v) {
  __m128 x = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  x = _mm_add_ps(x, _mm_movehl_ps(x, x));
  x = _mm_add_ss(x, _mm_movehdup_ps(x));
  return _mm_cvtss_f32(x);
}

// The 3 x 4 dot products of a dot tile.
struct DotAcc {
  __m256 d00, d01, d02, d03, d10, d11, d12, d13, d20, d21, d22, d23;
};

// acc += the products of 8 lanes of A's rows x0..x2 and B's rows y0..y3.
__attribute__((target("avx2,fma"))) inline void fma_dots(DotAcc& s, __m256 x0, __m256 x1,
                                                         __m256 x2, __m256 y0, __m256 y1,
                                                         __m256 y2, __m256 y3) {
  s.d00 = _mm256_fmadd_ps(x0, y0, s.d00);
  s.d01 = _mm256_fmadd_ps(x0, y1, s.d01);
  s.d02 = _mm256_fmadd_ps(x0, y2, s.d02);
  s.d03 = _mm256_fmadd_ps(x0, y3, s.d03);
  s.d10 = _mm256_fmadd_ps(x1, y0, s.d10);
  s.d11 = _mm256_fmadd_ps(x1, y1, s.d11);
  s.d12 = _mm256_fmadd_ps(x1, y2, s.d12);
  s.d13 = _mm256_fmadd_ps(x1, y3, s.d13);
  s.d20 = _mm256_fmadd_ps(x2, y0, s.d20);
  s.d21 = _mm256_fmadd_ps(x2, y1, s.d21);
  s.d22 = _mm256_fmadd_ps(x2, y2, s.d22);
  s.d23 = _mm256_fmadd_ps(x2, y3, s.d23);
}

// The shared dimension of a dot product: `count` runs of `length`
// elements, the runs a_stride apart in A's rows and b_stride in B's.
struct Runs {
  int64_t count, length, a_stride, b_stride;
};

// C[rows x cols] += A[rows x l] @ B[cols x l]ᵀ, rows <= kRows (3 or 6),
// cols <= 4, l as runs; B's row j at b.row(j0 + j). Six rows keep 24
// accumulators, 6 + 1 operands in flight: only with AVX-512's 32 registers
// (dot_tile_wide).
template <int kRows, typename Rows>
__attribute__((target("avx2,fma"), always_inline)) inline void dot_tile_impl(
    int64_t rows, int64_t cols, Runs l, const float* a, int64_t lda, Rows b, int64_t j0, float* c,
    int64_t ldc) {
  static_assert(kRows == 3 || kRows == 6, "dot tiles of 3 or 6 rows");
  const float* x[6];
  const float* y[4];
  for (int i = 0; i < 6; ++i) x[i] = a + std::min<int64_t>(i, rows - 1) * lda;
  for (int j = 0; j < 4; ++j) y[j] = b.row(j0 + std::min<int64_t>(j, cols - 1));
  const __m256 z = _mm256_setzero_ps();
  DotAcc s{z, z, z, z, z, z, z, z, z, z, z, z};
  DotAcc t{z, z, z, z, z, z, z, z, z, z, z, z};  // rows 3..5 (kRows == 6)
  const __m256i tail = lanes_below(l.length % 8);
  // A run at least 8 long ends with the 8 elements before its end, the
  // lanes already summed zeroed in both operands (0 x 0 adds nothing, and
  // no element outside the run is multiplied): whole loads, where masked
  // loads of all seven rows ran out of registers.
  const int64_t rem = l.length % 8;
  const bool overlap = rem != 0 && l.length >= 8;
  const __m256 keep = _mm256_castsi256_ps(lanes_in(0, 8 - rem, 8));
  for (int64_t r = 0; r < l.count; ++r) {
    const int64_t ao = r * l.a_stride, bo = r * l.b_stride;
    int64_t p = 0;
    for (; p + 8 <= l.length; p += 8) {
      const __m256 y0 = _mm256_loadu_ps(y[0] + bo + p), y1 = _mm256_loadu_ps(y[1] + bo + p);
      const __m256 y2 = _mm256_loadu_ps(y[2] + bo + p), y3 = _mm256_loadu_ps(y[3] + bo + p);
      fma_dots(s, _mm256_loadu_ps(x[0] + ao + p), _mm256_loadu_ps(x[1] + ao + p),
               _mm256_loadu_ps(x[2] + ao + p), y0, y1, y2, y3);
      if constexpr (kRows == 6) {
        fma_dots(t, _mm256_loadu_ps(x[3] + ao + p), _mm256_loadu_ps(x[4] + ao + p),
                 _mm256_loadu_ps(x[5] + ao + p), y0, y1, y2, y3);
      }
    }
    if (overlap) {
      const int64_t q = l.length - 8;
      const __m256 y0 = _mm256_and_ps(_mm256_loadu_ps(y[0] + bo + q), keep);
      const __m256 y1 = _mm256_and_ps(_mm256_loadu_ps(y[1] + bo + q), keep);
      const __m256 y2 = _mm256_and_ps(_mm256_loadu_ps(y[2] + bo + q), keep);
      const __m256 y3 = _mm256_and_ps(_mm256_loadu_ps(y[3] + bo + q), keep);
      fma_dots(s, _mm256_and_ps(_mm256_loadu_ps(x[0] + ao + q), keep),
               _mm256_and_ps(_mm256_loadu_ps(x[1] + ao + q), keep),
               _mm256_and_ps(_mm256_loadu_ps(x[2] + ao + q), keep), y0, y1, y2, y3);
      if constexpr (kRows == 6) {
        fma_dots(t, _mm256_and_ps(_mm256_loadu_ps(x[3] + ao + q), keep),
                 _mm256_and_ps(_mm256_loadu_ps(x[4] + ao + q), keep),
                 _mm256_and_ps(_mm256_loadu_ps(x[5] + ao + q), keep), y0, y1, y2, y3);
      }
    } else if (p < l.length) {
      const __m256 y0 = _mm256_maskload_ps(y[0] + bo + p, tail);
      const __m256 y1 = _mm256_maskload_ps(y[1] + bo + p, tail);
      const __m256 y2 = _mm256_maskload_ps(y[2] + bo + p, tail);
      const __m256 y3 = _mm256_maskload_ps(y[3] + bo + p, tail);
      fma_dots(s, _mm256_maskload_ps(x[0] + ao + p, tail), _mm256_maskload_ps(x[1] + ao + p, tail),
               _mm256_maskload_ps(x[2] + ao + p, tail), y0, y1, y2, y3);
      if constexpr (kRows == 6) {
        fma_dots(t, _mm256_maskload_ps(x[3] + ao + p, tail),
                 _mm256_maskload_ps(x[4] + ao + p, tail), _mm256_maskload_ps(x[5] + ao + p, tail),
                 y0, y1, y2, y3);
      }
    }
  }
  const __m256 sums[6][4] = {{s.d00, s.d01, s.d02, s.d03}, {s.d10, s.d11, s.d12, s.d13},
                             {s.d20, s.d21, s.d22, s.d23}, {t.d00, t.d01, t.d02, t.d03},
                             {t.d10, t.d11, t.d12, t.d13}, {t.d20, t.d21, t.d22, t.d23}};
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) c[i * ldc + j] += lane_sum(sums[i][j]);
  }
}

template <typename Rows>
__attribute__((target("avx2,fma"))) void dot_tile(int64_t rows, int64_t cols, Runs l,
                                                  const float* a, int64_t lda, Rows b,
                                                  int64_t j0, float* c, int64_t ldc) {
  dot_tile_impl<3>(rows, cols, l, a, lda, b, j0, c, ldc);
}

// Note [Wide dot tiles]: with 32 vector registers a tile takes 6 rows of A
// (LeNet's first layer's 6 output channels at once) against each 4 rows of
// B, 10 loads for 24 multiply-adds instead of 7 for 12; every dot product
// sums exactly as in a 3-row tile, so results are the same bit for bit.
template <typename Rows>
__attribute__((target("avx512f,avx512vl,avx2,fma"))) void dot_tile_wide(
    int64_t rows, int64_t cols, Runs l, const float* a, int64_t lda, Rows b, int64_t j0, float* c,
    int64_t ldc) {
  dot_tile_impl<6>(rows, cols, l, a, lda, b, j0, c, ldc);
}

// C[m x n] += A[m x l] @ B[n x l]ᵀ; A and C row-major, B's row j at
// b.row(j).
template <typename Rows>
void dot_gemm(int64_t m, int64_t n, Runs l, const float* a, int64_t lda, Rows b, float* c,
              int64_t ldc) {
  const bool wide = cpu_has_avx512vl();
  for (int64_t i = 0; i < m;) {
    const int64_t rows = std::min<int64_t>(wide && m - i > 3 ? 6 : 3, m - i);
    for (int64_t j = 0; j < n; j += 4) {
      const int64_t cols = std::min<int64_t>(4, n - j);
      if (rows > 3) {
        dot_tile_wide(rows, cols, l, a + i * lda, lda, b, j, c + i * ldc + j, ldc);
      } else {
        dot_tile(rows, cols, l, a + i * lda, lda, b, j, c + i * ldc + j, ldc);
      }
    }
    i += rows;
  }
}

// Whether a product whose small side is `side` takes the kernels above.
template <typename T>
bool small_gemm(int64_t side) {
  return std::is_same_v<T, float> && side <= kSmallGemmSide && cpu_has_avx2_fma() &&
         products_on_one_thread();
}

// C[m x n] (+)= A[m x k] @ B[k x n], B and C row-major.
template <typename T>
void gemm_rows(int64_t m, int64_t n, int64_t k, const T* a, int64_t a_row, int64_t a_col,
               const T* b, int64_t ldb, T* c, int64_t ldc, bool accumulate) {
  if constexpr (std::is_same_v<T, float>) {
    if (small_gemm<T>(std::min(m, k))) {
      return broadcast_gemm(m, n, k, {a, a_row, a_col}, StridedRows{b, ldb}, c, ldc, accumulate);
    }
  }
  run_gemm<T>(m, n, k, a, a_row, a_col, b, ldb, 1, c, ldc, accumulate ? 1.0 : 0.0);
}

// C[m x n] += A[m x l] @ B[n x l]ᵀ, all row-major.
template <typename T>
void gemm_dots(int64_t m, int64_t n, int64_t l, const T* a, int64_t lda, const T* b,
               int64_t ldb, T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>) {
    if (small_gemm<T>(std::min(m, n))) {
      return dot_gemm(m, n, Runs{1, l, 0, 0}, a, lda, StridedRows{b, ldb}, c, ldc);
    }
  }
  run_gemm<T>(m, n, l, a, lda, 1, b, 1, ldb, c, ldc, 1.0);
}

// ---- GEMM algorithms ----

// Note [Column blocks]
// A sample's whole column matrix is large (64 channels x 3x3 x 56x56 floats
// is 7 MB): written by im2col, then read back by the GEMM, from memory. The
// GEMM algorithms therefore build it a block of output rows at a time, each
// block about kColumnBlockBytes, so it is still in cache when the GEMM
// reads it. A pointwise convolution reads the input itself, in one block.
constexpr int64_t kColumnBlockBytes = 1 << 19;

struct GemmShape {
  int64_t kvol, lvol, ivol, cin_g, cout_g;
  bool pointwise;
  int64_t block_rows;  // output rows per column block
};

template <typename T>
GemmShape gemm_shape(const ConvGeometry& g) {
  GemmShape s;
  s.kvol = kernel_volume(g);
  s.lvol = output_volume(g);
  s.ivol = input_volume(g);
  s.cin_g = g.in_channels / g.groups;
  s.cout_g = g.out_channels / g.groups;
  s.pointwise = conv_algorithm(g) == ConvAlgorithm::kPointwiseGemm;
  const int64_t row_bytes =
      std::max<int64_t>(1, g.in_channels * s.kvol * g.output[2] * static_cast<int64_t>(sizeof(T)));
  s.block_rows = s.pointwise ? output_rows(g)
                             : std::clamp<int64_t>(kColumnBlockBytes / row_bytes, 1, output_rows(g));
  return s;
}

template <typename T>
std::vector<T> column_buffer(const ConvGeometry& g, const GemmShape& s) {
  return std::vector<T>(s.pointwise ? 0 : static_cast<size_t>(g.in_channels * s.kvol * s.block_rows * g.output[2]));
}

// Calls fn(row0, row1, col0, width) for each block of output rows.
template <typename F>
void for_each_block(const ConvGeometry& g, const GemmShape& s, F&& fn) {
  const int64_t rows = output_rows(g);
  for (int64_t row0 = 0; row0 < rows; row0 += s.block_rows) {
    const int64_t row1 = std::min(rows, row0 + s.block_rows);
    fn(row0, row1, row0 * g.output[2], (row1 - row0) * g.output[2]);
  }
}

template <typename T>
void gemm_forward(T* out, const T* in, const T* w, const T* bias, const ConvGeometry& g) {
  const GemmShape s = gemm_shape<T>(g);
  const int64_t krows = s.cin_g * s.kvol;
  over_batch(g.batch, [&](int64_t begin, int64_t end) {
    std::vector<T> col = column_buffer<T>(g, s);
    for (int64_t n = begin; n < end; ++n) {
      const T* x = in + n * g.in_channels * s.ivol;
      T* y = out + n * g.out_channels * s.lvol;
      if (bias != nullptr) {
        for (int64_t oc = 0; oc < g.out_channels; ++oc) {
          std::fill(y + oc * s.lvol, y + (oc + 1) * s.lvol, bias[oc]);
        }
      }
      for_each_block(g, s, [&](int64_t row0, int64_t row1, int64_t col0, int64_t width) {
        if (!s.pointwise) im2col_block(col.data(), x, g, 0, g.in_channels, row0, row1);
        const T* cols = s.pointwise ? x : col.data();
        const int64_t ld = s.pointwise ? s.lvol : width;
        for (int64_t grp = 0; grp < g.groups; ++grp) {
          gemm_rows<T>(s.cout_g, width, krows, w + grp * s.cout_g * krows, krows, 1,
                       cols + grp * krows * ld, ld, y + grp * s.cout_g * s.lvol + col0, s.lvol,
                       bias != nullptr);
        }
      });
    }
  });
}

template <typename T>
void gemm_backward_input(T* grad_in, const T* grad_out, const T* w, const ConvGeometry& g) {
  const GemmShape s = gemm_shape<T>(g);
  const int64_t krows = s.cin_g * s.kvol;
  over_batch(g.batch, [&](int64_t begin, int64_t end) {
    std::vector<T> col = column_buffer<T>(g, s);
    std::vector<Col2imPlan> plans;  // per block, made by the first sample
    for (int64_t n = begin; n < end; ++n) {
      T* gx = grad_in + n * g.in_channels * s.ivol;
      size_t block = 0;
      const T* gy = grad_out + n * g.out_channels * s.lvol;
      if (!s.pointwise) std::fill(gx, gx + g.in_channels * s.ivol, T(0));
      for_each_block(g, s, [&](int64_t row0, int64_t row1, int64_t col0, int64_t width) {
        T* cols = s.pointwise ? gx : col.data();
        const int64_t ld = s.pointwise ? s.lvol : width;
        for (int64_t grp = 0; grp < g.groups; ++grp) {
          gemm_rows<T>(krows, width, s.cout_g, w + grp * s.cout_g * krows, 1, krows,
                       gy + grp * s.cout_g * s.lvol + col0, s.lvol, cols + grp * krows * ld, ld,
                       false);
        }
        if (s.pointwise) return;
        if (block == plans.size()) plans.emplace_back(g, row0, row1);
        col2im_block(gx, col.data(), g, 0, g.in_channels, plans[block++]);
      });
    }
  });
}

// dst[c * ld_dst + r] = src[r * ld_src + c] for r < rows, c < cols: 8 x 8
// blocks in registers where AVX2 is there (the transposed tiles' operands
// and results, Notes [Weight gradient tiles], [Transposed forward tiles]),
// the edges one element at a time.
__attribute__((target("avx2"))) void transpose_blocks_avx2(const float* src, int64_t ld_src,
                                                           float* dst, int64_t ld_dst,
                                                           int64_t rows, int64_t cols) {
  int64_t r0 = 0;
  for (; r0 + 8 <= rows; r0 += 8) {
    int64_t c0 = 0;
    for (; c0 + 8 <= cols; c0 += 8) {
      const float* s = src + r0 * ld_src + c0;
      __m256 r[8], t[8];
      for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(s + i * ld_src);
      for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
      }
      for (int i = 0; i < 8; i += 4) {
        r[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
        r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
        r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
        r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
      }
      float* d = dst + c0 * ld_dst + r0;
      for (int i = 0; i < 4; ++i) {
        _mm256_storeu_ps(d + i * ld_dst, _mm256_permute2f128_ps(r[i], r[i + 4], 0x20));
        _mm256_storeu_ps(d + (i + 4) * ld_dst, _mm256_permute2f128_ps(r[i], r[i + 4], 0x31));
      }
    }
    for (int64_t r = r0; r < r0 + 8; ++r) {
      for (int64_t c = c0; c < cols; ++c) dst[c * ld_dst + r] = src[r * ld_src + c];
    }
  }
  for (int64_t r = r0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) dst[c * ld_dst + r] = src[r * ld_src + c];
  }
}

template <typename T>
void transpose_into(const T* src, int64_t ld_src, T* dst, int64_t ld_dst, int64_t rows,
                    int64_t cols) {
  if constexpr (std::is_same_v<T, float>) {
    if (cpu_has_avx2()) return transpose_blocks_avx2(src, ld_src, dst, ld_dst, rows, cols);
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) dst[c * ld_dst + r] = src[r * ld_src + c];
  }
}

// Note [Weight gradient tiles]
// A thread's weight gradient sums grad_out [cout, L] @ columnsᵀ [L, K] over
// its samples. dot_gemm sums each of its dot products across lanes once per
// call, which costs as much as the products for LeNet's second layer (L =
// 100 outputs, K = 150). With more than 8 output channels per group (half
// a 16-wide tile or more), the sum is instead kept transposed: each
// sample's grad_out block is transposed to [L, cout] and broadcast_gemm
// adds columns [K, L] @ it into the [K, cout] sum, all in full tiles with
// no sums across lanes; the sum is transposed back once per thread.
template <typename T>
class WeightGradSum {
 public:
  WeightGradSum(const GemmShape& s, int64_t groups, int64_t max_width)
      : s_(s),
        krows_(s.cin_g * s.kvol),
        transposed_(small_gemm<T>(s.cout_g) && s.cout_g > 8),
        partial_(static_cast<size_t>(groups * s.cout_g * krows_), T(0)),
        grad_out_t_(transposed_ ? static_cast<size_t>(max_width * s.cout_g) : 0) {}

  // Adds group grp's grad_out [cout_g, width] (rows lvol apart) @ columnsᵀ
  // [width, krows] (columns [krows, width], rows ld apart).
  void add(int64_t grp, const T* gy, const T* cols, int64_t ld, int64_t width) {
    if constexpr (std::is_same_v<T, float>) {
      if (transposed_) {
        transpose_grad_out(gy, width);
        return broadcast_gemm(krows_, s_.cout_g, width, {cols, ld, 1},
                              StridedRows{grad_out_t_.data(), s_.cout_g}, group_sum(grp),
                              s_.cout_g, true);
      }
    }
    gemm_dots<T>(s_.cout_g, krows_, width, gy, s_.lvol, cols, ld, group_sum(grp), krows_);
  }

  // add() with the columns read through tables (Note [Implicit weight
  // gradient]); only where the sum is kept transposed.
  void add_implicit(int64_t grp, const float* gy, TableOperand cols, int64_t width) {
    transpose_grad_out(gy, width);
    broadcast_gemm(krows_, s_.cout_g, width, cols, StridedRows{grad_out_t_.data(), s_.cout_g},
                   group_sum(grp), s_.cout_g, true);
  }

  bool transposed() const { return transposed_; }

  // grad_w [groups * cout_g, krows] += this thread's sum.
  void add_to(T* grad_w) const {
    const int64_t size = static_cast<int64_t>(partial_.size());
    if (!transposed_) {
      ArrayMap<T>(grad_w, size) += ConstArrayMap<T>(partial_.data(), size);
      return;
    }
    for (int64_t base = 0; base < size; base += s_.cout_g * krows_) {
      for (int64_t k = 0; k < krows_; ++k) {
        for (int64_t oc = 0; oc < s_.cout_g; ++oc) {
          grad_w[base + oc * krows_ + k] += partial_[base + k * s_.cout_g + oc];
        }
      }
    }
  }

 private:
  T* group_sum(int64_t grp) { return partial_.data() + grp * s_.cout_g * krows_; }

  // grad_out_t_ [width, cout_g] = gy [cout_g, width] (rows lvol apart)ᵀ.
  void transpose_grad_out(const T* gy, int64_t width) {
    transpose_into(gy, s_.lvol, grad_out_t_.data(), s_.cout_g, s_.cout_g, width);
  }

  GemmShape s_;
  int64_t krows_;
  bool transposed_;
  std::vector<T> partial_;
  std::vector<T> grad_out_t_;
};

template <typename T>
void gemm_backward_weight(T* grad_w, const T* grad_out, const T* in, const ConvGeometry& g) {
  const GemmShape s = gemm_shape<T>(g);
  const int64_t krows = s.cin_g * s.kvol, wsize = g.out_channels * krows;
  std::fill(grad_w, grad_w + wsize, T(0));
  std::mutex sum_mutex;
  over_batch(g.batch, [&](int64_t begin, int64_t end) {
    std::vector<T> col = column_buffer<T>(g, s);
    WeightGradSum<T> sum(s, g.groups, s.block_rows * g.output[2]);
    for (int64_t n = begin; n < end; ++n) {
      const T* x = in + n * g.in_channels * s.ivol;
      const T* gy = grad_out + n * g.out_channels * s.lvol;
      for_each_block(g, s, [&](int64_t row0, int64_t row1, int64_t col0, int64_t width) {
        if (!s.pointwise) im2col_block(col.data(), x, g, 0, g.in_channels, row0, row1);
        const T* cols = s.pointwise ? x : col.data();
        const int64_t ld = s.pointwise ? s.lvol : width;
        for (int64_t grp = 0; grp < g.groups; ++grp) {
          sum.add(grp, gy + grp * s.cout_g * s.lvol + col0, cols + grp * krows * ld, ld, width);
        }
      });
    }
    std::lock_guard<std::mutex> lock(sum_mutex);
    sum.add_to(grad_w);
  });
}

// ---- direct algorithm (one input channel per output channel) ----

// Note [Padded planes]
// The direct loops copy each input plane into a zero-bordered buffer of
// (input + 2 * padding) per dim, once per plane (and once for all the
// output channels that read it), so that the loops over kernel taps need
// no bounds: every tap of every output reads inside the buffer. Gradients
// of the input are accumulated into such a buffer and its interior copied
// out.
struct PaddedShape {
  std::array<int64_t, 3> size;
  int64_t volume() const { return size[0] * size[1] * size[2]; }
};

PaddedShape padded_shape(const ConvGeometry& g) {
  PaddedShape p;
  for (size_t d = 0; d < 3; ++d) p.size[d] = g.input[d] + 2 * g.padding[d];
  return p;
}

// Copies plane [I0, I1, I2] into the interior of the padded buffer.
template <typename T>
void pad_plane(T* padded, const T* plane, const ConvGeometry& g, const PaddedShape& p) {
  for (int64_t i = 0; i < g.input[0]; ++i) {
    for (int64_t j = 0; j < g.input[1]; ++j) {
      std::memcpy(padded + ((i + g.padding[0]) * p.size[1] + j + g.padding[1]) * p.size[2] +
                      g.padding[2],
                  plane + (i * g.input[1] + j) * g.input[2], sizeof(T) * g.input[2]);
    }
  }
}

// Copies the interior of the padded buffer into plane.
template <typename T>
void unpad_plane(T* plane, const T* padded, const ConvGeometry& g, const PaddedShape& p) {
  for (int64_t i = 0; i < g.input[0]; ++i) {
    for (int64_t j = 0; j < g.input[1]; ++j) {
      std::memcpy(plane + (i * g.input[1] + j) * g.input[2],
                  padded + ((i + g.padding[0]) * p.size[1] + j + g.padding[1]) * p.size[2] +
                      g.padding[2],
                  sizeof(T) * g.input[2]);
    }
  }
}

// The padded buffer's row that output row (od, oh) reads at tap (kd, kh).
int64_t padded_row(const ConvGeometry& g, const PaddedShape& p, int64_t od, int64_t oh,
                   int64_t kd, int64_t kh) {
  return ((od * g.stride[0] + kd * g.dilation[0]) * p.size[1] + oh * g.stride[1] +
          kh * g.dilation[1]) *
         p.size[2];
}

// Note [AVX2 convolution rows]
// The direct forward's inner loop: out[i] += sum over rows r and taps t of
// w[r][t] * src_r[i + t * dilation], for a stride-1 width. With AVX2 and FMA
// (checked once at run time; the default build targets baseline x86-64)
// float rows keep 8 outputs in a register across all taps, one store per 8
// outputs; otherwise each tap is one vectorized pass (Eigen).
__attribute__((target("avx2,fma"))) void row_taps_avx2(float* out, const float* const* srcs,
                                                       int64_t rows, const float* w, int64_t taps,
                                                       int64_t dilation, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 acc = _mm256_loadu_ps(out + i);
    for (int64_t r = 0; r < rows; ++r) {
      const float* src = srcs[r] + i;
      for (int64_t t = 0; t < taps; ++t) {
        acc = _mm256_fmadd_ps(_mm256_set1_ps(w[r * taps + t]), _mm256_loadu_ps(src + t * dilation),
                              acc);
      }
    }
    _mm256_storeu_ps(out + i, acc);
  }
  for (; i < n; ++i) {
    float acc = out[i];
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t t = 0; t < taps; ++t) acc += w[r * taps + t] * srcs[r][i + t * dilation];
    }
    out[i] = acc;
  }
}

// The 3x3 depthwise case of the direct forward (stride 1, dilation 1, a
// 2-d plane): the nine weights stay in registers, and two output rows are
// computed together from the four padded rows they read, so each loaded
// input vector serves both; the bias is the accumulators' start. `padded`
// is the plane with its padding, `pw` floats a row.
__attribute__((target("avx2,fma"))) void depthwise3x3_avx2(float* out, const float* padded,
                                                           int64_t pw, const float* w,
                                                           float bias, int64_t oh,
                                                           int64_t ow) {
  __m256 k[9];
  for (int i = 0; i < 9; ++i) k[i] = _mm256_set1_ps(w[i]);
  const __m256 b = _mm256_set1_ps(bias);
  for (int64_t y = 0; y < oh; y += 2) {
    const bool pair = y + 1 < oh;
    const float* r0 = padded + y * pw;
    const float* r1 = r0 + pw;
    const float* r2 = r1 + pw;
    const float* r3 = pair ? r2 + pw : r2;
    float* y0 = out + y * ow;
    float* y1 = pair ? y0 + ow : y0;
    int64_t x = 0;
    for (; x + 8 <= ow; x += 8) {
      __m256 a0 = b, a1 = b;
      for (int t = 0; t < 3; ++t) {
        const __m256 v0 = _mm256_loadu_ps(r0 + x + t), v1 = _mm256_loadu_ps(r1 + x + t);
        const __m256 v2 = _mm256_loadu_ps(r2 + x + t), v3 = _mm256_loadu_ps(r3 + x + t);
        a0 = _mm256_fmadd_ps(k[t], v0, a0);
        a0 = _mm256_fmadd_ps(k[3 + t], v1, a0);
        a0 = _mm256_fmadd_ps(k[6 + t], v2, a0);
        a1 = _mm256_fmadd_ps(k[t], v1, a1);
        a1 = _mm256_fmadd_ps(k[3 + t], v2, a1);
        a1 = _mm256_fmadd_ps(k[6 + t], v3, a1);
      }
      if (pair) _mm256_storeu_ps(y1 + x, a1);
      _mm256_storeu_ps(y0 + x, a0);
    }
    for (; x < ow; ++x) {
      float a0 = bias, a1 = bias;
      for (int t = 0; t < 3; ++t) {
        a0 += w[t] * r0[x + t] + w[3 + t] * r1[x + t] + w[6 + t] * r2[x + t];
        a1 += w[t] * r1[x + t] + w[3 + t] * r2[x + t] + w[6 + t] * r3[x + t];
      }
      if (pair) y1[x] = a1;
      y0[x] = a0;
    }
  }
}

template <typename T>
void row_taps(T* out, const T* const* srcs, int64_t rows, const T* w, const ConvGeometry& g) {
  const int64_t taps = g.kernel[2], dil = g.dilation[2], s = g.stride[2], n = g.output[2];
  if constexpr (std::is_same_v<T, float>) {
    if (s == 1 && cpu_has_avx2_fma()) return row_taps_avx2(out, srcs, rows, w, taps, dil, n);
  }
  ArrayMap<T> o(out, n);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t t = 0; t < taps; ++t) {
      const T* src = srcs[r] + t * dil;
      if (s == 1) {
        o += w[r * taps + t] * ConstArrayMap<T>(src, n);
      } else {
        o += w[r * taps + t] * StridedConstMap<T>(src, n, Eigen::InnerStride<>(s));
      }
    }
  }
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
  const int64_t cout_g = g.out_channels / g.groups, rows = g.kernel[0] * g.kernel[1];
  const PaddedShape p = padded_shape(g);
  const std::array<int64_t, 3> ones{1, 1, 1};
  const bool depthwise3x3 = g.kernel == std::array<int64_t, 3>{1, 3, 3} && g.stride == ones &&
                            g.dilation == ones && g.input[0] == 1 && g.padding[0] == 0 &&
                            cpu_has_avx2_fma();
  parallel_for(0, g.batch * g.out_channels, plane_grain(lvol * kvol), [&](int64_t b, int64_t e) {
    std::vector<T> padded(static_cast<size_t>(p.volume()), T(0));
    std::vector<const T*> srcs(static_cast<size_t>(rows));
    int64_t padded_plane = -1;
    for (int64_t plane = b; plane < e; ++plane) {
      const int64_t n = plane / g.out_channels, oc = plane % g.out_channels;
      const int64_t in_plane = n * g.in_channels + oc / cout_g;
      if (in_plane != padded_plane) {
        pad_plane(padded.data(), in + in_plane * ivol, g, p);
        padded_plane = in_plane;
      }
      T* y = out + plane * lvol;
      if constexpr (std::is_same_v<T, float>) {
        if (depthwise3x3) {
          depthwise3x3_avx2(y, padded.data(), p.size[2], w + oc * kvol,
                            bias != nullptr ? bias[oc] : 0.f, g.output[1], g.output[2]);
          continue;
        }
      }
      std::fill(y, y + lvol, bias != nullptr ? bias[oc] : T(0));
      for (int64_t od = 0; od < g.output[0]; ++od) {
        for (int64_t oh = 0; oh < g.output[1]; ++oh) {
          for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
            for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
              srcs[kd * g.kernel[1] + kh] = padded.data() + padded_row(g, p, od, oh, kd, kh);
            }
          }
          row_taps(y + (od * g.output[1] + oh) * g.output[2], srcs.data(), rows, w + oc * kvol, g);
        }
      }
    }
  });
}

// dst[i * stride + t * dilation] += w[t] * src[i] over the taps t.
template <typename T>
void row_taps_transposed(T* dst, const T* src, const T* w, const ConvGeometry& g) {
  const int64_t n = g.output[2], s = g.stride[2];
  const ConstArrayMap<T> from(src, n);
  for (int64_t t = 0; t < g.kernel[2]; ++t) {
    T* to = dst + t * g.dilation[2];
    if (s == 1) {
      ArrayMap<T>(to, n) += w[t] * from;
    } else {
      StridedMap<T>(to, n, Eigen::InnerStride<>(s)) += w[t] * from;
    }
  }
}

template <typename T>
void direct_backward_input(T* grad_in, const T* grad_out, const T* w, const ConvGeometry& g) {
  const int64_t kvol = kernel_volume(g), lvol = output_volume(g), ivol = input_volume(g);
  const int64_t cout_g = g.out_channels / g.groups;
  const PaddedShape p = padded_shape(g);
  parallel_for(0, g.batch * g.in_channels, plane_grain(lvol * kvol * cout_g),
               [&](int64_t b, int64_t e) {
                 std::vector<T> padded(static_cast<size_t>(p.volume()));
                 for (int64_t plane = b; plane < e; ++plane) {
                   const int64_t n = plane / g.in_channels, ic = plane % g.in_channels;
                   std::fill(padded.begin(), padded.end(), T(0));
                   for (int64_t oc = ic * cout_g; oc < (ic + 1) * cout_g; ++oc) {
                     const T* gy = grad_out + (n * g.out_channels + oc) * lvol;
                     for (int64_t od = 0; od < g.output[0]; ++od) {
                       for (int64_t oh = 0; oh < g.output[1]; ++oh) {
                         const T* row = gy + (od * g.output[1] + oh) * g.output[2];
                         for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
                           for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
                             row_taps_transposed(
                                 padded.data() + padded_row(g, p, od, oh, kd, kh), row,
                                 w + oc * kvol + (kd * g.kernel[1] + kh) * g.kernel[2], g);
                           }
                         }
                       }
                     }
                   }
                   unpad_plane(grad_in + plane * ivol, padded.data(), g, p);
                 }
               });
}

// Each tap's products are summed elementwise along the row (one vectorized
// pass per tap, no reduction inside the loops); each tap's row of partial
// sums is reduced once per output channel.
template <typename T>
void direct_backward_weight(T* grad_w, const T* grad_out, const T* in, const ConvGeometry& g) {
  const int64_t kvol = kernel_volume(g), lvol = output_volume(g), ivol = input_volume(g);
  const int64_t cout_g = g.out_channels / g.groups, n_out = g.output[2], s = g.stride[2];
  const PaddedShape p = padded_shape(g);
  parallel_for(0, g.out_channels, plane_grain(g.batch * lvol * kvol), [&](int64_t b, int64_t e) {
    std::vector<T> padded(static_cast<size_t>(p.volume()), T(0));
    std::vector<T> sums(static_cast<size_t>(kvol * n_out));
    for (int64_t oc = b; oc < e; ++oc) {
      std::fill(sums.begin(), sums.end(), T(0));
      for (int64_t n = 0; n < g.batch; ++n) {
        pad_plane(padded.data(), in + (n * g.in_channels + oc / cout_g) * ivol, g, p);
        const T* gy = grad_out + (n * g.out_channels + oc) * lvol;
        for (int64_t od = 0; od < g.output[0]; ++od) {
          for (int64_t oh = 0; oh < g.output[1]; ++oh) {
            const ConstArrayMap<T> row(gy + (od * g.output[1] + oh) * n_out, n_out);
            for_each_tap(g, [&](int64_t kd, int64_t kh, int64_t kw, int64_t k) {
              const T* src = padded.data() + padded_row(g, p, od, oh, kd, kh) + kw * g.dilation[2];
              ArrayMap<T> sum(sums.data() + k * n_out, n_out);
              if (s == 1) {
                sum += row * ConstArrayMap<T>(src, n_out);
              } else {
                sum += row * StridedConstMap<T>(src, n_out, Eigen::InnerStride<>(s));
              }
            });
          }
        }
      }
      for (int64_t k = 0; k < kvol; ++k) {
        grad_w[oc * kvol + k] = ConstArrayMap<T>(sums.data() + k * n_out, n_out).sum();
      }
    }
  });
}

// ---- implicit columns (forward) ----

// Note [Implicit columns]
// With stride 1 along the width, column row (c, kd, kh, kw) of output row
// (od, oh) is an input row read in place from width offset kw * d2: row
// (od * s0 + kd * d0, oh * s1 + kh * d1) of plane c, in a zero-bordered copy
// where there is padding (Note [Padded planes]). So a forward whose
// products run in broadcast tiles (Note [Small GEMMs]) can read B's rows
// through a table of tap offsets, one output row at a time, and never
// write the column matrix. It does when output rows fill at least 5/8 of
// their 16-wide tiles: LeNet's first layer fills 28 of 32 lanes, its second
// 10 of 16, and writing then re-reading the column matrix costs more than
// the idle lanes (measured: 6% of the training step). The weight gradient
// of at most 8 channels per group (dot_gemm's) reads the input in place the
// same way, its dot products running along each output row, when the rows
// fill 5/8 of their 8-wide runs.

// Whether output rows fill at least 5/8 of their `lanes`-wide tiles, and the
// products run in small tiles on one thread (Note [Small GEMMs]).
bool implicit_rows(const ConvGeometry& g, int64_t lanes) {
  const int64_t ow = g.output[2], tiles = (ow + lanes - 1) / lanes;
  const bool one_thread = samples_in_parallel(g.batch) || products_on_one_thread();
  return g.stride[2] == 1 && g.out_channels / g.groups <= kSmallGemmSide &&
         8 * ow >= 5 * lanes * tiles && conv_algorithm(g) == ConvAlgorithm::kIm2colGemm &&
         one_thread && cpu_has_avx2_fma();
}

bool implicit_columns(const ConvGeometry& g) { return implicit_rows(g, 16); }

// The offset of each column row (c, kd, kh, kw) of a group in planes of
// shape p (c's plane p.volume() apart).
std::vector<int64_t> tap_offsets(const ConvGeometry& g, const PaddedShape& p) {
  std::vector<int64_t> offsets;
  offsets.reserve(static_cast<size_t>(g.in_channels / g.groups * kernel_volume(g)));
  for (int64_t c = 0; c < g.in_channels / g.groups; ++c) {
    for_each_tap(g, [&](int64_t kd, int64_t kh, int64_t kw, int64_t) {
      offsets.push_back(c * p.volume() +
                        (kd * g.dilation[0] * p.size[1] + kh * g.dilation[1]) * p.size[2] +
                        kw * g.dilation[2]);
    });
  }
  return offsets;
}

// A sample's input planes as the implicit columns read them: x itself, or
// its copy into buffer's interiors where there is padding.
struct ImplicitInput {
  bool padded;
  PaddedShape shape;
  std::vector<int64_t> offsets;  // tap_offsets

  explicit ImplicitInput(const ConvGeometry& g)
      : padded(g.padding != std::array<int64_t, 3>{0, 0, 0}),
        shape(padded ? padded_shape(g) : PaddedShape{g.input}),
        offsets(tap_offsets(g, shape)) {}

  std::vector<float> buffer(const ConvGeometry& g) const {
    return std::vector<float>(padded ? static_cast<size_t>(g.in_channels * shape.volume()) : 0);
  }

  const float* planes(const float* x, std::vector<float>& buffer, const ConvGeometry& g) const {
    if (!padded) return x;
    for (int64_t c = 0; c < g.in_channels; ++c) {
      pad_plane(buffer.data() + c * shape.volume(), x + c * input_volume(g), g, shape);
    }
    return buffer.data();
  }

  // The offset of output row (od, oh)'s first input element in a plane.
  int64_t row(const ConvGeometry& g, int64_t od, int64_t oh) const {
    return (od * g.stride[0] * shape.size[1] + oh * g.stride[1]) * shape.size[2];
  }
};

void implicit_forward(float* out, const float* in, const float* w, const float* bias,
                      const ConvGeometry& g) {
  const int64_t cin_g = g.in_channels / g.groups, cout_g = g.out_channels / g.groups;
  const int64_t krows = cin_g * kernel_volume(g), lvol = output_volume(g), ivol = input_volume(g);
  const ImplicitInput input(g);
  const bool pairs = cout_g <= 6 && cpu_has_avx512vl();
  over_batch(g.batch, [&](int64_t begin, int64_t end) {
    std::vector<float> buffer = input.buffer(g);
    for (int64_t n = begin; n < end; ++n) {
      const float* x = input.planes(in + n * g.in_channels * ivol, buffer, g);
      float* y = out + n * g.out_channels * lvol;
      for (int64_t oc = 0; bias != nullptr && oc < g.out_channels; ++oc) {
        std::fill(y + oc * lvol, y + (oc + 1) * lvol, bias[oc]);
      }
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        const float* xg = x + grp * cin_g * input.shape.volume();
        for (int64_t od = 0; od < g.output[0]; ++od) {
          for (int64_t oh = 0; oh < g.output[1];) {
            const Operand a{w + grp * cout_g * krows, krows, 1};
            const TableRows b{xg + input.row(g, od, oh), input.offsets.data()};
            float* c = y + grp * cout_g * lvol + (od * g.output[1] + oh) * g.output[2];
            // Two output rows at a time (Note [Tiles in pairs]).
            if (pairs && oh + 1 < g.output[1]) {
              const TableRows b1{xg + input.row(g, od, oh + 1), input.offsets.data()};
              broadcast_pair_tiles(cout_g, g.output[2], krows, a, b, b1, c, c + g.output[2], lvol,
                                   bias != nullptr);
              oh += 2;
            } else {
              broadcast_gemm(cout_g, g.output[2], krows, a, b, c, lvol, bias != nullptr);
              oh += 1;
            }
          }
        }
      }
    }
  });
}

bool implicit_weight_grad(const ConvGeometry& g) {
  return g.out_channels / g.groups <= 8 && implicit_rows(g, 8);
}

void implicit_backward_weight(float* grad_w, const float* grad_out, const float* in,
                              const ConvGeometry& g) {
  const int64_t cin_g = g.in_channels / g.groups, cout_g = g.out_channels / g.groups;
  const int64_t krows = cin_g * kernel_volume(g), lvol = output_volume(g), ivol = input_volume(g);
  const int64_t wsize = g.out_channels * krows;
  const ImplicitInput input(g);
  std::fill(grad_w, grad_w + wsize, 0.0f);
  std::mutex sum_mutex;
  over_batch(g.batch, [&](int64_t begin, int64_t end) {
    std::vector<float> buffer = input.buffer(g);
    std::vector<float> partial(static_cast<size_t>(wsize), 0.0f);
    const Runs rows{g.output[1], g.output[2], g.output[2], g.stride[1] * input.shape.size[2]};
    for (int64_t n = begin; n < end; ++n) {
      const float* x = input.planes(in + n * g.in_channels * ivol, buffer, g);
      const float* gy = grad_out + n * g.out_channels * lvol;
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        const float* xg = x + grp * cin_g * input.shape.volume();
        for (int64_t od = 0; od < g.output[0]; ++od) {
          dot_gemm(cout_g, krows, rows, gy + grp * cout_g * lvol + od * g.output[1] * g.output[2],
                   lvol, TableRows{xg + input.row(g, od, 0), input.offsets.data()},
                   partial.data() + grp * cout_g * krows, krows);
        }
      }
    }
    std::lock_guard<std::mutex> lock(sum_mutex);
    ArrayMap<float>(grad_w, wsize) += ConstArrayMap<float>(partial.data(), wsize);
  });
}

// Note [Implicit weight gradient]
// The transposed weight gradient (Note [Weight gradient tiles]) broadcasts
// one element of the column matrix at a time, so it need not be a matrix:
// column row (c, kd, kh, kw) at output position p is the input element at
// tap_offsets[(c, kd, kh, kw)] + position[p] of the sample's planes (a
// zero-bordered copy where there is padding, Note [Padded planes]), with
// position[p] the offset of output p's window, for any stride. The tiles
// read it there through the two tables, and im2col, which for LeNet's
// second layer took as long as the products (about 140 of 325 us at batch
// 32), is gone. Same products in the same order: bit-identical results.

// The offset of each output position's window (its first input element)
// in the planes ImplicitInput reads.
std::vector<int64_t> window_offsets(const ConvGeometry& g, const ImplicitInput& input) {
  std::vector<int64_t> position;
  position.reserve(static_cast<size_t>(output_volume(g)));
  for (int64_t od = 0; od < g.output[0]; ++od) {
    for (int64_t oh = 0; oh < g.output[1]; ++oh) {
      for (int64_t ow = 0; ow < g.output[2]; ++ow) {
        position.push_back(input.row(g, od, oh) + ow * g.stride[2]);
      }
    }
  }
  return position;
}

// Whether a float product with `cout_g` output channels per group runs the
// transposed tiles below: 9 to 16 channels fill most of a 16-wide tile.
bool transposed_tiles(const ConvGeometry& g) {
  const int64_t cout_g = g.out_channels / g.groups;
  const bool one_thread = samples_in_parallel(g.batch) || products_on_one_thread();
  return conv_algorithm(g) == ConvAlgorithm::kIm2colGemm && cout_g > 8 &&
         cout_g <= kSmallGemmSide && one_thread && cpu_has_avx2_fma();
}

// Note [Transposed forward tiles]
// A forward with 9 to 16 output channels per group computes the output
// transposed, [positions, cout] = columnsᵀ [positions, K] @ weightᵀ [K,
// cout], in broadcast tiles of 6 positions x 16 channels whose columns
// broadcast from the input through the tables of Note [Implicit weight
// gradient], then transposes it into place. Computed the other way round
// (Note [Implicit columns]), LeNet's second layer filled 10 of each tile's
// 16 lanes (output rows 10 wide) and needed 6 + 6 + 4 rows of tiles for its
// 16 channels. Each output starts from its bias and adds the products in
// the same order as there: the same results.
void implicit_forward_transposed(float* out, const float* in, const float* w, const float* bias,
                                 const ConvGeometry& g) {
  const GemmShape s = gemm_shape<float>(g);
  const int64_t krows = s.cin_g * s.kvol;
  const ImplicitInput input(g);
  const std::vector<int64_t> position = window_offsets(g, input);
  std::vector<float> weight_t(static_cast<size_t>(g.out_channels * krows));
  for (int64_t grp = 0; grp < g.groups; ++grp) {
    const float* wg = w + grp * s.cout_g * krows;
    float* wt = weight_t.data() + grp * s.cout_g * krows;
    for (int64_t oc = 0; oc < s.cout_g; ++oc) {
      for (int64_t k = 0; k < krows; ++k) wt[k * s.cout_g + oc] = wg[oc * krows + k];
    }
  }
  over_batch(g.batch, [&](int64_t begin, int64_t end) {
    std::vector<float> buffer = input.buffer(g);
    std::vector<float> out_t(static_cast<size_t>(s.lvol * s.cout_g));
    for (int64_t n = begin; n < end; ++n) {
      const float* x = input.planes(in + n * g.in_channels * s.ivol, buffer, g);
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        const float* xg = x + grp * s.cin_g * input.shape.volume();
        const float* bg = bias != nullptr ? bias + grp * s.cout_g : nullptr;
        if (bg != nullptr) {
          for (int64_t l = 0; l < s.lvol; ++l) std::copy(bg, bg + s.cout_g, &out_t[l * s.cout_g]);
        }
        broadcast_gemm(s.lvol, s.cout_g, krows,
                       TableOperand{xg, position.data(), input.offsets.data()},
                       StridedRows{weight_t.data() + grp * s.cout_g * krows, s.cout_g},
                       out_t.data(), s.cout_g, bg != nullptr);
        transpose_into(out_t.data(), s.cout_g, out + (n * g.out_channels + grp * s.cout_g) * s.lvol,
                       s.lvol, s.lvol, s.cout_g);
      }
    }
  });
}


void implicit_backward_weight_transposed(float* grad_w, const float* grad_out, const float* in,
                                         const ConvGeometry& g) {
  const GemmShape s = gemm_shape<float>(g);
  const int64_t krows = s.cin_g * s.kvol, wsize = g.out_channels * krows;
  const ImplicitInput input(g);
  const std::vector<int64_t> position = window_offsets(g, input);
  std::fill(grad_w, grad_w + wsize, 0.0f);
  std::mutex sum_mutex;
  over_batch(g.batch, [&](int64_t begin, int64_t end) {
    std::vector<float> buffer = input.buffer(g);
    WeightGradSum<float> sum(s, g.groups, s.lvol);
    TORCHLET_INTERNAL_ASSERT(sum.transposed(), "convolution_backward: expected transposed sums");
    for (int64_t n = begin; n < end; ++n) {
      const float* x = input.planes(in + n * g.in_channels * s.ivol, buffer, g);
      const float* gy = grad_out + n * g.out_channels * s.lvol;
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        const float* xg = x + grp * s.cin_g * input.shape.volume();
        sum.add_implicit(grp, gy + grp * s.cout_g * s.lvol,
                         TableOperand{xg, input.offsets.data(), position.data()}, s.lvol);
      }
    }
    std::lock_guard<std::mutex> lock(sum_mutex);
    sum.add_to(grad_w);
  });
}

// Note [Input gradient by input row]
// The input gradient of a convolution with stride 1 is a full correlation
// of grad_out with the kernel: input row (y, .) of channel c sums
// w[o, c, kh, kw] * grad_out[o, y + p - kh, x + p - kw] over the output
// channels o and the taps whose output row exists. im2col's way (columns
// = weightᵀ @ grad_out, then col2im) multiplies over only the output
// channels (LeNet's second layer: 16), so each 6 x 16 tile spends as long
// loading and storing as multiplying, and col2im then reads all the columns
// back. Where an input row fits one 16-wide tile, the tiles here instead
// hold 6 input channels x one input row and run over (kh, o, kw) for the
// kh whose output row exists: 80 to 400 steps for LeNet, no column matrix.
// Each step broadcasts the weights of 6 channels (transposed once per
// call to [kh, o, kw, c]) and loads 16 lanes of an output row copied into a
// zero-bordered buffer, so the taps that fall outside the row multiply
// zeros: with LeNet's 10-wide output rows 10 of 16 lanes do useful work.
// On a 2-core Zen 3 machine the layer's input gradient at batch 32 took
// 0.73-0.98 (median 0.92) of im2col's time in five alternating runs. Each
// element is one chain of fused multiply-adds from 0 in (kh, o, kw) order.

// The row-by-row input gradient above applies: float, one group, stride
// and dilation 1, a 1-d or 2-d kernel (no depth), padding that leaves
// every input position reachable (p < kernel), input rows of at most 16
// and output rows of at least 10 (with fewer, most of each tile's lanes
// would multiply zeros; only LeNet's 10 was measured), on one thread per
// sample.
bool input_rows_applies(const ConvGeometry& g) {
  const bool one_thread = samples_in_parallel(g.batch) || products_on_one_thread();
  const std::array<int64_t, 3> ones{1, 1, 1};
  return conv_algorithm(g) == ConvAlgorithm::kIm2colGemm && g.groups == 1 && g.stride == ones &&
         g.dilation == ones && g.kernel[0] == 1 && g.input[0] == 1 && g.padding[0] == 0 &&
         g.padding[1] < g.kernel[1] && g.padding[2] < g.kernel[2] && g.input[2] <= 16 &&
         g.output[2] >= 10 && one_thread && cpu_has_avx2_fma();
}

void input_rows_backward_input(float* grad_in, const float* grad_out, const float* w,
                               const ConvGeometry& g) {
  const int64_t cin = g.in_channels, cout = g.out_channels;
  const int64_t kh_n = g.kernel[1], kw_n = g.kernel[2];
  const int64_t ih_n = g.input[1], iw_n = g.input[2];
  const int64_t oh_n = g.output[1], ow_n = g.output[2];
  const int64_t ph = g.padding[1], pw = g.padding[2];
  // An output row at `left` in a zero-bordered row of `pitch`: tap kw of
  // input column x reads element x + kw_n - 1 - kw, for x < 16.
  const int64_t left = kw_n - 1 - pw;
  const int64_t pitch = 16 + kw_n - 1;
  const int64_t steps_per_kh = cout * kw_n;
  // weight_t[kh][o][kw][c] and each step's offset in the bordered rows,
  // relative to output row y + ph of input row y.
  std::vector<float> weight_t(static_cast<size_t>(kh_n * steps_per_kh * cin));
  std::vector<int64_t> offset(static_cast<size_t>(kh_n * steps_per_kh));
  for (int64_t kh = 0; kh < kh_n; ++kh) {
    for (int64_t o = 0; o < cout; ++o) {
      for (int64_t kw = 0; kw < kw_n; ++kw) {
        const int64_t step = (kh * cout + o) * kw_n + kw;
        offset[static_cast<size_t>(step)] = (o * oh_n - kh) * pitch + kw_n - 1 - kw;
        for (int64_t c = 0; c < cin; ++c) {
          weight_t[static_cast<size_t>(step * cin + c)] = w[((o * cin + c) * kh_n + kh) * kw_n + kw];
        }
      }
    }
  }
  over_batch(g.batch, [&](int64_t begin, int64_t end) {
    std::vector<float> rows(static_cast<size_t>(cout * oh_n * pitch), 0.0f);
    std::vector<float> tile(static_cast<size_t>(cin * ih_n * 16));
    for (int64_t n = begin; n < end; ++n) {
      const float* gy = grad_out + n * cout * oh_n * ow_n;
      for (int64_t r = 0; r < cout * oh_n; ++r) {
        std::copy(gy + r * ow_n, gy + (r + 1) * ow_n, &rows[static_cast<size_t>(r * pitch + left)]);
      }
      for (int64_t y = 0; y < ih_n; ++y) {
        // Taps kh whose output row y + ph - kh exists.
        const int64_t kh0 = std::max<int64_t>(0, y + ph - oh_n + 1);
        const int64_t kh1 = std::min<int64_t>(kh_n, y + ph + 1);
        const int64_t k = std::max<int64_t>(0, kh1 - kh0) * steps_per_kh;
        const TableRows b{rows.data() + (y + ph) * pitch, offset.data() + kh0 * steps_per_kh};
        for (int64_t c0 = 0; c0 < cin; c0 += 6) {
          const int64_t channels = std::min<int64_t>(6, cin - c0);
          const Operand a{weight_t.data() + kh0 * steps_per_kh * cin + c0, 1, cin};
          float* c = tile.data() + (c0 * ih_n + y) * 16;
          if (channels > 4) {
            small_tile<true, 6>(channels, 16, k, a, b, c, ih_n * 16, false);
          } else {
            small_tile<true, 4>(channels, 16, k, a, b, c, ih_n * 16, false);
          }
        }
      }
      float* gx = grad_in + n * cin * ih_n * iw_n;
      for (int64_t r = 0; r < cin * ih_n; ++r) {
        std::copy(&tile[static_cast<size_t>(r * 16)], &tile[static_cast<size_t>(r * 16 + iw_n)],
                  gx + r * iw_n);
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
  if (g.in_channels == g.groups && (g.groups > 1 || g.out_channels == 1)) {
    return ConvAlgorithm::kDirect;
  }
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
    } else if constexpr (std::is_same_v<T, float>) {
      if (winograd_applies(g)) {
        winograd_forward(y, x, w, b, g);
      } else if (transposed_tiles(g)) {
        implicit_forward_transposed(y, x, w, b, g);
      } else if (implicit_columns(g)) {
        implicit_forward(y, x, w, b, g);
      } else {
        gemm_forward(y, x, w, b, g);
      }
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
    } else if constexpr (std::is_same_v<T, float>) {
      if (winograd_backward_input_applies(g)) {
        winograd_backward_input(gx, gy, w, g);
      } else if (input_rows_applies(g)) {
        input_rows_backward_input(gx, gy, w, g);
      } else {
        gemm_backward_input(gx, gy, w, g);
      }
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
    } else if constexpr (std::is_same_v<T, float>) {
      if (implicit_weight_grad(g)) {
        implicit_backward_weight(gw, gy, x, g);
      } else if (transposed_tiles(g)) {
        implicit_backward_weight_transposed(gw, gy, x, g);
      } else {
        gemm_backward_weight(gw, gy, x, g);
      }
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
    const int64_t kvol = kernel_volume(g), lvol = output_volume(g), ivol = input_volume(g);
    parallel_for(0, g.batch * g.in_channels, plane_grain(kvol * lvol), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        im2col_block(col + p * kvol * lvol, x + (p - p % g.in_channels) * ivol, g,
                     p % g.in_channels, p % g.in_channels + 1, 0, output_rows(g));
      }
    });
  });
}

void col2im(const Tensor& input, const Tensor& columns, const ConvGeometry& g) {
  dispatch_floating(columns.dtype(), "col2im", [&](auto tag) {
    using T = decltype(tag);
    T* x = mutable_data<T>(input);
    const T* col = data_or_null<T>(columns);
    const int64_t kvol = kernel_volume(g), lvol = output_volume(g), ivol = input_volume(g);
    parallel_for(0, g.batch * g.in_channels, plane_grain(kvol * lvol), [&](int64_t b, int64_t e) {
      const Col2imPlan plan(g, 0, output_rows(g));
      for (int64_t p = b; p < e; ++p) {
        std::fill(x + p * ivol, x + (p + 1) * ivol, 0);
        col2im_block(x + (p - p % g.in_channels) * ivol, col + p * kvol * lvol, g,
                     p % g.in_channels, p % g.in_channels + 1, plan);
      }
    });
  });
}

}  // namespace torchlet::cpu
