// Activations as compositions of differentiable Variable ops (gelu, relu,
// softmax and log_softmax are fused ops of autograd). Piecewise functions
// pick their branch with where(), whose gradient reaches only the branch
// taken, and clamp the other branch's argument so it never overflows.
#include "nn/functional/activation.h"

#include "autograd/functions.h"

namespace torchlet::nn::functional {
namespace {

// PyTorch's SELU constants.
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

// `result` written into input when inplace, else result.
Variable finish(const Variable& input, const Variable& result, bool inplace) {
  if (!inplace) return result;
  Variable out = input;
  out.copy_(result);
  return out;
}

Variable elu_like(const Variable& input, double alpha, double input_scale, double output_scale) {
  const Variable negative = ((input.clamp_max(0) * input_scale).exp() - 1.0) * alpha;
  const Variable out = input.where(input.gt(0), negative);
  return output_scale == 1.0 ? out : out * output_scale;
}

}  // namespace

Variable relu(const Variable& input, bool inplace) {
  if (!inplace) return input.relu();
  Variable out = input;
  out.relu_();
  return out;
}

Variable relu6(const Variable& input, bool inplace) { return hardtanh(input, 0.0, 6.0, inplace); }

Variable leaky_relu(const Variable& input, double negative_slope, bool inplace) {
  return finish(input, input.where(input.gt(0), input * negative_slope), inplace);
}

Variable prelu(const Variable& input, const Variable& weight) {
  TORCHLET_CHECK(weight.dim() <= 1, "prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = ",
                 weight.dim());
  SizeVec shape;
  if (weight.numel() != 1) {
    TORCHLET_CHECK(input.dim() > 0, "Not allow zero-dim input tensor.");
    const int64_t channels = input.dim() > 1 ? input.size(1) : 1;
    TORCHLET_CHECK(channels == weight.numel(),
                   "Mismatch of parameter numbers and input channel size. Found parameter numbers = ",
                   weight.numel(), " and channel size = ", channels, ".");
    shape.push_back(channels);
    for (int64_t d = 2; d < input.dim(); ++d) shape.push_back(1);
  }
  return input.where(input.gt(0), input * weight.reshape(shape));
}

Variable elu(const Variable& input, double alpha, bool inplace) {
  return finish(input, elu_like(input, alpha, 1.0, 1.0), inplace);
}

Variable selu(const Variable& input, bool inplace) {
  return finish(input, elu_like(input, kSeluAlpha, 1.0, kSeluScale), inplace);
}

Variable celu(const Variable& input, double alpha, bool inplace) {
  TORCHLET_CHECK(alpha != 0, "ZeroDivisionError: alpha cannot be 0 for CELU");
  return finish(input, elu_like(input, alpha, 1.0 / alpha, 1.0), inplace);
}

Variable gelu(const Variable& input, const std::string& approximate) {
  TORCHLET_CHECK(approximate == "none" || approximate == "tanh",
                 "approximate argument must be either none or tanh.");
  return input.gelu(approximate);
}

Variable silu(const Variable& input, bool inplace) {
  return finish(input, input * input.sigmoid(), inplace);
}

Variable mish(const Variable& input, bool inplace) {
  return finish(input, input * softplus(input).tanh(), inplace);
}

Variable sigmoid(const Variable& input) { return input.sigmoid(); }
Variable tanh(const Variable& input) { return input.tanh(); }

Variable hardtanh(const Variable& input, double min_val, double max_val, bool inplace) {
  // Inside the open interval the input itself (gradient 1); elsewhere the
  // clamped value as a constant (gradient 0, at the bounds too).
  const Tensor inside = input.gt(min_val).logical_and(input.lt(max_val));
  const Variable clamped = Variable(input.data().clamp(min_val, max_val));
  return finish(input, input.where(inside, clamped), inplace);
}

Variable softplus(const Variable& input, double beta, double threshold) {
  const Variable scaled = input * beta;
  const Variable smooth = scaled.clamp_max(threshold).exp().log1p() / beta;
  return smooth.where(scaled.le(threshold), input);
}

Variable softmax(const Variable& input, int64_t dim) { return input.softmax(dim); }
Variable log_softmax(const Variable& input, int64_t dim) { return input.log_softmax(dim); }

}  // namespace torchlet::nn::functional
