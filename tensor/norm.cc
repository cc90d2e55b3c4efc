// Argument checks and layout for the normalization kernels: the input is
// brought to a contiguous [N, C, S] for the loops in cpu/norm_kernels.cc.
#include "tensor/norm.h"

#include "tensor/cpu/norm_kernels.h"
#include "tensor/factories.h"
#include "tensor/op_utils.h"

namespace torchlet {
namespace {

// A per-channel operand: [C] elements (any shape, as PyTorch), input's
// dtype and device.
void check_channel_operand(const Tensor& input, const Tensor& t, const char* name) {
  if (!t.defined()) return;
  check_same_device("batch_norm", input, t);
  TORCHLET_CHECK(t.dtype() == input.dtype(),
                 "mixed dtype (CPU): expect parameter to have scalar type of ",
                 scalar_type_name(input.dtype()));
  TORCHLET_CHECK(t.numel() == input.size(1), name, " should contain ", input.size(1),
                 " elements not ", t.numel());
}

void check_batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                      const Tensor& running_mean, const Tensor& running_var, bool training) {
  check_defined("batch_norm", input);
  TORCHLET_CHECK(input.is_floating_point(), "\"batch_norm\" not implemented for '",
                 scalar_type_name(input.dtype()), "'");
  input.size(1);  // PyTorch's "Dimension out of range" for fewer than 2 dims
  check_channel_operand(input, running_mean, "running_mean");
  check_channel_operand(input, running_var, "running_var");
  check_channel_operand(input, weight, "weight");
  check_channel_operand(input, bias, "bias");
  if (training) return;
  TORCHLET_CHECK(running_mean.defined(), "running_mean must be defined in evaluation mode");
  TORCHLET_CHECK(running_var.defined(), "running_var must be defined in evaluation mode");
}

// A running statistic as a [C] view of its own storage, so the update is
// written where every other handle of it sees it.
Tensor running_view(const Tensor& running) {
  if (!running.defined()) return running;
  Tensor flat = running.dim() == 1 ? running : running.view({-1});
  check_no_internal_overlap("batch_norm", flat);
  return flat;
}

Tensor flat(const Tensor& t) { return t.defined() ? t.contiguous().view({-1}) : t; }

// input as a contiguous [N, C, S].
Tensor channel_layout(const Tensor& input) {
  int64_t inner = 1;
  for (int64_t d = 2; d < input.dim(); ++d) inner *= input.size(d);
  return input.contiguous().view({input.size(0), input.size(1), inner});
}

// [C] as [1, C, 1], to broadcast over a channel layout.
Tensor per_channel(const Tensor& t) { return t.view({1, -1, 1}); }

// Note [Composite CUDA normalization]
// On a GPU, batch and layer norm are composed of the CUDA reductions and
// elementwise kernels (a few more passes over the data than the fused CPU
// loops), with the CPU kernels' formulas: biased batch variance for the
// normalization, unbiased (n / (n - 1), inf for one value) for the running
// variance, and the same gradient expressions.
void batch_norm_forward_composite(BatchNormForward& f, const Tensor& input, const Tensor& weight,
                                  const Tensor& bias, const Tensor& update_mean,
                                  const Tensor& update_var, bool training, double momentum,
                                  double eps) {
  const Tensor x = channel_layout(input);
  if (training) {
    const Tensor mean = x.mean({0, 2});
    const Tensor var = x.var({0, 2}, /*unbiased=*/false);
    f.mean.copy_(mean);
    f.invstd.copy_(var.add(eps).rsqrt());
    const double count = static_cast<double>(x.size(0) * x.size(2));
    if (update_mean.defined()) {
      Tensor m = update_mean;
      m.mul_(1 - momentum).add_(mean, momentum);
    }
    if (update_var.defined()) {
      Tensor v = update_var;
      v.mul_(1 - momentum).add_(var.mul(count / (count - 1)), momentum);
    }
  }
  Tensor y = x.sub(per_channel(f.mean)).mul(per_channel(f.invstd));
  if (weight.defined()) y = y.mul(per_channel(weight));
  if (bias.defined()) y = y.add(per_channel(bias));
  Tensor out = f.output;
  out.copy_(y.view(input.sizes()));
}

void batch_norm_backward_composite(BatchNormBackward& b, const Tensor& grad_out,
                                   const Tensor& input, const Tensor& mean, const Tensor& invstd,
                                   const Tensor& weight, bool training) {
  const Tensor g = channel_layout(grad_out.to(input.dtype()).expand(input.sizes()));
  const Tensor x = channel_layout(input);
  const Tensor xmu = x.sub(per_channel(mean));
  const Tensor sum_g = g.sum({0, 2});
  const Tensor sum_g_xmu = g.mul(xmu).sum({0, 2});
  if (b.grad_weight.defined()) b.grad_weight.copy_(sum_g_xmu.mul(invstd));
  if (b.grad_bias.defined()) b.grad_bias.copy_(sum_g);
  if (!b.grad_input.defined()) return;
  const Tensor a = weight.defined() ? invstd.mul(weight) : invstd;
  Tensor dx = g.mul(per_channel(a));
  if (training) {
    const double count = static_cast<double>(x.size(0) * x.size(2));
    // dx = a * (g - sum_g / M - (x - mean) * invstd^2 * sum_g_xmu / M).
    dx = dx.sub(per_channel(a.mul(sum_g).div(count)))
             .sub(xmu.mul(per_channel(a.mul(invstd).mul(invstd).mul(sum_g_xmu).div(count))));
  }
  b.grad_input.copy_(dx.view(input.sizes()));
}

}  // namespace

BatchNormForward batch_norm_forward(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                    const Tensor& running_mean, const Tensor& running_var,
                                    bool training, double momentum, double eps) {
  check_batch_norm(input, weight, bias, running_mean, running_var, training);
  const int64_t channels = input.size(1);
  const TensorOptions options = input.options();
  BatchNormForward f;
  f.output = empty(input.sizes(), options);
  if (training && input.numel() == 0) {
    f.mean = zeros({channels}, options);
    f.invstd = zeros({channels}, options);
    return f;
  }
  if (training) {
    f.mean = empty({channels}, options);
    f.invstd = empty({channels}, options);
  } else {
    f.mean = flat(running_mean).clone();
    f.invstd = flat(running_var).add(eps).rsqrt();
  }
  const Tensor update_mean = training ? running_view(running_mean) : Tensor();
  const Tensor update_var = training ? running_view(running_var) : Tensor();
  if (input.is_cuda()) {
    batch_norm_forward_composite(f, input, flat(weight), flat(bias), update_mean, update_var,
                                 training, momentum, eps);
  } else {
    cpu::batch_norm_channels(channel_layout(f.output), f.mean, f.invstd, channel_layout(input),
                           flat(weight), flat(bias), update_mean, update_var, training, momentum,
                           eps);
  }
  if (update_mean.defined()) update_mean.bump_version();
  if (update_var.defined()) update_var.bump_version();
  return f;
}

BatchNormBackward batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                      const Tensor& weight, const Tensor& mean,
                                      const Tensor& invstd, bool training,
                                      std::array<bool, 3> output_mask) {
  check_batch_norm(input, weight, Tensor(), mean, invstd, /*training=*/true);
  const int64_t channels = input.size(1);
  const TensorOptions options = input.options();
  BatchNormBackward b;
  if (output_mask[0]) b.grad_input = empty(input.sizes(), options);
  if (output_mask[1]) b.grad_weight = empty({channels}, options);
  if (output_mask[2]) b.grad_bias = empty({channels}, options);
  if (input.is_cuda()) {
    batch_norm_backward_composite(b, grad_out, input, flat(mean), flat(invstd), flat(weight),
                                  training);
    return b;
  }
  cpu::batch_norm_backward_channels(
      b.grad_input.defined() ? channel_layout(b.grad_input) : Tensor(), b.grad_weight, b.grad_bias,
      channel_layout(grad_out.to(input.dtype()).expand(input.sizes())), channel_layout(input),
      flat(mean), flat(invstd), flat(weight), training);
  return b;
}

}  // namespace torchlet
