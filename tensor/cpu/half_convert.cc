#include "tensor/cpu/half_convert.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

// GCC vectorizes only at -O3; these loops are worth it at -O2 too (clang
// vectorizes them anyway).
#if defined(__GNUC__) && !defined(__clang__)
#define TORCHLET_VECTORIZE __attribute__((optimize("tree-vectorize")))
#else
#define TORCHLET_VECTORIZE
#endif

namespace torchlet::cpu {
namespace {

void float_to_half_scalar(const float* src, Half* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = Half(src[i]);
}

void half_to_float_scalar(const Half* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
}

#if defined(__x86_64__)
// Note [F16C and NaN]: the instructions round like Half(float) but keep a
// NaN's payload bits where c10 (and Half) write the canonical 0x7e00, and
// quiet signalling NaNs on the way back; a block holding a NaN takes the
// scalar path, so the results stay bit-identical.
__attribute__((target("avx,f16c"))) void float_to_half_f16c(const float* src, Half* dst,
                                                              int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(src + i);
    if (_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)) != 0) {
      float_to_half_scalar(src + i, dst + i, 8);
      continue;
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  float_to_half_scalar(src + i, dst + i, n - i);
}

__attribute__((target("avx,f16c"))) void half_to_float_f16c(const Half* src, float* dst,
                                                              int64_t n) {
  const __m128i magnitude = _mm_set1_epi16(0x7fff);
  const __m128i infinity = _mm_set1_epi16(0x7c00);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    if (_mm_movemask_epi8(_mm_cmpgt_epi16(_mm_and_si128(h, magnitude), infinity)) != 0) {
      half_to_float_scalar(src + i, dst + i, 8);
      continue;
    }
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  half_to_float_scalar(src + i, dst + i, n - i);
}

// CPUID leaf 1, ECX bit 28 (AVX) and bit 29 (F16C): clang's
// __builtin_cpu_supports does not know "f16c".
bool has_f16c() {
  static const bool supported = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
    return (ecx & (1u << 28)) != 0 && (ecx & (1u << 29)) != 0;
  }();
  return supported;
}
#endif

}  // namespace

void float_to_half(const float* src, Half* dst, int64_t n) {
#if defined(__x86_64__)
  if (has_f16c()) return float_to_half_f16c(src, dst, n);
#endif
  float_to_half_scalar(src, dst, n);
}

void half_to_float(const Half* src, float* dst, int64_t n) {
#if defined(__x86_64__)
  if (has_f16c()) return half_to_float_f16c(src, dst, n);
#endif
  half_to_float_scalar(src, dst, n);
}

// Branch-free forms of BFloat16(float) and its operator float(), which the
// compiler vectorizes.
TORCHLET_VECTORIZE void float_to_bfloat16(const float* src, BFloat16* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t bits = detail::float_bits(src[i]);
    const uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
    const bool nan = (bits & 0x7fffffffu) > 0x7f800000u;
    dst[i].x = static_cast<uint16_t>(nan ? 0x7fc0u : rounded);
  }
}

TORCHLET_VECTORIZE void bfloat16_to_float(const BFloat16* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    dst[i] = detail::float_from_bits(static_cast<uint32_t>(src[i].x) << 16);
  }
}

}  // namespace torchlet::cpu
