#include "nn/linear.h"

#include <cmath>

#include "autograd/functions.h"
#include "nn/init.h"

namespace torchlet::nn {

LinearImpl::LinearImpl(int64_t in_features, int64_t out_features, bool bias)
    : in_features_(in_features), out_features_(out_features), has_bias_(bias) {
  TORCHLET_CHECK(in_features >= 0 && out_features >= 0,
                 "Linear: in_features and out_features must be non-negative, got ", in_features,
                 " and ", out_features);
  reset();
}

void LinearImpl::reset() {
  weight = register_parameter("weight", empty({out_features_, in_features_}));
  bias = register_parameter("bias", has_bias_ ? empty({out_features_}) : Tensor());
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (!bias.defined()) return;
  const double bound = in_features_ > 0 ? 1 / std::sqrt(static_cast<double>(in_features_)) : 0;
  init::uniform_(bias, -bound, bound);
}

Variable LinearImpl::forward(const Variable& input) {
  TORCHLET_CHECK(input.dim() >= 1 && input.size(-1) == in_features_,
                 "mat1 and mat2 shapes cannot be multiplied (",
                 input.dim() >= 1 ? input.numel() / std::max<int64_t>(input.size(-1), 1) : 1, "x",
                 input.dim() >= 1 ? input.size(-1) : input.numel(), " and ", in_features_, "x",
                 out_features_, ")");
  if (input.dim() == 2 && bias.defined()) return addmm(bias, input, weight.t());
  Variable output = matmul(input, weight.t());
  return bias.defined() ? output + bias : output;
}

std::string LinearImpl::extra_repr() const {
  return "in_features=" + std::to_string(in_features_) +
         ", out_features=" + std::to_string(out_features_) +
         ", bias=" + (bias.defined() ? "True" : "False");
}

}  // namespace torchlet::nn
