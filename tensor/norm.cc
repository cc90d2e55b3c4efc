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
  check_cpu_kernel("batch_norm", input);
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
  cpu::batch_norm_channels(channel_layout(f.output), f.mean, f.invstd, channel_layout(input),
                           flat(weight), flat(bias), update_mean, update_var, training, momentum,
                           eps);
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
  cpu::batch_norm_backward_channels(
      b.grad_input.defined() ? channel_layout(b.grad_input) : Tensor(), b.grad_weight, b.grad_bias,
      channel_layout(grad_out.to(input.dtype()).expand(input.sizes())), channel_layout(input),
      flat(mean), flat(invstd), flat(weight), training);
  return b;
}

}  // namespace torchlet
