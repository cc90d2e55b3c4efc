#include "nn/functional/distance.h"

#include <algorithm>

namespace torchlet::nn::functional {
namespace {

// x clamped below at `min` in value only: the gradient passes to x as if it
// were not clamped (PyTorch's clamp_min_ under NoGradGuard).
Variable clamp_min_value_only(const Variable& x, double min) {
  const Tensor& data = x.data();
  if (!data.lt(min).any().item<bool>()) return x;
  return x + Variable(data.clamp_min(min).sub(data));
}

}  // namespace

Variable normalize(const Variable& input, double p, int64_t dim, double eps) {
  return input / input.norm(p, {dim}, /*keepdim=*/true).clamp_min(eps);
}

Variable cosine_similarity(const Variable& x1, const Variable& x2, int64_t dim, double eps) {
  const DType common = result_type(x1.data(), x2.data());
  TORCHLET_CHECK(is_floating_point(common),
                 "expected common dtype to be floating point, yet common dtype is ",
                 scalar_type_name(common));
  const SizeVec shape = broadcast_shapes(x1.sizes(), x2.sizes(), "cosine_similarity");
  const Variable a = x1.to(common).expand(shape), b = x2.to(common).expand(shape);
  // As scipy (and PyTorch 1.13): x / sqrt(sum(x * x)) rather than through
  // norm(), each factor normalized before the product.
  const Variable a_norm = clamp_min_value_only(a.pow(2).sum({dim}, true), eps * eps).sqrt();
  const Variable b_norm = clamp_min_value_only(b.pow(2).sum({dim}, true), eps * eps).sqrt();
  return ((a / a_norm) * (b / b_norm)).sum({dim});
}

Variable pairwise_distance(const Variable& x1, const Variable& x2, double p, double eps,
                           bool keepdim) {
  const int64_t innermost = std::max(x1.dim(), x2.dim()) - 1;
  return (x1 - x2 + eps).norm(p, {innermost}, keepdim);
}

}  // namespace torchlet::nn::functional
