// Differentiable pooling. See Note [Fused backward, composite double
// backward] in ops_nn.cc: the backward runs the pooling kernel unless it is
// itself recorded.
#include "autograd/pool_ops.h"

#include "autograd/grad_mode.h"
#include "autograd/op_helpers.h"

namespace torchlet {

using autograd::OpNode;
using autograd::constant;

namespace {

// PyTorch's grad_fn names, by spatial dims (1-D pools are 2-D pools there).
const char* max_pool_name(int64_t dims) {
  return dims == 3 ? "MaxPool3DWithIndicesBackward0" : "MaxPool2DWithIndicesBackward0";
}
const char* avg_pool_name(int64_t dims) {
  return dims == 3 ? "AvgPool3DBackward0" : "AvgPool2DBackward0";
}

SizeVec to_sizes(IntArrayRef s) { return SizeVec(s.begin(), s.end()); }

// Max pooling (fixed or adaptive) and max_unpool2d: where each output
// element came from.
struct MaxPoolState {
  SizeVec input_shape;
  int64_t spatial_dims = 2;
  Tensor indices;
  bool release() {
    indices = Tensor();
    return true;
  }
};
using MaxPoolNode = OpNode<MaxPoolState>;

// Average pooling and its backward (whose own backward pools again).
struct AvgPoolState {
  PoolGeometry geometry;
  SizeVec input_shape;
  bool count_include_pad = true;
  std::optional<int64_t> divisor_override;
};
using AvgPoolNode = OpNode<AvgPoolState>;

// Adaptive average pooling and its backward.
struct AdaptivePoolState {
  SizeVec input_shape;
  SizeVec output_size;
};
using AdaptivePoolNode = OpNode<AdaptivePoolState>;

// Upsampling (every ResampleMode) and its backward.
struct ResampleState {
  SizeVec input_shape;
  SizeVec output_size;
  absl::InlinedVector<double, 3> scales;
  ResampleMode mode = ResampleMode::kNearest;
  bool align_corners = false;
};
using ResampleNode = OpNode<ResampleState>;

// The gradient as Variable ops: grad_output's elements summed into a zero
// input at their indices, plane by plane.
Variable max_pool_grad_formula(const Variable& grad, const Tensor& indices,
                               IntArrayRef input_shape, int64_t spatial_dims) {
  const size_t lead = input_shape.size() - static_cast<size_t>(spatial_dims);
  int64_t planes = 1, plane = 1;
  for (size_t d = 0; d < input_shape.size(); ++d) (d < lead ? planes : plane) *= input_shape[d];
  const Variable zero = autograd::constant_zeros({planes, plane}, grad.dtype(), grad.device());
  return zero.scatter_add(1, indices.reshape({planes, -1}), grad.reshape({planes, -1}))
      .view(input_shape);
}

variable_list max_pool_backward_formula(MaxPoolNode& n, const variable_list& grads) {
  const MaxPoolState& s = n.state;
  if (is_grad_enabled()) {
    return {max_pool_grad_formula(grads[0], s.indices, s.input_shape, s.spatial_dims)};
  }
  return {constant(max_pool_backward(grads[0].data(), s.indices, s.input_shape, s.spatial_dims))};
}

Variable avg_pool_backward_op(const Variable& grad, const PoolGeometry& g,
                              IntArrayRef input_shape, bool count_include_pad,
                              std::optional<int64_t> divisor_override);

variable_list avg_pool_backward_formula(AvgPoolNode& n, const variable_list& grads) {
  const AvgPoolState& s = n.state;
  return {avg_pool_backward_op(grads[0], s.geometry, s.input_shape, s.count_include_pad,
                               s.divisor_override)};
}

// Average pooling's backward is linear in the gradient, and its own
// gradient is the average pool again.
variable_list avg_pool_double_backward_formula(AvgPoolNode& n, const variable_list& grads) {
  const AvgPoolState& s = n.state;
  return {avg_pool("avg_pool_backward", grads[0], s.geometry, s.count_include_pad,
                   s.divisor_override)};
}

Variable avg_pool_backward_op(const Variable& grad, const PoolGeometry& g,
                              IntArrayRef input_shape, bool count_include_pad,
                              std::optional<int64_t> divisor_override) {
  Tensor out =
      avg_pool_backward(grad.data(), input_shape, g, count_include_pad, divisor_override);
  return autograd::record("AvgPoolBackwardBackward0", avg_pool_double_backward_formula, {&grad},
                          std::move(out), [&](AvgPoolNode& n) {
                            n.state = {g, to_sizes(input_shape), count_include_pad,
                                       divisor_override};
                          });
}

// Adaptive average pooling's backward, like avg_pool's: linear in the
// gradient, its own gradient the forward pool again.
Variable adaptive_avg_pool_backward_op(const Variable& grad, IntArrayRef input_shape,
                                       IntArrayRef output_size);

variable_list adaptive_avg_pool_backward_formula(AdaptivePoolNode& n,
                                                 const variable_list& grads) {
  return {adaptive_avg_pool_backward_op(grads[0], n.state.input_shape, n.state.output_size)};
}

variable_list adaptive_avg_pool_double_backward_formula(AdaptivePoolNode& n,
                                                        const variable_list& grads) {
  return {adaptive_avg_pool("adaptive_avg_pool_backward", grads[0], n.state.output_size)};
}

Variable adaptive_avg_pool_backward_op(const Variable& grad, IntArrayRef input_shape,
                                       IntArrayRef output_size) {
  Tensor out = adaptive_avg_pool_backward(grad.data(), input_shape,
                                          static_cast<int64_t>(output_size.size()));
  return autograd::record("AdaptiveAvgPoolBackwardBackward0",
                          adaptive_avg_pool_double_backward_formula, {&grad}, std::move(out),
                          [&](AdaptivePoolNode& n) {
                            n.state = {to_sizes(input_shape), to_sizes(output_size)};
                          });
}

// max_unpool2d's gradient: the output gradient at each input's index.
variable_list max_unpool2d_backward_formula(MaxPoolNode& n, const variable_list& grads) {
  const Tensor& indices = n.state.indices;
  const SizeVec& input_shape = n.state.input_shape;
  int64_t planes = 1;
  for (size_t d = 0; d + 2 < input_shape.size(); ++d) planes *= input_shape[d];
  const int64_t in_plane = input_shape[input_shape.size() - 2] * input_shape.back();
  const int64_t out_plane = grads[0].size(-2) * grads[0].size(-1);
  return {grads[0]
              .reshape({planes, out_plane})
              .gather(1, indices.reshape({planes, in_plane}))
              .view(input_shape)};
}

void save_resample(ResampleNode& n, IntArrayRef input_shape, IntArrayRef output_size,
                   absl::Span<const double> scales, ResampleMode mode, bool align_corners) {
  n.state = {to_sizes(input_shape), to_sizes(output_size),
             absl::InlinedVector<double, 3>(scales.begin(), scales.end()), mode, align_corners};
}

Variable resample_backward_op(const Variable& grad, IntArrayRef input_shape,
                              IntArrayRef output_size, absl::Span<const double> scales,
                              ResampleMode mode, bool align_corners);

variable_list resample_backward_formula(ResampleNode& n, const variable_list& grads) {
  const ResampleState& s = n.state;
  return {resample_backward_op(grads[0], s.input_shape, s.output_size, s.scales, s.mode,
                               s.align_corners)};
}

variable_list resample_double_backward_formula(ResampleNode& n, const variable_list& grads) {
  const ResampleState& s = n.state;
  return {resample(grads[0], s.output_size, s.scales, s.mode, s.align_corners)};
}

Variable resample_backward_op(const Variable& grad, IntArrayRef input_shape,
                              IntArrayRef output_size, absl::Span<const double> scales,
                              ResampleMode mode, bool align_corners) {
  Tensor out = resample_backward(grad.data(), input_shape, scales, mode, align_corners);
  return autograd::record("UpsampleBackwardBackward0", resample_double_backward_formula, {&grad},
                          std::move(out), [&](ResampleNode& n) {
                            save_resample(n, input_shape, output_size, scales, mode,
                                          align_corners);
                          });
}

const char* resample_name(ResampleMode mode, size_t dims) {
  static const char* const kNearest[] = {"UpsampleNearest1DBackward0", "UpsampleNearest2DBackward0",
                                         "UpsampleNearest3DBackward0"};
  static const char* const kExact[] = {"UpsampleNearestExact1DBackward0",
                                       "UpsampleNearestExact2DBackward0",
                                       "UpsampleNearestExact3DBackward0"};
  static const char* const kLinear[] = {"UpsampleLinear1DBackward0", "UpsampleBilinear2DBackward0",
                                        "UpsampleTrilinear3DBackward0"};
  switch (mode) {
    case ResampleMode::kNearest: return kNearest[dims - 1];
    case ResampleMode::kNearestExact: return kExact[dims - 1];
    case ResampleMode::kBicubic: return "UpsampleBicubic2DBackward0";
    case ResampleMode::kBilinear:
    case ResampleMode::kLinear: break;
  }
  return kLinear[dims - 1];
}

}  // namespace

std::tuple<Variable, Tensor> max_pool(const char* op, const Variable& input,
                                      const PoolGeometry& geometry, bool return_indices) {
  const bool needs_indices = return_indices || (is_grad_enabled() && input.requires_grad());
  MaxPoolForward f = max_pool_forward(op, input.data(), geometry, needs_indices);
  Tensor indices = f.indices;
  Variable out = autograd::record(max_pool_name(geometry.spatial_dims), max_pool_backward_formula,
                                  {&input}, std::move(f.output), [&](MaxPoolNode& n) {
                                    n.state = {to_sizes(input.sizes()), geometry.spatial_dims,
                                               f.indices};
                                  });
  return {std::move(out), return_indices ? std::move(indices) : Tensor()};
}

Variable avg_pool(const char* op, const Variable& input, const PoolGeometry& geometry,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  Tensor out =
      avg_pool_forward(op, input.data(), geometry, count_include_pad, divisor_override);
  return autograd::record(avg_pool_name(geometry.spatial_dims), avg_pool_backward_formula,
                          {&input}, std::move(out), [&](AvgPoolNode& n) {
                            n.state = {geometry, to_sizes(input.sizes()), count_include_pad,
                                       divisor_override};
                          });
}

Variable adaptive_avg_pool(const char* op, const Variable& input, IntArrayRef output_size) {
  Tensor out = adaptive_avg_pool_forward(op, input.data(), output_size);
  return autograd::record(output_size.size() == 3 ? "AdaptiveAvgPool3DBackward0"
                                                  : "AdaptiveAvgPool2DBackward0",
                          adaptive_avg_pool_backward_formula, {&input}, std::move(out),
                          [&](AdaptivePoolNode& n) {
                            n.state = {to_sizes(input.sizes()), to_sizes(output_size)};
                          });
}

std::tuple<Variable, Tensor> adaptive_max_pool(const char* op, const Variable& input,
                                               IntArrayRef output_size, bool return_indices) {
  const bool needs_indices = return_indices || (is_grad_enabled() && input.requires_grad());
  MaxPoolForward f = adaptive_max_pool_forward(op, input.data(), output_size, needs_indices);
  Tensor indices = f.indices;
  Variable out = autograd::record(
      output_size.size() == 3 ? "AdaptiveMaxPool3DBackward0" : "AdaptiveMaxPool2DBackward0",
      max_pool_backward_formula, {&input}, std::move(f.output), [&](MaxPoolNode& n) {
        n.state = {to_sizes(input.sizes()), static_cast<int64_t>(output_size.size()), f.indices};
      });
  return {std::move(out), return_indices ? std::move(indices) : Tensor()};
}

Variable max_unpool2d(const Variable& input, const Tensor& indices, IntArrayRef output_size) {
  Tensor out = max_unpool2d_forward(input.data(), indices, output_size);
  return autograd::record("MaxUnpool2DBackward0", max_unpool2d_backward_formula, {&input},
                          std::move(out), [&](MaxPoolNode& n) {
                            n.state = {to_sizes(input.sizes()), 2, indices};
                          });
}

Variable resample(const Variable& input, IntArrayRef output_size, absl::Span<const double> scales,
                  ResampleMode mode, bool align_corners) {
  Tensor out = resample_forward(input.data(), output_size, scales, mode, align_corners);
  return autograd::record(resample_name(mode, output_size.size()), resample_backward_formula,
                          {&input}, std::move(out), [&](ResampleNode& n) {
                            save_resample(n, input.sizes(), output_size, scales, mode,
                                          align_corners);
                          });
}

}  // namespace torchlet
