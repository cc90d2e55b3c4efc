// Argument checks and layout for the fused nn kernels: every input is
// brought to contiguous rows for the loops in cpu/nn_kernels.cc.
#include "tensor/nn_kernels.h"

#include <vector>

#include "tensor/cpu/nn_kernels.h"
#include "tensor/cuda/kernels.h"
#include "tensor/elementwise.h"
#include "tensor/factories.h"
#include "tensor/indexing.h"
#include "tensor/op_utils.h"
#include "tensor/sorting.h"

namespace torchlet {
namespace {

void check_floating(const char* op, const Tensor& t) {
  TORCHLET_CHECK(t.is_floating_point(), op, ": expected a floating-point input, got ", t.dtype());
}

void check_operand(const char* op, const Tensor& input, const Tensor& t, DType dtype) {
  if (!t.defined()) return;
  check_same_device(op, input, t);
  TORCHLET_CHECK(t.dtype() == dtype, "expected scalar type ", scalar_type_name(dtype),
                 " but found ", scalar_type_name(t.dtype()));
}

// `t` contiguous and of `shape`: itself when it already is, without a view.
Tensor contiguous_as(const Tensor& t, IntArrayRef shape) {
  if (t.is_contiguous() && t.sizes() == shape) return t;
  return t.contiguous().view(shape);
}

Tensor flat(const Tensor& t) {
  if (!t.defined()) return t;
  return t.dim() == 1 && t.is_contiguous() ? t : t.contiguous().view({-1});
}

// Cross-entropy's inputs as rows: [R, C] logits, [R] targets.
struct ClassRows {
  Tensor input;
  Tensor target;
  int64_t classes = 0;
};

// The checks of PyTorch's nll_loss_nd, in its order and words.
void check_class_target(const Tensor& input, const Tensor& target, const Tensor& weight) {
  check_defined("cross_entropy", input);
  check_defined("cross_entropy", target);
  check_floating("cross_entropy", input);
  check_operand("cross_entropy", input, target, kInt64);
  check_operand("cross_entropy", input, weight, input.dtype());
  TORCHLET_CHECK(input.dim() >= 1, "Expected 1 or more dimensions (got ", input.dim(), ")");
  if (input.dim() != 1) {
    TORCHLET_CHECK(target.dim() >= 1 && input.size(0) == target.size(0),
                   "Expected input batch_size (", input.size(0), ") to match target batch_size (",
                   target.dim() >= 1 ? target.size(0) : 0, ").");
  }
  const int64_t classes = input.size(input.dim() == 1 ? 0 : 1);
  // PyTorch checks only the weight's numel; torchlet wants it 1-D as well.
  const auto check_weight_shape = [&] {
    TORCHLET_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == classes),
                   "weight tensor should be defined either for all ", classes,
                   " classes or no classes but got weight tensor of shape: ",
                   shape_str(weight.sizes()));
  };
  // nll_loss2d's (4-D inputs, and the others reshaped to 4-D) words.
  const auto check_spatial_weight = [&] {
    TORCHLET_CHECK(!weight.defined() || weight.numel() == classes,
                   "weight tensor should be defined either for all or no classes");
    check_weight_shape();
  };
  if (input.dim() <= 2) {
    TORCHLET_CHECK(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported");
    TORCHLET_CHECK(input.dim() == 2 || target.dim() == 0, "size mismatch (got input: ",
                   shape_str(input.sizes()), ", target: ", shape_str(target.sizes()), ")");
    check_weight_shape();
  } else if (input.dim() == 4) {
    // PyTorch's nll_loss2d checks, in its order and words (its size message
    // has no closing parenthesis).
    TORCHLET_CHECK(target.dim() == 3,
                   "only batches of spatial targets supported (3D tensors) but got targets of "
                   "dimension: ",
                   target.dim());
    check_spatial_weight();
    TORCHLET_CHECK(input.size(2) == target.size(1) && input.size(3) == target.size(2),
                   "size mismatch (got input: ", shape_str(input.sizes()),
                   " , target: ", shape_str(target.sizes()));
  } else {
    SizeVec expected{input.size(0)};
    for (int64_t d = 2; d < input.dim(); ++d) expected.push_back(input.size(d));
    TORCHLET_CHECK(target.sizes() == IntArrayRef(expected), "Expected target size ",
                   shape_str(expected), ", got ", shape_str(target.sizes()));
    check_spatial_weight();
  }
}

// Throws PyTorch's "Target 5 is out of bounds." for the first target
// (flat, contiguous) that is neither a class nor ignore_index; returns the
// summed weight of the targets kept.
double check_targets_in_range(const Tensor& target, const Tensor& weight, int64_t classes,
                              int64_t ignore_index) {
  // On a GPU the targets are checked on the host: an out-of-range class must
  // be an error that names it, not a fault in the kernel.
  const Device host(kCPU, 0);
  const cpu::TargetScan scan =
      target.is_cuda() ? cpu::scan_targets(target.to(host), weight.defined() ? weight.to(host) : weight,
                                           classes, ignore_index)
                       : cpu::scan_targets(target, weight, classes, ignore_index);
  TORCHLET_CHECK(scan.all_valid, "Target ", scan.first_invalid, " is out of bounds.");
  return scan.total_weight;
}

// The class dim moved last: [N, C, d1, ...] -> [N * d1 * ..., C].
ClassRows class_rows(const Tensor& input, const Tensor& target) {
  ClassRows rows;
  rows.classes = input.size(input.dim() == 1 ? 0 : 1);
  const int64_t samples = target.numel();
  if (input.dim() <= 2) {
    rows.input = contiguous_as(input, {samples, rows.classes});
  } else {
    std::vector<int64_t> order{0};
    for (int64_t d = 2; d < input.dim(); ++d) order.push_back(d);
    order.push_back(1);
    rows.input = input.permute(order).contiguous().view({samples, rows.classes});
  }
  rows.target = flat(target);
  return rows;
}

// The inverse of class_rows for a gradient [R, C].
Tensor from_class_rows(const Tensor& rows, IntArrayRef input_shape) {
  if (input_shape.size() <= 2) return contiguous_as(rows, input_shape);
  SizeVec moved{input_shape[0]};
  for (size_t d = 2; d < input_shape.size(); ++d) moved.push_back(input_shape[d]);
  moved.push_back(input_shape[1]);
  std::vector<int64_t> order{0, static_cast<int64_t>(input_shape.size()) - 1};
  for (size_t d = 1; d + 1 < input_shape.size(); ++d) order.push_back(static_cast<int64_t>(d));
  return rows.view(moved).permute(order);
}

// Rows [R, N] of input normalized over its trailing normalized_shape dims,
// with PyTorch's checks.
int64_t check_layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight,
                         const Tensor& bias) {
  check_defined("layer_norm", input);
  check_floating("layer_norm", input);
  check_operand("layer_norm", input, weight, input.dtype());
  check_operand("layer_norm", input, bias, input.dtype());
  TORCHLET_CHECK(!normalized_shape.empty(),
                 "Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
                 "least one element, but got normalized_shape = ",
                 shape_str(normalized_shape));
  TORCHLET_CHECK(!weight.defined() || weight.sizes() == normalized_shape,
                 "Expected weight to be of same shape as normalized_shape, but got weight of shape ",
                 shape_str(weight.defined() ? weight.sizes() : IntArrayRef()),
                 " and normalized_shape = ", shape_str(normalized_shape));
  TORCHLET_CHECK(!bias.defined() || bias.sizes() == normalized_shape,
                 "Expected bias to be of same shape as normalized_shape, but got bias of shape ",
                 shape_str(bias.defined() ? bias.sizes() : IntArrayRef()),
                 " and normalized_shape = ", shape_str(normalized_shape));
  const int64_t ndim = input.dim(), norm_ndim = static_cast<int64_t>(normalized_shape.size());
  const bool matches = ndim >= norm_ndim &&
                       input.sizes().subspan(static_cast<size_t>(ndim - norm_ndim)) ==
                           normalized_shape;
  if (!matches) {
    std::string expected = "[*";
    for (int64_t s : normalized_shape) expected += ", " + std::to_string(s);
    TORCHLET_CHECK(false, "Given normalized_shape=", shape_str(normalized_shape),
                   ", expected input with shape ", expected, "], but got input of size",
                   shape_str(input.sizes()));
  }
  int64_t n = 1;
  for (int64_t s : normalized_shape) n *= s;
  return n;
}

}  // namespace

void check_class_indices(const Tensor& input, const Tensor& target, const Tensor& weight,
                         int64_t ignore_index) {
  check_class_target(input, target, weight);
  check_targets_in_range(flat(target), flat(weight), input.size(input.dim() == 1 ? 0 : 1),
                         ignore_index);
}

void check_class_probabilities(const Tensor& input, const Tensor& target, const Tensor& weight,
                               double label_smoothing) {
  check_defined("cross_entropy", input);
  check_defined("cross_entropy", target);
  TORCHLET_CHECK(target.is_floating_point(),
                 "Expected floating point type for target with class probabilities, got ",
                 scalar_type_name(target.dtype()));
  check_floating("cross_entropy", input);
  check_operand("cross_entropy", input, target, input.dtype());
  TORCHLET_CHECK(input.sizes() == target.sizes(), "cross_entropy: expected target of shape ",
                 shape_str(input.sizes()), " (class probabilities), got ",
                 shape_str(target.sizes()));
  TORCHLET_CHECK(input.dim() >= 1, "Expected 1 or more dimensions (got ", input.dim(), ")");
  const int64_t classes = input.size(input.dim() == 1 ? 0 : 1);
  check_operand("cross_entropy", input, weight, input.dtype());
  TORCHLET_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == classes),
                 "weight tensor should be defined either for all ", classes,
                 " classes or no classes but got weight tensor of shape: ",
                 shape_str(weight.sizes()));
  TORCHLET_CHECK(label_smoothing >= 0 && label_smoothing <= 1,
                 "label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
}

CrossEntropyForward cross_entropy_forward(const Tensor& input, const Tensor& target,
                                          const Tensor& weight, int64_t ignore_index,
                                          double label_smoothing) {
  check_class_target(input, target, weight);
  TORCHLET_CHECK(label_smoothing >= 0 && label_smoothing <= 1,
                 "label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
  const ClassRows rows = class_rows(input, target);
  CrossEntropyForward f;
  f.total_weight = check_targets_in_range(rows.target, flat(weight), rows.classes, ignore_index);
  f.loss = empty(target.sizes(), input.options());
  f.probs = empty_like(rows.input);
  const auto kernel = input.is_cuda() ? cuda::cross_entropy_rows : cpu::cross_entropy_rows;
  kernel(f.loss, f.probs, rows.input, rows.target, flat(weight), ignore_index, label_smoothing);
  return f;
}

Tensor cross_entropy_backward(const Tensor& grad_loss, double scale, const Tensor& probs,
                              const Tensor& target, const Tensor& weight, IntArrayRef input_shape,
                              int64_t ignore_index, double label_smoothing) {
  const int64_t rows = probs.size(0);
  Tensor g = grad_loss.to(probs.dtype());
  g = g.numel() == 1 ? g.contiguous().view({1}) : g.contiguous().view({rows});
  Tensor grad = empty_like(probs);
  const auto kernel =
      probs.is_cuda() ? cuda::cross_entropy_backward_rows : cpu::cross_entropy_backward_rows;
  kernel(grad, g, scale, probs, flat(target), flat(weight), ignore_index, label_smoothing);
  return from_class_rows(grad, input_shape);
}

LayerNormForward layer_norm_forward(const Tensor& input, IntArrayRef normalized_shape,
                                    const Tensor& weight, const Tensor& bias, double eps) {
  const int64_t n = check_layer_norm(input, normalized_shape, weight, bias);
  const Tensor rows = input.contiguous().view({-1, n});
  const TensorOptions options = input.options();
  LayerNormForward f;
  f.output = empty(input.sizes(), options);
  f.mean = empty({rows.size(0)}, options);
  f.rstd = empty({rows.size(0)}, options);
  if (input.is_cuda()) {
    // Note [Composite CUDA normalization] in tensor/norm.cc.
    f.mean.copy_(rows.mean({1}));
    f.rstd.copy_(rows.var({1}, /*unbiased=*/false).add(eps).rsqrt());
    Tensor y = rows.sub(f.mean.view({-1, 1})).mul(f.rstd.view({-1, 1}));
    if (weight.defined()) y = y.mul(flat(weight));
    if (bias.defined()) y = y.add(flat(bias));
    f.output.view({-1, n}).copy_(y);
    return f;
  }
  cpu::layer_norm_rows(f.output.view({-1, n}), f.mean, f.rstd, rows, flat(weight), flat(bias), eps);
  return f;
}

LayerNormBackward layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                      IntArrayRef normalized_shape, const Tensor& mean,
                                      const Tensor& rstd, const Tensor& weight, bool has_bias) {
  const int64_t n = check_layer_norm(input, normalized_shape, weight, Tensor());
  const TensorOptions options = input.options();
  LayerNormBackward b;
  b.grad_input = empty(input.sizes(), options);
  if (weight.defined()) b.grad_weight = empty(normalized_shape, options);
  if (has_bias) b.grad_bias = empty(normalized_shape, options);
  if (input.is_cuda()) {
    // dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat)), gw = g * w.
    const Tensor g = grad_out.to(input.dtype()).contiguous().view({-1, n});
    const Tensor xhat = input.contiguous().view({-1, n}).sub(mean.view({-1, 1})).mul(
        rstd.view({-1, 1}));
    const Tensor gw = weight.defined() ? g.mul(flat(weight)) : g;
    const Tensor dx = gw.sub(gw.mean({1}, true))
                          .sub(xhat.mul(gw.mul(xhat).mean({1}, true)))
                          .mul(rstd.view({-1, 1}));
    b.grad_input.view({-1, n}).copy_(dx);
    if (b.grad_weight.defined()) b.grad_weight.view({-1}).copy_(g.mul(xhat).sum({0}));
    if (b.grad_bias.defined()) b.grad_bias.view({-1}).copy_(g.sum({0}));
    return b;
  }
  cpu::layer_norm_backward_rows(b.grad_input.view({-1, n}), flat(b.grad_weight), flat(b.grad_bias),
                                grad_out.to(input.dtype()).contiguous().view({-1, n}),
                                input.contiguous().view({-1, n}), mean, rstd, flat(weight));
  return b;
}

void embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm,
                       double norm_type) {
  check_defined("embedding_renorm_", weight);
  check_floating("embedding_renorm_", weight);
  TORCHLET_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  TORCHLET_CHECK(weight.is_contiguous(), "embedding_renorm_: weight must be contiguous");
  const Tensor rows = std::get<0>(flat(indices).to(kInt64).sort());
  TORCHLET_CHECK(rows.numel() == 0 || (rows[0].item<int64_t>() >= 0 &&
                                       rows[-1].item<int64_t>() < weight.size(0)),
                 "index out of range in self");
  if (weight.is_cuda()) {
    // Each distinct row's norm (in float64, as the CPU), and the rows above
    // max_norm scaled by max_norm / (norm + 1e-7).
    const Tensor distinct = std::get<0>(unique(rows));
    const Tensor selected = weight.index_select(0, distinct);
    const Tensor norms = selected.to(kFloat64).norm(norm_type, {1}, /*keepdim=*/true);
    const Tensor scale = where(norms.gt(max_norm),
                               full_like(norms, max_norm).div(norms.add(1e-7)), ones_like(norms));
    Tensor target = weight;
    target.index_put_({distinct}, selected.mul(scale.to(weight.dtype())));
  } else {
    cpu::renorm_rows(weight, rows, max_norm, norm_type);
  }
  weight.bump_version();
}

}  // namespace torchlet
