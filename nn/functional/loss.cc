// Losses. Cross-entropy over class indices is one fused op and binary
// cross-entropy one op with PyTorch's gradient (autograd/nn_ops.h); the
// others are short compositions of differentiable Variable ops, whose
// gradients are PyTorch's formulas.
#include "nn/functional/loss.h"

#include <algorithm>
#include <cmath>

#include "autograd/grad_mode.h"
#include "autograd/nn_ops.h"
#include "nn/functional/activation.h"
#include "nn/functional/distance.h"
#include "tensor/nn_kernels.h"
#include "tensor/shape.h"
#include "tensor/warning.h"

namespace torchlet::nn::functional {
namespace {

Reduction parse_reduction(const std::string& reduction) {
  if (reduction == "none") return Reduction::kNone;
  if (reduction == "mean") return Reduction::kMean;
  TORCHLET_CHECK(reduction == "sum", reduction, " is not a valid value for reduction");
  return Reduction::kSum;
}

Variable reduce(const Variable& loss, const std::string& reduction) {
  switch (parse_reduction(reduction)) {
    case Reduction::kNone: return loss;
    case Reduction::kMean: return loss.mean();
    case Reduction::kSum: return loss.sum();
  }
  return loss;
}

// PyTorch's UserWarning of the regression losses, which broadcast target
// against input (then, or on error, carry on).
void warn_if_target_size_differs(const Variable& input, const Variable& target) {
  if (input.sizes() == target.sizes()) return;
  warn("Using a target size (torch.Size(" + shape_str(target.sizes()) +
       ")) that is different to the input size (torch.Size(" + shape_str(input.sizes()) +
       ")). This will likely lead to incorrect results due to broadcasting. Please ensure they "
       "have the same size.");
}

Tensor data_or_undefined(const Variable& v) { return v.defined() ? v.data() : Tensor(); }

int64_t class_dim(const Variable& input) { return input.dim() == 1 ? 0 : 1; }

// weight [C] shaped to broadcast along input's class dim.
Variable class_weight(const Variable& weight, const Variable& input) {
  SizeVec shape(static_cast<size_t>(input.dim()), 1);
  shape[static_cast<size_t>(class_dim(input))] = weight.numel();
  return weight.view(shape);
}

// The Python-side check of the losses PyTorch reduces in Python
// (multilabel_soft_margin_loss, poisson_nll_loss, gaussian_nll_loss).
void check_reduction_is_valid(const std::string& reduction) {
  TORCHLET_CHECK(reduction == "none" || reduction == "mean" || reduction == "sum", reduction,
                 " is not valid");
}

// A tensor of `like`'s shape, dtype and device, holding zeros.
Variable zeros_of(const Variable& like) { return Variable(zeros_like(like.data())); }

Variable cross_entropy_probabilities(const Variable& input, const Variable& target,
                                     const Variable& weight, Reduction reduction,
                                     double label_smoothing) {
  check_class_probabilities(input.data(), target.data(), data_or_undefined(weight),
                            label_smoothing);
  const int64_t dim = class_dim(input), classes = input.size(dim);
  Variable mixed = target;
  if (label_smoothing > 0) mixed = target * (1 - label_smoothing) + label_smoothing / classes;
  Variable terms = input.log_softmax(dim) * mixed;
  if (weight.defined()) terms = terms * class_weight(weight, input);
  switch (reduction) {
    case Reduction::kNone: return -terms.sum({dim});
    case Reduction::kSum: return -terms.sum();
    case Reduction::kMean: return -terms.sum() / static_cast<double>(input.numel() / classes);
  }
  return terms;
}

}  // namespace

Variable mse_loss(const Variable& input, const Variable& target, const std::string& reduction) {
  warn_if_target_size_differs(input, target);
  const Variable diff = input - target;
  return reduce(diff * diff, reduction);
}

Variable l1_loss(const Variable& input, const Variable& target, const std::string& reduction) {
  warn_if_target_size_differs(input, target);
  return reduce((input - target).abs(), reduction);
}

// PyTorch's order: the size warning, the broadcast, the reduction, beta.
Variable smooth_l1_loss(const Variable& input, const Variable& target,
                        const std::string& reduction, double beta) {
  warn_if_target_size_differs(input, target);
  const Variable diff = input - target, size = diff.abs();
  parse_reduction(reduction);
  TORCHLET_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  if (beta == 0) {
    // |d|, but with PyTorch's gradient -1 at d == 0 (its kernel's d <= -beta
    // branch), where abs's is 0; 0 - d keeps the loss +0 there.
    return reduce((0.0 - diff).where(diff.eq(0), size), reduction);
  }
  return reduce((diff * diff * (0.5 / beta)).where(size.lt(beta), size - 0.5 * beta), reduction);
}

Variable huber_loss(const Variable& input, const Variable& target, const std::string& reduction,
                    double delta) {
  warn_if_target_size_differs(input, target);
  const Variable diff = input - target, size = diff.abs();
  parse_reduction(reduction);
  TORCHLET_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
  return reduce((diff * diff * 0.5).where(size.lt(delta), (size - 0.5 * delta) * delta), reduction);
}

Variable cross_entropy(const Variable& input, const Variable& target, const Variable& weight,
                       int64_t ignore_index, const std::string& reduction, double label_smoothing) {
  const Reduction r = parse_reduction(reduction);
  if (input.sizes() == target.sizes()) {
    return cross_entropy_probabilities(input, target, weight, r, label_smoothing);
  }
  return cross_entropy_loss(input, target.data(), data_or_undefined(weight), r, ignore_index,
                            label_smoothing);
}

Variable nll_loss(const Variable& input, const Variable& target, const Variable& weight,
                  int64_t ignore_index, const std::string& reduction) {
  const Reduction r = parse_reduction(reduction);
  const Tensor t = target.data();
  check_class_indices(input.data(), t, data_or_undefined(weight), ignore_index);
  const int64_t dim = class_dim(input);
  const Tensor ignored = t.eq(ignore_index);
  const Tensor index = t.masked_fill(ignored, 0).unsqueeze(dim);
  const Tensor picked_weight =
      (weight.defined() ? weight.data().index_select(0, index.reshape({-1})).view(t.sizes())
                        : ones(t.sizes(), input.options()))
          .masked_fill(ignored, 0);
  // Ignored targets' losses are 0 and pass no gradient, even when "mean"
  // divides by a total weight of 0 (PyTorch: NaN loss, zero gradient there).
  const Variable loss =
      (-input.gather(dim, index).squeeze(dim) * Variable(picked_weight)).masked_fill(ignored, 0);
  switch (r) {
    case Reduction::kNone: return loss;
    case Reduction::kSum: return loss.sum();
    case Reduction::kMean: return loss.sum() / Variable(picked_weight.sum());
  }
  return loss;
}

// PyTorch's order: the reduction, the target's size, the weight broadcast
// against the target, the input's range, the broadcast weight's shape.
Variable binary_cross_entropy(const Variable& input, const Variable& target,
                              const Variable& weight, const std::string& reduction) {
  parse_reduction(reduction);
  TORCHLET_CHECK(input.sizes() == target.sizes(), "Using a target size (torch.Size(",
                 shape_str(target.sizes()), ")) that is different to the input size (torch.Size(",
                 shape_str(input.sizes()), ")) is deprecated. Please ensure they have the same size.");
  SizeVec weight_shape;
  if (weight.defined()) {
    weight_shape = broadcast_shapes(target.sizes(), weight.sizes(), "binary_cross_entropy");
  }
  TORCHLET_CHECK(!input.lt(0).logical_or(input.gt(1)).any().item<bool>(),
                 "all elements of input should be between 0 and 1");
  TORCHLET_CHECK(!weight.defined() || IntArrayRef(weight_shape) == input.sizes(),
                 "output with shape ", shape_str(input.sizes()),
                 " doesn't match the broadcast shape ", shape_str(weight_shape));
  return reduce(torchlet::binary_cross_entropy(input, target, data_or_undefined(weight)), reduction);
}

Variable binary_cross_entropy_with_logits(const Variable& input, const Variable& target,
                                          const Variable& weight, const std::string& reduction,
                                          const Variable& pos_weight) {
  TORCHLET_CHECK(input.sizes() == target.sizes(), "Target size (torch.Size(",
                 shape_str(target.sizes()), ")) must be the same as input size (torch.Size(",
                 shape_str(input.sizes()), "))");
  // (1 - t) * x + w_log * log(1 + exp(-x)), w_log = (pos_weight - 1) * t + 1.
  const Variable negative_log_sigmoid = softplus(-input);
  Variable loss = (1.0 - target) * input +
                  (pos_weight.defined() ? ((pos_weight - 1.0) * target + 1.0) * negative_log_sigmoid
                                        : negative_log_sigmoid);
  if (weight.defined()) loss = loss * weight;
  return reduce(loss, reduction);
}

Variable kl_div(const Variable& input, const Variable& target, const std::string& reduction,
                bool log_target) {
  if (reduction == "mean") {
    warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
         "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
         "'mean' will be changed to behave the same as 'batchmean' in the next major release.");
  }
  const bool batchmean = reduction == "batchmean";
  if (!batchmean) parse_reduction(reduction);
  const Variable loss = log_target
                            ? target.exp() * (target - input)
                            : (target * target.log()).masked_fill(target.eq(0), 0) - target * input;
  if (!batchmean) return reduce(loss, reduction);
  return input.dim() == 0 ? loss.sum() : loss.sum() / static_cast<double>(input.size(0));
}

Variable margin_ranking_loss(const Variable& input1, const Variable& input2,
                             const Variable& target, double margin,
                             const std::string& reduction) {
  parse_reduction(reduction);
  TORCHLET_CHECK(input1.dim() == input2.dim() && input1.dim() == target.dim(),
                 "margin_ranking_loss : All input tensors should have same dimension but got "
                 "sizes: input1: torch.Size(", shape_str(input1.sizes()), "), input2: torch.Size(",
                 shape_str(input2.sizes()), "), target: torch.Size(", shape_str(target.sizes()),
                 ") ");
  return reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction);
}

Variable hinge_embedding_loss(const Variable& input, const Variable& target, double margin,
                              const std::string& reduction) {
  parse_reduction(reduction);
  const Variable zeros = zeros_of(input);
  const Variable margin_clamp = (margin - input).clamp_min(0);
  return reduce(margin_clamp.where(target.ne(1), zeros) + input.where(target.ne(-1), zeros),
                reduction);
}

// PyTorch computes into a tensor of input's shape, in place: a target that
// broadcasts beyond it is refused.
Variable soft_margin_loss(const Variable& input, const Variable& target,
                          const std::string& reduction) {
  parse_reduction(reduction);
  const SizeVec shape = broadcast_shapes(input.sizes(), target.sizes(), "soft_margin_loss");
  TORCHLET_CHECK(IntArrayRef(shape) == input.sizes(), "output with shape ",
                 shape_str(input.sizes()), " doesn't match the broadcast shape ", shape_str(shape));
  return reduce((-input * target).exp().log1p(), reduction);
}

// PyTorch's order: the loss, then the reduction's check.
Variable multilabel_soft_margin_loss(const Variable& input, const Variable& target,
                                     const Variable& weight, const std::string& reduction) {
  Variable loss = -(target * logsigmoid(input) + (1.0 - target) * logsigmoid(-input));
  if (weight.defined()) loss = loss * weight;
  const int64_t class_dim = input.dim() - 1;
  loss = loss.sum({class_dim}) / static_cast<double>(input.size(class_dim));
  check_reduction_is_valid(reduction);
  return reduce(loss, reduction);
}

Variable cosine_embedding_loss(const Variable& input1, const Variable& input2,
                               const Variable& target, double margin,
                               const std::string& reduction) {
  parse_reduction(reduction);
  const int64_t target_dim = target.dim();
  TORCHLET_CHECK(target_dim == 1 || target_dim == 0,
                 "0D or 1D target tensor expected, multi-target not supported");
  if (target_dim == 1) {
    TORCHLET_CHECK(input1.dim() == 2 && input2.dim() == 2,
                   "1D target tensor expects 2D input tensors, but found inputs with sizes ",
                   shape_str(input1.sizes()), " and ", shape_str(input2.sizes()), ".");
  } else {
    TORCHLET_CHECK(input1.dim() == 1 && input2.dim() == 1,
                   "0D target tensor expects 1D input tensors, but found inputs with sizes ",
                   shape_str(input1.sizes()), " and ", shape_str(input2.sizes()), ".");
  }
  constexpr double kEpsilon = 1e-12;  // PyTorch's EPSILON (aten/src/ATen/native/Loss.cpp)
  const Variable prod_sum = (input1 * input2).sum({target_dim});
  const Variable mag_square1 = (input1 * input1).sum({target_dim}) + kEpsilon;
  const Variable mag_square2 = (input2 * input2).sum({target_dim}) + kEpsilon;
  const Variable cos = prod_sum / (mag_square1 * mag_square2).sqrt();
  const Variable zeros = zeros_of(cos);
  const Variable similar = (1.0 - cos).where(target.eq(1), zeros);
  const Variable dissimilar = (cos - margin).clamp_min(0).where(target.eq(-1), zeros);
  return reduce(similar + dissimilar, reduction);
}

Variable triplet_margin_loss(const Variable& anchor, const Variable& positive,
                             const Variable& negative, double margin, double p, double eps,
                             bool swap, const std::string& reduction) {
  parse_reduction(reduction);
  TORCHLET_CHECK(anchor.dim() == positive.dim() && positive.dim() == negative.dim(),
                 "All inputs should have same dimension but got ", anchor.dim(), "D, ",
                 positive.dim(), "D and ", negative.dim(), "D inputs.");
  const Variable dist_pos = pairwise_distance(anchor, positive, p, eps);
  Variable dist_neg = pairwise_distance(anchor, negative, p, eps);
  if (swap) dist_neg = dist_neg.minimum(pairwise_distance(positive, negative, p, eps));
  return reduce((margin + dist_pos - dist_neg).clamp_min(0), reduction);
}

Variable poisson_nll_loss(const Variable& input, const Variable& target, bool log_input,
                          bool full, double eps, const std::string& reduction) {
  check_reduction_is_valid(reduction);
  Variable loss = log_input ? input.exp() - target * input : input - target * (input + eps).log();
  if (full) {
    constexpr double kTwoPi = 2 * 3.14159265358979323846;
    const Variable stirling = target * target.log() - target + 0.5 * (kTwoPi * target).log();
    loss = loss + stirling.masked_fill(target.le(1), 0);
  }
  return reduce(loss, reduction);
}

// PyTorch's order: var's size, the reduction, var's sign.
Variable gaussian_nll_loss(const Variable& input, const Variable& target, const Variable& var,
                           bool full, double eps, const std::string& reduction) {
  Variable v = var;
  if (var.sizes() != input.sizes()) {
    // input's sizes without the last dim (Python's size()[:-1]).
    const IntArrayRef in = input.sizes(), vs = var.sizes();
    const IntArrayRef leading = in.subspan(0, in.empty() ? 0 : in.size() - 1);
    if (leading == vs) {
      v = var.unsqueeze(-1);
    } else {
      TORCHLET_CHECK(!vs.empty() && leading == vs.subspan(0, vs.size() - 1) && vs.back() == 1,
                     "var is of incorrect size");
    }
  }
  check_reduction_is_valid(reduction);
  TORCHLET_CHECK(!v.lt(0).any().item<bool>(), "var has negative entry/entries");
  // PyTorch clamps a clone under no_grad: the values are clamped, the
  // gradient passes to var as if they were not.
  v = v.clone();
  {
    AutoGradMode no_grad(false);
    v.clamp_(eps);
  }
  const Variable diff = input - target;
  Variable loss = 0.5 * (v.log() + diff * diff / v);
  if (full) loss = loss + 0.5 * std::log(2 * 3.14159265358979323846);
  return reduce(loss, reduction);
}

}  // namespace torchlet::nn::functional
