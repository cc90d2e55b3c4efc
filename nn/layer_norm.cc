#include "nn/layer_norm.h"

#include "nn/functional/normalization.h"
#include "nn/init.h"
#include "nn/repr.h"

namespace torchlet::nn {

LayerNormImpl::LayerNormImpl(LayerNormOptions options) : options(std::move(options)) { reset(); }

void LayerNormImpl::reset() {
  const bool affine = options.elementwise_affine();
  weight = register_parameter("weight", affine ? torchlet::empty(options.normalized_shape()) : Tensor());
  bias = register_parameter("bias", affine ? torchlet::empty(options.normalized_shape()) : Tensor());
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  if (!options.elementwise_affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Variable LayerNormImpl::forward(const Variable& input) {
  return functional::layer_norm(input, options.normalized_shape(), weight, bias, options.eps());
}

std::string LayerNormImpl::extra_repr() const {
  return detail::tuple_repr(options.normalized_shape()) +
         ", eps=" + detail::float_repr(options.eps()) +
         ", elementwise_affine=" + detail::bool_repr(options.elementwise_affine());
}

}  // namespace torchlet::nn
