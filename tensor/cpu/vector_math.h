#pragma once

// Internal to the CPU kernels: 8-float AVX2 versions of exp, sigmoid and
// tanh. The default build targets baseline x86-64, so these carry target
// attributes; callers take them only where cpu_has_avx2_fma() says so.
//
// Note [AVX2 exp]
// Cephes' expf: range reduction by ln 2, a degree-5 polynomial, and 2^n
// built from the exponent bits; within 2 ulp of std::exp for x <= 0, the
// only range the callers here use (softmax's exp(x - max), and exp(-|x|)
// in sigmoid and tanh). Below about -87.3 it gives 0 where the exact
// result would be subnormal.
//
// Note [AVX2 sigmoid and tanh]
// Both go through e = exp(-|x|) (exp(-2|x|) for tanh), which never
// overflows: sigmoid(x) is 1 / (1 + e) for x >= 0 and e / (1 + e) below;
// tanh(|x|) is (1 - e) / (1 + e) from |x| >= 0.625, and under it Cephes'
// odd polynomial x + x^3 P(x^2), which keeps tiny inputs (and -0) exact
// where 1 - e would cancel. Within 3 ulp of the exact result (the tests
// check a dense sweep); NaN stays NaN and the infinities give their limits.

// Note [AVX2 erf and gelu]
// erf(z) for |z| < 0.9 is z P(z^2), a degree-5 polynomial fitted for
// relative error; above, 1 - erfc(|z|) with the sign put back, where
// erfc(a) = t Q(t) exp(-a^2) (1 - e), t = 2 / (2 + a), Q a degree-9
// polynomial fitted for relative error to erfc(a) exp(a^2) / t over
// 0 <= a <= 10 (1.6e-7; 1.3e-7 evaluated in float with its float
// coefficients: tools/fit_erfc.py), and e the rounding error of a^2 in
// float (from an FMA): the large a^2 goes through exp exactly as rounded,
// and only the small e is applied after it. erf is within 3 ulp; erfc
// within 8 ulp of its own (tiny) value. gelu(x) = x (1 + erf(z)) / 2,
// z = x / sqrt 2, takes 1 + erf(z) as 2 - erfc(z) for z >= 0 and as
// erfc(-z) below, over the whole range: neither cancels (the first is
// 1 to 2), so gelu needs no polynomial near 0 and costs one exp an element,
// the gaussian, which its backward needs anyway as phi. Its negative tail
// keeps its digits where 1 + erf(z) would cancel (and PyTorch's and libm's
// scalar forms give 0 or a few bits). Until Q replaced Numerical Recipes'
// erfcc (erfc(a) = t exp(-a^2 + R(t)), R of degree 9: a second exp) and
// gelu dropped its branch near 0, BM_GeluFwdBwd/0 took 0.81-0.97 ms where
// it now takes 0.41-0.45 (three alternating rounds on a 2-core Intel Xeon).

#include <immintrin.h>

#include <cstdint>

namespace torchlet::cpu {

// exp(x - shift) for 8 floats (Note [AVX2 exp]).
__attribute__((target("avx2,fma"), always_inline)) inline __m256 exp8_avx2(__m256 x, __m256 shift) {
  const __m256 hi = _mm256_set1_ps(88.3762626647949f), lo = _mm256_set1_ps(-88.3762626647949f);
  const __m256 log2e = _mm256_set1_ps(1.44269504088896341f), half = _mm256_set1_ps(0.5f);
  const __m256 c1 = _mm256_set1_ps(0.693359375f), c2 = _mm256_set1_ps(-2.12194440e-4f);
  const __m256 p0 = _mm256_set1_ps(1.9875691500e-4f), p1 = _mm256_set1_ps(1.3981999507e-3f),
               p2 = _mm256_set1_ps(8.3334519073e-3f), p3 = _mm256_set1_ps(4.1665795894e-2f),
               p4 = _mm256_set1_ps(1.6666665459e-1f), p5 = _mm256_set1_ps(5.0000001201e-1f);
  const __m256 one = _mm256_set1_ps(1.0f);
  __m256 v = _mm256_sub_ps(x, shift);
  v = _mm256_max_ps(lo, _mm256_min_ps(hi, v));  // NaN (the second operand) passes
  const __m256 fx = _mm256_floor_ps(_mm256_fmadd_ps(v, log2e, half));
  v = _mm256_fnmadd_ps(fx, c1, v);
  v = _mm256_fnmadd_ps(fx, c2, v);
  __m256 y = _mm256_fmadd_ps(p0, v, p1);
  y = _mm256_fmadd_ps(y, v, p2);
  y = _mm256_fmadd_ps(y, v, p3);
  y = _mm256_fmadd_ps(y, v, p4);
  y = _mm256_fmadd_ps(y, v, p5);
  y = _mm256_fmadd_ps(y, _mm256_mul_ps(v, v), _mm256_add_ps(v, one));
  const __m256i exponent =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(fx), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(y, _mm256_castsi256_ps(exponent));
}

// 1 / (1 + exp(-x)) for 8 floats (Note [AVX2 sigmoid and tanh]).
__attribute__((target("avx2,fma"), always_inline)) inline __m256 sigmoid8_avx2(__m256 x) {
  const __m256 sign_bit = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f);
  const __m256 minus_abs = _mm256_or_ps(x, sign_bit);  // -|x|
  const __m256 e = exp8_avx2(minus_abs, _mm256_setzero_ps());
  const __m256 denominator = _mm256_add_ps(one, e);
  const __m256 negative = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ);
  return _mm256_div_ps(_mm256_blendv_ps(one, e, negative), denominator);
}

// tanh for 8 floats (Note [AVX2 sigmoid and tanh]).
__attribute__((target("avx2,fma"), always_inline)) inline __m256 tanh8_avx2(__m256 x) {
  const __m256 sign_bit = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f);
  const __m256 abs = _mm256_andnot_ps(sign_bit, x);
  // |x| >= 0.625: (1 - e) / (1 + e) with e = exp(-2|x|).
  const __m256 e = exp8_avx2(_mm256_mul_ps(abs, _mm256_set1_ps(-2.0f)), _mm256_setzero_ps());
  const __m256 large = _mm256_div_ps(_mm256_sub_ps(one, e), _mm256_add_ps(one, e));
  // |x| < 0.625: |x| + |x| z P(z), z = x^2.
  const __m256 z = _mm256_mul_ps(x, x);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(-5.70498872745e-3f), z, _mm256_set1_ps(2.06390887954e-2f));
  p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(-5.37397155531e-2f));
  p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(1.33314422036e-1f));
  p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(-3.33332819422e-1f));
  const __m256 small = _mm256_fmadd_ps(_mm256_mul_ps(abs, z), p, abs);
  const __m256 is_small = _mm256_cmp_ps(abs, _mm256_set1_ps(0.625f), _CMP_LT_OQ);  // false for NaN
  // tanh is odd: the sign of x goes back on (-0 stays -0).
  return _mm256_or_ps(_mm256_blendv_ps(large, small, is_small), _mm256_and_ps(x, sign_bit));
}

// erfc(a) for 8 floats a >= 0 (NaN passes), as the product of the
// returned factor and *gaussian = exp(-a^2), so that a caller scaling the
// result multiplies before it can become subnormal; exp(-a^2) is 0 from
// a = 10 on (Note [AVX2 erf and gelu]).
// `square` is a^2 rounded and `square_error` what it lost (a^2 - square),
// passed in so that gelu can form them from x rather than from x / sqrt 2,
// whose rounding a^2 would magnify.
__attribute__((target("avx2,fma"), always_inline)) inline __m256 erfc_factor8_avx2(
    __m256 a, __m256 square, __m256 square_error, __m256* gaussian) {
  const __m256 ten = _mm256_set1_ps(10.0f);
  // From a = 10 on, a^2 (and its error: NaN for an infinite a) is held at
  // 100, where the gaussian is 0.
  square_error = _mm256_and_ps(square_error, _mm256_cmp_ps(a, ten, _CMP_LT_OQ));
  square = _mm256_min_ps(_mm256_set1_ps(100.0f), square);
  a = _mm256_min_ps(ten, a);  // NaN (the second operand) passes
  const __m256 two = _mm256_set1_ps(2.0f), zero = _mm256_setzero_ps();
  const __m256 t = _mm256_div_ps(two, _mm256_add_ps(two, a));
  __m256 q = _mm256_fmadd_ps(_mm256_set1_ps(1.228461135e-02f), t, _mm256_set1_ps(-1.232583970e-01f));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(4.289364219e-01f));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(-6.700322032e-01f));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(4.212815762e-01f));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(-9.832112491e-02f));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(2.255429178e-01f));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(2.386446446e-01f));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(2.828570604e-01f));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(2.820644975e-01f));
  *gaussian = exp8_avx2(zero, square);
  // exp(-a^2) = gaussian exp(-e), and exp(-e) = 1 - e to float precision.
  const __m256 tq = _mm256_mul_ps(t, q);
  return _mm256_fnmadd_ps(tq, square_error, tq);
}

// erf(z) / z for 8 floats with |z| < 0.9 (Note [AVX2 erf and gelu]).
__attribute__((target("avx2,fma"), always_inline)) inline __m256 erf_small_over_z8_avx2(__m256 z) {
  const __m256 s = _mm256_mul_ps(z, z);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(-6.086067294e-04f), s, _mm256_set1_ps(5.011083249e-03f));
  p = _mm256_fmadd_ps(p, s, _mm256_set1_ps(-2.677827595e-02f));
  p = _mm256_fmadd_ps(p, s, _mm256_set1_ps(1.128212212e-01f));
  p = _mm256_fmadd_ps(p, s, _mm256_set1_ps(-3.761252133e-01f));
  return _mm256_fmadd_ps(p, s, _mm256_set1_ps(1.128379153f));
}

// erf for 8 floats (Note [AVX2 erf and gelu]).
__attribute__((target("avx2,fma"), always_inline)) inline __m256 erf8_avx2(__m256 z) {
  const __m256 sign_bit = _mm256_set1_ps(-0.0f);
  const __m256 a = _mm256_andnot_ps(sign_bit, z);
  const __m256 small = _mm256_mul_ps(z, erf_small_over_z8_avx2(z));
  const __m256 square = _mm256_mul_ps(a, a);
  __m256 gaussian;
  const __m256 factor = erfc_factor8_avx2(a, square, _mm256_fmsub_ps(a, a, square), &gaussian);
  __m256 large = _mm256_fnmadd_ps(factor, gaussian, _mm256_set1_ps(1.0f));
  large = _mm256_or_ps(large, _mm256_and_ps(z, sign_bit));
  const __m256 is_small = _mm256_cmp_ps(a, _mm256_set1_ps(0.9f), _CMP_LT_OQ);  // false for NaN
  return _mm256_blendv_ps(large, small, is_small);
}

// x (1 + erf(x / sqrt 2)) / 2 for 8 floats (Note [AVX2 erf and gelu]).
__attribute__((target("avx2,fma"), always_inline)) inline __m256 gelu8_avx2(__m256 x) {
  const __m256 sign_bit = _mm256_set1_ps(-0.0f);
  const __m256 z = _mm256_mul_ps(x, _mm256_set1_ps(0.70710678118654752f));
  const __m256 a = _mm256_andnot_ps(sign_bit, z);
  const __m256 half_x = _mm256_mul_ps(_mm256_set1_ps(0.5f), x);
  // z^2 = x^2 / 2, rounded once and its error kept, both exact halvings.
  const __m256 x_squared = _mm256_mul_ps(x, x);
  const __m256 square = _mm256_mul_ps(_mm256_set1_ps(0.5f), x_squared);
  const __m256 square_error = _mm256_mul_ps(_mm256_set1_ps(0.5f), _mm256_fmsub_ps(x, x, x_squared));
  __m256 gaussian;
  const __m256 factor = erfc_factor8_avx2(a, square, square_error, &gaussian);
  // 1 + erf(z) is 2 - erfc(z) above 0; below, half_x erfc(-z) is formed
  // with the gaussian last, so it is subnormal only if the result is.
  const __m256 above = _mm256_mul_ps(half_x, _mm256_fnmadd_ps(factor, gaussian, _mm256_set1_ps(2.0f)));
  const __m256 below = _mm256_mul_ps(_mm256_mul_ps(half_x, factor), gaussian);
  const __m256 negative = _mm256_cmp_ps(z, _mm256_setzero_ps(), _CMP_LT_OQ);
  return _mm256_blendv_ps(above, below, negative);
}

// grad gelu'(x) = grad (Phi(x) + x phi(x)) for 8 floats: Phi as in
// gelu8_avx2, and phi(x) = exp(-x^2 / 2) / sqrt(2 pi) from the gaussian
// erfc_factor8_avx2 forms anyway (0 from |x| = 13.2 on, where it is
// subnormal). An infinite x gives NaN (inf times 0), as PyTorch's kernel.
__attribute__((target("avx2,fma"), always_inline)) inline __m256 gelu_backward8_avx2(__m256 grad,
                                                                                    __m256 x) {
  const __m256 sign_bit = _mm256_set1_ps(-0.0f), half = _mm256_set1_ps(0.5f);
  const __m256 z = _mm256_mul_ps(x, _mm256_set1_ps(0.70710678118654752f));
  const __m256 a = _mm256_andnot_ps(sign_bit, z);
  const __m256 x_squared = _mm256_mul_ps(x, x);
  const __m256 square = _mm256_mul_ps(half, x_squared);
  const __m256 square_error = _mm256_mul_ps(half, _mm256_fmsub_ps(x, x, x_squared));
  __m256 gaussian;
  const __m256 factor = erfc_factor8_avx2(a, square, square_error, &gaussian);
  // Phi(x) = erfc(-z) / 2: 1 - erfc(a) / 2 above 0, erfc(a) / 2 below.
  const __m256 tail = _mm256_mul_ps(_mm256_mul_ps(half, factor), gaussian);
  const __m256 negative = _mm256_cmp_ps(z, _mm256_setzero_ps(), _CMP_LT_OQ);
  const __m256 cdf = _mm256_blendv_ps(_mm256_sub_ps(_mm256_set1_ps(1.0f), tail), tail, negative);
  // exp(-x^2 / 2) of the exact square: times 1 - (what rounding x^2 / 2
  // lost), without which the tail would be off by up to |x^2 / 2| / 2 ulp.
  const __m256 exact_gaussian = _mm256_fnmadd_ps(gaussian, square_error, gaussian);
  const __m256 x_pdf =
      _mm256_mul_ps(_mm256_mul_ps(x, _mm256_set1_ps(0.39894228040143267794f)), exact_gaussian);
  return _mm256_mul_ps(grad, _mm256_add_ps(cdf, x_pdf));
}

// Note [AVX2 tanh-form gelu]
// gelu's tanh form x (1 + tanh(u)) / 2, u = sqrt(2 / pi) (x + 0.044715 x^3),
// is x sigmoid(2u), and its derivative s + 2 x s s' du with s = sigmoid(2u),
// s' = sigmoid(-2u) = 1 - s and du = sqrt(2 / pi) (1 + 3 * 0.044715 x^2):
// no 1 + tanh(u) or 1 - tanh(u)^2 to cancel in the tails (PyTorch's
// formula loses the negative tail's digits there, to 0 in float below
// x = -5). Both sigmoids come from one e = exp(-2|u|): 1 / (1 + e) and
// e / (1 + e).

// x sigmoid(2u) for 8 floats (Note [AVX2 tanh-form gelu]).
__attribute__((target("avx2,fma"), always_inline)) inline __m256 gelu_tanh8_avx2(__m256 x) {
  const __m256 k2 = _mm256_set1_ps(2.0f * 0.79788456080286535588f), cube = _mm256_set1_ps(0.044715f);
  const __m256 two_u = _mm256_mul_ps(k2, _mm256_fmadd_ps(_mm256_mul_ps(cube, _mm256_mul_ps(x, x)), x, x));
  return _mm256_mul_ps(x, sigmoid8_avx2(two_u));
}

// grad (s + 2 x s s' du) for 8 floats (Note [AVX2 tanh-form gelu]).
__attribute__((target("avx2,fma"), always_inline)) inline __m256 gelu_tanh_backward8_avx2(
    __m256 grad, __m256 x) {
  const __m256 sign_bit = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f);
  const __m256 k = _mm256_set1_ps(0.79788456080286535588f), cube = _mm256_set1_ps(0.044715f);
  const __m256 x_squared = _mm256_mul_ps(x, x);
  const __m256 two_u =
      _mm256_mul_ps(_mm256_add_ps(k, k), _mm256_fmadd_ps(_mm256_mul_ps(cube, x_squared), x, x));
  const __m256 e = exp8_avx2(_mm256_or_ps(two_u, sign_bit), _mm256_setzero_ps());  // exp(-|2u|)
  const __m256 inverse = _mm256_div_ps(one, _mm256_add_ps(one, e));
  const __m256 large = inverse, small = _mm256_mul_ps(e, inverse);  // sigmoid(|2u|), sigmoid(-|2u|)
  const __m256 negative = _mm256_cmp_ps(two_u, _mm256_setzero_ps(), _CMP_LT_OQ);
  const __m256 s = _mm256_blendv_ps(large, small, negative);
  const __m256 s_other = _mm256_blendv_ps(small, large, negative);
  const __m256 du = _mm256_mul_ps(k, _mm256_fmadd_ps(_mm256_set1_ps(3.0f * 0.044715f), x_squared, one));
  const __m256 right = _mm256_mul_ps(_mm256_mul_ps(_mm256_add_ps(x, x), s),
                                     _mm256_mul_ps(s_other, du));
  return _mm256_mul_ps(grad, _mm256_add_ps(s, right));
}

// out[i] = f(in[i]) over n contiguous floats, the tail through masked loads
// and stores; in and out may be the same array.
template <__m256 (*F)(__m256)>
__attribute__((target("avx2,fma"))) void map8_avx2(const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, F(_mm256_loadu_ps(in + i)));
  if (i < n) {
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n - i)),
                                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_maskstore_ps(out + i, mask, F(_mm256_maskload_ps(in + i, mask)));
  }
}

// out[i] = f(a[i], b[i]) over n contiguous floats, as map8_avx2.
template <__m256 (*F)(__m256, __m256)>
__attribute__((target("avx2,fma"))) void map8x2_avx2(const float* a, const float* b, float* out,
                                                     int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(out + i, F(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)));
  }
  if (i < n) {
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n - i)),
                                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_maskstore_ps(out + i, mask,
                        F(_mm256_maskload_ps(a + i, mask), _mm256_maskload_ps(b + i, mask)));
  }
}

}  // namespace torchlet::cpu
