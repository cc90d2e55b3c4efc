#include "nn/utils/clip_grad.h"

#include <cmath>

#include "autograd/grad_mode.h"
#include "nn/repr.h"

namespace torchlet::nn::utils {
namespace {

/// The joint norm of `grads`, as PyTorch: each gradient's norm on the first
/// gradient's device, then the norm of those (their max for the inf-norm).
Tensor total_norm(const std::vector<Tensor>& grads, double norm_type) {
  const Device device = grads.front().device();
  std::vector<Tensor> norms;
  norms.reserve(grads.size());
  const bool inf = std::isinf(norm_type) && norm_type > 0;
  for (const Tensor& g : grads) norms.push_back((inf ? g.abs().max() : g.norm(norm_type)).to(device));
  if (norms.size() == 1) return norms.front();
  return inf ? stack(norms).max() : stack(norms).norm(norm_type);
}

std::vector<Tensor> defined_grads(const std::vector<Variable>& parameters) {
  std::vector<Tensor> grads;
  for (const Variable& p : parameters) {
    if (p.grad().defined()) grads.push_back(p.grad().data());
  }
  return grads;
}

}  // namespace

double clip_grad_norm_(const std::vector<Variable>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  NoGradGuard no_grad;
  const std::vector<Tensor> grads = defined_grads(parameters);
  if (grads.empty()) return 0.0;
  const Tensor total = total_norm(grads, norm_type);
  const double value = total.item<double>();
  TORCHLET_CHECK(!error_if_nonfinite || std::isfinite(value), "The total norm of order ",
                 nn::detail::float_repr(norm_type),
                 " for gradients from `parameters` is non-finite, so it cannot be clipped. To "
                 "disable this error and scale the gradients by the non-finite norm anyway, set "
                 "`error_if_nonfinite=False`");
  const Tensor coef = (max_norm / (total + 1e-6)).clamp(std::nullopt, 1.0);
  for (Tensor g : grads) g.mul_(coef.to(g.device()));
  return value;
}

double clip_grad_norm_(const Variable& parameter, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Variable>{parameter}, max_norm, norm_type,
                         error_if_nonfinite);
}

void clip_grad_value_(const std::vector<Variable>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (Tensor g : defined_grads(parameters)) g.clamp_(-clip_value, clip_value);
}

void clip_grad_value_(const Variable& parameter, double clip_value) {
  clip_grad_value_(std::vector<Variable>{parameter}, clip_value);
}

}  // namespace torchlet::nn::utils
