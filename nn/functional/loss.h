#pragma once

// Loss functions (torch.nn.functional), with PyTorch 1.13's semantics and
// messages. `reduction` is "none" (per-element losses), "mean" or "sum";
// any other value is an error. An undefined Variable stands for an absent
// optional tensor (weight, pos_weight).

#include <cstdint>
#include <string>

#include "autograd/variable.h"

namespace torchlet::nn::functional {

// mse_loss, l1_loss, smooth_l1_loss and huber_loss broadcast input and
// target, warning (as PyTorch) when target's size differs from input's.

/// (input - target)^2.
Variable mse_loss(const Variable& input, const Variable& target,
                  const std::string& reduction = "mean");
/// |input - target|.
Variable l1_loss(const Variable& input, const Variable& target,
                 const std::string& reduction = "mean");
/// 0.5 * d^2 / beta where |d| < beta, else |d| - 0.5 * beta (d = input -
/// target); beta == 0 is |d| with PyTorch's gradient -1 at d == 0, beta < 0
/// an error.
Variable smooth_l1_loss(const Variable& input, const Variable& target,
                        const std::string& reduction = "mean", double beta = 1.0);
/// 0.5 * d^2 where |d| < delta, else delta * (|d| - 0.5 * delta); delta > 0.
Variable huber_loss(const Variable& input, const Variable& target,
                    const std::string& reduction = "mean", double delta = 1.0);

/// Cross-entropy of logits input ([C] or [N, C, d1, ...]). A target of
/// another shape holds int64 class indices ([] or [N, d1, ...]): log-softmax
/// and NLL run as one fused op, forward and backward, ignore_index targets
/// contribute nothing and "mean" divides by the summed weight of the others.
/// A target of input's shape holds class probabilities ("mean" divides by
/// the number of samples). weight [C] rescales each class; label_smoothing
/// in [0, 1] mixes the target with the uniform distribution.
Variable cross_entropy(const Variable& input, const Variable& target,
                       const Variable& weight = Variable(), int64_t ignore_index = -100,
                       const std::string& reduction = "mean", double label_smoothing = 0.0);
/// Negative log-likelihood of log-probabilities input ([C] or [N, C, d1,
/// ...]) at int64 class indices target ([] or [N, d1, ...]).
Variable nll_loss(const Variable& input, const Variable& target,
                  const Variable& weight = Variable(), int64_t ignore_index = -100,
                  const std::string& reduction = "mean");
/// -weight * (target * log(input) + (1 - target) * log(1 - input)), each
/// log clamped at -100; input in [0, 1] and of target's shape, weight
/// broadcastable to it.
Variable binary_cross_entropy(const Variable& input, const Variable& target,
                              const Variable& weight = Variable(),
                              const std::string& reduction = "mean");
/// binary_cross_entropy of sigmoid(input), in the numerically stable form;
/// pos_weight (broadcast along the last dim) weighs the positive term.
Variable binary_cross_entropy_with_logits(const Variable& input, const Variable& target,
                                          const Variable& weight = Variable(),
                                          const std::string& reduction = "mean",
                                          const Variable& pos_weight = Variable());
/// target * (log(target) - input) (0 where target is 0), input being
/// log-probabilities; with log_target, target is given as log-probabilities
/// too. reduction may also be "batchmean": the sum over input.size(0);
/// "mean" (the mean over all elements) warns as PyTorch does.
Variable kl_div(const Variable& input, const Variable& target,
                const std::string& reduction = "mean", bool log_target = false);

/// max(0, -target * (input1 - input2) + margin), all three broadcast
/// together; they must have as many dims.
Variable margin_ranking_loss(const Variable& input1, const Variable& input2,
                             const Variable& target, double margin = 0.0,
                             const std::string& reduction = "mean");
/// input where target is 1, max(0, margin - input) where it is -1 (both,
/// summed, at any other value); input and target broadcast.
Variable hinge_embedding_loss(const Variable& input, const Variable& target,
                              double margin = 1.0, const std::string& reduction = "mean");
/// log(1 + exp(-target * input)), of input's shape (target broadcasts to it).
Variable soft_margin_loss(const Variable& input, const Variable& target,
                          const std::string& reduction = "mean");
/// -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input)),
/// times weight, averaged over the last (class) dim: one loss per sample.
/// Reductions other than none/mean/sum are refused as "<r> is not valid".
Variable multilabel_soft_margin_loss(const Variable& input, const Variable& target,
                                     const Variable& weight = Variable(),
                                     const std::string& reduction = "mean");
/// 1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it
/// is -1 (0 elsewhere); cos along the last dim of 2-D inputs with a 1-D
/// target, or of 1-D inputs with a 0-D target, with 1e-12 added to each
/// squared magnitude.
Variable cosine_embedding_loss(const Variable& input1, const Variable& input2,
                               const Variable& target, double margin = 0.0,
                               const std::string& reduction = "mean");
/// max(0, margin + d(anchor, positive) - d(anchor, negative)), d the p-norm
/// of (x1 - x2 + eps) along the last dim; with swap, d(anchor, negative) is
/// replaced by d(positive, negative) where that is smaller. The inputs must
/// have as many dims.
Variable triplet_margin_loss(const Variable& anchor, const Variable& positive,
                             const Variable& negative, double margin = 1.0, double p = 2.0,
                             double eps = 1e-6, bool swap = false,
                             const std::string& reduction = "mean");
/// exp(input) - target * input (log_input), else input - target *
/// log(input + eps); full adds target * log(target) - target + 0.5 *
/// log(2 pi target) where target > 1. Refuses other reductions as "<r> is
/// not valid".
Variable poisson_nll_loss(const Variable& input, const Variable& target, bool log_input = true,
                          bool full = false, double eps = 1e-8,
                          const std::string& reduction = "mean");
/// 0.5 * (log(var) + (input - target)^2 / var) (+ 0.5 * log(2 pi) with
/// full), var clamped at eps (the clamp passing the gradient unchanged, as
/// PyTorch's no_grad clamp_). var has input's shape, or input's without the
/// last dim, or that with a last dim of 1; it must be >= 0. Refuses other
/// reductions as "<r> is not valid".
Variable gaussian_nll_loss(const Variable& input, const Variable& target, const Variable& var,
                           bool full = false, double eps = 1e-6,
                           const std::string& reduction = "mean");

}  // namespace torchlet::nn::functional
