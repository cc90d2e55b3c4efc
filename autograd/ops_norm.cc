// Differentiable forms of the normalization kernels. See Note [Fused
// backward, composite double backward] in autograd/ops_nn.cc.
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/norm_ops.h"
#include "autograd/op_helpers.h"
#include "tensor/norm.h"

namespace torchlet {

using autograd::OpNode;
using autograd::constant;

namespace {

// Saved-variable slots: the input, then the weight when defined.
enum Saved : size_t { kInput = 0, kWeight = 1 };

struct BatchNormState {
  // The batch statistics in training, the running ones in eval (per channel).
  Tensor mean;
  Tensor invstd;
  bool has_weight = false;
  bool training = false;
  double eps = 1e-5;
  bool release() {
    mean = invstd = Tensor();
    return true;
  }
};
using BatchNormNode = OpNode<BatchNormState>;

// Every dim of an [N, C, *] input but the channel dim.
std::vector<int64_t> non_channel_dims(int64_t ndim) {
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < ndim; ++d) dims.push_back(d);
  return dims;
}

// [1, C, 1, ...]: a per-channel tensor broadcast against the input.
SizeVec channel_shape(const Variable& input) {
  SizeVec shape(static_cast<size_t>(input.dim()), 1);
  shape[1] = input.size(1);
  return shape;
}

// The batch norm gradients as Variable formulas of the saved input and
// weight; in training the statistics are recomputed from the input so that
// they are differentiated too.
variable_list batch_norm_grad_formula(BatchNormNode& n, const Variable& g) {
  const BatchNormState& s = n.state;
  const Variable x = n.var(kInput);
  const std::vector<int64_t> dims = non_channel_dims(x.dim());
  const SizeVec shape = channel_shape(x);
  const bool training = s.training;
  Variable mean, invstd;
  if (training) {
    mean = x.mean(dims, true);
    invstd = (x.var(dims, false, true) + s.eps).rsqrt();
  } else {
    mean = constant(s.mean.view(shape));
    invstd = constant(s.invstd.view(shape));
  }
  const Variable xhat = (x - mean) * invstd;
  const Variable gw = s.has_weight ? g * n.var(kWeight).view(shape) : g;
  Variable dx;
  if (n.needs_input_grad(0)) {
    dx = training ? (gw - gw.mean(dims, true) - xhat * (gw * xhat).mean(dims, true)) * invstd
                  : gw * invstd;
  }
  return {dx, n.needs_input_grad(1) ? (g * xhat).sum(dims) : Variable(),
          n.needs_input_grad(2) ? g.sum(dims) : Variable()};
}

variable_list batch_norm_backward_formula(BatchNormNode& n, const variable_list& grads) {
  if (is_grad_enabled()) return batch_norm_grad_formula(n, grads[0]);
  const BatchNormState& s = n.state;
  const BatchNormBackward b = batch_norm_backward(
      grads[0].data(), n.var(kInput).data(), s.has_weight ? n.var(kWeight).data() : Tensor(),
      s.mean, s.invstd, s.training,
      {n.needs_input_grad(0), n.needs_input_grad(1), n.needs_input_grad(2)});
  const auto wrap = [](const Tensor& t) { return t.defined() ? constant(t) : Variable(); };
  return {wrap(b.grad_input), wrap(b.grad_weight), wrap(b.grad_bias)};
}

}  // namespace

Variable batch_norm(const Variable& input, const Variable& weight, const Variable& bias,
                    const Tensor& running_mean, const Tensor& running_var, bool training,
                    double momentum, double eps) {
  BatchNormForward f = batch_norm_forward(input.data(), weight.defined() ? weight.data() : Tensor(),
                                          bias.defined() ? bias.data() : Tensor(), running_mean,
                                          running_var, training, momentum, eps);
  return autograd::record("NativeBatchNormBackward0", batch_norm_backward_formula,
                          {&input, &weight, &bias}, std::move(f.output), [&](BatchNormNode& n) {
                            n.saved.emplace_back(input, false);
                            if (weight.defined()) n.saved.emplace_back(weight, false);
                            n.state = {std::move(f.mean), std::move(f.invstd), weight.defined(),
                                       training, eps};
                          });
}

}  // namespace torchlet
