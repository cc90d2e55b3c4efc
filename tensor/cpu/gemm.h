#pragma once

// Internal: single-threaded matrix multiply kernels, one per instruction set
// (the dispatcher in gemm.cc picks by CPU and splits work across threads).
//
//   C[m x n] = alpha * A[m x k] @ B[k x n] + beta * C
//
// A and B are strided (element strides for rows and columns; one of the two
// is 1, the other may be 0 for a broadcast operand); C is row-major with leading dimension ldc. beta == 0 ignores C.

#include <cstdint>
#include <functional>

namespace torchlet::cpu {

struct GemmArgs {
  int64_t m, n, k;
  const void* a;
  int64_t a_row_stride, a_col_stride;
  const void* b;
  int64_t b_row_stride, b_col_stride;
  void* c;
  int64_t ldc;
  double alpha, beta;
};

#define TORCHLET_DECLARE_GEMM(isa)       \
  void gemm_f32_##isa(const GemmArgs& g); \
  void gemm_f64_##isa(const GemmArgs& g);
TORCHLET_DECLARE_GEMM(baseline)
TORCHLET_DECLARE_GEMM(avx2)
TORCHLET_DECLARE_GEMM(avx512)
#undef TORCHLET_DECLARE_GEMM

/// float32 on AVX-512 with torchlet's own packing and register kernel
/// (sgemm_avx512.cc); gemm_f32_avx512 calls it for products large enough to
/// block. Only callable on a CPU with AVX-512F.
void sgemm_avx512(const GemmArgs& g);

/// float32 on AVX2 + FMA, likewise (sgemm_avx2.cc), for gemm_f32_avx2. Only
/// callable on a CPU with AVX2 and FMA.
void sgemm_avx2(const GemmArgs& g);

/// The depth of each pass over k of a blocked float32 product whose caches
/// allow passes of at most about `kc` (Note [Passes over k of equal depth]
/// in gemm.cc): k cut into passes of this depth, the last taking what is
/// left, has no pass under half the others.
int64_t sgemm_pass_depth(int64_t kc, int64_t k);

/// Runs `body` once on each thread it uses (the calling thread at least),
/// at the same time, and returns when every call has returned.
using OnThreads = std::function<void(const std::function<void()>& body)>;

/// The same float32 products shared by the threads `on_threads` runs:
/// each claims row panels of C in order (Note [Row panels claimed in order]
/// in sgemm_blocked.inc), so the faster thread takes more of them; the
/// result has the same bits as on one thread. False, doing nothing, for a
/// product the register kernel does not take (under 12 rows or 16
/// columns, or k = 0). Only callable on a CPU with the instructions.
bool sgemm_avx512_threads(const GemmArgs& g, const OnThreads& on_threads);
bool sgemm_avx2_threads(const GemmArgs& g, const OnThreads& on_threads);

/// Below this many multiply-adds (m * n * k) gemm() runs a product on the
/// calling thread; at or above it, on the intra-op threads.
inline constexpr int64_t kGemmParallelFlops = int64_t{1} << 18;

/// Multiplies on the current device's intra-op threads (see
/// kGemmParallelFlops), with the fastest kernel this CPU supports.
/// `dtype_is_double` selects f64.
void gemm(const GemmArgs& g, bool dtype_is_double);

/// The same product on the calling thread only, for callers that already
/// split their work across the intra-op threads.
void gemm_serial(const GemmArgs& g, bool dtype_is_double);

}  // namespace torchlet::cpu
