// Winograd's minimal filtering F(2x2, 3x3) for dense 3x3 convolutions with
// stride 1. See Note [Winograd convolution].
#include "tensor/cpu/conv_winograd.h"
#include "tensor/cpu/cpu_features.h"

#include <immintrin.h>

#include <algorithm>
#include <vector>

#include "tensor/cpu/gemm.h"
#include "tensor/parallel.h"

namespace torchlet::cpu {

// Note [Winograd convolution]
// A 3x3 convolution with stride 1 computes each 2x2 block of output (a
// tile) from a 4x4 patch of input. Winograd's F(2x2, 3x3) (Lavin and Gray,
// "Fast Algorithms for Convolutional Neural Networks", 2016) transforms the
// patch (V = Bᵀ d B) and the kernel (U = G g Gᵀ) into 4x4 arrays whose
// elementwise product, transformed back (Y = Aᵀ M A), is the tile: 16
// multiplies per tile and channel pair where the direct sum takes 36. Over
// channels the 16 elementwise products become 16 independent matrix
// products, M[ξ] [out, tiles] = U[ξ] [out, in] @ V[ξ] [in, tiles], which
// the GEMM runs at its full rate, so a dense convolution does 2.25x fewer
// multiply-adds than im2col + GEMM for the price of the two transforms
// (additions only, a few per element). Tiles go in blocks of whole tile
// rows of one sample, sized so that a block's V and M stay in the L2 cache,
// one block per intra-op task. The transforms run along a row of tiles, so
// they vectorize: the input row is split into even and odd columns first
// (tile x reads columns 2x .. 2x + 3 = even[x], odd[x], even[x + 1],
// odd[x + 1]), and the output tiles' columns are interleaved back at the
// end. The transforms' coefficients are 0, ±1 and ±1/2, so the result
// differs from the direct sum by rounding only (a few ulps more).
//
// Used for float32 2-d convolutions (or 3-d ones with a kernel depth of 1)
// with a 3x3 kernel, stride 1, dilation 1, one group and at least
// kMinChannels input and output channels, on CPUs with AVX2 and FMA, whose
// vector units the transforms are compiled for. The input gradient of such
// a convolution with padding p <= 2 is itself one of them: the convolution
// of grad_out with each kernel flipped in both directions and its in and
// out channels swapped, padded by 2 - p (winograd_backward_input). The
// weight gradient keeps im2col + GEMM.

namespace {

constexpr int64_t kMinChannels = 16;
// About this many tiles a block: V and M of 64 channels then take 2 x 512 KB.
constexpr int64_t kBlockTiles = 128;

// U[ξ][o][c] = (G g Gᵀ)[ξ] for each 3x3 kernel g = w[o][c], with
// G = [[1, 0, 0], [1/2, 1/2, 1/2], [1/2, -1/2, 1/2], [0, 0, 1]].
std::vector<float> transform_weights(const float* w, int64_t cout, int64_t cin) {
  std::vector<float> u(16 * cout * cin);
  const int64_t plane = cout * cin;
  for (int64_t o = 0; o < cout; ++o) {
    for (int64_t c = 0; c < cin; ++c) {
      const float* g = w + (o * cin + c) * 9;
      float t[4][3];  // G g
      for (int j = 0; j < 3; ++j) {
        t[0][j] = g[j];
        t[1][j] = 0.5f * (g[j] + g[3 + j] + g[6 + j]);
        t[2][j] = 0.5f * (g[j] - g[3 + j] + g[6 + j]);
        t[3][j] = g[6 + j];
      }
      for (int i = 0; i < 4; ++i) {  // (G g) Gᵀ
        float* row = u.data() + (i * 4) * plane + o * cin + c;
        row[0] = t[i][0];
        row[plane] = 0.5f * (t[i][0] + t[i][1] + t[i][2]);
        row[2 * plane] = 0.5f * (t[i][0] - t[i][1] + t[i][2]);
        row[3 * plane] = t[i][2];
      }
    }
  }
  return u;
}

struct Shape {
  int64_t h, w;          // input rows and columns
  int64_t oh, ow;        // output rows and columns
  int64_t pad_h, pad_w;  // padding
  int64_t th, tw;        // tile rows and columns
};

// Lanes [0, n) of 8 set (n < 8), for masked loads and stores.
__attribute__((target("avx2"))) inline __m256i first_lanes(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// even[m] = row[2m - pad], odd[m] = row[2m + 1 - pad] for m in [0, n),
// zero outside [0, w).
__attribute__((target("avx2"))) void split_row(float* even, float* odd, const float* row,
                                               int64_t w, int64_t pad, int64_t n) {
  int64_t m = 0;
  const auto scalar = [&](int64_t i) {
    const int64_t x0 = 2 * i - pad, x1 = x0 + 1;
    even[i] = x0 >= 0 && x0 < w ? row[x0] : 0.f;
    odd[i] = x1 >= 0 && x1 < w ? row[x1] : 0.f;
  };
  for (; m < n && 2 * m - pad < 0; ++m) scalar(m);
  for (; m + 8 <= n && 2 * m - pad + 16 <= w; m += 8) {
    const float* src = row + 2 * m - pad;
    const __m256 a = _mm256_loadu_ps(src), b = _mm256_loadu_ps(src + 8);
    // [a0 a2 b0 b2 | a4 a6 b4 b6] -> [a0 a2 a4 a6 b0 b2 b4 b6], odd alike.
    const __m256 e = _mm256_shuffle_ps(a, b, 0x88), o = _mm256_shuffle_ps(a, b, 0xDD);
    _mm256_storeu_ps(even + m, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xD8)));
    _mm256_storeu_ps(odd + m, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(o), 0xD8)));
  }
  for (; m < n; ++m) scalar(m);
}

// V[ξ][c][t] for the tiles of tile rows [ty0, ty1) of one sample `x`
// ([cin, h, w]); t counts from the block's first tile. `even` and `odd`
// hold 4 rows of `stride` >= tw + 9 floats each.
__attribute__((target("avx2,fma"))) void transform_input(float* v, const float* x, int64_t cin,
                                                         const Shape& s, int64_t ty0, int64_t ty1,
                                                         float* even, float* odd,
                                                         int64_t stride) {
  const int64_t tiles = (ty1 - ty0) * s.tw, n = s.tw + 1, plane = cin * tiles;
  for (int64_t c = 0; c < cin; ++c) {
    const float* xc = x + c * s.h * s.w;
    for (int64_t ty = ty0; ty < ty1; ++ty) {
      for (int r = 0; r < 4; ++r) {
        const int64_t y = 2 * ty - s.pad_h + r;
        if (y < 0 || y >= s.h) {
          std::fill(even + r * stride, even + r * stride + n, 0.f);
          std::fill(odd + r * stride, odd + r * stride + n, 0.f);
        } else {
          split_row(even + r * stride, odd + r * stride, xc + y * s.w, s.w, s.pad_w, n);
        }
      }
      float* out = v + c * tiles + (ty - ty0) * s.tw;
      for (int64_t t = 0; t < s.tw; t += 8) {
        // Column j of tile t's patch is even[t], odd[t], even[t + 1] or
        // odd[t + 1] (lanes past tw read padding and are not stored).
        __m256 d[4][4];
        for (int r = 0; r < 4; ++r) {
          d[r][0] = _mm256_loadu_ps(even + r * stride + t);
          d[r][1] = _mm256_loadu_ps(odd + r * stride + t);
          d[r][2] = _mm256_loadu_ps(even + r * stride + t + 1);
          d[r][3] = _mm256_loadu_ps(odd + r * stride + t + 1);
        }
        // Bᵀ d: rows 0 - 2, 1 + 2, 2 - 1, 1 - 3.
        __m256 a[4][4];
        for (int j = 0; j < 4; ++j) {
          a[0][j] = _mm256_sub_ps(d[0][j], d[2][j]);
          a[1][j] = _mm256_add_ps(d[1][j], d[2][j]);
          a[2][j] = _mm256_sub_ps(d[2][j], d[1][j]);
          a[3][j] = _mm256_sub_ps(d[1][j], d[3][j]);
        }
        const bool full = t + 8 <= s.tw;
        const __m256i mask = first_lanes(s.tw - t);
        for (int i = 0; i < 4; ++i) {
          // (Bᵀ d) B: the same combination of columns.
          const __m256 q[4] = {_mm256_sub_ps(a[i][0], a[i][2]), _mm256_add_ps(a[i][1], a[i][2]),
                               _mm256_sub_ps(a[i][2], a[i][1]), _mm256_sub_ps(a[i][1], a[i][3])};
          for (int j = 0; j < 4; ++j) {
            float* dst = out + (i * 4 + j) * plane + t;
            if (full) {
              _mm256_storeu_ps(dst, q[j]);
            } else {
              _mm256_maskstore_ps(dst, mask, q[j]);
            }
          }
        }
      }
    }
  }
}

// dst[0, 16) = l0 h0 l1 h1 ... l7 h7.
__attribute__((target("avx2"))) inline void interleave(float* dst, __m256 l, __m256 h) {
  const __m256 lo = _mm256_unpacklo_ps(l, h), hi = _mm256_unpackhi_ps(l, h);
  _mm256_storeu_ps(dst, _mm256_permute2f128_ps(lo, hi, 0x20));
  _mm256_storeu_ps(dst + 8, _mm256_permute2f128_ps(lo, hi, 0x31));
}

// y ([cout, oh, ow] of one sample) for tile rows [ty0, ty1) = Aᵀ M[ξ] A
// (+ bias), with Aᵀ = [[1, 1, 1, 0], [0, 1, -1, -1]]. `rows` holds two
// output rows of 2 * round_up(tw, 8) floats; M has 8 floats of padding.
__attribute__((target("avx2,fma"))) void transform_output(float* y, const float* m,
                                                          const float* bias, int64_t cout,
                                                          const Shape& s, int64_t ty0,
                                                          int64_t ty1, float* rows,
                                                          int64_t row_stride) {
  const int64_t tiles = (ty1 - ty0) * s.tw, plane = cout * tiles;
  float* top = rows;
  float* bottom = rows + row_stride;
  for (int64_t o = 0; o < cout; ++o) {
    const __m256 b = _mm256_set1_ps(bias != nullptr ? bias[o] : 0.f);
    float* yo = y + o * s.oh * s.ow;
    for (int64_t ty = ty0; ty < ty1; ++ty) {
      const float* p = m + o * tiles + (ty - ty0) * s.tw;
      for (int64_t t = 0; t < s.tw; t += 8) {
        __m256 q[16];
        for (int k = 0; k < 16; ++k) q[k] = _mm256_loadu_ps(p + k * plane + t);
        // Aᵀ M: rows 0 + 1 + 2 and 1 - 2 - 3, for each column j.
        __m256 r0[4], r1[4];
        for (int j = 0; j < 4; ++j) {
          r0[j] = _mm256_add_ps(_mm256_add_ps(q[j], q[4 + j]), q[8 + j]);
          r1[j] = _mm256_sub_ps(_mm256_sub_ps(q[4 + j], q[8 + j]), q[12 + j]);
        }
        // Columns 0 + 1 + 2 and 1 - 2 - 3 of each row, plus the bias.
        interleave(top + 2 * t,
                   _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(r0[0], r0[1]), r0[2]), b),
                   _mm256_add_ps(_mm256_sub_ps(_mm256_sub_ps(r0[1], r0[2]), r0[3]), b));
        interleave(bottom + 2 * t,
                   _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(r1[0], r1[1]), r1[2]), b),
                   _mm256_add_ps(_mm256_sub_ps(_mm256_sub_ps(r1[1], r1[2]), r1[3]), b));
      }
      const int64_t oy = 2 * ty;
      std::copy(top, top + s.ow, yo + oy * s.ow);
      if (oy + 1 < s.oh) std::copy(bottom, bottom + s.ow, yo + (oy + 1) * s.ow);
    }
  }
}

}  // namespace

bool winograd_applies(const ConvGeometry& g) {
  const std::array<int64_t, 3> ones{1, 1, 1};
  return g.groups == 1 && g.kernel == std::array<int64_t, 3>{1, 3, 3} && g.stride == ones &&
         g.dilation == ones && g.input[0] == 1 && g.padding[0] == 0 &&
         g.in_channels >= kMinChannels && g.out_channels >= kMinChannels && g.output[1] > 0 &&
         g.output[2] > 0 && cpu_has_avx2_fma();
}

void winograd_forward(float* out, const float* in, const float* w, const float* bias,
                      const ConvGeometry& g) {
  Shape s;
  s.h = g.input[1];
  s.w = g.input[2];
  s.oh = g.output[1];
  s.ow = g.output[2];
  s.pad_h = g.padding[1];
  s.pad_w = g.padding[2];
  s.th = (s.oh + 1) / 2;
  s.tw = (s.ow + 1) / 2;
  const int64_t cin = g.in_channels, cout = g.out_channels;
  const std::vector<float> u = transform_weights(w, cout, cin);
  const int64_t rows_per_block = std::max<int64_t>(1, kBlockTiles / s.tw);
  const int64_t blocks_per_sample = (s.th + rows_per_block - 1) / rows_per_block;
  const int64_t max_tiles = rows_per_block * s.tw;
  parallel_for(0, g.batch * blocks_per_sample, 1, [&](int64_t begin, int64_t end) {
    // Padding past every buffer's end: the vector loops read (and the
    // output rows write) up to 8 lanes past a row of tiles.
    const int64_t padded = (s.tw + 7) / 8 * 8;
    const int64_t split_stride = padded + 9, row_stride = 2 * padded;
    std::vector<float> v(16 * cin * max_tiles), m(16 * cout * max_tiles + 8);
    std::vector<float> scratch(8 * split_stride + 2 * row_stride, 0.f);
    float* even = scratch.data();
    float* odd = even + 4 * split_stride;
    float* rows = odd + 4 * split_stride;
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item / blocks_per_sample;
      const int64_t ty0 = (item % blocks_per_sample) * rows_per_block;
      const int64_t ty1 = std::min(s.th, ty0 + rows_per_block);
      const int64_t tiles = (ty1 - ty0) * s.tw;
      transform_input(v.data(), in + n * cin * s.h * s.w, cin, s, ty0, ty1, even, odd,
                      split_stride);
      for (int xi = 0; xi < 16; ++xi) {
        // M[ξ] [cout, tiles] = U[ξ] [cout, cin] @ V[ξ] [cin, tiles].
        gemm_serial(GemmArgs{cout, tiles, cin, u.data() + xi * cout * cin, cin, 1,
                             v.data() + xi * cin * tiles, tiles, 1, m.data() + xi * cout * tiles,
                             tiles, 1.0, 0.0},
                    /*dtype_is_double=*/false);
      }
      transform_output(out + n * cout * s.oh * s.ow, m.data(), bias, cout, s, ty0, ty1, rows,
                       row_stride);
    }
  });
}

bool winograd_backward_input_applies(const ConvGeometry& g) {
  return winograd_applies(g) && g.padding[1] <= 2 && g.padding[2] <= 2;
}

void winograd_backward_input(float* grad_in, const float* grad_out, const float* w,
                             const ConvGeometry& g) {
  const int64_t cin = g.in_channels, cout = g.out_channels;
  // flipped[c][o][i][j] = w[o][c][2 - i][2 - j].
  std::vector<float> flipped(static_cast<size_t>(cin * cout * 9));
  for (int64_t o = 0; o < cout; ++o) {
    for (int64_t c = 0; c < cin; ++c) {
      const float* src = w + (o * cin + c) * 9;
      float* dst = flipped.data() + (c * cout + o) * 9;
      for (int k = 0; k < 9; ++k) dst[k] = src[8 - k];
    }
  }
  ConvGeometry t = g;
  t.in_channels = cout;
  t.out_channels = cin;
  t.input = g.output;
  t.output = g.input;
  t.padding = {0, 2 - g.padding[1], 2 - g.padding[2]};
  winograd_forward(grad_in, grad_out, flipped.data(), nullptr, t);
}

}  // namespace torchlet::cpu
