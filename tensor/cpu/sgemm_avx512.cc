// float32 GEMM for AVX-512: packing and a 12x32 register kernel.
//
// Note [AVX-512 float32 GEMM]
// Eigen 3.4's product keeps a 48x4 block of C in 12 registers of AVX-512's
// 32. On a CPU with two 512-bit FMA units (Intel's server cores) that reached
// about 65% of the cores' peak on two threads, against 75% for MKL. This
// kernel keeps a 12x32 block of C in 24 registers; per step of k it loads two
// vectors of B, broadcasts twelve values of A and issues 24 FMAs. The loops
// around it are the usual ones (Goto's and BLIS's):
//
//   for ic over m in 4096 rows
//     for pc over k in kc steps
//       pack A[ic.., pc..] into 12-row panels  (each [12 x kc], in L1 in use)
//       for jc over n in nc columns
//         pack B[pc.., jc..] into 32-column panels  (the block [kc x nc], in L2)
//         for ir over the 12-row panels, jr over the 32-column panels:
//           C[ir, jr] (+)= A panel @ B panel
//
// Each operand is thereby packed once for products up to 4096 rows. Panels
// are zero-padded; the kernel stores only the rows and columns of C that
// exist (AVX-512 masks).
// Both operands are packed whatever their layout (a transposed operand goes
// through 16x16 in-register transposes), so the kernel reads only contiguous,
// aligned memory. C's first pass over k writes alpha * AB + beta * C (C not
// read when beta is 0, so NaNs there are ignored, as PyTorch does); later
// passes add alpha * AB. The sum over k is accumulated in k order within a
// pass, pass after pass, so results do not depend on m or n's split.
//
// Split by rows across threads (tensor/cpu/gemm.cc), the threads claim row
// panels in order (Note [Row panels claimed in order] in sgemm_blocked.inc)
// and each packs all of B for itself. One packed copy shared by the threads, each packing part
// of it (as MKL does), was measured on a 2-core Zen 4 machine and was
// slower: 1.2-1.75x the time of 256^3, 512^3 and [128, 512] @ [512, 512]
// in two processes of three, level in the third. Reading panels another
// core has just written, and overwriting them on the next call while that
// core still holds them, cost more there than the packing saved.
#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "tensor/cpu/gemm.h"
#include "tensor/cpu/sgemm_blocked.inc"

namespace torchlet::cpu {
namespace {

constexpr int kMr = 12;          // rows of C per kernel call
constexpr int kNv = 2;           // vectors of 16 columns per kernel call
constexpr int kNr = 16 * kNv;    // columns of C per kernel call
// Steps of k before its end at which a kernel fetches its C tile, and the
// least row stride of C for which it does (Note [C fetched before the store]).
constexpr int64_t kFetchCSteps = 48;
constexpr int64_t kFetchCLdc = 1024;

// An A panel within half of L1 and kc at most 512 (512 against 256
// measured 4% faster at 2048^3 on two threads): the B block then takes 1 MiB
// of a 2 MiB L2, 512 KiB of a 1 MiB one.
const Blocking& blocking() {
  static const Blocking b = blocking_for_caches(kMr, kNr, 2, 512, 1 << 20);
  return b;
}

inline __mmask16 lanes(int64_t count) {
  return count >= 16 ? __mmask16(0xFFFF) : count <= 0 ? __mmask16(0) : __mmask16((1u << count) - 1);
}

// r[i] holds row i of a 16x16 block; afterwards r[i] holds its column i.
// Unrolled and inlined, so that the 32 vectors stay in registers (spilled to
// the stack, packing a transposed operand took twice as long).
__attribute__((always_inline)) inline void transpose16(__m512 r[16]) {
  __m512 t[16];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    r[4 * i + 0] = _mm512_shuffle_ps(t[4 * i + 0], t[4 * i + 2], 0x44);
    r[4 * i + 1] = _mm512_shuffle_ps(t[4 * i + 0], t[4 * i + 2], 0xEE);
    r[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    r[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    t[i + 0] = _mm512_shuffle_f32x4(r[i + 0], r[i + 4], 0x88);
    t[i + 4] = _mm512_shuffle_f32x4(r[i + 0], r[i + 4], 0xDD);
    t[i + 8] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0x88);
    t[i + 12] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0xDD);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    r[i + 0] = _mm512_shuffle_f32x4(t[i + 0], t[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_f32x4(t[i + 0], t[i + 8], 0xDD);
    r[i + 4] = _mm512_shuffle_f32x4(t[i + 4], t[i + 12], 0x88);
    r[i + 12] = _mm512_shuffle_f32x4(t[i + 4], t[i + 12], 0xDD);
  }
}

// One whole 16-deep block of pack_transposed: kIn lines (the rest zero),
// kOut lanes of each packed row stored. Known at compile time, the loads
// and stores need no masks and the block stays in registers.
template <int kIn, int kOut>
__attribute__((always_inline)) inline void transpose_block(float* dst, int width, const float* src,
                                                           int64_t q_stride) {
  __m512 r[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) r[i] = i < kIn ? _mm512_loadu_ps(src + i * q_stride) : _mm512_setzero_ps();
  transpose16(r);
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) {
    if constexpr (kOut == 16) {
      _mm512_storeu_ps(dst + i * width, r[i]);
    } else {
      _mm512_mask_storeu_ps(dst + i * width, __mmask16((1u << kOut) - 1), r[i]);
    }
  }
}

// dst[p * width + q] = src[q * q_stride + p] for p < depth, q < count
// (zeros for count <= q < width): `count` vectors contiguous along p,
// written interleaved, 16 of each at a time. width is 12 or 32. Whole
// blocks of a 32-wide panel's 16 lines, or of a 12-wide panel's 12, take
// transpose_block; the edges take masked loads and stores.
void pack_transposed(float* dst, int width, const float* src, int64_t q_stride, int count,
                     int64_t depth) {
  for (int q0 = 0; q0 < width; q0 += 16) {
    const int in_block = std::clamp(count - q0, 0, 16);
    const int out_lanes = std::min(16, width - q0);
    const bool whole16 = in_block == 16 && out_lanes == 16;
    const bool whole12 = in_block == 12 && out_lanes == 12;
    const int64_t whole_depth = whole16 || whole12 ? depth / 16 * 16 : 0;
    for (int64_t p0 = 0; p0 < whole_depth; p0 += 16) {
      float* d = dst + p0 * width + q0;
      const float* s = src + q0 * q_stride + p0;
      if (whole16) {
        transpose_block<16, 16>(d, width, s, q_stride);
      } else {
        transpose_block<12, 12>(d, width, s, q_stride);
      }
    }
    for (int64_t p0 = whole_depth; p0 < depth; p0 += 16) {
      const __mmask16 along_p = lanes(depth - p0);
      __m512 r[16];
      for (int i = 0; i < 16; ++i) {
        r[i] = i < in_block ? _mm512_maskz_loadu_ps(along_p, src + (q0 + i) * q_stride + p0)
                            : _mm512_setzero_ps();
      }
      transpose16(r);
      const int64_t rows = std::min<int64_t>(16, depth - p0);
      for (int64_t i = 0; i < rows; ++i) {
        _mm512_mask_storeu_ps(dst + (p0 + i) * width + q0, lanes(out_lanes), r[i]);
      }
    }
  }
}

// dst[p * width + q] = src[p * p_stride + q] for q < count, zeros up to width.
void pack_rows(float* dst, int width, const float* src, int64_t p_stride, int count,
               int64_t depth) {
  for (int64_t p = 0; p < depth; ++p) {
    for (int q0 = 0; q0 < width; q0 += 16) {
      const __m512 v = _mm512_maskz_loadu_ps(lanes(count - q0), src + p * p_stride + q0);
      _mm512_mask_storeu_ps(dst + p * width + q0, lanes(width - q0), v);
    }
  }
}

// C[rows x cols] (rows <= kRows <= 12, cols <= 32) = alpha * Ap @ Bp, plus
// beta * C (kScale) or plus C (kAdd). Bp's rows are ldb floats apart: kNr
// when packed, B's row stride when read in place (Note [B read in place]).
// Zeroes a kRows x 32 block of accumulators.
template <int kRows>
__attribute__((always_inline)) inline void zero_tile(__m512 (&acc)[kRows][kNv]) {
#pragma GCC unroll 12
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < kNv; ++v) acc[r][v] = _mm512_setzero_ps();
  }
}

// Loads one step's two vectors of B. B's panels stream from L2: it also
// fetches both lines of the step 24 steps ahead.
__attribute__((always_inline)) inline void load_b_step(const float* b, int64_t ldb,
                                                       __m512 (&bv)[kNv]) {
#pragma GCC unroll 2
  for (int v = 0; v < kNv; ++v) bv[v] = _mm512_loadu_ps(b + 16 * v);
  _mm_prefetch(reinterpret_cast<const char*>(b + 24 * ldb), _MM_HINT_T0);
  _mm_prefetch(reinterpret_cast<const char*>(b + 24 * ldb + 16), _MM_HINT_T0);
}

// Note [C fetched before the store]
// A kernel call ends by loading its C tile (a pass after the first adds to
// it) and storing it: kRows rows ldc floats apart, two or three lines each.
// When C is larger than the caches (2048^2 floats are 16 MiB), those lines
// come from L3, or from the other core that stored them in an earlier pass,
// one row after another while the FMAs wait. So the kernel asks for them
// kFetchCSteps steps of k before its end: about 600 cycles of multiply-adds
// for 12 rows, time for the lines to arrive, and late enough that the B
// panel streaming through L1 does not evict them first. Fetched at the
// start of the call instead, they would be. In-process alternation of calls
// on two threads of a 2-core AVX-512 Intel Xeon (model 207), medians of
// the pairs' ratios: 2048^3 at 0.95-0.995 of the time in seven windows
// (48 steps; 24 and 96 about as good, 200 no gain), 1024^3 level
// (0.985-1.005), 512^3 level (0.998-1.003), but 256^3 slower (1.003-1.014),
// its C held in L2 and the 36 fetches a call's cost without a gain. So a
// kernel fetches only when C's rows are at least kFetchCLdc floats (4 KiB)
// apart: a C that wide seldom stays in L2 between passes, and its tile's
// rows fall in few sets of L1.
template <int kRows>
__attribute__((always_inline)) inline void prefetch_c_tile(const float* c, int64_t ldc,
                                                           int rows) {
#pragma GCC unroll 12
  for (int r = 0; r < kRows; ++r) {
    if (r >= rows) break;
    const char* cr = reinterpret_cast<const char*>(c + r * ldc);
    _mm_prefetch(cr, _MM_HINT_T0);
    _mm_prefetch(cr + 64, _MM_HINT_T0);
    _mm_prefetch(cr + 127, _MM_HINT_T0);
  }
}

// Runs a kernel's `step` kc times, fetching its C tile kFetchCSteps steps
// before the end when C is wide (Note [C fetched before the store]). The
// loop is split around the fetch so that the steps test nothing more.
template <int kRows, typename Step>
__attribute__((always_inline)) inline void run_steps(int64_t kc, const float* c, int64_t ldc,
                                                     int rows, const Step& step) {
  const int64_t fetch_c_at = ldc >= kFetchCLdc ? std::max<int64_t>(kc - kFetchCSteps, 0) : kc;
  for (int64_t p = 0; p < fetch_c_at; ++p) step();
  if (fetch_c_at < kc) {
    prefetch_c_tile<kRows>(c, ldc, rows);
    for (int64_t p = fetch_c_at; p < kc; ++p) step();
  }
}

// Stores the kRows x 32 block acc into C as kernel does.
template <int kRows, Store kStore>
__attribute__((always_inline)) inline void store_tile(const __m512 (&acc)[kRows][kNv], float* c,
                                                      int64_t ldc, int rows, int cols,
                                                      float alpha, float beta) {
  __mmask16 mask[kNv];
  for (int v = 0; v < kNv; ++v) mask[v] = lanes(cols - 16 * v);
  const __m512 va = _mm512_set1_ps(alpha);
  const __m512 vb = _mm512_set1_ps(beta);
#pragma GCC unroll 12
  for (int r = 0; r < kRows; ++r) {
    if (r >= rows) break;
    float* cr = c + r * ldc;
#pragma GCC unroll 2
    for (int v = 0; v < kNv; ++v) {
      __m512 x = _mm512_mul_ps(va, acc[r][v]);
      if constexpr (kStore == Store::kScale) {
        x = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(mask[v], cr + 16 * v), x);
      } else if constexpr (kStore == Store::kAdd) {
        x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(mask[v], cr + 16 * v));
      }
      _mm512_mask_storeu_ps(cr + 16 * v, mask[v], x);
    }
  }
}

// kernel with the A panel read in place (Note [A read in place] in
// sgemm_blocked.inc): row r at a + r * lda, for all kRows rows (the caller
// packs a panel with fewer). Rows are addressed in fours from one pointer
// each, lda and 3 * lda apart, so that every pointer stays in a register.
template <int kRows, Store kStore>
void kernel_a_in_place(int64_t kc, const float* __restrict a, int64_t lda,
                       const float* __restrict b, int64_t ldb, float* c, int64_t ldc, int rows,
                       int cols, float alpha, float beta) {
  static_assert(kRows % 4 == 0);
  constexpr int kFours = kRows / 4;
  __m512 acc[kRows][kNv];
  zero_tile<kRows>(acc);
  const float* four[kFours];
#pragma GCC unroll 3
  for (int f = 0; f < kFours; ++f) four[f] = a + 4 * f * lda;
  const int64_t lda3 = 3 * lda;
  const auto step = [&]() __attribute__((always_inline)) {
    __m512 bv[kNv];
    load_b_step(b, ldb, bv);
#pragma GCC unroll 3
    for (int f = 0; f < kFours; ++f) {
      const __m512 av[4] = {_mm512_set1_ps(four[f][0]), _mm512_set1_ps(four[f][lda]),
                            _mm512_set1_ps(four[f][2 * lda]), _mm512_set1_ps(four[f][lda3])};
#pragma GCC unroll 4
      for (int r = 0; r < 4; ++r) {
#pragma GCC unroll 2
        for (int v = 0; v < kNv; ++v) {
          acc[4 * f + r][v] = _mm512_fmadd_ps(av[r], bv[v], acc[4 * f + r][v]);
        }
      }
      ++four[f];
    }
    b += ldb;
  };
  run_steps<kRows>(kc, c, ldc, rows, step);
  store_tile<kRows, kStore>(acc, c, ldc, rows, cols, alpha, beta);
}

template <int kRows, Store kStore>
void kernel(int64_t kc, const float* __restrict a, const float* __restrict b, int64_t ldb,
            float* c, int64_t ldc, int rows, int cols, float alpha, float beta) {
  __m512 acc[kRows][kNv];
  zero_tile<kRows>(acc);
  const auto step = [&]() __attribute__((always_inline)) {
    __m512 bv[kNv];
    load_b_step(b, ldb, bv);
#pragma GCC unroll 12
    for (int r = 0; r < kRows; ++r) {
      const __m512 ar = _mm512_set1_ps(a[r]);
#pragma GCC unroll 2
      for (int v = 0; v < kNv; ++v) acc[r][v] = _mm512_fmadd_ps(ar, bv[v], acc[r][v]);
    }
    a += kMr;
    b += ldb;
  };
  run_steps<kRows>(kc, c, ldc, rows, step);
  store_tile<kRows, kStore>(acc, c, ldc, rows, cols, alpha, beta);
}

struct Avx512 {
  static constexpr int kMr = cpu::kMr, kNr = cpu::kNr;
  static Blocking blocking() { return cpu::blocking(); }
  static constexpr auto pack_transposed = &cpu::pack_transposed, pack_rows = &cpu::pack_rows;
  template <int kRows, Store kStore>
  static constexpr auto kernel = &cpu::kernel<kRows, kStore>;
  static constexpr bool kReadsAInPlace = true;
  template <int kRows, Store kStore>
  static constexpr auto kernel_a_in_place = &cpu::kernel_a_in_place<kRows, kStore>;
};

}  // namespace

void sgemm_avx512(const GemmArgs& g) { blocked_sgemm<Avx512>(g); }
bool sgemm_avx512_threads(const GemmArgs& g, const OnThreads& on_threads) {
  return blocked_sgemm_threads<Avx512>(g, on_threads);
}

}  // namespace torchlet::cpu
