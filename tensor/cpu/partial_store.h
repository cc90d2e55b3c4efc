#pragma once

// Stores of a vector's first n lanes without masked stores, which are slow
// on AMD's CPUs (Zen 4 takes longer for one than for a row of LeNet's
// products): whole 4-, 2- and 1-element stores. For x86-64 kernels with
// AVX2 paths (tensor/cpu/cpu_features.h).

#include <immintrin.h>

#include <cstdint>

namespace torchlet::cpu {

/// p[0, n) = v[0, n), n in [0, 8].
__attribute__((target("avx2"))) inline void store_first(float* p, __m256 v, int64_t n) {
  if (n >= 8) {
    _mm256_storeu_ps(p, v);
    return;
  }
  __m128 part = _mm256_castps256_ps128(v);
  if (n >= 4) {
    _mm_storeu_ps(p, part);
    part = _mm256_extractf128_ps(v, 1);
    p += 4;
    n -= 4;
  }
  if (n >= 2) {
    _mm_storel_pi(reinterpret_cast<__m64*>(p), part);
    part = _mm_movehl_ps(part, part);
    p += 2;
    n -= 2;
  }
  if (n >= 1) _mm_store_ss(p, part);
}

/// p[0, n) = the first n of lo's four and then hi's four, n in [0, 8].
__attribute__((target("avx2"))) inline void store_first(int64_t* p, __m256i lo, __m256i hi,
                                                        int64_t n) {
  if (n >= 4) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), lo);
    lo = hi;
    p += 4;
    n -= 4;
    if (n >= 4) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), lo);
      return;
    }
  }
  __m128i part = _mm256_castsi256_si128(lo);
  if (n >= 2) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), part);
    part = _mm256_extracti128_si256(lo, 1);
    p += 2;
    n -= 2;
  }
  if (n >= 1) _mm_storel_epi64(reinterpret_cast<__m128i*>(p), part);
}

}  // namespace torchlet::cpu
