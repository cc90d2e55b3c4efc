// Activations as compositions of differentiable Variable ops (gelu, relu,
// softmax and log_softmax are fused ops of autograd). Piecewise functions
// pick their branch with where(), whose gradient reaches only the branch
// taken, and clamp the other branch's argument so it never overflows.
#include "nn/functional/activation.h"

#include <string>
#include <vector>

#include "autograd/custom_function.h"
#include "autograd/functions.h"
#include "autograd/grad_mode.h"

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

// The input an in-place op computes from: a differentiable copy while a
// gradient is being recorded, so a backward that saved it (silu and mish
// multiply by the input) never sees the value the write overwrites. PyTorch
// saves a clone of self for such in-place ops too.
Variable old_value(const Variable& input, bool inplace) {
  return inplace && input.requires_grad() && is_grad_enabled() ? input.clone() : input;
}

// PyTorch's CPU kernels of these activations compute floating types only;
// `kernel` is the name its "not implemented" error gives.
void check_floating(const Variable& input, const char* kernel) {
  const Tensor& data = input.data();
  TORCHLET_CHECK(data.is_cuda() || data.is_floating_point(), "\"", kernel,
                 "\" not implemented for '", scalar_type_name(input.dtype()), "'");
}

// PyTorch's in-place leaky_relu_ and elu_ cannot differentiate through a
// negative slope (their backward reads the output, whose sign no longer
// tells the branch): the forward succeeds and the backward raises. Refused
// passes its input through a node whose backward throws that message.
struct Refused : autograd::Function<Refused> {
  static Variable forward(autograd::AutogradContext* ctx, const Variable& x, const char* message) {
    ctx->saved_data["message"] = std::string(message);
    return Variable(x.data().clone());
  }
  static variable_list backward(autograd::AutogradContext* ctx, variable_list) {
    detail::throw_error(ctx->get<std::string>("message"));
  }
};

Variable refuse_backward_if(bool refuse, const Variable& result, const char* message) {
  if (!refuse || !result.requires_grad() || !is_grad_enabled()) return result;
  return Refused::apply(result, message);
}

constexpr const char* kInplaceLeakyNegativeSlope =
    "In-place leakyReLu backward calculation is triggered with a negative slope which is not "
    "supported. This is caused by calling in-place forward function with a negative slope, please "
    "call out-of-place version instead. File an issue at https://github.com/pytorch/pytorch if you "
    "do require supporting in-place leakRelu backward calculation with negative slope";
constexpr const char* kInplaceEluNegativeAlpha =
    "In-place elu backward calculation is triggered with a negative slope which is not supported. "
    "This is caused by calling in-place forward function with a negative slope, please call "
    "out-of-place version instead.";

Variable elu_like(const Variable& input, double alpha, double input_scale, double output_scale) {
  check_floating(input, "elu_cpu");
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
  check_floating(input, "leaky_relu_cpu");
  const Variable result = refuse_backward_if(inplace && negative_slope < 0,
                                             input.where(input.gt(0), input * negative_slope),
                                             kInplaceLeakyNegativeSlope);
  return finish(input, result, inplace);
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
  const Variable result = elu_like(input, alpha, 1.0, 1.0);
  return finish(input, refuse_backward_if(inplace && alpha < 0, result, kInplaceEluNegativeAlpha),
                inplace);
}

Variable selu(const Variable& input, bool inplace) {
  return finish(input, elu_like(input, kSeluAlpha, 1.0, kSeluScale), inplace);
}

Variable celu(const Variable& input, double alpha, bool inplace) {
  TORCHLET_CHECK(alpha != 0, "ZeroDivisionError: alpha cannot be 0 for CELU");
  const Variable result = elu_like(input, alpha, 1.0 / alpha, 1.0);
  return finish(input, refuse_backward_if(inplace && alpha < 0, result, kInplaceEluNegativeAlpha),
                inplace);
}

Variable gelu(const Variable& input, const std::string& approximate) {
  TORCHLET_CHECK(approximate == "none" || approximate == "tanh",
                 "approximate argument must be either none or tanh.");
  check_floating(input, "GeluKernelImpl");
  return input.gelu(approximate);
}

Variable silu(const Variable& input, bool inplace) {
  check_floating(input, "silu_cpu");
  const Variable x = old_value(input, inplace);
  return finish(input, x * x.sigmoid(), inplace);
}

Variable mish(const Variable& input, bool inplace) {
  check_floating(input, "mish_cpu");
  const Variable x = old_value(input, inplace);
  return finish(input, x * softplus(x).tanh(), inplace);
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
  check_floating(input, "softplus_cpu");
  const Variable scaled = input * beta;
  const Variable smooth = scaled.clamp_max(threshold).exp().log1p() / beta;
  return smooth.where(scaled.le(threshold), input);
}

Variable softmax(const Variable& input, int64_t dim) { return input.softmax(dim); }
Variable log_softmax(const Variable& input, int64_t dim) { return input.log_softmax(dim); }
Variable softmin(const Variable& input, int64_t dim) { return (-input).softmax(dim); }

Variable hardswish(const Variable& input, bool inplace) {
  check_floating(input, "hardswish_cpu");
  // PyTorch's formula below 3; clamp passes the gradient at its lower bound,
  // which gives PyTorch's x / 3 + 1/2 = -1/2 at -3. From 3 on, x itself:
  // gradient 1 at 3, as PyTorch's vectorized kernel gives (its scalar loop,
  // which only handles a short tail, gives 3 / 3 + 1/2 there).
  const Variable x = old_value(input, inplace);
  return finish(input, (x * (x + 3.0).clamp(0.0, 6.0) / 6.0).where(x.lt(3.0), x), inplace);
}

Variable hardsigmoid(const Variable& input, bool inplace) {
  check_floating(input, "hardsigmoid_cpu");
  // The value as PyTorch computes it, plus a term that is 0 in value and
  // carries PyTorch's gradient: its float constant 1/6 strictly inside
  // (-3, 3), else 0.
  constexpr double kOneSixth = static_cast<double>(1.0f / 6.0f);
  const Tensor value = input.data().add(3.0).clamp(0.0, 6.0).div(6.0);
  const Tensor outside = input.le(-3.0).logical_or(input.ge(3.0));
  const Variable slope = (input - Variable(input.data())).masked_fill(outside, 0) * kOneSixth;
  return finish(input, slope + Variable(value), inplace);
}

Variable logsigmoid(const Variable& input) {
  check_floating(input, "log_sigmoid_cpu");
  // PyTorch's min(x, 0) - log1p(exp(-|x|)), one branch per sign, each
  // clamped so its exp never overflows.
  const Variable below = input.clamp_max(0);
  const Variable above = input.clamp_min(0);
  return (below - below.exp().log1p()).where(input.lt(0), -(-above).exp().log1p());
}

Variable softsign(const Variable& input) { return input / (input.abs() + 1); }

Variable tanhshrink(const Variable& input) { return input - input.tanh(); }

Variable threshold(const Variable& input, double threshold, double value, bool inplace) {
  return finish(input, input.masked_fill(input.le(threshold), value), inplace);
}

Variable softshrink(const Variable& input, double lambd) {
  TORCHLET_CHECK(lambd >= 0, "lambda must be greater or equal to 0, but found to be ", lambd,
                 ".");
  check_floating(input, "softshrink_cpu");
  // 0 on [-lambd, lambd] (and for nan, as PyTorch).
  const Variable low = (input + lambd).masked_fill(input.lt(-lambd).logical_not(), 0);
  return (input - lambd).where(input.gt(lambd), low);
}

Variable hardshrink(const Variable& input, double lambd) {
  check_floating(input, "hardshrink_cpu");
  return input.masked_fill(input.ge(-lambd).logical_and(input.le(lambd)), 0);
}

Variable glu(const Variable& input, int64_t dim) {
  TORCHLET_CHECK(input.dim() > 0, "glu does not support scalars because halving size must be even");
  const int64_t d = wrap_dim(dim, input.dim(), "glu");
  const int64_t size = input.size(d);
  TORCHLET_CHECK(size % 2 == 0, "Halving dimension must be even, but dimension ", d, " is size ",
                 size);
  check_floating(input, "glu_cpu");
  const std::vector<Variable> halves = input.chunk(2, d);
  return halves[0] * halves[1].sigmoid();
}

}  // namespace torchlet::nn::functional
