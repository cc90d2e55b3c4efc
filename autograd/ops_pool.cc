// Differentiable pooling. See Note [Fused backward, composite double
// backward] in ops_nn.cc: the backward runs the pooling kernel unless it is
// itself recorded.
#include "autograd/pool_ops.h"

#include "autograd/grad_mode.h"
#include "autograd/op_helpers.h"

namespace torchlet {

using autograd::FunctionNode;
using autograd::constant;

namespace {

// PyTorch's grad_fn names, by spatial dims (1-D pools are 2-D pools there).
const char* max_pool_name(int64_t dims) {
  return dims == 3 ? "MaxPool3DWithIndicesBackward0" : "MaxPool2DWithIndicesBackward0";
}
const char* avg_pool_name(int64_t dims) {
  return dims == 3 ? "AvgPool3DBackward0" : "AvgPool2DBackward0";
}

// A node keeps the geometry in shapes [kernel, stride, padding, dilation,
// input shape] and ints [spatial_dims, ceil_mode, count_include_pad,
// divisor_override or 0].
void save_geometry(FunctionNode& n, const PoolGeometry& g, IntArrayRef input_shape) {
  n.shapes = {g.kernel, g.stride, g.padding, g.dilation,
              SizeVec(input_shape.begin(), input_shape.end())};
  n.ints = {g.spatial_dims, g.ceil_mode};
}

PoolGeometry saved_geometry(const FunctionNode& n) {
  PoolGeometry g;
  g.spatial_dims = n.ints[0];
  g.ceil_mode = n.ints[1] != 0;
  g.kernel = n.shapes[0];
  g.stride = n.shapes[1];
  g.padding = n.shapes[2];
  g.dilation = n.shapes[3];
  return g;
}

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

variable_list max_pool_backward_formula(FunctionNode& n, const variable_list& grads) {
  const Tensor& indices = n.tensors[0];
  const SizeVec& input_shape = n.shapes[0];
  const int64_t spatial_dims = n.ints[0];
  if (is_grad_enabled()) {
    return {max_pool_grad_formula(grads[0], indices, input_shape, spatial_dims)};
  }
  return {constant(max_pool_backward(grads[0].data(), indices, input_shape, spatial_dims))};
}

Variable avg_pool_backward_op(const Variable& grad, const PoolGeometry& g,
                              IntArrayRef input_shape, bool count_include_pad,
                              std::optional<int64_t> divisor_override);

variable_list avg_pool_backward_formula(FunctionNode& n, const variable_list& grads) {
  const std::optional<int64_t> divisor =
      n.ints[3] != 0 ? std::optional<int64_t>(n.ints[3]) : std::nullopt;
  return {avg_pool_backward_op(grads[0], saved_geometry(n), n.shapes[4], n.ints[2] != 0,
                               divisor)};
}

// Average pooling's backward is linear in the gradient, and its own
// gradient is the average pool again.
variable_list avg_pool_double_backward_formula(FunctionNode& n, const variable_list& grads) {
  const std::optional<int64_t> divisor =
      n.ints[3] != 0 ? std::optional<int64_t>(n.ints[3]) : std::nullopt;
  return {avg_pool("avg_pool_backward", grads[0], saved_geometry(n), n.ints[2] != 0, divisor)};
}

Variable avg_pool_backward_op(const Variable& grad, const PoolGeometry& g,
                              IntArrayRef input_shape, bool count_include_pad,
                              std::optional<int64_t> divisor_override) {
  Tensor out =
      avg_pool_backward(grad.data(), input_shape, g, count_include_pad, divisor_override);
  return autograd::record("AvgPoolBackwardBackward0", avg_pool_double_backward_formula, {&grad},
                          std::move(out), [&](FunctionNode& n) {
                            save_geometry(n, g, input_shape);
                            n.ints.push_back(count_include_pad);
                            n.ints.push_back(divisor_override.value_or(0));
                          });
}

// Adaptive average pooling's backward, like avg_pool's: linear in the
// gradient, its own gradient the forward pool again. Nodes keep the input
// shape in shapes[0] and the output size in shapes[1].
Variable adaptive_avg_pool_backward_op(const Variable& grad, IntArrayRef input_shape,
                                       IntArrayRef output_size);

variable_list adaptive_avg_pool_backward_formula(FunctionNode& n, const variable_list& grads) {
  return {adaptive_avg_pool_backward_op(grads[0], n.shapes[0], n.shapes[1])};
}

variable_list adaptive_avg_pool_double_backward_formula(FunctionNode& n,
                                                        const variable_list& grads) {
  return {adaptive_avg_pool("adaptive_avg_pool_backward", grads[0], n.shapes[1])};
}

Variable adaptive_avg_pool_backward_op(const Variable& grad, IntArrayRef input_shape,
                                       IntArrayRef output_size) {
  Tensor out = adaptive_avg_pool_backward(grad.data(), input_shape,
                                          static_cast<int64_t>(output_size.size()));
  return autograd::record("AdaptiveAvgPoolBackwardBackward0",
                          adaptive_avg_pool_double_backward_formula, {&grad}, std::move(out),
                          [&](FunctionNode& n) {
                            n.shapes = {SizeVec(input_shape.begin(), input_shape.end()),
                                        SizeVec(output_size.begin(), output_size.end())};
                          });
}

// max_unpool2d's gradient: the output gradient at each input's index.
variable_list max_unpool2d_backward_formula(FunctionNode& n, const variable_list& grads) {
  const Tensor& indices = n.tensors[0];
  const SizeVec& input_shape = n.shapes[0];
  int64_t planes = 1;
  for (size_t d = 0; d + 2 < input_shape.size(); ++d) planes *= input_shape[d];
  const int64_t in_plane = input_shape[input_shape.size() - 2] * input_shape.back();
  const int64_t out_plane = grads[0].size(-2) * grads[0].size(-1);
  return {grads[0]
              .reshape({planes, out_plane})
              .gather(1, indices.reshape({planes, in_plane}))
              .view(input_shape)};
}

// Resampling nodes keep shapes [input shape, output size], numbers = the
// scales and ints [mode, align_corners].
void save_resample(FunctionNode& n, IntArrayRef input_shape, IntArrayRef output_size,
                   absl::Span<const double> scales, ResampleMode mode, bool align_corners) {
  n.shapes = {SizeVec(input_shape.begin(), input_shape.end()),
              SizeVec(output_size.begin(), output_size.end())};
  n.numbers.assign(scales.begin(), scales.end());
  n.ints = {static_cast<int64_t>(mode), align_corners};
}

Variable resample_backward_op(const Variable& grad, IntArrayRef input_shape,
                              IntArrayRef output_size, absl::Span<const double> scales,
                              ResampleMode mode, bool align_corners);

variable_list resample_backward_formula(FunctionNode& n, const variable_list& grads) {
  return {resample_backward_op(grads[0], n.shapes[0], n.shapes[1], n.numbers,
                               static_cast<ResampleMode>(n.ints[0]), n.ints[1] != 0)};
}

variable_list resample_double_backward_formula(FunctionNode& n, const variable_list& grads) {
  return {resample(grads[0], n.shapes[1], n.numbers, static_cast<ResampleMode>(n.ints[0]),
                   n.ints[1] != 0)};
}

Variable resample_backward_op(const Variable& grad, IntArrayRef input_shape,
                              IntArrayRef output_size, absl::Span<const double> scales,
                              ResampleMode mode, bool align_corners) {
  Tensor out = resample_backward(grad.data(), input_shape, scales, mode, align_corners);
  return autograd::record("UpsampleBackwardBackward0", resample_double_backward_formula, {&grad},
                          std::move(out), [&](FunctionNode& n) {
                            save_resample(n, input_shape, output_size, scales, mode,
                                          align_corners);
                          });
}

const char* resample_name(ResampleMode mode, size_t dims) {
  if (mode == ResampleMode::kBilinear) return "UpsampleBilinear2DBackward0";
  static const char* const kNearest[] = {"UpsampleNearest1DBackward0", "UpsampleNearest2DBackward0",
                                         "UpsampleNearest3DBackward0"};
  return kNearest[dims - 1];
}

}  // namespace

std::tuple<Variable, Tensor> max_pool(const char* op, const Variable& input,
                                      const PoolGeometry& geometry, bool return_indices) {
  const bool needs_indices = return_indices || (is_grad_enabled() && input.requires_grad());
  MaxPoolForward f = max_pool_forward(op, input.data(), geometry, needs_indices);
  Tensor indices = f.indices;
  Variable out = autograd::record(max_pool_name(geometry.spatial_dims), max_pool_backward_formula,
                                  {&input}, std::move(f.output), [&](FunctionNode& n) {
                                    n.tensors = {f.indices};
                                    n.shapes = {SizeVec(input.sizes().begin(),
                                                        input.sizes().end())};
                                    n.ints = {geometry.spatial_dims};
                                  });
  return {std::move(out), return_indices ? std::move(indices) : Tensor()};
}

Variable avg_pool(const char* op, const Variable& input, const PoolGeometry& geometry,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  Tensor out =
      avg_pool_forward(op, input.data(), geometry, count_include_pad, divisor_override);
  return autograd::record(avg_pool_name(geometry.spatial_dims), avg_pool_backward_formula,
                          {&input}, std::move(out), [&](FunctionNode& n) {
                            save_geometry(n, geometry, input.sizes());
                            n.ints.push_back(count_include_pad);
                            n.ints.push_back(divisor_override.value_or(0));
                          });
}

Variable adaptive_avg_pool(const char* op, const Variable& input, IntArrayRef output_size) {
  Tensor out = adaptive_avg_pool_forward(op, input.data(), output_size);
  return autograd::record(output_size.size() == 3 ? "AdaptiveAvgPool3DBackward0"
                                                  : "AdaptiveAvgPool2DBackward0",
                          adaptive_avg_pool_backward_formula, {&input}, std::move(out),
                          [&](FunctionNode& n) {
                            n.shapes = {SizeVec(input.sizes().begin(), input.sizes().end()),
                                        SizeVec(output_size.begin(), output_size.end())};
                          });
}

std::tuple<Variable, Tensor> adaptive_max_pool(const char* op, const Variable& input,
                                               IntArrayRef output_size, bool return_indices) {
  const bool needs_indices = return_indices || (is_grad_enabled() && input.requires_grad());
  MaxPoolForward f = adaptive_max_pool_forward(op, input.data(), output_size, needs_indices);
  Tensor indices = f.indices;
  Variable out = autograd::record(
      output_size.size() == 3 ? "AdaptiveMaxPool3DBackward0" : "AdaptiveMaxPool2DBackward0",
      max_pool_backward_formula, {&input}, std::move(f.output), [&](FunctionNode& n) {
        n.tensors = {f.indices};
        n.shapes = {SizeVec(input.sizes().begin(), input.sizes().end())};
        n.ints = {static_cast<int64_t>(output_size.size())};
      });
  return {std::move(out), return_indices ? std::move(indices) : Tensor()};
}

Variable max_unpool2d(const Variable& input, const Tensor& indices, IntArrayRef output_size) {
  Tensor out = max_unpool2d_forward(input.data(), indices, output_size);
  return autograd::record("MaxUnpool2DBackward0", max_unpool2d_backward_formula, {&input},
                          std::move(out), [&](FunctionNode& n) {
                            n.tensors = {indices};
                            n.shapes = {SizeVec(input.sizes().begin(), input.sizes().end())};
                          });
}

Variable resample(const Variable& input, IntArrayRef output_size, absl::Span<const double> scales,
                  ResampleMode mode, bool align_corners) {
  Tensor out = resample_forward(input.data(), output_size, scales, mode, align_corners);
  return autograd::record(resample_name(mode, output_size.size()), resample_backward_formula,
                          {&input}, std::move(out), [&](FunctionNode& n) {
                            save_resample(n, input.sizes(), output_size, scales, mode,
                                          align_corners);
                          });
}

}  // namespace torchlet
