#include "tensor/optim_kernels.h"

#include <initializer_list>
#include <utility>

#include "tensor/cpu/optim_kernels.h"
#include "tensor/cuda/kernels.h"
#include "tensor/error.h"
#include "tensor/shape.h"

namespace torchlet {
namespace {

// Note [Fused optimizer updates]
// Each update is one CPU loop over the parameter's elements that reads the
// gradient and the state buffers and writes the parameter and the buffers,
// so a step streams every array once and allocates nothing. The loops need
// contiguous memory of one dtype; a non-contiguous parameter or buffer (rare:
// a view registered as a parameter) is updated through a contiguous copy
// that is then written back. Every tensor written has its version bumped.

struct Operand {
  const char* name;
  const Tensor* tensor;
};

void check_operands(const char* op, const Tensor& param, std::initializer_list<Operand> operands) {
  TORCHLET_CHECK(param.defined(), op, ": the parameter is undefined");
  TORCHLET_CHECK(param.is_floating_point(), op,
                 ": expected a floating-point parameter, got dtype ", param.dtype());
  for (const Operand& operand : operands) {
    const Tensor& t = *operand.tensor;
    TORCHLET_CHECK(t.defined(), op, ": ", operand.name, " is undefined");
    TORCHLET_CHECK(t.sizes() == param.sizes(), op, ": expected ", operand.name, " of shape ",
                   shape_str(param.sizes()), " like the parameter, got ", shape_str(t.sizes()));
    TORCHLET_CHECK(t.dtype() == param.dtype(), op, ": expected ", operand.name, " of dtype ",
                   param.dtype(), " like the parameter, got ", t.dtype());
    TORCHLET_CHECK(t.device() == param.device(), op, ": expected ", operand.name,
                   " on device ", param.device(), " like the parameter, got ", t.device());
  }
}

Tensor contiguous_or_undefined(const Tensor& t) {
  return t.defined() && !t.is_contiguous() ? t.contiguous() : t;
}

// Writes back the contiguous copies made for non-contiguous targets and bumps
// the version of every target.
void finish_writes(std::initializer_list<std::pair<const Tensor*, const Tensor*>> writes) {
  for (const auto& [target, written] : writes) {
    if (!target->defined() || !written->defined()) continue;
    if (!target->is_same(*written)) {
      Tensor handle = *target;
      handle.copy_(*written);
    } else {
      target->bump_version();
    }
  }
}

}  // namespace

void sgd_update_(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                 const SgdUpdate& options) {
  const bool uses_buffer = options.momentum != 0;
  if (uses_buffer) {
    check_operands("sgd_update_", param, {{"grad", &grad}, {"momentum_buffer", &momentum_buffer}});
  } else {
    check_operands("sgd_update_", param, {{"grad", &grad}});
  }
  const Tensor p = contiguous_or_undefined(param);
  const Tensor buf = uses_buffer ? contiguous_or_undefined(momentum_buffer) : Tensor();
  if (p.is_cuda()) {
    cuda::sgd_update(p, grad.contiguous(), buf, options);
  } else {
    cpu::sgd_update(p, grad.contiguous(), buf, options);
  }
  finish_writes({{&param, &p}, {&momentum_buffer, &buf}});
}

void adam_update_(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                  const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq,
                  const AdamUpdate& options) {
  if (options.amsgrad) {
    check_operands("adam_update_", param,
                   {{"grad", &grad}, {"exp_avg", &exp_avg}, {"exp_avg_sq", &exp_avg_sq},
                    {"max_exp_avg_sq", &max_exp_avg_sq}});
  } else {
    check_operands("adam_update_", param,
                   {{"grad", &grad}, {"exp_avg", &exp_avg}, {"exp_avg_sq", &exp_avg_sq}});
  }
  TORCHLET_CHECK(options.step >= 1, "adam_update_: expected step >= 1, got ", options.step);
  const Tensor p = contiguous_or_undefined(param);
  const Tensor m = contiguous_or_undefined(exp_avg);
  const Tensor v = contiguous_or_undefined(exp_avg_sq);
  const Tensor v_max = options.amsgrad ? contiguous_or_undefined(max_exp_avg_sq) : Tensor();
  if (p.is_cuda()) {
    cuda::adam_update(p, grad.contiguous(), m, v, v_max, options);
  } else {
    cpu::adam_update(p, grad.contiguous(), m, v, v_max, options);
  }
  finish_writes({{&param, &p}, {&exp_avg, &m}, {&exp_avg_sq, &v}, {&max_exp_avg_sq, &v_max}});
}

void rmsprop_update_(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                     const Tensor& grad_avg, const Tensor& momentum_buffer,
                     const RmspropUpdate& options) {
  check_operands("rmsprop_update_", param, {{"grad", &grad}, {"square_avg", &square_avg}});
  if (options.centered) check_operands("rmsprop_update_", param, {{"grad_avg", &grad_avg}});
  if (options.momentum > 0) {
    check_operands("rmsprop_update_", param, {{"momentum_buffer", &momentum_buffer}});
  }
  const Tensor p = contiguous_or_undefined(param);
  const Tensor sq = contiguous_or_undefined(square_avg);
  const Tensor avg = options.centered ? contiguous_or_undefined(grad_avg) : Tensor();
  const Tensor buf = options.momentum > 0 ? contiguous_or_undefined(momentum_buffer) : Tensor();
  if (p.is_cuda()) {
    cuda::rmsprop_update(p, grad.contiguous(), sq, avg, buf, options);
  } else {
    cpu::rmsprop_update(p, grad.contiguous(), sq, avg, buf, options);
  }
  finish_writes({{&param, &p}, {&square_avg, &sq}, {&grad_avg, &avg}, {&momentum_buffer, &buf}});
}

void adagrad_update_(const Tensor& param, const Tensor& grad, const Tensor& sum,
                     const AdagradUpdate& options) {
  check_operands("adagrad_update_", param, {{"grad", &grad}, {"sum", &sum}});
  const Tensor p = contiguous_or_undefined(param);
  const Tensor s = contiguous_or_undefined(sum);
  if (p.is_cuda()) {
    cuda::adagrad_update(p, grad.contiguous(), s, options);
  } else {
    cpu::adagrad_update(p, grad.contiguous(), s, options);
  }
  finish_writes({{&param, &p}, {&sum, &s}});
}

}  // namespace torchlet
