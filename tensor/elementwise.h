#pragma once

#include <optional>
#include <string>

#include "tensor/tensor_body.h"

namespace torchlet {

// Elementwise operations with broadcasting and PyTorch's type promotion.
// Each has a method form on Tensor (`a.add(b)`) and most an operator.

Tensor add(const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor add(const Tensor& a, Scalar b, Scalar alpha = 1);
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor sub(const Tensor& a, Scalar b, Scalar alpha = 1);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, Scalar b);
/// True division: integer inputs give float32.
Tensor div(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, Scalar b);
Tensor pow(const Tensor& base, const Tensor& exponent);
Tensor pow(const Tensor& base, Scalar exponent);
Tensor pow(Scalar base, const Tensor& exponent);
/// Elementwise max/min; NaN propagates.
Tensor maximum(const Tensor& a, const Tensor& b);
/// `grad` where `self` > `threshold`, else 0: the gradient of relu and
/// threshold, in one pass.
Tensor threshold_backward(const Tensor& grad, const Tensor& self, Scalar threshold);
/// gelu's input gradient, grad * gelu'(self), in one pass (PyTorch's
/// aten::gelu_backward); approximate is "none" or "tanh", as for gelu.
Tensor gelu_backward(const Tensor& grad, const Tensor& self,
                     const std::string& approximate = "none");
Tensor minimum(const Tensor& a, const Tensor& b);
/// Division rounded toward -inf (Python's `//`). Integer division by zero
/// throws; bool is refused.
Tensor floor_divide(const Tensor& a, const Tensor& b);
Tensor floor_divide(const Tensor& a, Scalar b);
/// The remainder with the divisor's sign (Python's `%`): a - floor(a / b) * b.
Tensor remainder(const Tensor& a, const Tensor& b);
Tensor remainder(const Tensor& a, Scalar b);
Tensor remainder(Scalar a, const Tensor& b);
/// The remainder with the dividend's sign (C's fmod): a - trunc(a / b) * b.
Tensor fmod(const Tensor& a, const Tensor& b);
Tensor fmod(const Tensor& a, Scalar b);
/// The angle of (b, a) in (-pi, pi]; integer inputs give float32.
Tensor atan2(const Tensor& a, const Tensor& b);

/// sqrt(a^2 + b^2) without undue overflow; floating dtypes only.
Tensor hypot(const Tensor& a, const Tensor& b);
/// log(exp(a) + exp(b)) and log2(2^a + 2^b), stable; floating dtypes only.
Tensor logaddexp(const Tensor& a, const Tensor& b);
Tensor logaddexp2(const Tensor& a, const Tensor& b);
/// a * log(b), 0 where a == 0 unless b is NaN; integer inputs give float32.
Tensor xlogy(const Tensor& a, const Tensor& b);
Tensor xlogy(const Tensor& a, Scalar b);
Tensor xlogy(Scalar a, const Tensor& b);
/// |a| with the sign of b (-0.0 counts as negative); integer inputs give
/// float32.
Tensor copysign(const Tensor& a, const Tensor& b);
Tensor copysign(const Tensor& a, Scalar b);
/// start + weight * (end - start), from the nearer end (PyTorch's form);
/// start, end and a tensor weight share one floating dtype and broadcast.
Tensor lerp(const Tensor& start, const Tensor& end, Scalar weight);
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight);
/// self + value * tensor1 * tensor2, promoted over the three tensors.
Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,
               Scalar value = 1);
/// self + value * tensor1 / tensor2; integer tensor1 and tensor2 are refused.
Tensor addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,
               Scalar value = 1);
/// |a - b| <= atol + rtol * |b|, or a == b (NaN == NaN with `equal_nan`);
/// a and b of one dtype.
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-05, double atol = 1e-08,
               bool equal_nan = false);
/// isclose everywhere.
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-05, double atol = 1e-08,
              bool equal_nan = false);
/// Same sizes and equal elements (NaN is never equal).
bool equal(const Tensor& a, const Tensor& b);

Tensor neg(const Tensor& t);
Tensor abs(const Tensor& t);
Tensor sign(const Tensor& t);
Tensor exp(const Tensor& t);
Tensor erf(const Tensor& t);
Tensor log(const Tensor& t);
Tensor log1p(const Tensor& t);
Tensor sqrt(const Tensor& t);
Tensor rsqrt(const Tensor& t);
Tensor sin(const Tensor& t);
Tensor cos(const Tensor& t);
Tensor relu(const Tensor& t);
Tensor sigmoid(const Tensor& t);
Tensor tanh(const Tensor& t);
// Floating math: integer inputs give float32.
Tensor sinh(const Tensor& t);
Tensor cosh(const Tensor& t);
Tensor asin(const Tensor& t);
Tensor acos(const Tensor& t);
Tensor atan(const Tensor& t);
Tensor asinh(const Tensor& t);
Tensor acosh(const Tensor& t);
Tensor atanh(const Tensor& t);
Tensor expm1(const Tensor& t);
Tensor log2(const Tensor& t);
Tensor log10(const Tensor& t);
Tensor exp2(const Tensor& t);
Tensor erfc(const Tensor& t);
Tensor erfinv(const Tensor& t);
Tensor lgamma(const Tensor& t);
/// d/dx lgamma(x): -inf at +0, +inf at -0, NaN at negative integers.
Tensor digamma(const Tensor& t);
/// polygamma(1, t), the derivative of digamma (its gradient needs it).
Tensor trigamma(const Tensor& t);
Tensor gelu(const Tensor& t, const std::string& approximate = "none");
/// Rounding: integer inputs are already whole and come back as a copy; bool
/// is refused.
Tensor floor(const Tensor& t);
Tensor ceil(const Tensor& t);
Tensor trunc(const Tensor& t);
/// Half to even; with `decimals`, to that many decimal places (negative:
/// to tens, hundreds, ...; floating dtypes only).
Tensor round(const Tensor& t, int64_t decimals = 0);
/// t - trunc(t); floating dtypes only.
Tensor frac(const Tensor& t);
/// Bool tests; integer elements are never NaN or infinite.
Tensor isnan(const Tensor& t);
Tensor isinf(const Tensor& t);
Tensor isfinite(const Tensor& t);
/// NaN, +inf and -inf replaced by `nan`, `posinf` and `neginf` (by default
/// 0 and the dtype's largest and lowest finite values); integers are copied.
Tensor nan_to_num(const Tensor& t, double nan = 0.0, std::optional<double> posinf = std::nullopt,
                  std::optional<double> neginf = std::nullopt);
Tensor clamp(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);

Tensor eq(const Tensor& a, const Tensor& b);
Tensor eq(const Tensor& a, Scalar b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, Scalar b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, Scalar b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, Scalar b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, Scalar b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, Scalar b);
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_not(const Tensor& t);

/// `a` where `condition` (a bool tensor) holds, else `b`; all three broadcast.
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& condition, const Tensor& a, Scalar b);
Tensor where(const Tensor& condition, Scalar a, const Tensor& b);
Tensor masked_fill(const Tensor& t, const Tensor& mask, Scalar value);
Tensor masked_fill(const Tensor& t, const Tensor& mask, const Tensor& value);

/// The dtype PyTorch's type promotion gives `a op b`.
DType result_type(const Tensor& a, const Tensor& b);
DType result_type(const Tensor& a, Scalar b);

}  // namespace torchlet
