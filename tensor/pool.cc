// Argument checks and layout for the pooling kernels, in PyTorch 1.13's
// order and words (ATen's Pool.h, pool2d_shape_check and pool3d_shape_check);
// every input is brought to contiguous planes for the loops in
// cpu/pool_kernels.cc.
#include "tensor/pool.h"

#include <algorithm>
#include <string>

#include "tensor/cpu/pool_kernels.h"
#include "tensor/cuda/kernels.h"
#include "tensor/factories.h"
#include "tensor/op_utils.h"

namespace torchlet {
namespace {

// Note [1-D pools are 2-D pools]
// PyTorch computes max_pool1d (with indices) and avg_pool1d as 2-D pools
// over an input unsqueezed to height 1, and its messages show that 2-D
// view. torchlet does the same: checks and messages see `Checked::dims`
// spatial dims (2 for 1-D and 2-D pools), the 1-D geometry lifted with a
// kernel, stride and dilation of 1 and no padding in the added dim.
struct Checked {
  int64_t dims = 2;        // 2 or 3
  bool batched = true;     // [N, C, *spatial] rather than [C, *spatial]
  int64_t planes = 0;      // N * C
  int64_t channels = 0;    // C
  SizeVec in, out;         // spatial sizes, `dims` of each
  SizeVec kernel, stride, padding, dilation;
};

// The geometry as Checked::dims dims (Note [1-D pools are 2-D pools]).
Checked lift(const PoolGeometry& g) {
  TORCHLET_INTERNAL_ASSERT(g.spatial_dims >= 1 && g.spatial_dims <= 3 &&
                               static_cast<int64_t>(g.kernel.size()) == g.spatial_dims &&
                               static_cast<int64_t>(g.stride.size()) == g.spatial_dims &&
                               static_cast<int64_t>(g.padding.size()) == g.spatial_dims &&
                               static_cast<int64_t>(g.dilation.size()) == g.spatial_dims,
                           "pooling geometry of the wrong rank");
  Checked c;
  c.dims = g.spatial_dims == 3 ? 3 : 2;
  c.kernel = g.kernel;
  c.stride = g.stride;
  c.padding = g.padding;
  c.dilation = g.dilation;
  if (g.spatial_dims == 1) {
    c.kernel.insert(c.kernel.begin(), 1);
    c.stride.insert(c.stride.begin(), 1);
    c.padding.insert(c.padding.begin(), 0);
    c.dilation.insert(c.dilation.begin(), 1);
  }
  return c;
}

std::string joined(IntArrayRef sizes) {
  std::string text;
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? "x" : "") + std::to_string(sizes[i]);
  return text;
}

// "kH: 0 kW: 0" and its 3-D form, as PyTorch's shape checks name them.
std::string named(IntArrayRef values, const char* prefix) {
  static const char* const kSuffix2[] = {"H", "W"};
  static const char* const kSuffix3[] = {"T", "H", "W"};
  const char* const* suffix = values.size() == 3 ? kSuffix3 : kSuffix2;
  std::string text;
  for (size_t i = 0; i < values.size(); ++i) {
    text += (i ? " " : "") + std::string(prefix) + suffix[i] + ": " + std::to_string(values[i]);
  }
  return text;
}

bool all_positive(IntArrayRef values) {
  for (int64_t v : values) {
    if (v <= 0) return false;
  }
  return true;
}

// The number of input dims PyTorch accepts, with its messages: 1-D pools
// name themselves, 2-D and 3-D pools name the lifted rank.
void check_rank(const char* op, const Tensor& input, const PoolGeometry& g, bool is_max,
                const Checked& c) {
  const int64_t dim = input.dim();
  if (g.spatial_dims == 1 && is_max) {
    bool ok = dim == 2 || dim == 3;
    for (int64_t d = dim == 3 ? 1 : 0; ok && d < dim; ++d) ok = input.size(d) != 0;
    TORCHLET_CHECK(ok, op, ": Expected 2D or 3D (batch mode) tensor with optional 0 dim batch "
                   "size for input, but got:", shape_str(input.sizes()));
  } else if (g.spatial_dims == 1) {
    TORCHLET_CHECK(dim == 2 || dim == 3, "Expected 2 to 3 dimensions, but got ", dim,
                   "-dimensional tensor for argument #1 'self' (while checking arguments for ",
                   op, ")");
  } else {
    TORCHLET_CHECK(dim == c.dims + 1 || dim == c.dims + 2, "non-empty ", c.dims + 1, "D or ",
                   c.dims + 2, "D (batch mode) tensor expected for input");
  }
}

void check_input(const char* op, const Tensor& input, const PoolGeometry& g, bool is_max,
                 Checked& c) {
  check_defined(op, input);
  // Average pools check their dtype after the geometry (check_avg_dtype).
  TORCHLET_CHECK(!is_max || input.is_floating_point(), "\"", op, "\" not implemented for '",
                 scalar_type_name(input.dtype()), "'");
  check_rank(op, input, g, is_max, c);
  c.batched = input.dim() == g.spatial_dims + 2;
  const int64_t lead = input.dim() - g.spatial_dims;
  c.channels = input.size(lead - 1);
  c.planes = c.batched ? input.size(0) * c.channels : c.channels;
  if (g.spatial_dims == 1) c.in.push_back(1);
  for (int64_t d = lead; d < input.dim(); ++d) c.in.push_back(input.size(d));
}

// Every dim but the batch dim has elements, with the message of PyTorch's
// 2-D (lifted 1-D) or 3-D checks.
void check_non_empty(const char* op, const Tensor& input, const PoolGeometry& g, const Checked& c,
                     bool is_max) {
  for (int64_t d = c.batched ? 1 : 0; d < input.dim(); ++d) {
    if (input.size(d) != 0) continue;
    if (c.dims == 3) {
      TORCHLET_CHECK(false, is_max ? "max_pool3d_with_indices_out_cpu_template" : op,
                     "(): Expected input's non-batch dimensions to have positive length, but "
                     "input has a shape of ",
                     shape_str(input.sizes()), " and non-batch dimension ", d - c.batched,
                     " has length zero!");
    }
    SizeVec lifted(input.sizes().begin(), input.sizes().end());
    if (g.spatial_dims == 1) lifted.insert(lifted.end() - 1, 1);
    TORCHLET_CHECK(false, "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size "
                   "for input, but got:", shape_str(lifted));
  }
}

void check_window(const char* op, const Tensor& input, const PoolGeometry& g, Checked& c,
                  bool is_max) {
  for (int64_t d = 0; d < c.dims; ++d) {
    c.out.push_back(pooling_output_size(c.in[d], c.kernel[d], c.stride[d], c.padding[d],
                                        c.dilation[d], g.ceil_mode));
  }
  TORCHLET_CHECK(all_positive(c.kernel), "kernel size should be greater than zero, but got ",
                 named(c.kernel, "k"));
  TORCHLET_CHECK(all_positive(c.stride), "stride should be greater than zero, but got ",
                 named(c.stride, "d"));
  if (is_max) {
    TORCHLET_CHECK(all_positive(c.dilation), "dilation should be greater than zero, but got ",
                   named(c.dilation, "dilation"));
  }
  check_non_empty(op, input, g, c, is_max);
  if (c.dims == 3 && !is_max) {
    bool fits = true;
    for (int64_t d = 0; d < c.dims; ++d) fits = fits && c.in[d] >= c.kernel[d];
    TORCHLET_CHECK(fits, "input image (", named(c.in, ""), ") smaller than kernel size (",
                   named(c.kernel, "k"), ")");
  }
  TORCHLET_CHECK(all_positive(c.out), "Given input size: (", c.channels, "x", joined(c.in),
                 "). Calculated output size: (", c.channels, "x", joined(c.out),
                 "). Output size is too small");
}

cpu::PoolWindow window_of(const Checked& c) {
  cpu::PoolWindow w;
  w.planes = c.planes;
  const int64_t skip = 3 - c.dims;
  for (int64_t d = 0; d < c.dims; ++d) {
    w.in[skip + d] = c.in[d];
    w.out[skip + d] = c.out[d];
    w.kernel[skip + d] = c.kernel[d];
    w.stride[skip + d] = c.stride[d];
    w.pad[skip + d] = c.padding[d];
    w.dilation[skip + d] = c.dilation[d];
  }
  return w;
}

// The output's shape: input's leading dims, then the output's spatial sizes.
SizeVec output_shape(const Tensor& input, const PoolGeometry& g, const Checked& c) {
  SizeVec shape(input.sizes().begin(), input.sizes().end() - g.spatial_dims);
  shape.insert(shape.end(), c.out.end() - g.spatial_dims, c.out.end());
  return shape;
}

Checked checked_max(const char* op, const Tensor& input, const PoolGeometry& g) {
  Checked c = lift(g);
  check_input(op, input, g, /*is_max=*/true, c);
  check_window(op, input, g, c, /*is_max=*/true);
  return c;
}

// PyTorch's average pools dispatch on the dtype after their shape checks:
// on the CPU float32, float64 and int64 (summed in int64, the sum divided
// with truncation toward zero), naming the 2-D kernel for 1-D pools (Note
// [1-D pools are 2-D pools]); bfloat16 is not computed here.
void check_avg_dtype(const Tensor& input, const Checked& c) {
  const DType dtype = input.dtype();
  const bool cpu_integer = dtype == kInt64 && !input.is_cuda();
  const char* kernel = input.is_cuda() ? (c.dims == 3 ? "avg_pool3d_out_cuda" : "avg_pool2d_out_cuda_frame")
                                       : (c.dims == 3 ? "avg_pool3d_out_frame" : "avg_pool2d");
  TORCHLET_CHECK(input.is_floating_point() || cpu_integer, "\"", kernel, "\" not implemented for '",
                 scalar_type_name(dtype), "'");
  TORCHLET_CHECK(dtype != kFloat16 || input.is_cuda(), "\"", kernel, "\" not implemented for '",
                 scalar_type_name(dtype), "'");
}

Checked checked_avg(const char* op, const Tensor& input, const PoolGeometry& g,
                    std::optional<int64_t> divisor_override) {
  TORCHLET_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  Checked c = lift(g);
  check_input(op, input, g, /*is_max=*/false, c);
  check_window(op, input, g, c, /*is_max=*/false);
  check_avg_dtype(input, c);
  return c;
}

cpu::AvgDivisor avg_divisor(bool count_include_pad, std::optional<int64_t> divisor_override) {
  return {count_include_pad, divisor_override.value_or(0)};
}

// The geometry of a backward pass, from the forward's input shape (already
// checked by the forward).
Checked backward_geometry(IntArrayRef input_shape, const PoolGeometry& g) {
  Checked c = lift(g);
  const size_t lead = input_shape.size() - static_cast<size_t>(g.spatial_dims);
  c.planes = 1;
  for (size_t d = 0; d < lead; ++d) c.planes *= input_shape[d];
  if (g.spatial_dims == 1) c.in.push_back(1);
  c.in.insert(c.in.end(), input_shape.begin() + static_cast<int64_t>(lead), input_shape.end());
  for (int64_t d = 0; d < c.dims; ++d) {
    c.out.push_back(pooling_output_size(c.in[d], c.kernel[d], c.stride[d], c.padding[d],
                                        c.dilation[d], g.ceil_mode));
  }
  return c;
}

// An adaptive pool's input as planes and 3-D sizes, with PyTorch's checks
// (1-D pools are 2-D pools, Note [1-D pools are 2-D pools]).
cpu::PoolWindow adaptive_window(const char* op, const Tensor& input, IntArrayRef output_size,
                                bool is_max) {
  check_defined(op, input);
  const int64_t spatial = static_cast<int64_t>(output_size.size());
  // Average pools check their dtype after the shape (below), naming
  // PyTorch's CPU kernel: the 2-D one for 1-D pools.
  TORCHLET_CHECK(!is_max || input.is_floating_point(), "\"", op, "\" not implemented for '",
                 scalar_type_name(input.dtype()), "'");
  const int64_t dim = input.dim();
  if (spatial == 1) {
    TORCHLET_CHECK(dim == 2 || dim == 3, "Expected 2 to 3 dimensions, but got ", dim,
                   "-dimensional tensor for argument #1 'self' (while checking arguments for ",
                   op, ")");
  } else {
    TORCHLET_CHECK(dim == spatial + 1 || dim == spatial + 2, op, "(): Expected ", spatial + 1,
                   "D or ", spatial + 2, "D tensor, but got", is_max ? ": " : " ",
                   shape_str(input.sizes()));
  }
  SizeVec lifted(input.sizes().begin(), input.sizes().end());
  if (spatial == 1) lifted.insert(lifted.end() - 1, 1);
  // PyTorch checks the spatial dims of 2-D average pools, every dim but
  // the first otherwise.
  const int64_t lifted_dim = static_cast<int64_t>(lifted.size());
  const char* checked_op =
      spatial == 1 ? (is_max ? "adaptive_max_pool2d" : "adaptive_avg_pool2d") : op;
  for (int64_t d = !is_max && spatial <= 2 ? lifted_dim - 2 : 1; d < lifted_dim; ++d) {
    TORCHLET_CHECK(lifted[d] > 0, checked_op,
                   "(): Expected input to have non-zero size for non-batch dimensions, but "
                   "input has sizes ",
                   shape_str(lifted), " with dimension ", d, " being empty");
  }
  bool non_negative = true;
  std::string received = "{";
  for (size_t i = 0; i < output_size.size(); ++i) {
    non_negative = non_negative && output_size[i] >= 0;
    received += (i ? ", " : "") + std::to_string(output_size[i]);
  }
  TORCHLET_CHECK(non_negative, op, ": elements of output_size must be greater than or equal to 0 ",
                 "but received ", received, "}");
  if (!is_max && !input.is_cuda()) {
    TORCHLET_CHECK(input.is_floating_point(), "\"",
                   spatial == 3 ? "adaptive_avg_pool3d_cpu" : "adaptive_avg_pool2d",
                   "\" not implemented for '", scalar_type_name(input.dtype()), "'");
  } else if (!is_max) {
    TORCHLET_CHECK(input.is_floating_point(), "\"", op, "\" not implemented for '",
                   scalar_type_name(input.dtype()), "'");
  }
  cpu::PoolWindow w;
  w.planes = 1;
  for (int64_t d = 0; d < dim - spatial; ++d) w.planes *= input.size(d);
  for (int64_t d = 0; d < spatial; ++d) {
    w.in[3 - spatial + d] = input.size(dim - spatial + d);
    w.out[3 - spatial + d] = output_size[d];
  }
  return w;
}

SizeVec adaptive_output_shape(const Tensor& input, IntArrayRef output_size) {
  SizeVec shape(input.sizes().begin(), input.sizes().end() - output_size.size());
  shape.insert(shape.end(), output_size.begin(), output_size.end());
  return shape;
}

// "D: 2, H: 4, W: 4" for the last sizes.size() of D, H, W.
std::string dhw(IntArrayRef sizes) {
  static const char* const kNames[] = {"D", "H", "W"};
  const size_t skip = 3 - sizes.size();
  std::string text;
  for (size_t i = 0; i < sizes.size(); ++i) {
    text += (i ? ", " : "") + std::string(kNames[skip + i]) + ": " + std::to_string(sizes[i]);
  }
  return text;
}

cpu::Resample resample_geometry(IntArrayRef input_shape, IntArrayRef output_size,
                                absl::Span<const double> scales, ResampleMode mode,
                                bool align_corners) {
  const size_t spatial = output_size.size();
  TORCHLET_INTERNAL_ASSERT(spatial >= 1 && spatial <= 3 && scales.size() == spatial &&
                               input_shape.size() == spatial + 2,
                           "resample: sizes of the wrong rank");
  cpu::Resample r;
  r.planes = input_shape[0] * input_shape[1];
  for (size_t d = 0; d < spatial; ++d) {
    r.in[3 - spatial + d] = input_shape[2 + d];
    r.out[3 - spatial + d] = output_size[d];
    r.scales[3 - spatial + d] = scales[d];
  }
  r.align_corners = align_corners;
  r.nearest_exact = mode == ResampleMode::kNearestExact;
  return r;
}

bool is_nearest(ResampleMode mode) {
  return mode == ResampleMode::kNearest || mode == ResampleMode::kNearestExact;
}

// PyTorch's op name of a resampling of `dims` dims, for messages.
const char* resample_op(ResampleMode mode, size_t dims) {
  switch (mode) {
    case ResampleMode::kNearest: return "upsample_nearest";
    case ResampleMode::kNearestExact: return "upsample_nearest_exact";
    case ResampleMode::kBilinear: return "upsample_bilinear2d";
    case ResampleMode::kBicubic: return "upsample_bicubic2d";
    case ResampleMode::kLinear: break;
  }
  return dims == 1 ? "upsample_linear1d" : dims == 2 ? "upsample_bilinear2d"
                                                     : "upsample_trilinear3d";
}

}  // namespace

int64_t pooling_output_size(int64_t input_size, int64_t kernel, int64_t stride, int64_t padding,
                            int64_t dilation, bool ceil_mode) {
  TORCHLET_CHECK(stride != 0, "stride should not be zero");
  TORCHLET_CHECK(padding >= 0, "pad must be non-negative, but got pad: ", padding);
  TORCHLET_CHECK(padding <= kernel / 2, "pad should be at most half of kernel size, but got pad=",
                 padding, " and kernel_size=", kernel);
  const int64_t span = input_size + 2 * padding - dilation * (kernel - 1) - 1 +
                       (ceil_mode ? stride - 1 : 0);
  // Division rounding toward -inf, as PyTorch's div_rtn.
  int64_t size = span / stride - ((span % stride != 0) && ((span < 0) != (stride < 0))) + 1;
  if (ceil_mode && (size - 1) * stride >= input_size + padding) --size;
  return size;
}

MaxPoolForward max_pool_forward(const char* op, const Tensor& input, const PoolGeometry& geometry,
                                bool with_indices) {
  const Checked c = checked_max(op, input, geometry);
  const SizeVec shape = output_shape(input, geometry, c);
  MaxPoolForward f;
  f.output = empty(shape, input.options());
  if (with_indices) f.indices = empty(shape, input.options().dtype(kInt64));
  const auto kernel = input.is_cuda() ? cuda::max_pool : cpu::max_pool;
  kernel(f.output, f.indices, input.contiguous(), window_of(c));
  return f;
}

Tensor max_pool_backward(const Tensor& grad_output, const Tensor& indices,
                         IntArrayRef input_shape, int64_t spatial_dims) {
  TORCHLET_CHECK(grad_output.sizes() == indices.sizes(), "max_pool_backward: grad_output ",
                 shape_str(grad_output.sizes()), " and indices ", shape_str(indices.sizes()),
                 " differ in shape");
  // Indices are flat positions within an input plane: planes and the two
  // plane sizes are all the loop needs.
  const size_t lead = input_shape.size() - static_cast<size_t>(spatial_dims);
  cpu::PoolWindow w;
  w.planes = 1;
  for (size_t d = 0; d < lead; ++d) w.planes *= input_shape[d];
  for (size_t d = lead; d < input_shape.size(); ++d) w.in[2] *= input_shape[d];
  w.out[2] = w.planes == 0 ? 0 : grad_output.numel() / w.planes;
  Tensor grad_input = empty(input_shape, grad_output.options());
  const auto kernel = grad_input.is_cuda() ? cuda::max_pool_backward : cpu::max_pool_backward;
  kernel(grad_input, grad_output.contiguous(), indices.contiguous(), w);
  return grad_input;
}

Tensor avg_pool_forward(const char* op, const Tensor& input, const PoolGeometry& geometry,
                        bool count_include_pad, std::optional<int64_t> divisor_override) {
  const Checked c = checked_avg(op, input, geometry, divisor_override);
  Tensor out = empty(output_shape(input, geometry, c), input.options());
  const auto kernel = input.is_cuda() ? cuda::avg_pool : cpu::avg_pool;
  kernel(out, input.contiguous(), window_of(c), avg_divisor(count_include_pad, divisor_override));
  return out;
}

Tensor avg_pool_backward(const Tensor& grad_output, IntArrayRef input_shape,
                         const PoolGeometry& geometry, bool count_include_pad,
                         std::optional<int64_t> divisor_override) {
  const Checked c = backward_geometry(input_shape, geometry);
  Tensor grad_input = empty(input_shape, grad_output.options());
  const auto kernel = grad_input.is_cuda() ? cuda::avg_pool_backward : cpu::avg_pool_backward;
  kernel(grad_input, grad_output.contiguous(), window_of(c),
         avg_divisor(count_include_pad, divisor_override));
  return grad_input;
}

Tensor adaptive_avg_pool_forward(const char* op, const Tensor& input, IntArrayRef output_size) {
  const cpu::PoolWindow w = adaptive_window(op, input, output_size, /*is_max=*/false);
  Tensor out = empty(adaptive_output_shape(input, output_size), input.options());
  const auto kernel = input.is_cuda() ? cuda::adaptive_avg_pool : cpu::adaptive_avg_pool;
  kernel(out, input.contiguous(), w);
  return out;
}

Tensor adaptive_avg_pool_backward(const Tensor& grad_output, IntArrayRef input_shape,
                                  int64_t spatial_dims) {
  const int64_t rank = static_cast<int64_t>(input_shape.size());
  const int64_t spatial = spatial_dims;
  cpu::PoolWindow w;
  w.planes = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (d < rank - spatial) {
      w.planes *= input_shape[static_cast<size_t>(d)];
    } else {
      w.in[3 - rank + d] = input_shape[static_cast<size_t>(d)];
      w.out[3 - rank + d] = grad_output.size(d);
    }
  }
  Tensor grad_input = empty(input_shape, grad_output.options());
  const auto kernel = grad_input.is_cuda() ? cuda::adaptive_avg_pool_backward
                                            : cpu::adaptive_avg_pool_backward;
  kernel(grad_input, grad_output.contiguous(), w);
  return grad_input;
}

MaxPoolForward adaptive_max_pool_forward(const char* op, const Tensor& input,
                                         IntArrayRef output_size, bool with_indices) {
  const cpu::PoolWindow w = adaptive_window(op, input, output_size, /*is_max=*/true);
  const SizeVec shape = adaptive_output_shape(input, output_size);
  MaxPoolForward f;
  f.output = empty(shape, input.options());
  if (with_indices) f.indices = empty(shape, input.options().dtype(kInt64));
  const auto kernel = input.is_cuda() ? cuda::adaptive_max_pool : cpu::adaptive_max_pool;
  kernel(f.output, f.indices, input.contiguous(), w);
  return f;
}

Tensor max_unpool2d_forward(const Tensor& input, const Tensor& indices, IntArrayRef output_size) {
  check_defined("max_unpool2d", input);
  check_defined("max_unpool2d", indices);
  check_same_device("max_unpool2d", input, indices);
  TORCHLET_CHECK(indices.dtype() == kInt64, "elements in indices should be type int64 but got: ",
                 scalar_type_name(indices.dtype()));
  TORCHLET_CHECK(output_size.size() == 2,
                 "There should be exactly two elements (height, width) in output_size, but got ",
                 output_size.size(), " elements.");
  TORCHLET_CHECK(input.dim() == 3 || input.dim() == 4,
                 "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with ",
                 input.dim(), " dimensions.");
  TORCHLET_CHECK(input.sizes() == indices.sizes(),
                 "Expected shape of indices to be same as that of the input tensor (",
                 shape_str(input.sizes()), ") but got indices tensor with shape: ",
                 shape_str(indices.sizes()));
  TORCHLET_CHECK(input.is_floating_point(), "\"max_unpool2d\" not implemented for '",
                 scalar_type_name(input.dtype()), "'");
  cpu::PoolWindow w;
  w.planes = input.dim() == 4 ? input.size(0) * input.size(1) : input.size(0);
  w.in[1] = input.size(-2);
  w.in[2] = input.size(-1);
  w.out[1] = output_size[0];
  w.out[2] = output_size[1];
  SizeVec shape(input.sizes().begin(), input.sizes().end() - 2);
  shape.insert(shape.end(), output_size.begin(), output_size.end());
  Tensor out = empty(shape, input.options());
  int64_t bad = 0;
  bool valid = true;
  if (input.is_cuda()) {
    // Each plane's values scattered to their positions; the indices are
    // checked first, on the host (as the CPU, naming the first bad one).
    const int64_t in_plane = w.in[1] * w.in[2], out_plane = w.out[1] * w.out[2];
    const Tensor idx = indices.reshape({w.planes, in_plane});
    const Tensor invalid = idx.lt(0).logical_or(idx.ge(out_plane));
    valid = !invalid.any().item<bool>();
    if (valid) {
      out.zero_();
      out.view({w.planes, out_plane}).scatter_(1, idx, input.reshape({w.planes, in_plane}));
    } else {
      bad = idx.masked_select(invalid)[0].item<int64_t>();
    }
  } else {
    valid = cpu::max_unpool(out, input.contiguous(), indices.contiguous(), w, &bad);
  }
  TORCHLET_CHECK(valid, "Found an invalid max index: ", bad, " (output volumes are of size ",
                 output_size[0], "x", output_size[1]);
  return out;
}

namespace {

// Resampling composed of tensor ops, for GPUs (Note [Composed resampling]).

// The tables are written on the CPU whichever device the calling thread's
// factories default to (a GPU's executor runs the backward).
const Device kHostDevice(kCPU, 0);

// A 1-D int64 index tensor on `device`.
Tensor index_tensor(const std::vector<int64_t>& values, Device device) {
  Tensor t =
      empty({static_cast<int64_t>(values.size())}, TensorOptions(kInt64).device(kHostDevice));
  std::copy(values.begin(), values.end(), static_cast<int64_t*>(t.data_ptr()));
  return t.to(device);
}

// Weights of dim `dim` (of a rank-`rank` tensor) shaped to broadcast along it.
Tensor weight_tensor(const std::vector<double>& values, DType dtype, Device device, int64_t dim,
                     int64_t rank) {
  Tensor t =
      empty({static_cast<int64_t>(values.size())}, TensorOptions(kFloat64).device(kHostDevice));
  std::copy(values.begin(), values.end(), static_cast<double*>(t.data_ptr()));
  SizeVec shape(static_cast<size_t>(rank), 1);
  shape[static_cast<size_t>(dim)] = t.numel();
  return t.to(dtype).to(device).view(shape);
}

// `index` (1-D, along `dim`) expanded to `shape`, for scatter_add_.
Tensor expand_index(const Tensor& index, int64_t dim, IntArrayRef shape) {
  SizeVec view(shape.size(), 1);
  view[static_cast<size_t>(dim)] = index.numel();
  return index.view(view).expand(shape);
}

// g (whose dim `dim` has index.numel() entries) summed into `size` entries
// along dim: entry i of the result adds every g entry whose index is i.
Tensor scatter_along(const Tensor& g, int64_t dim, const Tensor& index, int64_t size) {
  SizeVec shape(g.sizes().begin(), g.sizes().end());
  shape[static_cast<size_t>(dim)] = size;
  Tensor out = zeros(shape, g.options());
  out.scatter_add_(dim, expand_index(index, dim, g.sizes()), g.contiguous());
  return out;
}

// Tap k of every output of a dim: the input each reads and its weight.
struct Tap {
  std::vector<int64_t> index;
  std::vector<double> weight;
};
Tap tap(const cpu::SeparableTaps& t, int k, int64_t outputs) {
  Tap out;
  for (int64_t o = 0; o < outputs; ++o) {
    out.index.push_back(t.index[static_cast<size_t>(o * t.taps + k)]);
    out.weight.push_back(t.weight[static_cast<size_t>(o * t.taps + k)]);
  }
  return out;
}

}  // namespace

// Note [Composed resampling]
// On GPUs, resampling is composed of ops that have kernels there, with the
// CPU kernels' tables (cpu::resample_nearest_indices, resample_linear_taps,
// resample_separable_taps): nearest is an index_select per spatial dim;
// bilinear is index_selects and the CPU's products and sums in its order,
// ((row0[i0] * w0 + row0[i1] * w1) * h0 + ...); linear, trilinear and
// bicubic are, per spatial dim from the innermost out, a sum over the dim's
// taps of an index_select times its weights, as the CPU nests its sums. So
// the forward results are the CPU's; the gradients scatter-add back one dim
// at a time. Tested on CPU tensors against the CPU kernels.
namespace detail {

Tensor resample_forward_composed(const Tensor& input, IntArrayRef output_size,
                                 absl::Span<const double> scales, ResampleMode mode,
                                 bool align_corners) {
  const cpu::Resample r =
      resample_geometry(input.sizes(), output_size, scales, mode, align_corners);
  const int64_t spatial = static_cast<int64_t>(output_size.size());
  const int64_t first = 3 - spatial;  // Resample's index of the first spatial dim
  if (is_nearest(mode)) {
    Tensor out = input;
    for (int64_t d = 0; d < spatial; ++d) {
      out = out.index_select(2 + d, index_tensor(cpu::resample_nearest_indices(
                                                     r, static_cast<int>(first + d)),
                                                 input.device()));
    }
    return out.contiguous();
  }
  if (mode != ResampleMode::kBilinear) {
    // Linear, trilinear, bicubic: the innermost dim first, as the CPU nests
    // its sums.
    const int64_t rank = input.dim();
    Tensor out = input;
    for (int64_t d = spatial - 1; d >= 0; --d) {
      const cpu::SeparableTaps t = cpu::resample_separable_taps(
          r, static_cast<int>(first + d), mode == ResampleMode::kBicubic, input.dtype());
      const int64_t size = output_size[static_cast<size_t>(d)];
      Tensor sum;
      for (int k = 0; k < t.taps; ++k) {
        const Tap p = tap(t, k, size);
        const Tensor term =
            out.index_select(2 + d, index_tensor(p.index, input.device()))
                .mul(weight_tensor(p.weight, input.dtype(), input.device(), 2 + d, rank));
        sum = k == 0 ? term : sum.add(term);
      }
      out = sum;
    }
    return out.contiguous();
  }
  const cpu::LinearTaps h = cpu::resample_linear_taps(r, 1, input.dtype());
  const cpu::LinearTaps w = cpu::resample_linear_taps(r, 2, input.dtype());
  const Device device = input.device();
  const Tensor w_i0 = index_tensor(w.i0, device), w_i1 = index_tensor(w.i1, device);
  const Tensor w0 = weight_tensor(w.w0, input.dtype(), device, 3, 4);
  const Tensor w1 = weight_tensor(w.w1, input.dtype(), device, 3, 4);
  auto across = [&](const Tensor& rows) {
    return rows.index_select(3, w_i0).mul(w0).add(rows.index_select(3, w_i1).mul(w1));
  };
  const Tensor top = across(input.index_select(2, index_tensor(h.i0, device)));
  const Tensor bottom = across(input.index_select(2, index_tensor(h.i1, device)));
  return top.mul(weight_tensor(h.w0, input.dtype(), device, 2, 4))
      .add(bottom.mul(weight_tensor(h.w1, input.dtype(), device, 2, 4)));
}

Tensor resample_backward_composed(const Tensor& grad_output, IntArrayRef input_shape,
                                  absl::Span<const double> scales, ResampleMode mode,
                                  bool align_corners) {
  const IntArrayRef output_size = grad_output.sizes().subspan(2);
  const cpu::Resample r = resample_geometry(input_shape, output_size, scales, mode, align_corners);
  const int64_t spatial = static_cast<int64_t>(output_size.size());
  const int64_t first = 3 - spatial;
  const Device device = grad_output.device();
  if (is_nearest(mode)) {
    Tensor g = grad_output;
    for (int64_t d = spatial - 1; d >= 0; --d) {
      const Tensor index =
          index_tensor(cpu::resample_nearest_indices(r, static_cast<int>(first + d)), device);
      g = scatter_along(g, 2 + d, index, input_shape[static_cast<size_t>(2 + d)]);
    }
    return g;
  }
  const DType dtype = grad_output.dtype();
  if (mode != ResampleMode::kBilinear) {
    // The transpose of the forward's passes, outermost dim first.
    const int64_t rank = grad_output.dim();
    Tensor g = grad_output;
    for (int64_t d = 0; d < spatial; ++d) {
      const cpu::SeparableTaps t = cpu::resample_separable_taps(
          r, static_cast<int>(first + d), mode == ResampleMode::kBicubic, dtype);
      const int64_t size = output_size[static_cast<size_t>(d)];
      const int64_t in_size = input_shape[static_cast<size_t>(2 + d)];
      Tensor sum;
      for (int k = 0; k < t.taps; ++k) {
        const Tap p = tap(t, k, size);
        const Tensor weighted = g.mul(weight_tensor(p.weight, dtype, device, 2 + d, rank));
        const Tensor term = scatter_along(weighted, 2 + d, index_tensor(p.index, device), in_size);
        sum = k == 0 ? term : sum.add(term);
      }
      g = sum;
    }
    return g;
  }
  const cpu::LinearTaps h = cpu::resample_linear_taps(r, 1, dtype);
  const cpu::LinearTaps w = cpu::resample_linear_taps(r, 2, dtype);
  const int64_t in_h = input_shape[2], in_w = input_shape[3];
  // Along the height: each output row's gradient to its two input rows.
  const Tensor rows = scatter_along(grad_output.mul(weight_tensor(h.w0, dtype, device, 2, 4)), 2,
                                    index_tensor(h.i0, device), in_h)
                          .add(scatter_along(
                              grad_output.mul(weight_tensor(h.w1, dtype, device, 2, 4)), 2,
                              index_tensor(h.i1, device), in_h));
  // Then along the width.
  return scatter_along(rows.mul(weight_tensor(w.w0, dtype, device, 3, 4)), 3,
                       index_tensor(w.i0, device), in_w)
      .add(scatter_along(rows.mul(weight_tensor(w.w1, dtype, device, 3, 4)), 3,
                         index_tensor(w.i1, device), in_w));
}

}  // namespace detail

Tensor resample_forward(const Tensor& input, IntArrayRef output_size,
                        absl::Span<const double> scales, ResampleMode mode, bool align_corners) {
  const char* op = resample_op(mode, output_size.size());
  check_defined(op, input);
  TORCHLET_CHECK(input.is_floating_point(), "\"", op, "\" not implemented for '",
                 scalar_type_name(input.dtype()), "'");
  TORCHLET_CHECK(input.dim() == static_cast<int64_t>(output_size.size()) + 2, op,
                 ": expected input of ", output_size.size() + 2, " dims, got ",
                 shape_str(input.sizes()));
  const IntArrayRef spatial = input.sizes().subspan(2);
  bool positive = true;
  for (size_t d = 0; d < spatial.size(); ++d) {
    positive = positive && spatial[d] > 0 && output_size[d] > 0;
  }
  TORCHLET_CHECK(positive, "Input and output sizes should be greater than 0, but got input (",
                 dhw(spatial), ") output (", dhw(output_size), ")");
  TORCHLET_INTERNAL_ASSERT((mode != ResampleMode::kBilinear && mode != ResampleMode::kBicubic) ||
                               output_size.size() == 2,
                           op, ": resamples 2 dims");
  if (input.is_cuda()) {
    return detail::resample_forward_composed(input, output_size, scales, mode, align_corners);
  }
  const cpu::Resample r =
      resample_geometry(input.sizes(), output_size, scales, mode, align_corners);
  SizeVec shape{input.size(0), input.size(1)};
  shape.insert(shape.end(), output_size.begin(), output_size.end());
  Tensor out = empty(shape, input.options());
  if (is_nearest(mode)) {
    cpu::upsample_nearest(out, input.contiguous(), r);
  } else if (mode == ResampleMode::kBilinear) {
    cpu::upsample_bilinear(out, input.contiguous(), r);
  } else {
    cpu::upsample_separable(out, input.contiguous(), r, mode == ResampleMode::kBicubic);
  }
  return out;
}

Tensor resample_backward(const Tensor& grad_output, IntArrayRef input_shape,
                         absl::Span<const double> scales, ResampleMode mode, bool align_corners) {
  if (grad_output.is_cuda()) {
    return detail::resample_backward_composed(grad_output, input_shape, scales, mode,
                                              align_corners);
  }
  const cpu::Resample r =
      resample_geometry(input_shape, grad_output.sizes().subspan(2), scales, mode,
                        align_corners);
  Tensor grad_input = empty(input_shape, grad_output.options());
  if (is_nearest(mode)) {
    cpu::upsample_nearest_backward(grad_input, grad_output.contiguous(), r);
  } else if (mode == ResampleMode::kBilinear) {
    cpu::upsample_bilinear_backward(grad_input, grad_output.contiguous(), r);
  } else {
    cpu::upsample_separable_backward(grad_input, grad_output.contiguous(), r,
                                     mode == ResampleMode::kBicubic);
  }
  return grad_input;
}

}  // namespace torchlet
