#pragma once

// Gradient clipping (torch.nn.utils.clip_grad_norm_ and clip_grad_value_).

#include <vector>

#include "autograd/variable.h"

namespace torchlet::nn::utils {

/// Scales the gradients of `parameters` in place so that their joint
/// `norm_type`-norm (as if the gradients were one vector; infinity for the
/// max norm) is at most `max_norm`, multiplying each by
/// min(max_norm / (total + 1e-6), 1) as PyTorch 1.13 does. Parameters
/// without a gradient are skipped; without any, returns 0. Returns the total
/// norm before clipping, computed in the gradients' dtype on the first
/// gradient's device. A non-finite total is an error when
/// `error_if_nonfinite`; otherwise the gradients are scaled by it anyway.
double clip_grad_norm_(const std::vector<Variable>& parameters, double max_norm,
                       double norm_type = 2.0, bool error_if_nonfinite = false);
double clip_grad_norm_(const Variable& parameter, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);

/// Clamps every gradient of `parameters` into [-clip_value, clip_value], in
/// place; parameters without a gradient are skipped.
void clip_grad_value_(const std::vector<Variable>& parameters, double clip_value);
void clip_grad_value_(const Variable& parameter, double clip_value);

}  // namespace torchlet::nn::utils
