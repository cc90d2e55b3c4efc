// Convolution's checks (at::convolution's, in its order and words) and the
// layout of its arguments for the loops in cpu/conv_kernels.cc.
#include "tensor/conv.h"

#include <string>

#include "tensor/cpu/conv_kernels.h"
#include "tensor/cuda/kernels.h"
#include "tensor/factories.h"
#include "tensor/op_utils.h"

namespace torchlet {
namespace {

// "2 x 2": PyTorch's spatial sizes in messages.
std::string dims_str(IntArrayRef sizes) {
  std::string out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) out += " x ";
    out += std::to_string(sizes[i]);
  }
  return out;
}

// float: PyTorch's C++ name of a dtype in messages.
const char* c_type_name(DType dtype) {
  switch (dtype) {
    case kFloat32: return "float";
    case kFloat64: return "double";
    case kInt64: return "long int";
    case kInt32: return "int";
    case kUInt8: return "unsigned char";
    case kBool: return "bool";
    case kFloat16: return "c10::Half";
    case kBFloat16: return "c10::BFloat16";
  }
  return "?";
}

void check_param_size(const char* name, IntArrayRef values, int64_t spatial) {
  TORCHLET_CHECK(static_cast<int64_t>(values.size()) == spatial, "expected ", name,
                 " to be a single integer value or a list of ", spatial,
                 " values to match the convolution dimensions, but got ", name, "=",
                 shape_str(values));
}

bool any_below(IntArrayRef values, int64_t bound) {
  for (int64_t v : values) {
    if (v < bound) return true;
  }
  return false;
}

void check_params(const ConvParams& p, int64_t spatial) {
  check_param_size("stride", p.stride, spatial);
  check_param_size("padding", p.padding, spatial);
  check_param_size("dilation", p.dilation, spatial);
  if (p.transposed) check_param_size("output_padding", p.output_padding, spatial);
  TORCHLET_CHECK(!any_below(p.stride, 1), "non-positive stride is not supported");
  TORCHLET_CHECK(!any_below(p.padding, 0), "negative padding is not supported");
  TORCHLET_CHECK(!any_below(p.output_padding, 0), "negative output_padding is not supported");
  TORCHLET_CHECK(!any_below(p.dilation, 1), "non-positive dilation is not supported");
  TORCHLET_CHECK(p.groups > 0, "non-positive groups is not supported");
}

// PyTorch 1.13's CPU kernels: a convolution checks the bias's dtype first,
// with its own message; otherwise (and for a transposed one, the bias too)
// the dtype the kernel dispatched on must be the operand's.
void check_cpu_types(const Tensor& input, const Tensor& weight, const Tensor& bias,
                     bool transposed) {
  const bool bias_differs = bias.defined() && bias.dtype() != input.dtype();
  TORCHLET_CHECK(transposed || !bias_differs, "Input type (", c_type_name(input.dtype()),
                 ") and bias type (", c_type_name(bias.dtype()), ") should be the same");
  TORCHLET_CHECK(input.dtype() == weight.dtype(), "expected scalar type ",
                 scalar_type_name(input.dtype()), " but found ", scalar_type_name(weight.dtype()));
  TORCHLET_CHECK(!bias_differs, "expected scalar type ", scalar_type_name(input.dtype()),
                 " but found ", scalar_type_name(bias.dtype()));
}

void check_types(const Tensor& input, const Tensor& weight, const Tensor& bias, bool transposed) {
  check_defined("convolution", input);
  check_defined("convolution", weight);
  check_same_device("convolution", input, weight);
  if (bias.defined()) check_same_device("convolution", input, bias);
  if (!input.is_cuda()) check_cpu_types(input, weight, bias, transposed);
  // CUDA's (cuDNN's) messages.
  TORCHLET_CHECK(input.dtype() == weight.dtype(), "Input type (",
                 legacy_tensor_type_name(input.dtype()),
                 ") and weight type (", legacy_tensor_type_name(weight.dtype()),
                 ") should be the same or input should be a MKLDNN tensor and weight is a dense "
                 "tensor");
  TORCHLET_CHECK(input.is_floating_point(), "convolution: expected a floating-point input, got ",
                 input.dtype());
  if (!bias.defined()) return;
  TORCHLET_CHECK(input.dtype() == bias.dtype(), "Input type (", c_type_name(input.dtype()),
                 ") and bias type (", c_type_name(bias.dtype()), ") should be the same");
}

// The spatial sizes of input padded on both sides, and of the dilated kernel.
void check_kernel_fits(const Tensor& input, const Tensor& weight, const ConvParams& p) {
  const int64_t spatial = input.dim() - 2;
  SizeVec padded, kernel;
  bool fits = true;
  for (int64_t d = 0; d < spatial; ++d) {
    padded.push_back(input.size(d + 2) + 2 * p.padding[d]);
    kernel.push_back(p.dilation[d] * (weight.size(d + 2) - 1) + 1);
    fits = fits && kernel.back() <= padded.back();
  }
  TORCHLET_CHECK(fits, "Calculated padded input size per channel: (", dims_str(padded),
                 "). Kernel size: (", dims_str(kernel),
                 "). Kernel size can't be greater than actual input size");
}

void check_output_positive(const Tensor& input, IntArrayRef output) {
  SizeVec in(input.sizes().begin() + 2, input.sizes().end());
  SizeVec out(output.begin() + 2, output.end());
  TORCHLET_CHECK(!any_below(out, 1), "Given input size per channel: (", dims_str(in),
                 "). Calculated output size per channel: (", dims_str(out),
                 "). Output size is too small");
}

// at::convolution's check_shape_forward.
void check_shapes(const Tensor& input, const Tensor& weight, const Tensor& bias,
                  const ConvParams& p) {
  TORCHLET_CHECK(weight.dim() >= 3, "weight should have at least three dimensions");
  TORCHLET_CHECK(weight.dim() <= 5, "convolution: only 1, 2 and 3 spatial dims are supported, got "
                                    "weight of size ",
                 shape_str(weight.sizes()));
  TORCHLET_CHECK(input.dim() == weight.dim(), "Expected ", weight.dim(), "-dimensional input for ",
                 weight.dim(), "-dimensional weight ", shape_str(weight.sizes()), ", but got ",
                 input.dim(), "-dimensional input of size ", shape_str(input.sizes()),
                 " instead");
  check_params(p, weight.dim() - 2);
  const int64_t out0 = weight.size(0);
  TORCHLET_CHECK(out0 >= p.groups, "Given groups=", p.groups,
                 ", expected weight to be at least ", p.groups,
                 " at dimension 0, but got weight of size ", shape_str(weight.sizes()), " instead");
  TORCHLET_CHECK(out0 % p.groups == 0, "Given groups=", p.groups,
                 ", expected weight to be divisible by ", p.groups,
                 " at dimension 0, but got weight of size [", shape_str(weight.sizes()),
                 "] instead");
  const int64_t bias_size = p.transposed ? weight.size(1) * p.groups : out0;
  const std::string transposed = p.transposed ? "Given transposed=1, weight of size "
                                              : "Given weight of size ";
  if (!p.transposed) {
    TORCHLET_CHECK(input.size(1) == weight.size(1) * p.groups, "Given groups=", p.groups,
                   ", weight of size ", shape_str(weight.sizes()), ", expected input",
                   shape_str(input.sizes()), " to have ", weight.size(1) * p.groups,
                   " channels, but got ", input.size(1), " channels instead");
  } else {
    TORCHLET_CHECK(input.size(1) == out0, transposed, shape_str(weight.sizes()),
                   ", expected input", shape_str(input.sizes()), " to have ", out0,
                   " channels, but got ", input.size(1), " channels instead");
  }
  TORCHLET_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == bias_size), transposed,
                 shape_str(weight.sizes()), ", expected bias to be 1-dimensional with ", bias_size,
                 " elements, but got bias of size ",
                 shape_str(bias.defined() ? bias.sizes() : IntArrayRef()), " instead");
  if (!p.transposed) check_kernel_fits(input, weight, p);
}

// The geometry of the (not transposed) convolution of `input` [N, C, ...]
// with a weight of `weight_size` into `output_size`, in the kernels' 3-d
// form (Note [Convolution as 3-d]).
cpu::ConvGeometry geometry(IntArrayRef input_size, IntArrayRef weight_size,
                           IntArrayRef output_size, const ConvParams& p) {
  cpu::ConvGeometry g;
  g.batch = input_size[0];
  g.in_channels = input_size[1];
  g.out_channels = output_size[1];
  g.groups = p.groups;
  const size_t spatial = input_size.size() - 2, first = 3 - spatial;
  for (size_t d = 0; d < spatial; ++d) {
    g.input[first + d] = input_size[d + 2];
    g.output[first + d] = output_size[d + 2];
    g.kernel[first + d] = weight_size[d + 2];
    g.stride[first + d] = p.stride[d];
    g.padding[first + d] = p.padding[d];
    g.dilation[first + d] = p.dilation[d];
  }
  return g;
}

Tensor empty_output(IntArrayRef sizes, const Tensor& like) {
  return empty(sizes, like.options());
}

Tensor transposed_convolution(const Tensor& input, const Tensor& weight, const Tensor& bias,
                              const ConvParams& p) {
  const SizeVec out_size = conv_output_size(input.sizes(), weight.sizes(), p);
  check_output_positive(input, out_size);
  Tensor out = empty_output(out_size, input);
  if (out.numel() == 0) return out;
  const cpu::ConvGeometry g = geometry(out_size, weight.sizes(), input.sizes(), p);
  const auto kernel = out.is_cuda() ? cuda::conv_backward_input : cpu::conv_backward_input;
  kernel(out, input, weight, g);
  if (bias.defined()) {
    SizeVec bias_shape(static_cast<size_t>(out.dim()), 1);
    bias_shape[1] = bias.size(0);
    out.add_(bias.view(bias_shape));
  }
  return out;
}

// "(5, 6)": a Python tuple of two.
std::string pair_str(IntArrayRef v) {
  return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ")";
}

// PyTorch's im2col_shape_check of the block parameters.
void check_block_params(IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                        IntArrayRef stride) {
  const auto check_two = [](const char* name, IntArrayRef v) {
    TORCHLET_CHECK(v.size() == 2, "It is expected ", name, " equals to 2, but got size ",
                   v.size());
  };
  check_two("kernel_size", kernel_size);
  check_two("dilation", dilation);
  check_two("padding", padding);
  check_two("stride", stride);
  TORCHLET_CHECK(kernel_size[0] > 0 && kernel_size[1] > 0,
                 "kernel size should be greater than zero, but got kernel_height: ",
                 kernel_size[0], " kernel_width: ", kernel_size[1]);
  TORCHLET_CHECK(stride[0] > 0 && stride[1] > 0,
                 "stride should be greater than zero, but got stride_height: ", stride[0],
                 " stride_width: ", stride[1]);
  TORCHLET_CHECK(dilation[0] > 0 && dilation[1] > 0,
                 "dilation should be greater than zero, but got dilation_height: ", dilation[0],
                 " dilation_width: ", dilation[1]);
  TORCHLET_CHECK(padding[0] >= 0 && padding[1] >= 0,
                 "padding should be non-negative, but got pad_height: ", padding[0],
                 " pad_width: ", padding[1]);
}

// The number of blocks along each of the two spatial dims.
SizeVec block_counts(IntArrayRef spatial, IntArrayRef kernel_size, IntArrayRef dilation,
                     IntArrayRef padding, IntArrayRef stride) {
  SizeVec blocks;
  for (size_t d = 0; d < 2; ++d) {
    blocks.push_back((spatial[d] + 2 * padding[d] - (dilation[d] * (kernel_size[d] - 1) + 1)) /
                         stride[d] +
                     1);
  }
  return blocks;
}

cpu::ConvGeometry block_geometry(int64_t batch, int64_t channels, IntArrayRef spatial,
                                 IntArrayRef blocks, IntArrayRef kernel_size,
                                 IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  cpu::ConvGeometry g;
  g.batch = batch;
  g.in_channels = channels;
  g.out_channels = channels;
  for (size_t d = 0; d < 2; ++d) {
    g.input[d + 1] = spatial[d];
    g.output[d + 1] = blocks[d];
    g.kernel[d + 1] = kernel_size[d];
    g.stride[d + 1] = stride[d];
    g.padding[d + 1] = padding[d];
    g.dilation[d + 1] = dilation[d];
  }
  return g;
}

void check_float(const char* op, const Tensor& t) {
  check_defined(op, t);
  TORCHLET_CHECK(t.is_floating_point(), op, ": expected a floating-point input, got ",
                 t.dtype());
}

}  // namespace

SizeVec conv_output_size(IntArrayRef input_size, IntArrayRef weight_size,
                         const ConvParams& p) {
  SizeVec out{input_size[0], p.transposed ? weight_size[1] * p.groups : weight_size[0]};
  for (size_t d = 0; d + 2 < input_size.size(); ++d) {
    const int64_t in = input_size[d + 2];
    const int64_t extent = p.dilation[d] * (weight_size[d + 2] - 1) + 1;
    out.push_back(p.transposed
                      ? (in - 1) * p.stride[d] - 2 * p.padding[d] + extent + p.output_padding[d]
                      : (in + 2 * p.padding[d] - extent) / p.stride[d] + 1);
  }
  return out;
}

Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias,
                   const ConvParams& params) {
  check_types(input, weight, bias, params.transposed);
  check_shapes(input, weight, bias, params);
  const Tensor x = input.contiguous(), w = weight.contiguous();
  const Tensor b = bias.defined() ? bias.contiguous() : bias;
  if (params.transposed) return transposed_convolution(x, w, b, params);
  const SizeVec out_size = conv_output_size(x.sizes(), w.sizes(), params);
  Tensor out = empty_output(out_size, x);
  if (out.numel() == 0) return out;
  const auto kernel = out.is_cuda() ? cuda::conv_forward : cpu::conv_forward;
  kernel(out, x, w, b, geometry(x.sizes(), w.sizes(), out_size, params));
  return out;
}

Tensor convolution_backward_weight(const Tensor& input, const Tensor& grad_output,
                                   IntArrayRef weight_size, const ConvParams& params) {
  check_defined("convolution_backward", input);
  check_defined("convolution_backward", grad_output);
  check_same_device("convolution_backward", input, grad_output);
  TORCHLET_CHECK(!params.transposed, "convolution_backward_weight: expects the parameters of a "
                                     "convolution that is not transposed");
  const SizeVec full = conv_output_size(input.sizes(), weight_size, params);
  bool fits = grad_output.dim() == static_cast<int64_t>(full.size()) &&
              grad_output.size(0) == full[0] && grad_output.size(1) == full[1];
  for (size_t d = 2; fits && d < full.size(); ++d) fits = grad_output.size(d) <= full[d];
  TORCHLET_CHECK(fits, "convolution_backward: expected grad_output of size at most ",
                 shape_str(full), ", got ", shape_str(grad_output.sizes()));
  const IntArrayRef out_size = grad_output.sizes();
  Tensor grad_weight = empty(weight_size, input.options());
  if (grad_output.numel() == 0 || grad_weight.numel() == 0) return grad_weight.zero_();
  const auto kernel = input.is_cuda() ? cuda::conv_backward_weight : cpu::conv_backward_weight;
  kernel(grad_weight, grad_output.to(input.dtype()).contiguous(), input.contiguous(),
         geometry(input.sizes(), weight_size, out_size, params));
  return grad_weight;
}

Tensor im2col(const Tensor& input, IntArrayRef kernel_size, IntArrayRef dilation,
              IntArrayRef padding, IntArrayRef stride) {
  check_float("im2col", input);
  check_block_params(kernel_size, dilation, padding, stride);
  bool valid = input.dim() == 4;
  for (int64_t d = 1; valid && d < 4; ++d) valid = input.size(d) > 0;
  TORCHLET_CHECK(valid, "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and "
                        "other non-zero dimensions for input, but got: ",
                 shape_str(input.sizes()));
  const IntArrayRef spatial = input.sizes().subspan(2);
  const SizeVec blocks = block_counts(spatial, kernel_size, dilation, padding, stride);
  TORCHLET_CHECK(blocks[0] >= 1 && blocks[1] >= 1, "Given input with spatial size ",
                 pair_str(spatial), ", kernel_size=", pair_str(kernel_size),
                 ", dilation=", pair_str(dilation), ", padding=", pair_str(padding),
                 ", calculated shape of the array of sliding blocks as ", pair_str(blocks),
                 ", but its components must be at least one.");
  const int64_t channels = input.size(1);
  Tensor columns = empty({input.size(0), channels * kernel_size[0] * kernel_size[1],
                          blocks[0] * blocks[1]},
                         input.options());
  if (columns.numel() == 0) return columns;
  const auto kernel = input.is_cuda() ? cuda::im2col : cpu::im2col;
  kernel(columns, input.contiguous(),
         block_geometry(input.size(0), channels, spatial, blocks, kernel_size, dilation, padding,
                        stride));
  return columns;
}

Tensor col2im(const Tensor& columns, IntArrayRef output_size, IntArrayRef kernel_size,
              IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  check_float("col2im", columns);
  TORCHLET_CHECK(output_size.size() == 2, "It is expected output_size equals to 2, but got size ",
                 output_size.size());
  check_block_params(kernel_size, dilation, padding, stride);
  TORCHLET_CHECK(columns.dim() == 3 && columns.size(1) > 0 && columns.size(2) > 0,
                 "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
                 "non-zero dimensions for input, but got: ",
                 shape_str(columns.sizes()));
  const int64_t kvol = kernel_size[0] * kernel_size[1];
  TORCHLET_CHECK(columns.size(1) % kvol == 0,
                 "Expected size of input's dimension 1 to be divisible by the product of "
                 "kernel_size, but got input.size(1)=",
                 columns.size(1), " and kernel_size=", pair_str(kernel_size), ".");
  const SizeVec blocks = block_counts(output_size, kernel_size, dilation, padding, stride);
  TORCHLET_CHECK(blocks[0] >= 1 && blocks[1] >= 1 && blocks[0] * blocks[1] == columns.size(2),
                 "Given output_size=", pair_str(output_size), ", kernel_size=",
                 pair_str(kernel_size), ", dilation=", pair_str(dilation), ", padding=",
                 pair_str(padding), ", stride=", pair_str(stride),
                 ", expected size of input's dimension 2 to match the calculated number of "
                 "sliding blocks ",
                 blocks[0], " * ", blocks[1], " = ", blocks[0] * blocks[1],
                 ", but got input.size(2)=", columns.size(2), ".");
  const int64_t channels = columns.size(1) / kvol;
  Tensor out = empty({columns.size(0), channels, output_size[0], output_size[1]},
                     columns.options());
  if (out.numel() == 0) return out;
  const auto col2im_kernel = columns.is_cuda() ? cuda::col2im : cpu::col2im;
  col2im_kernel(out, columns.contiguous(),
              block_geometry(columns.size(0), channels, output_size, blocks, kernel_size,
                             dilation, padding, stride));
  return out;
}

}  // namespace torchlet
