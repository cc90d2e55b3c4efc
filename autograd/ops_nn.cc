// Differentiable forms of the fused nn kernels. See Note [Fused backward,
// composite double backward].
#include "autograd/nn_ops.h"

#include "autograd/grad_mode.h"
#include "autograd/op_helpers.h"
#include "tensor/nn_kernels.h"

namespace torchlet {

using autograd::FunctionNode;
using autograd::constant;

// Note [Fused backward, composite double backward]
// A fused op's backward runs its fused kernel when the backward is not
// itself recorded (create_graph false, grad mode off inside the engine).
// With create_graph it evaluates the same gradient as a formula of Variable
// ops on the saved inputs, so the gradient has history and can be
// differentiated again. Softmax and log_softmax do the same.

namespace {

enum CrossEntropySaved : size_t { kProbs, kTarget, kWeight };

int64_t class_dim(const Variable& input) { return input.dim() == 1 ? 0 : 1; }

// The Variable formula of cross-entropy's input gradient (see Note [Fused
// cross-entropy] in tensor/cpu/nn_kernels.cc), differentiable in the input
// and in g.
Variable cross_entropy_grad_formula(const FunctionNode& n, const Variable& input,
                                    const Variable& g) {
  const Tensor& target = n.tensors[kTarget];
  const Tensor& weight = n.tensors[kWeight];
  const int64_t ignore_index = n.ints[0];
  const double smoothing = n.numbers[0], scale = n.numbers[1];
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
  const Variable seed = n.ints[1] == static_cast<int64_t>(Reduction::kNone) ? g.unsqueeze(dim) : g;
  return (input.softmax(dim) * constant(p_coef) - constant(constant_part)) * seed * scale;
}

variable_list cross_entropy_backward_formula(FunctionNode& n, const variable_list& grads) {
  if (is_grad_enabled()) return {cross_entropy_grad_formula(n, n.var(0), grads[0])};
  return {constant(cross_entropy_backward(grads[0].data(), n.numbers[1], n.tensors[kProbs],
                                          n.tensors[kTarget], n.tensors[kWeight], n.shapes[0],
                                          n.ints[0], n.numbers[0]))};
}

Tensor reduce(const Tensor& loss, Reduction reduction, double total_weight) {
  switch (reduction) {
    case Reduction::kNone: return loss;
    case Reduction::kSum: return loss.sum();
    case Reduction::kMean: return loss.sum().div(total_weight);
  }
  return loss;
}

// The layer norm gradients as Variable formulas of the saved input, weight
// and bias (mean and rstd recomputed, so they are differentiated too).
variable_list layer_norm_grad_formula(FunctionNode& n, const Variable& g) {
  const Variable x = n.var(0);
  const int64_t norm_ndim = static_cast<int64_t>(n.shapes[0].size());
  std::vector<int64_t> dims, lead;
  for (int64_t d = x.dim() - norm_ndim; d < x.dim(); ++d) dims.push_back(d);
  for (int64_t d = 0; d < x.dim() - norm_ndim; ++d) lead.push_back(d);
  const Variable mean = x.mean(dims, true);
  const Variable rstd = (x.var(dims, false, true) + n.numbers[0]).rsqrt();
  const Variable xhat = (x - mean) * rstd;
  const bool has_weight = n.ints[0] != 0;
  const Variable gw = has_weight ? g * n.var(1) : g;
  const Variable dx = (gw - gw.mean(dims, true) - xhat * (gw * xhat).mean(dims, true)) * rstd;
  const auto over_rows = [&](const Variable& v) { return lead.empty() ? v : v.sum(lead); };
  return {dx, n.needs_input_grad(1) ? over_rows(g * xhat) : Variable(),
          n.needs_input_grad(2) ? over_rows(g) : Variable()};
}

variable_list layer_norm_backward_formula(FunctionNode& n, const variable_list& grads) {
  if (is_grad_enabled()) return layer_norm_grad_formula(n, grads[0]);
  const bool has_weight = n.ints[0] != 0, has_bias = n.ints[1] != 0;
  const LayerNormBackward b =
      layer_norm_backward(grads[0].data(), n.var(0).data(), n.shapes[0], n.tensors[0],
                          n.tensors[1], has_weight ? n.var(1).data() : Tensor(), has_bias);
  const auto wrap = [&](const Tensor& t, size_t i) {
    return t.defined() && n.needs_input_grad(i) ? constant(t) : Variable();
  };
  return {wrap(b.grad_input, 0), wrap(b.grad_weight, 1), wrap(b.grad_bias, 2)};
}

// Each looked-up row's gradient is scaled by the row's factor (0 for the
// padding row, 1 / count with scale_grad_by_freq) and summed into the rows.
variable_list embedding_backward_formula(FunctionNode& n, const variable_list& grads) {
  const Tensor& flat_indices = n.tensors[0];
  const Tensor& row_scale = n.tensors[1];
  const SizeVec& weight_shape = n.shapes[0];
  const Variable rows = grads[0].reshape({-1, weight_shape[1]}) * constant(row_scale);
  const Variable zero = autograd::constant_zeros(weight_shape, n.dtypes[0], grads[0].device());
  return {zero.index_put({TensorIndex(flat_indices)}, rows, /*accumulate=*/true)};
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

variable_list binary_cross_entropy_backward(FunctionNode& n, const variable_list& grads) {
  const Variable x = n.var(0), y = n.var(1);
  Variable g = grads[0];
  if (n.tensors[0].defined()) g = g * constant(n.tensors[0]);
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
                          {&input, &target}, std::move(loss), [&](FunctionNode& n) {
                            n.saved.emplace_back(input, false);
                            n.saved.emplace_back(target, false);
                            n.tensors = {weight};
                          });
}

Variable cross_entropy_loss(const Variable& input, const Tensor& target, const Tensor& weight,
                            Reduction reduction, int64_t ignore_index, double label_smoothing) {
  CrossEntropyForward f =
      cross_entropy_forward(input.data(), target, weight, ignore_index, label_smoothing);
  Tensor out = reduce(f.loss, reduction, f.total_weight);
  return autograd::record("NllLossBackward0", cross_entropy_backward_formula, {&input},
                          std::move(out), [&](FunctionNode& n) {
                            n.saved.emplace_back(input, false);
                            n.shapes.emplace_back(input.sizes().begin(), input.sizes().end());
                            n.tensors = {std::move(f.probs), target, weight};
                            n.ints = {ignore_index, static_cast<int64_t>(reduction)};
                            n.numbers = {label_smoothing,
                                         reduction == Reduction::kMean ? 1.0 / f.total_weight : 1.0};
                          });
}

Variable layer_norm(const Variable& input, IntArrayRef normalized_shape, const Variable& weight,
                    const Variable& bias, double eps) {
  LayerNormForward f =
      layer_norm_forward(input.data(), normalized_shape, weight.defined() ? weight.data() : Tensor(),
                         bias.defined() ? bias.data() : Tensor(), eps);
  return autograd::record("NativeLayerNormBackward0", layer_norm_backward_formula,
                          {&input, &weight, &bias}, std::move(f.output), [&](FunctionNode& n) {
                            n.saved.emplace_back(input, false);
                            if (weight.defined()) n.saved.emplace_back(weight, false);
                            n.shapes.emplace_back(normalized_shape.begin(), normalized_shape.end());
                            n.tensors = {std::move(f.mean), std::move(f.rstd)};
                            n.ints = {weight.defined(), bias.defined()};
                            n.numbers = {eps};
                          });
}

Variable embedding(const Variable& weight, const Tensor& indices,
                   std::optional<int64_t> padding_idx, bool scale_grad_by_freq) {
  const Tensor flat_indices = indices.reshape({-1});
  SizeVec out_shape(indices.sizes().begin(), indices.sizes().end());
  out_shape.push_back(weight.size(1));
  Tensor out = weight.data().index_select(0, flat_indices).view(out_shape);
  return autograd::record("EmbeddingBackward0", embedding_backward_formula, {&weight},
                          std::move(out), [&](FunctionNode& n) {
                            autograd::save_meta(n, weight);
                            n.tensors = {flat_indices,
                                         embedding_row_scale(flat_indices, weight.size(0),
                                                             padding_idx, scale_grad_by_freq,
                                                             weight.dtype())};
                          });
}

}  // namespace torchlet
