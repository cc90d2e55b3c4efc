#include "tensor/cpu/gemm.h"

#include <algorithm>

#include "tensor/parallel.h"

namespace torchlet::cpu {
namespace {

using Kernel = void (*)(const GemmArgs&);

struct Kernels {
  Kernel f32;
  Kernel f64;
  // float32 products shared by the threads (sgemm_*_threads), or null.
  bool (*f32_threads)(const GemmArgs&, const OnThreads&);
};

// The widest instruction set this CPU has; the default build thereby uses
// AVX-512 or AVX2+FMA where present and stays runnable on any x86-64.
Kernels select_kernels() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl")) {
    return {gemm_f32_avx512, gemm_f64_avx512, sgemm_avx512_threads};
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    return {gemm_f32_avx2, gemm_f64_avx2, sgemm_avx2_threads};
  }
  return {gemm_f32_baseline, gemm_f64_baseline, nullptr};
}

// Rows (columns) of C each thread must get for a split by rows (columns)
// (see gemm()).
constexpr int64_t kMinRowsPerThread = 32;
constexpr int64_t kMinColsPerThread = 64;

const Kernels& kernels() {
  static const Kernels k = select_kernels();
  return k;
}

}  // namespace

// Note [Passes over k of equal depth]
// blocking() in sgemm_blocked.inc gives the deepest pass over k that fits
// the caches, kc. Cut into passes of that depth, a k just above a multiple
// of kc leaves a last pass of a few steps that costs nearly as much as a
// full one: it loads and stores all of C and packs a B block for a sliver
// of the multiply-adds. On a 32 KiB L1 (AMD Zen 4) kc is 336, and 1024 was
// cut into 336, 336, 336 and 16, 2048 into six of 336 and one of 32. So the
// depth is evened out over the passes, and one pass fewer is taken when
// that keeps each within an eighth above kc (the A panel then still fits
// L1 beside the lines of B being read): 1024 now goes in three passes (352,
// 352, 320), 2048 in six. The depth is rounded up to a multiple of 16 (the
// transposing packer's block, and whole cache lines of a row-major A) unless
// that would leave the last pass under half the others. Every thread of a
// product cuts k the same way, so the bits still do not depend on which
// thread ran what. In turns with OpenBLAS (libtorch 1.13) on that Zen 4
// machine, torchlet's time over OpenBLAS's went from 1.009 to 0.960 at
// 1024^3 and from 1.021 to 0.999 at 2048^3 on two cores (0.969 to 0.956 and
// 1.021 to 0.991 on one).
int64_t sgemm_pass_depth(int64_t kc, int64_t k) {
  if (k <= kc) return k;
  int64_t passes = (k + kc - 1) / kc;
  if ((k + passes - 2) / (passes - 1) <= kc + kc / 8) --passes;
  const int64_t even = (k + passes - 1) / passes;
  const int64_t rounded = (even + 15) / 16 * 16;
  return std::min(k, k - (passes - 1) * rounded >= rounded / 2 ? rounded : even);
}

void gemm_serial(const GemmArgs& g, bool dtype_is_double) {
  if (g.m == 0 || g.n == 0) return;
  (dtype_is_double ? kernels().f64 : kernels().f32)(g);
}

void gemm(const GemmArgs& g, bool dtype_is_double) {
  const Kernel kernel = dtype_is_double ? kernels().f64 : kernels().f32;
  if (g.m == 0 || g.n == 0) return;
  const int64_t work = g.m * g.n * std::max<int64_t>(g.k, 1);
  const int threads = detail::split_threads();
  if (work < kGemmParallelFlops || threads == 1) {
    kernel(g);
    return;
  }
  // One block of C per thread: blocks of rows wherever each thread gets at
  // least kMinRowsPerThread of them, else of the larger dimension; except
  // that a column-major B (a Linear layer's weight, transposed) is split by
  // columns while A is not much taller than B is wide: each thread then packs
  // only its half of B, whose packing transposes it, the costlier one.
  const bool transposed_b = g.b_col_stride != 1 && g.n >= kMinColsPerThread * threads &&
                            g.m <= 2 * g.n;
  const bool split_rows =
      !transposed_b && (g.m >= g.n || g.m >= kMinRowsPerThread * threads);
  // A float32 product split by rows goes to the register kernel's shared
  // schedule, where the faster thread takes more of the rows (Note [Row
  // panels claimed in order] in sgemm_blocked.inc).
  const auto shared = kernels().f32_threads;
  if (split_rows && !dtype_is_double && shared != nullptr &&
      shared(g, [&](const std::function<void()>& body) {
        parallel_for(0, threads, 1, [&](int64_t, int64_t) { body(); });
      })) {
    return;
  }
  const int64_t extent = split_rows ? g.m : g.n;
  const int64_t grain = std::max<int64_t>(16, (extent + threads - 1) / threads);
  const size_t esize = dtype_is_double ? sizeof(double) : sizeof(float);
  parallel_for(0, extent, grain - 1, [&](int64_t begin, int64_t end) {
    GemmArgs part = g;
    if (split_rows) {
      part.m = end - begin;
      part.a = static_cast<const char*>(g.a) + begin * g.a_row_stride * esize;
      part.c = static_cast<char*>(g.c) + begin * g.ldc * esize;
    } else {
      part.n = end - begin;
      part.b = static_cast<const char*>(g.b) + begin * g.b_col_stride * esize;
      part.c = static_cast<char*>(g.c) + begin * esize;
    }
    kernel(part);
  });
}

}  // namespace torchlet::cpu
