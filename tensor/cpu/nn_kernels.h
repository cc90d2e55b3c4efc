#pragma once

// CPU loops of the fused nn kernels (tensor/nn_kernels.h validates and lays
// out their arguments). Rows are contiguous; weights are [C] or undefined.

#include <cstdint>

#include "tensor/tensor_body.h"

namespace torchlet::cpu {

/// One pass over class-index targets [R]: the first that is neither in
/// [0, classes) nor ignore_index (if any), and the summed weight of the
/// targets kept (their count without weight).
struct TargetScan {
  bool all_valid = true;
  int64_t first_invalid = 0;
  double total_weight = 0;
};
TargetScan scan_targets(const Tensor& target, const Tensor& weight, int64_t classes,
                        int64_t ignore_index);

/// For each row r of input [R, C]: probs[r] = softmax(input[r]) and
/// loss[r] = the cross-entropy of target[r] (0 where it is ignore_index).
void cross_entropy_rows(const Tensor& loss, const Tensor& probs, const Tensor& input,
                        const Tensor& target, const Tensor& weight, int64_t ignore_index,
                        double label_smoothing);
/// grad_input[r] = grad_loss[r] * scale * d loss[r] / d input[r], from probs.
void cross_entropy_backward_rows(const Tensor& grad_input, const Tensor& grad_loss, double scale,
                                 const Tensor& probs, const Tensor& target, const Tensor& weight,
                                 int64_t ignore_index, double label_smoothing);

/// out[r] = (input[r] - mean[r]) * rstd[r] * weight + bias over rows [R, N].
void layer_norm_rows(const Tensor& out, const Tensor& mean, const Tensor& rstd,
                     const Tensor& input, const Tensor& weight, const Tensor& bias, double eps);
/// Gradients of layer_norm_rows; grad_weight and grad_bias are filled when
/// defined.
void layer_norm_backward_rows(const Tensor& grad_input, const Tensor& grad_weight,
                              const Tensor& grad_bias, const Tensor& grad_out,
                              const Tensor& input, const Tensor& mean, const Tensor& rstd,
                              const Tensor& weight);

/// Rows `rows` (distinct) of weight [E, D] with norm above max_norm are
/// scaled to max_norm.
void renorm_rows(const Tensor& weight, const Tensor& rows, double max_norm, double norm_type);

}  // namespace torchlet::cpu
