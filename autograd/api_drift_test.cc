// Note [Variable restates Tensor's API]
// Variable restates Tensor's method API with gradients, and the two drift
// apart when a Tensor overload or parameter gains no Variable twin (sort
// without `stable`, topk without `sorted`, add of a number without `alpha`
// were such drifts). Every method call a user writes on a Tensor is listed
// here once, as an expression over `self`, `other` (a Tensor on Tensor, a
// Variable on Variable) and `mask` (a bool Tensor on both); the test checks
// that each compiles on Tensor (so the list stays true) and on Variable.
// Adding a method to Tensor means adding its calls here.
#include <string>
#include <type_traits>
#include <vector>

#include "autograd/autograd.h"
#include "gtest/gtest.h"

namespace torchlet {
namespace {

struct Signature {
  std::string call;
  bool on_tensor;
  bool on_variable;
};

template <typename F>
Signature signature(const char* call, F) {
  return {call, std::is_invocable_v<F, Tensor&, const Tensor&, const Tensor&>,
          std::is_invocable_v<F, Variable&, const Variable&, const Tensor&>};
}

// The call, made SFINAE-friendly: ill-formed on a type means not invocable.
#define TORCHLET_SIGNATURE(...)                                                         \
  signature(#__VA_ARGS__, [](auto& self, const auto& other, const Tensor& mask)        \
                              -> decltype(__VA_ARGS__) { return __VA_ARGS__; })

std::vector<Signature> signatures() {
  return {
      // Metadata and conversions.
      TORCHLET_SIGNATURE(self.dim()), TORCHLET_SIGNATURE(self.sizes()),
      TORCHLET_SIGNATURE(self.size(0)), TORCHLET_SIGNATURE(self.numel()),
      TORCHLET_SIGNATURE(self.dtype()), TORCHLET_SIGNATURE(self.device()),
      TORCHLET_SIGNATURE(self.options()),
      TORCHLET_SIGNATURE(self.is_floating_point()), TORCHLET_SIGNATURE(self.template item<float>()),
      TORCHLET_SIGNATURE(self.to(kFloat64)), TORCHLET_SIGNATURE(self.to(Device(kCPU, 0))),
      TORCHLET_SIGNATURE(self.clone()), TORCHLET_SIGNATURE(self.contiguous()),
      TORCHLET_SIGNATURE(self.copy_(other)), TORCHLET_SIGNATURE(self.fill_(1)),
      TORCHLET_SIGNATURE(self.zero_()), TORCHLET_SIGNATURE(self.str()),
      // Views.
      TORCHLET_SIGNATURE(self.as_strided({2}, {1})), TORCHLET_SIGNATURE(self.as_strided({2}, {1}, 0)),
      TORCHLET_SIGNATURE(self.view({2, 2})), TORCHLET_SIGNATURE(self.view_as(other)),
      TORCHLET_SIGNATURE(self.reshape({4})), TORCHLET_SIGNATURE(self.reshape_as(other)),
      TORCHLET_SIGNATURE(self.permute({1, 0})), TORCHLET_SIGNATURE(self.transpose(0, 1)),
      TORCHLET_SIGNATURE(self.t()), TORCHLET_SIGNATURE(self.narrow(0, 0, 1)),
      TORCHLET_SIGNATURE(self.select(0, 1)), TORCHLET_SIGNATURE(self.slice(0, 0, 2, 1)),
      TORCHLET_SIGNATURE(self.unsqueeze(0)), TORCHLET_SIGNATURE(self.squeeze()),
      TORCHLET_SIGNATURE(self.squeeze(0)), TORCHLET_SIGNATURE(self.expand({2, 2})),
      TORCHLET_SIGNATURE(self.expand_as(other)), TORCHLET_SIGNATURE(self.flatten(0, 1)),
      TORCHLET_SIGNATURE(self.unflatten(0, {2, 2})), TORCHLET_SIGNATURE(self.chunk(2, 0)),
      TORCHLET_SIGNATURE(self.split(2, 0)), TORCHLET_SIGNATURE(self.split_with_sizes({1, 1}, 0)),
      TORCHLET_SIGNATURE(self.unbind(0)), TORCHLET_SIGNATURE(self[0]),
      TORCHLET_SIGNATURE(self.index({0})),
      // Elementwise with another operand.
      TORCHLET_SIGNATURE(self.add(other, 2)), TORCHLET_SIGNATURE(self.add(1.5, 2)),
      TORCHLET_SIGNATURE(self.sub(other, 2)), TORCHLET_SIGNATURE(self.sub(1.5, 2)),
      TORCHLET_SIGNATURE(self.mul(other)), TORCHLET_SIGNATURE(self.mul(2)),
      TORCHLET_SIGNATURE(self.div(other)), TORCHLET_SIGNATURE(self.div(2)),
      TORCHLET_SIGNATURE(self.pow(other)), TORCHLET_SIGNATURE(self.pow(2)),
      TORCHLET_SIGNATURE(self.maximum(other)), TORCHLET_SIGNATURE(self.minimum(other)),
      TORCHLET_SIGNATURE(self.floor_divide(other)), TORCHLET_SIGNATURE(self.floor_divide(2)),
      TORCHLET_SIGNATURE(self.remainder(other)), TORCHLET_SIGNATURE(self.remainder(2)),
      TORCHLET_SIGNATURE(self.fmod(other)), TORCHLET_SIGNATURE(self.fmod(2)),
      TORCHLET_SIGNATURE(self.atan2(other)),
      TORCHLET_SIGNATURE(self.add_(other, 2)), TORCHLET_SIGNATURE(self.add_(1.5, 2)),
      TORCHLET_SIGNATURE(self.sub_(other, 2)), TORCHLET_SIGNATURE(self.sub_(1.5, 2)),
      TORCHLET_SIGNATURE(self.mul_(other)), TORCHLET_SIGNATURE(self.mul_(2)),
      TORCHLET_SIGNATURE(self.div_(other)), TORCHLET_SIGNATURE(self.div_(2)),
      TORCHLET_SIGNATURE(self.pow_(2)),
      TORCHLET_SIGNATURE(self.floor_divide_(other)), TORCHLET_SIGNATURE(self.floor_divide_(2)),
      TORCHLET_SIGNATURE(self.remainder_(other)), TORCHLET_SIGNATURE(self.remainder_(2)),
      TORCHLET_SIGNATURE(self.fmod_(other)), TORCHLET_SIGNATURE(self.fmod_(2)),
      TORCHLET_SIGNATURE(self.atan2_(other)),
      TORCHLET_SIGNATURE(self.hypot(other)), TORCHLET_SIGNATURE(self.hypot_(other)),
      TORCHLET_SIGNATURE(self.logaddexp(other)), TORCHLET_SIGNATURE(self.logaddexp2(other)),
      TORCHLET_SIGNATURE(self.xlogy(other)), TORCHLET_SIGNATURE(self.xlogy(2)),
      TORCHLET_SIGNATURE(self.xlogy_(other)), TORCHLET_SIGNATURE(self.xlogy_(2)),
      TORCHLET_SIGNATURE(self.copysign(other)), TORCHLET_SIGNATURE(self.copysign(-1)),
      TORCHLET_SIGNATURE(self.copysign_(other)), TORCHLET_SIGNATURE(self.copysign_(-1)),
      TORCHLET_SIGNATURE(self.lerp(other, 0.5)), TORCHLET_SIGNATURE(self.lerp(other, other)),
      TORCHLET_SIGNATURE(self.lerp_(other, 0.5)), TORCHLET_SIGNATURE(self.lerp_(other, other)),
      TORCHLET_SIGNATURE(self.addcmul(other, other, 2)), TORCHLET_SIGNATURE(self.addcmul_(other, other, 2)),
      TORCHLET_SIGNATURE(self.addcdiv(other, other, 2)), TORCHLET_SIGNATURE(self.addcdiv_(other, other, 2)),
      // Unary.
      TORCHLET_SIGNATURE(self.neg()), TORCHLET_SIGNATURE(self.abs()), TORCHLET_SIGNATURE(self.sign()),
      TORCHLET_SIGNATURE(self.exp()), TORCHLET_SIGNATURE(self.erf()), TORCHLET_SIGNATURE(self.log()),
      TORCHLET_SIGNATURE(self.log1p()), TORCHLET_SIGNATURE(self.sqrt()),
      TORCHLET_SIGNATURE(self.rsqrt()), TORCHLET_SIGNATURE(self.sin()), TORCHLET_SIGNATURE(self.cos()),
      TORCHLET_SIGNATURE(self.relu()), TORCHLET_SIGNATURE(self.sigmoid()),
      TORCHLET_SIGNATURE(self.tanh()), TORCHLET_SIGNATURE(self.gelu("tanh")),
      TORCHLET_SIGNATURE(self.clamp(0, 1)), TORCHLET_SIGNATURE(self.clamp_min(0)),
      TORCHLET_SIGNATURE(self.clamp_max(1)), TORCHLET_SIGNATURE(self.floor()),
      TORCHLET_SIGNATURE(self.ceil()), TORCHLET_SIGNATURE(self.trunc()),
      TORCHLET_SIGNATURE(self.round()), TORCHLET_SIGNATURE(self.round(2)),
      TORCHLET_SIGNATURE(self.frac()), TORCHLET_SIGNATURE(self.nan_to_num(0.0, 1.0, -1.0)),
      TORCHLET_SIGNATURE(self.neg_()), TORCHLET_SIGNATURE(self.abs_()), TORCHLET_SIGNATURE(self.sign_()),
      TORCHLET_SIGNATURE(self.exp_()), TORCHLET_SIGNATURE(self.erf_()), TORCHLET_SIGNATURE(self.log_()),
      TORCHLET_SIGNATURE(self.log1p_()), TORCHLET_SIGNATURE(self.sqrt_()),
      TORCHLET_SIGNATURE(self.rsqrt_()), TORCHLET_SIGNATURE(self.sin_()),
      TORCHLET_SIGNATURE(self.cos_()), TORCHLET_SIGNATURE(self.relu_()),
      TORCHLET_SIGNATURE(self.sigmoid_()), TORCHLET_SIGNATURE(self.tanh_()),
      TORCHLET_SIGNATURE(self.clamp_(0, 1)), TORCHLET_SIGNATURE(self.floor_()),
      TORCHLET_SIGNATURE(self.ceil_()), TORCHLET_SIGNATURE(self.trunc_()),
      TORCHLET_SIGNATURE(self.round_(2)), TORCHLET_SIGNATURE(self.frac_()),
      TORCHLET_SIGNATURE(self.nan_to_num_(0.0, 1.0, -1.0)),
      TORCHLET_SIGNATURE(self.sinh()), TORCHLET_SIGNATURE(self.cosh()), TORCHLET_SIGNATURE(self.asin()),
      TORCHLET_SIGNATURE(self.acos()), TORCHLET_SIGNATURE(self.atan()), TORCHLET_SIGNATURE(self.asinh()),
      TORCHLET_SIGNATURE(self.acosh()), TORCHLET_SIGNATURE(self.atanh()),
      TORCHLET_SIGNATURE(self.expm1()), TORCHLET_SIGNATURE(self.log2()), TORCHLET_SIGNATURE(self.log10()),
      TORCHLET_SIGNATURE(self.exp2()), TORCHLET_SIGNATURE(self.erfc()), TORCHLET_SIGNATURE(self.erfinv()),
      TORCHLET_SIGNATURE(self.lgamma()), TORCHLET_SIGNATURE(self.digamma()),
      TORCHLET_SIGNATURE(self.sinh_()), TORCHLET_SIGNATURE(self.cosh_()), TORCHLET_SIGNATURE(self.asin_()),
      TORCHLET_SIGNATURE(self.acos_()), TORCHLET_SIGNATURE(self.atan_()), TORCHLET_SIGNATURE(self.asinh_()),
      TORCHLET_SIGNATURE(self.acosh_()), TORCHLET_SIGNATURE(self.atanh_()),
      TORCHLET_SIGNATURE(self.expm1_()), TORCHLET_SIGNATURE(self.log2_()), TORCHLET_SIGNATURE(self.log10_()),
      TORCHLET_SIGNATURE(self.exp2_()), TORCHLET_SIGNATURE(self.erfc_()), TORCHLET_SIGNATURE(self.erfinv_()),
      TORCHLET_SIGNATURE(self.lgamma_()), TORCHLET_SIGNATURE(self.digamma_()),
      // Comparisons, tests and masks.
      TORCHLET_SIGNATURE(self.eq(other)), TORCHLET_SIGNATURE(self.eq(1)),
      TORCHLET_SIGNATURE(self.ne(other)), TORCHLET_SIGNATURE(self.ne(1)),
      TORCHLET_SIGNATURE(self.lt(other)), TORCHLET_SIGNATURE(self.lt(1)),
      TORCHLET_SIGNATURE(self.le(other)), TORCHLET_SIGNATURE(self.le(1)),
      TORCHLET_SIGNATURE(self.gt(other)), TORCHLET_SIGNATURE(self.gt(1)),
      TORCHLET_SIGNATURE(self.ge(other)), TORCHLET_SIGNATURE(self.ge(1)),
      TORCHLET_SIGNATURE(self.isnan()), TORCHLET_SIGNATURE(self.isinf()),
      TORCHLET_SIGNATURE(self.isfinite()), TORCHLET_SIGNATURE(self.where(mask, other)),
      TORCHLET_SIGNATURE(self.isclose(other, 1e-3, 1e-4, true)),
      TORCHLET_SIGNATURE(self.allclose(other, 1e-3, 1e-4, true)), TORCHLET_SIGNATURE(self.equal(other)),
      TORCHLET_SIGNATURE(self.masked_fill(mask, 1)), TORCHLET_SIGNATURE(self.masked_fill_(mask, 1)),
      // Reductions.
      TORCHLET_SIGNATURE(self.sum()), TORCHLET_SIGNATURE(self.sum({0}, true)),
      TORCHLET_SIGNATURE(self.mean()), TORCHLET_SIGNATURE(self.mean({0}, true)),
      TORCHLET_SIGNATURE(self.prod()), TORCHLET_SIGNATURE(self.prod(0, true)),
      TORCHLET_SIGNATURE(self.max()), TORCHLET_SIGNATURE(self.max(0, true)),
      TORCHLET_SIGNATURE(self.min()), TORCHLET_SIGNATURE(self.min(0, true)),
      TORCHLET_SIGNATURE(self.amax({0}, true)), TORCHLET_SIGNATURE(self.amin({0}, true)),
      TORCHLET_SIGNATURE(self.argmax(0, true)), TORCHLET_SIGNATURE(self.argmin(0, true)),
      TORCHLET_SIGNATURE(self.var({0}, false, true)), TORCHLET_SIGNATURE(self.var(false)),
      TORCHLET_SIGNATURE(self.var(0)), TORCHLET_SIGNATURE(self.std({0}, false, true)),
      TORCHLET_SIGNATURE(self.std(false)), TORCHLET_SIGNATURE(self.std(0)),
      TORCHLET_SIGNATURE(self.norm()), TORCHLET_SIGNATURE(self.norm(1, {0}, true)),
      TORCHLET_SIGNATURE(self.logsumexp({0}, true)), TORCHLET_SIGNATURE(self.softmax(0)),
      TORCHLET_SIGNATURE(self.log_softmax(0)), TORCHLET_SIGNATURE(self.cumsum(0)),
      TORCHLET_SIGNATURE(self.cumprod(0)),
      TORCHLET_SIGNATURE(self.nansum({0}, true, kFloat64)),
      TORCHLET_SIGNATURE(self.nanmean({0}, true, kFloat64)),
      TORCHLET_SIGNATURE(self.aminmax(0, true)), TORCHLET_SIGNATURE(self.count_nonzero({0})),
      TORCHLET_SIGNATURE(self.median()), TORCHLET_SIGNATURE(self.median(0, true)),
      TORCHLET_SIGNATURE(self.nanmedian()), TORCHLET_SIGNATURE(self.nanmedian(0, true)),
      TORCHLET_SIGNATURE(self.quantile(mask, 0, true, "lower")),
      TORCHLET_SIGNATURE(self.quantile(0.5, 0, true, "lower")),
      TORCHLET_SIGNATURE(self.nanquantile(mask, 0, true, "lower")),
      TORCHLET_SIGNATURE(self.nanquantile(0.5, 0, true, "lower")),
      TORCHLET_SIGNATURE(self.cummax(0)), TORCHLET_SIGNATURE(self.cummin(0)),
      TORCHLET_SIGNATURE(self.logcumsumexp(0)),
      TORCHLET_SIGNATURE(self.unique_consecutive(true, true, 0)),
      TORCHLET_SIGNATURE(self.bincount(other, 2)), TORCHLET_SIGNATURE(self.histc(10, 0, 1)),
      // Sorting and selection.
      TORCHLET_SIGNATURE(self.sort(0, true, true)), TORCHLET_SIGNATURE(self.argsort(0, true)),
      TORCHLET_SIGNATURE(self.topk(1, 0, true, false)), TORCHLET_SIGNATURE(self.kthvalue(1, 0, true)),
      // Index ops and linear algebra.
      TORCHLET_SIGNATURE(self.index_select(0, mask)), TORCHLET_SIGNATURE(self.gather(0, mask)),
      TORCHLET_SIGNATURE(self.scatter(0, mask, other)), TORCHLET_SIGNATURE(self.scatter_(0, mask, other)),
      TORCHLET_SIGNATURE(self.scatter_add(0, mask, other)),
      TORCHLET_SIGNATURE(self.scatter_add_(0, mask, other)),
      TORCHLET_SIGNATURE(self.index_add(0, mask, other)),
      TORCHLET_SIGNATURE(self.index_add(0, mask, other, 2)),
      TORCHLET_SIGNATURE(self.index_add_(0, mask, other, 2)),
      TORCHLET_SIGNATURE(self.index_copy(0, mask, other)),
      TORCHLET_SIGNATURE(self.index_copy_(0, mask, other)),
      TORCHLET_SIGNATURE(self.index_fill(0, mask, 1)),
      TORCHLET_SIGNATURE(self.index_fill_(0, mask, 1)),
      TORCHLET_SIGNATURE(self.take_along_dim(mask)), TORCHLET_SIGNATURE(self.take_along_dim(mask, 0)),
      // Shape ops.
      TORCHLET_SIGNATURE(self.tril()), TORCHLET_SIGNATURE(self.tril(1)),
      TORCHLET_SIGNATURE(self.triu(-1)), TORCHLET_SIGNATURE(self.tril_(1)),
      TORCHLET_SIGNATURE(self.triu_(1)), TORCHLET_SIGNATURE(self.flip({0, 1})),
      TORCHLET_SIGNATURE(self.fliplr()), TORCHLET_SIGNATURE(self.flipud()),
      TORCHLET_SIGNATURE(self.roll({1, 2}, {0, 1})), TORCHLET_SIGNATURE(self.roll(1)),
      TORCHLET_SIGNATURE(self.roll(1, 0)), TORCHLET_SIGNATURE(self.rot90()),
      TORCHLET_SIGNATURE(self.rot90(2, {1, 0})), TORCHLET_SIGNATURE(self.diagonal()),
      TORCHLET_SIGNATURE(self.diagonal(1, 0, 1)), TORCHLET_SIGNATURE(self.diag()),
      TORCHLET_SIGNATURE(self.diag(1)), TORCHLET_SIGNATURE(self.diag_embed()),
      TORCHLET_SIGNATURE(self.diag_embed(1, 0, 2)), TORCHLET_SIGNATURE(self.trace()),
      TORCHLET_SIGNATURE(self.repeat({2, 2})), TORCHLET_SIGNATURE(self.tile({2})),
      TORCHLET_SIGNATURE(self.repeat_interleave(2)),
      TORCHLET_SIGNATURE(self.repeat_interleave(2, 0, 4)),
      TORCHLET_SIGNATURE(self.repeat_interleave(mask, 0, 4)),
      TORCHLET_SIGNATURE(self.movedim(0, 1)), TORCHLET_SIGNATURE(self.movedim({0, 1}, {1, 0})),
      TORCHLET_SIGNATURE(self.moveaxis(0, 1)), TORCHLET_SIGNATURE(self.moveaxis({0}, {1})),
      TORCHLET_SIGNATURE(self.masked_select(mask)), TORCHLET_SIGNATURE(self.take(mask)),
      TORCHLET_SIGNATURE(self.index_put_({0}, other)), TORCHLET_SIGNATURE(self.index_put_({0}, 1)),
      TORCHLET_SIGNATURE(self.mm(other)), TORCHLET_SIGNATURE(self.bmm(other)),
      TORCHLET_SIGNATURE(self.matmul(other)), TORCHLET_SIGNATURE(self.mv(other)),
      TORCHLET_SIGNATURE(self.dot(other)), TORCHLET_SIGNATURE(self.outer(other)),
      TORCHLET_SIGNATURE(self.cross(other)), TORCHLET_SIGNATURE(self.cross(other, 0)),
      TORCHLET_SIGNATURE(self.kron(other)),
      TORCHLET_SIGNATURE(self.det()), TORCHLET_SIGNATURE(self.logdet()),
      TORCHLET_SIGNATURE(self.slogdet()), TORCHLET_SIGNATURE(self.inverse()),
      TORCHLET_SIGNATURE(self.cholesky()), TORCHLET_SIGNATURE(self.cholesky(true)),
      TORCHLET_SIGNATURE(self.cholesky_solve(other)),
      TORCHLET_SIGNATURE(self.cholesky_solve(other, true)),
      TORCHLET_SIGNATURE(self.cholesky_inverse()), TORCHLET_SIGNATURE(self.cholesky_inverse(true)),
      TORCHLET_SIGNATURE(self.qr()), TORCHLET_SIGNATURE(self.qr(false)),
      TORCHLET_SIGNATURE(self.svd()), TORCHLET_SIGNATURE(self.svd(false, false)),
      TORCHLET_SIGNATURE(self.pinverse()), TORCHLET_SIGNATURE(self.pinverse(1e-10)),
      TORCHLET_SIGNATURE(self.matrix_power(2)), TORCHLET_SIGNATURE(self.matrix_exp()),
  };
}

#undef TORCHLET_SIGNATURE

TEST(ApiDriftTest, EveryListedCallCompilesOnTensor) {
  for (const Signature& s : signatures()) EXPECT_TRUE(s.on_tensor) << s.call;
}

TEST(ApiDriftTest, VariableHasEveryTensorCall) {
  for (const Signature& s : signatures()) EXPECT_TRUE(s.on_variable) << s.call;
}

// The detection itself: a call Variable lacks is reported, not silently
// accepted (Variable has no uniform_; Tensor does).
TEST(ApiDriftTest, DetectsACallVariableLacks) {
  auto uniform = [](auto& self, const auto&, const Tensor&) -> decltype(self.uniform_(0, 1)) {
    return self.uniform_(0, 1);
  };
  const Signature s = signature("self.uniform_(0, 1)", uniform);
  EXPECT_TRUE(s.on_tensor);
  EXPECT_FALSE(s.on_variable);
}

}  // namespace
}  // namespace torchlet
