#pragma once

// What the CPU running torchlet can do, checked once at run time. The default
// build targets baseline x86-64; kernels with AVX2 paths (functions with a
// target attribute) take them only where these say the CPU has the
// instructions.

namespace torchlet::cpu {

#if defined(__x86_64__) || defined(__i386__)
/// AVX2 (eight-float vectors).
inline bool cpu_has_avx2() {
  static const bool supported = [] {
    __builtin_cpu_init();  // in case this runs before the CPU model is read
    return __builtin_cpu_supports("avx2");
  }();
  return supported;
}

/// AVX2 and FMA (fused multiply-add), for kernels whose arithmetic may fuse.
inline bool cpu_has_avx2_fma() {
  static const bool supported = cpu_has_avx2() && __builtin_cpu_supports("fma");
  return supported;
}

/// AVX-512 F and VL with AVX2 and FMA: 32 vector registers for kernels that
/// keep more accumulators than AVX2's 16 registers hold.
inline bool cpu_has_avx512vl() {
  static const bool supported = cpu_has_avx2_fma() && __builtin_cpu_supports("avx512f") &&
                                __builtin_cpu_supports("avx512vl");
  return supported;
}
#else
inline bool cpu_has_avx2() { return false; }
inline bool cpu_has_avx2_fma() { return false; }
inline bool cpu_has_avx512vl() { return false; }
#endif

}  // namespace torchlet::cpu
