#include "nn/functional/normalization.h"

#include "autograd/nn_ops.h"

namespace torchlet::nn::functional {

Variable layer_norm(const Variable& input, IntArrayRef normalized_shape, const Variable& weight,
                    const Variable& bias, double eps) {
  return torchlet::layer_norm(input, normalized_shape, weight, bias, eps);
}

}  // namespace torchlet::nn::functional
