#include "nn/linear.h"

#include <cmath>

#include "nn/functional/linear.h"
#include "nn/init.h"
#include "nn/repr.h"

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
  return functional::linear(input, weight, bias);
}

std::string LinearImpl::extra_repr() const {
  return "in_features=" + std::to_string(in_features_) +
         ", out_features=" + std::to_string(out_features_) +
         ", bias=" + detail::bool_repr(bias.defined());
}

BilinearImpl::BilinearImpl(int64_t in1_features, int64_t in2_features, int64_t out_features,
                           bool bias)
    : in1_features_(in1_features),
      in2_features_(in2_features),
      out_features_(out_features),
      has_bias_(bias) {
  TORCHLET_CHECK(in1_features >= 0 && in2_features >= 0 && out_features >= 0,
                 "Bilinear: in1_features, in2_features and out_features must be non-negative, "
                 "got ", in1_features, ", ", in2_features, " and ", out_features);
  reset();
}

void BilinearImpl::reset() {
  weight = register_parameter("weight", empty({out_features_, in1_features_, in2_features_}));
  bias = register_parameter("bias", has_bias_ ? empty({out_features_}) : Tensor());
  reset_parameters();
}

void BilinearImpl::reset_parameters() {
  const double bound =
      in1_features_ > 0 ? 1 / std::sqrt(static_cast<double>(in1_features_)) : 0;
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

Variable BilinearImpl::forward(const Variable& input1, const Variable& input2) {
  return functional::bilinear(input1, input2, weight, bias);
}

std::string BilinearImpl::extra_repr() const {
  return "in1_features=" + std::to_string(in1_features_) +
         ", in2_features=" + std::to_string(in2_features_) +
         ", out_features=" + std::to_string(out_features_) +
         ", bias=" + detail::bool_repr(bias.defined());
}

}  // namespace torchlet::nn
