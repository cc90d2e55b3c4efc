// Differentiable forms of the fused nn kernels. See Note [Fused backward,
// composite double backward].
#include "autograd/nn_ops.h"

#include "autograd/grad_mode.h"
#include "autograd/op_helpers.h"
#include "tensor/nn_kernels.h"

namespace torchlet {

using autograd::InputMeta;
using autograd::OpNode;
using autograd::constant;

// Note [Fused backward, composite double backward]
// A fused op's backward runs its fused kernel when the backward is not
// itself recorded (create_graph false, grad mode off inside the engine).
// With create_graph it evaluates the same gradient as a formula of Variable
// ops on the saved inputs, so the gradient has history and can be
// differentiated again. Softmax and log_softmax do the same.

namespace {

// Saved-variable slots: every op here saves its input first; layer norm
// then its weight (when defined), binary cross-entropy its target.
enum Saved : size_t { kInput = 0, kWeight = 1, kTarget = 1 };

struct CrossEntropyState {
  SizeVec input_shape;
  Tensor probs;   // softmax of the input, from the forward kernel
  Tensor target;
  Tensor weight;  // per class, or undefined
  int64_t ignore_index = -100;
  Reduction reduction = Reduction::kMean;
  double label_smoothing = 0;
  double scale = 1;  // 1 / total weight for a mean, else 1
  bool release() {
    probs = target = weight = Tensor();
    return true;
  }
};
using CrossEntropyNode = OpNode<CrossEntropyState>;

struct LayerNormState {
  SizeVec normalized_shape;
  Tensor mean;  // per row, from the forward kernel
  Tensor rstd;
  bool has_weight = false;
  bool has_bias = false;
  double eps = 1e-5;
  bool release() {
    mean = rstd = Tensor();
    return true;
  }
};
using LayerNormNode = OpNode<LayerNormState>;

struct EmbeddingState {
  InputMeta weight;
  Tensor flat_indices;
  Tensor row_scale;  // [K, 1]: each looked-up row's gradient factor
  bool release() {
    flat_indices = row_scale = Tensor();
    return true;
  }
};

// binary cross-entropy's per-element weight (or undefined).
struct LossWeightState {
  Tensor weight;
  bool release() {
    weight = Tensor();
    return true;
  }
};

int64_t class_dim(const Variable& input) { return input.dim() == 1 ? 0 : 1; }

// The Variable formula of cross-entropy's input gradient (see Note [Fused
// cross-entropy] in tensor/cpu/nn_kernels.cc), differentiable in the input
// and in g.
Variable cross_entropy_grad_formula(const CrossEntropyState& s, const Variable& input,
                                    const Variable& g) {
  const Tensor& target = s.target;
  const Tensor& weight = s.weight;
  const int64_t ignore_index = s.ignore_index;
  const double smoothing = s.label_smoothing, scale = s.scale;
  const int64_t dim = class_dim(input), classes = input.size(dim);
  const TensorOptions options = input.options();
  const Tensor kept = target.ne(ignore_index).to(input.dtype()).unsqueeze(dim);
  const Tensor index = target.masked_fill(target.eq(ignore_index), 0).unsqueeze(dim);
  const Tensor onehot = zeros(input.sizes(), options).scatter(dim, index, 1.0);
  SizeVec class_shape(static_cast<size_t>(input.dim()), 1);
  class_shape[static_cast<size_t>(dim)] = classes;
  const Tensor w = weight.defined() ? weight.view(class_shape) : ones(class_shape, options);
  const Tensor w_target = (onehot * w).sum({dim}, true) * kept;
  const double uniform = smoothing / classes;
  const Tensor p_coef = w_target * (1 - smoothing) + kept * (uniform * w.sum().item<double>());
  const Tensor constant_part = onehot * w_target * (1 - smoothing) + w * kept * uniform;
  const Variable seed = s.reduction == Reduction::kNone ? g.unsqueeze(dim) : g;
  return (input.softmax(dim) * constant(p_coef) - constant(constant_part)) * seed * scale;
}

variable_list cross_entropy_backward_formula(CrossEntropyNode& n, const variable_list& grads) {
  const CrossEntropyState& s = n.state;
  if (is_grad_enabled()) return {cross_entropy_grad_formula(s, n.var(kInput), grads[0])};
  return {constant(cross_entropy_backward(grads[0].data(), s.scale, s.probs, s.target, s.weight,
                                          s.input_shape, s.ignore_index, s.label_smoothing))};
}

Tensor reduce(const Tensor& loss, Reduction reduction, double total_weight) {
  switch (reduction) {
    case Reduction::kNone: return loss;
    case Reduction::kSum: return loss.sum();
    case Reduction::kMean: {
      Tensor sum = loss.sum();
      // sum.div(total_weight) in place on the fresh 0-dim sum: the same
      // arithmetic (the number rounded to the tensor's dtype, then divided).
      if (sum.device().is_cpu() && sum.dtype() == kFloat32) {
        *sum.data<float>() /= static_cast<float>(total_weight);
        return sum;
      }
      if (sum.device().is_cpu() && sum.dtype() == kFloat64) {
        *sum.data<double>() /= total_weight;
        return sum;
      }
      return sum.div(total_weight);
    }
  }
  return loss;
}

// The layer norm gradients as Variable formulas of the saved input, weight
// and bias (mean and rstd recomputed, so they are differentiated too).
variable_list layer_norm_grad_formula(LayerNormNode& n, const Variable& g) {
  const LayerNormState& s = n.state;
  const Variable x = n.var(kInput);
  const int64_t norm_ndim = static_cast<int64_t>(s.normalized_shape.size());
  std::vector<int64_t> dims, lead;
  for (int64_t d = x.dim() - norm_ndim; d < x.dim(); ++d) dims.push_back(d);
  for (int64_t d = 0; d < x.dim() - norm_ndim; ++d) lead.push_back(d);
  const Variable mean = x.mean(dims, true);
  const Variable rstd = (x.var(dims, false, true) + s.eps).rsqrt();
  const Variable xhat = (x - mean) * rstd;
  const Variable gw = s.has_weight ? g * n.var(kWeight) : g;
  const Variable dx = (gw - gw.mean(dims, true) - xhat * (gw * xhat).mean(dims, true)) * rstd;
  const auto over_rows = [&](const Variable& v) { return lead.empty() ? v : v.sum(lead); };
  return {dx, n.needs_input_grad(1) ? over_rows(g * xhat) : Variable(),
          n.needs_input_grad(2) ? over_rows(g) : Variable()};
}

variable_list layer_norm_backward_formula(LayerNormNode& n, const variable_list& grads) {
  if (is_grad_enabled()) return layer_norm_grad_formula(n, grads[0]);
  const LayerNormState& s = n.state;
  const LayerNormBackward b = layer_norm_backward(
      grads[0].data(), n.var(kInput).data(), s.normalized_shape, s.mean, s.rstd,
      s.has_weight ? n.var(kWeight).data() : Tensor(), s.has_bias);
  const auto wrap = [&](const Tensor& t, size_t i) {
    return t.defined() && n.needs_input_grad(i) ? constant(t) : Variable();
  };
  return {wrap(b.grad_input, 0), wrap(b.grad_weight, 1), wrap(b.grad_bias, 2)};
}

// Each looked-up row's gradient is scaled by the row's factor (0 for the
// padding row, 1 / count with scale_grad_by_freq) and summed into the rows.
variable_list embedding_backward_formula(OpNode<EmbeddingState>& n, const variable_list& grads) {
  const EmbeddingState& s = n.state;
  const SizeVec& weight_shape = s.weight.shape;
  const Variable rows = grads[0].reshape({-1, weight_shape[1]}) * constant(s.row_scale);
  const Variable zero =
      autograd::constant_zeros(weight_shape, s.weight.dtype, grads[0].device());
  return {zero.index_put({TensorIndex(s.flat_indices)}, rows, /*accumulate=*/true)};
}

// [K, 1]: each index's gradient factor.
Tensor embedding_row_scale(const Tensor& flat_indices, int64_t num_embeddings,
                           std::optional<int64_t> padding_idx, bool scale_grad_by_freq,
                           DType dtype) {
  const TensorOptions options = flat_indices.options().dtype(dtype);
  Tensor scale = ones({flat_indices.numel()}, options);
  if (scale_grad_by_freq) {
    const Tensor counts = zeros({num_embeddings}, options)
                              .scatter_add(0, flat_indices, ones({flat_indices.numel()}, options));
    scale = scale.div(counts.index_select(0, flat_indices));
  }
  if (padding_idx) scale = scale.masked_fill(flat_indices.eq(*padding_idx), 0);
  return scale.unsqueeze(1);
}

constexpr double kLogClamp = -100;
constexpr double kBceEpsilon = 1e-12;

variable_list binary_cross_entropy_backward(OpNode<LossWeightState>& n,
                                            const variable_list& grads) {
  const Variable x = n.var(kInput), y = n.var(kTarget);
  Variable g = grads[0];
  if (n.state.weight.defined()) g = g * constant(n.state.weight);
  Variable gx, gy;
  if (n.needs_input_grad(0)) gx = g * (x - y) / (x * (1.0 - x)).clamp_min(kBceEpsilon);
  if (n.needs_input_grad(1)) {
    gy = g * ((1.0 - x).log().clamp_min(kLogClamp) - x.log().clamp_min(kLogClamp));
  }
  return {gx, gy};
}

}  // namespace

Variable binary_cross_entropy(const Variable& input, const Variable& target,
                              const Tensor& weight) {
  const Tensor& x = input.data();
  const Tensor& y = target.data();
  Tensor loss = -(y * x.log().clamp_min(kLogClamp) + (1.0 - y) * (1.0 - x).log().clamp_min(kLogClamp));
  if (weight.defined()) loss = loss * weight;
  return autograd::record("BinaryCrossEntropyBackward0", binary_cross_entropy_backward,
                          {&input, &target}, std::move(loss), [&](OpNode<LossWeightState>& n) {
                            n.saved.emplace_back(input, false);
                            n.saved.emplace_back(target, false);
                            n.state.weight = weight;
                          });
}

Variable cross_entropy_loss(const Variable& input, const Tensor& target, const Tensor& weight,
                            Reduction reduction, int64_t ignore_index, double label_smoothing) {
  CrossEntropyForward f =
      cross_entropy_forward(input.data(), target, weight, ignore_index, label_smoothing);
  Tensor out = reduce(f.loss, reduction, f.total_weight);
  return autograd::record("NllLossBackward0", cross_entropy_backward_formula, {&input},
                          std::move(out), [&](CrossEntropyNode& n) {
                            n.saved.emplace_back(input, false);
                            n.state = {SizeVec(input.sizes().begin(), input.sizes().end()),
                                       std::move(f.probs),
                                       target,
                                       weight,
                                       ignore_index,
                                       reduction,
                                       label_smoothing,
                                       reduction == Reduction::kMean ? 1.0 / f.total_weight
                                                                     : 1.0};
                          });
}

Variable layer_norm(const Variable& input, IntArrayRef normalized_shape, const Variable& weight,
                    const Variable& bias, double eps) {
  LayerNormForward f =
      layer_norm_forward(input.data(), normalized_shape, weight.defined() ? weight.data() : Tensor(),
                         bias.defined() ? bias.data() : Tensor(), eps);
  return autograd::record("NativeLayerNormBackward0", layer_norm_backward_formula,
                          {&input, &weight, &bias}, std::move(f.output), [&](LayerNormNode& n) {
                            n.saved.emplace_back(input, false);
                            if (weight.defined()) n.saved.emplace_back(weight, false);
                            n.state = {SizeVec(normalized_shape.begin(), normalized_shape.end()),
                                       std::move(f.mean),
                                       std::move(f.rstd),
                                       weight.defined(),
                                       bias.defined(),
                                       eps};
                          });
}

Variable embedding(const Variable& weight, const Tensor& indices,
                   std::optional<int64_t> padding_idx, bool scale_grad_by_freq) {
  const Tensor flat_indices = indices.reshape({-1});
  SizeVec out_shape(indices.sizes().begin(), indices.sizes().end());
  out_shape.push_back(weight.size(1));
  Tensor out = weight.data().index_select(0, flat_indices).view(out_shape);
  return autograd::record("EmbeddingBackward0", embedding_backward_formula, {&weight},
                          std::move(out), [&](OpNode<EmbeddingState>& n) {
                            n.state = {InputMeta(weight), flat_indices,
                                       embedding_row_scale(flat_indices, weight.size(0),
                                                           padding_idx, scale_grad_by_freq,
                                                           weight.dtype())};
                          });
}

}  // namespace torchlet
