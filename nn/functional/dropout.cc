#include "nn/functional/dropout.h"

namespace torchlet::nn::functional {

Variable dropout(const Variable& input, double p, bool training, bool inplace) {
  TORCHLET_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  if (!training) return input;
  const TensorOptions options = TensorOptions(input.dtype()).device(input.device());
  Tensor mask = bernoulli(input.sizes(), 1 - p, options);
  if (p < 1) mask.div_(1 - p);
  const Variable scale(mask);
  if (!inplace) return input * scale;
  Variable out = input;
  out.mul_(scale);
  return out;
}

}  // namespace torchlet::nn::functional
