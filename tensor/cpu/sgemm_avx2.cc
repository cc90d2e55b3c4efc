// float32 GEMM for AVX2 + FMA: packing and a 6x16 register kernel.
//
// Note [AVX2 float32 GEMM]
// Eigen 3.4's product on AVX2 keeps a 24x4 block of C in 12 of the 16
// registers. On a 2-core AMD EPYC (Zen 3) machine it ran BM_Gemm/512-2048 at
// 100-107 GFLOP/s on two threads, against 125-137 for libtorch (OpenBLAS).
// This kernel is the AVX2 sibling of Note [AVX-512 float32 GEMM] in
// sgemm_avx512.cc, with the same loops around it (sgemm_blocked.inc) and
// the same order of the sums: a 6x16 block of C in 12 registers; per step of k it loads two
// vectors of B, broadcasts six values of A and issues 12 FMAs (the shape of
// BLIS's and OpenBLAS's Haswell kernels). Panels are zero-padded; the kernel
// stores only the rows and columns of C that exist (masked stores).
#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "tensor/cpu/gemm.h"
#include "tensor/cpu/sgemm_blocked.inc"

namespace torchlet::cpu {
namespace {

constexpr int kMr = 6;             // rows of C per kernel call
constexpr int kNv = 2;             // vectors of 8 columns per kernel call
constexpr int kNr = 8 * kNv;       // columns of C per kernel call

// An A panel within a quarter of L1 and kc at most 256: a B block of
// kc x 256 then fits half of a 512 KiB L2, the Zen 2 and 3 size.
const Blocking& blocking() {
  static const Blocking b = blocking_for_caches(kMr, kNr, 4, 256, 512 << 10);
  return b;
}

// A mask of the first `count` of 8 lanes (all for count >= 8, none for
// count <= 0), for maskload and maskstore.
inline __m256i lanes(int64_t count) {
  const int n = static_cast<int>(std::clamp<int64_t>(count, 0, 8));
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// Stores the first kOut (8 or 6) lanes of v. Not with a masked store: on
// Zen 2 and 3 one takes over ten cycles, and packing a 6-row panel of A
// stores every row so.
template <int kOut>
__attribute__((always_inline)) inline void store_lanes(float* dst, __m256 v) {
  static_assert(kOut == 8 || kOut == 6);
  if constexpr (kOut == 8) {
    _mm256_storeu_ps(dst, v);
  } else {
    _mm_storeu_ps(dst, _mm256_castps256_ps128(v));
    _mm_storel_pi(reinterpret_cast<__m64*>(dst + 4), _mm256_extractf128_ps(v, 1));
  }
}

// r[i] holds row i of an 8x8 block; afterwards r[i] holds its column i.
__attribute__((always_inline)) inline void transpose8(__m256 r[8]) {
  __m256 t[8], s[8];
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
#pragma GCC unroll 2
  for (int i = 0; i < 2; ++i) {
    s[4 * i + 0] = _mm256_shuffle_ps(t[4 * i + 0], t[4 * i + 2], 0x44);
    s[4 * i + 1] = _mm256_shuffle_ps(t[4 * i + 0], t[4 * i + 2], 0xEE);
    s[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    s[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_permute2f128_ps(s[i], s[i + 4], 0x20);
    r[i + 4] = _mm256_permute2f128_ps(s[i], s[i + 4], 0x31);
  }
}

// One whole 8-deep block of pack_transposed: kIn lines (the rest zero),
// kOut lanes of each packed row stored.
template <int kIn, int kOut>
__attribute__((always_inline)) inline void transpose_block(float* dst, int width, const float* src,
                                                           int64_t q_stride) {
  __m256 r[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) r[i] = i < kIn ? _mm256_loadu_ps(src + i * q_stride) : _mm256_setzero_ps();
  transpose8(r);
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) store_lanes<kOut>(dst + i * width, r[i]);
}

// dst[p * width + q] = src[q * q_stride + p] for p < depth, q < count
// (zeros for count <= q < width): `count` vectors contiguous along p,
// written interleaved, 8 of each at a time. width is 6 or 16. Whole blocks
// of a 16-wide panel's 8 lines, or of a 6-wide panel's 6, take
// transpose_block; the edges take masked loads and stores.
void pack_transposed(float* dst, int width, const float* src, int64_t q_stride, int count,
                     int64_t depth) {
  for (int q0 = 0; q0 < width; q0 += 8) {
    const int in_block = std::clamp(count - q0, 0, 8);
    const int out_lanes = std::min(8, width - q0);
    const bool whole8 = in_block == 8 && out_lanes == 8;
    const bool whole6 = in_block == 6 && out_lanes == 6;
    const int64_t whole_depth = whole8 || whole6 ? depth / 8 * 8 : 0;
    for (int64_t p0 = 0; p0 < whole_depth; p0 += 8) {
      float* d = dst + p0 * width + q0;
      const float* s = src + q0 * q_stride + p0;
      if (whole8) {
        transpose_block<8, 8>(d, width, s, q_stride);
      } else {
        transpose_block<6, 6>(d, width, s, q_stride);
      }
    }
    for (int64_t p0 = whole_depth; p0 < depth; p0 += 8) {
      const __m256i along_p = lanes(depth - p0);
      __m256 r[8];
      for (int i = 0; i < 8; ++i) {
        r[i] = i < in_block ? _mm256_maskload_ps(src + (q0 + i) * q_stride + p0, along_p)
                            : _mm256_setzero_ps();
      }
      transpose8(r);
      const int64_t rows = std::min<int64_t>(8, depth - p0);
      for (int64_t i = 0; i < rows; ++i) {
        if (out_lanes == 8) {
          store_lanes<8>(dst + (p0 + i) * width + q0, r[i]);
        } else {
          store_lanes<6>(dst + (p0 + i) * width + q0, r[i]);
        }
      }
    }
  }
}

// dst[p * width + q] = src[p * p_stride + q] for q < count, zeros up to
// width (6 or 16).
void pack_rows(float* dst, int width, const float* src, int64_t p_stride, int count,
               int64_t depth) {
  if (width == 6) {
    const __m256i in = lanes(count);
    for (int64_t p = 0; p < depth; ++p) {
      store_lanes<6>(dst + p * 6, _mm256_maskload_ps(src + p * p_stride, in));
    }
    return;
  }
  if (count == width) {
    for (int64_t p = 0; p < depth; ++p) {
      for (int q0 = 0; q0 < width; q0 += 8) {
        _mm256_storeu_ps(dst + p * width + q0, _mm256_loadu_ps(src + p * p_stride + q0));
      }
    }
    return;
  }
  for (int64_t p = 0; p < depth; ++p) {
    for (int q0 = 0; q0 < width; q0 += 8) {
      const __m256 v = _mm256_maskload_ps(src + p * p_stride + q0, lanes(count - q0));
      _mm256_storeu_ps(dst + p * width + q0, v);
    }
  }
}

// C[rows x cols] (rows <= kRows <= 6, cols <= 16) = alpha * Ap @ Bp, plus
// beta * C (kScale) or plus C (kAdd). Bp's rows are ldb floats apart: kNr
// when packed, B's row stride when read in place (Note [B read in place]).
template <int kRows, Store kStore>
void kernel(int64_t kc, const float* __restrict a, const float* __restrict b, int64_t ldb,
            float* c, int64_t ldc, int rows, int cols, float alpha, float beta) {
  // C's tile is read or written only after the loop over k; fetch its lines
  // now (it is often far out of cache: each pass over k visits all of C).
  for (int r = 0; r < rows; ++r) {
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc + kNr - 1), _MM_HINT_T0);
  }
  __m256 acc[kRows][kNv];
#pragma GCC unroll 6
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < kNv; ++v) acc[r][v] = _mm256_setzero_ps();
  }
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p) {
    __m256 bv[kNv];
#pragma GCC unroll 2
    for (int v = 0; v < kNv; ++v) bv[v] = _mm256_loadu_ps(b + 8 * v);
    // B's panels stream from L2: fetch a step's line 16 steps ahead.
    _mm_prefetch(reinterpret_cast<const char*>(b + 16 * ldb), _MM_HINT_T0);
#pragma GCC unroll 6
    for (int r = 0; r < kRows; ++r) {
      const __m256 ar = _mm256_broadcast_ss(a + r);
#pragma GCC unroll 2
      for (int v = 0; v < kNv; ++v) acc[r][v] = _mm256_fmadd_ps(ar, bv[v], acc[r][v]);
    }
    a += kMr;
    b += ldb;
  }
  const bool whole = cols == kNr;
  __m256i mask[kNv];
  for (int v = 0; v < kNv; ++v) mask[v] = lanes(cols - 8 * v);
  const __m256 va = _mm256_set1_ps(alpha);
  const __m256 vb = _mm256_set1_ps(beta);
#pragma GCC unroll 6
  for (int r = 0; r < kRows; ++r) {
    if (r >= rows) break;
    float* cr = c + r * ldc;
#pragma GCC unroll 2
    for (int v = 0; v < kNv; ++v) {
      __m256 x = _mm256_mul_ps(va, acc[r][v]);
      if constexpr (kStore != Store::kOverwrite) {
        const __m256 old = whole ? _mm256_loadu_ps(cr + 8 * v) : _mm256_maskload_ps(cr + 8 * v, mask[v]);
        x = kStore == Store::kScale ? _mm256_fmadd_ps(vb, old, x) : _mm256_add_ps(x, old);
      }
      if (whole) {
        _mm256_storeu_ps(cr + 8 * v, x);
      } else {
        _mm256_maskstore_ps(cr + 8 * v, mask[v], x);
      }
    }
  }
}

struct Avx2 {
  static constexpr int kMr = cpu::kMr, kNr = cpu::kNr;
  static Blocking blocking() { return cpu::blocking(); }
  static constexpr auto pack_transposed = &cpu::pack_transposed, pack_rows = &cpu::pack_rows;
  static constexpr bool kReadsAInPlace = false;
  template <int kRows, Store kStore>
  static constexpr auto kernel = &cpu::kernel<kRows, kStore>;
};

}  // namespace

void sgemm_avx2(const GemmArgs& g) { blocked_sgemm<Avx2>(g); }
bool sgemm_avx2_threads(const GemmArgs& g, const OnThreads& on_threads) {
  return blocked_sgemm_threads<Avx2>(g, on_threads);
}

}  // namespace torchlet::cpu
