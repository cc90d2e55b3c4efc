// Losses. Cross-entropy over class indices is one fused op and binary
// cross-entropy one op with PyTorch's gradient (autograd/nn_ops.h); the
// others are short compositions of differentiable Variable ops, whose
// gradients are PyTorch's formulas.
#include "nn/functional/loss.h"

#include "autograd/nn_ops.h"
#include "nn/functional/activation.h"
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

}  // namespace torchlet::nn::functional
