#pragma once

// Pooling kernels behind torchlet::nn::functional's max and average pools:
// argument checks with PyTorch 1.13's messages, output shapes, and the
// dispatch to the CPU loops of tensor/cpu/pool_kernels.h. The
// differentiable forms live in autograd/pool_ops.h.

#include <cstdint>
#include <optional>

#include "tensor/tensor_body.h"

namespace torchlet {

/// A pooling window over the trailing `spatial_dims` dims of an input
/// [N, C, *spatial] or [C, *spatial]: one entry per spatial dim in each
/// field (the functional layer expands single ints).
struct PoolGeometry {
  /// 1, 2 or 3.
  int64_t spatial_dims = 2;
  SizeVec kernel;
  SizeVec stride;
  SizeVec padding;
  /// All ones for average pooling.
  SizeVec dilation;
  /// Output sizes round up instead of down (PyTorch's rule: the last window
  /// must still start inside the input or its left padding).
  bool ceil_mode = false;
};

/// PyTorch's pooling output size of one dim (pooling_output_shape), with
/// its checks of stride and padding.
int64_t pooling_output_size(int64_t input_size, int64_t kernel, int64_t stride, int64_t padding,
                            int64_t dilation, bool ceil_mode);

/// Max pooling's output and, when asked for, the flat index within its
/// input plane of each output element's maximum (int64).
struct MaxPoolForward {
  Tensor output;
  /// Undefined unless requested.
  Tensor indices;
};

/// Max pooling of float input: each output element is the maximum of its
/// (dilated) window, padding never chosen; ties keep the first maximum and
/// a NaN in the window propagates. `op` ("max_pool2d") names the op in
/// messages.
MaxPoolForward max_pool_forward(const char* op, const Tensor& input, const PoolGeometry& geometry,
                                bool with_indices);

/// The gradient of max pooling: each element of grad_output is added at the
/// input position its index names; input_shape is the forward input's,
/// whose last spatial_dims dims were pooled.
Tensor max_pool_backward(const Tensor& grad_output, const Tensor& indices,
                         IntArrayRef input_shape, int64_t spatial_dims);

/// Average pooling (no dilation): each window's sum divided by
/// divisor_override if given, else by the window's size counting padding
/// (count_include_pad) or only the input elements it covers.
Tensor avg_pool_forward(const char* op, const Tensor& input, const PoolGeometry& geometry,
                        bool count_include_pad, std::optional<int64_t> divisor_override);

/// The gradient of average pooling with respect to its input (input_shape).
Tensor avg_pool_backward(const Tensor& grad_output, IntArrayRef input_shape,
                         const PoolGeometry& geometry, bool count_include_pad,
                         std::optional<int64_t> divisor_override);

/// Adaptive average pooling of the trailing output_size.size() (1, 2 or 3)
/// dims of a float input [N, C, *spatial] or [C, *spatial]: output element
/// i of a dim averages input elements [floor(i * in / out),
/// ceil((i + 1) * in / out)). `op` ("adaptive_avg_pool2d") names it in
/// messages.
Tensor adaptive_avg_pool_forward(const char* op, const Tensor& input, IntArrayRef output_size);

/// The gradient of adaptive average pooling of input_shape's last
/// spatial_dims dims, with respect to its input.
Tensor adaptive_avg_pool_backward(const Tensor& grad_output, IntArrayRef input_shape,
                                  int64_t spatial_dims);

/// Adaptive max pooling over the same windows as adaptive_avg_pool_forward;
/// ties and NaN as max_pool_forward. Its gradient is max_pool_backward.
MaxPoolForward adaptive_max_pool_forward(const char* op, const Tensor& input,
                                         IntArrayRef output_size, bool with_indices);

/// The inverse of 2-D max pooling (max_unpool2d): a zero tensor of input's
/// leading dims and output_size's [H, W] where each input element is put at
/// the position (within its plane) its int64 index names.
Tensor max_unpool2d_forward(const Tensor& input, const Tensor& indices, IntArrayRef output_size);

/// The resampling modes of interpolate that have kernels. kLinear is
/// linear interpolation over any number of dims (PyTorch's linear,
/// bilinear and trilinear); kBilinear is the 2-D kernel that GPUs run too.
/// kLinear and kBicubic run on the CPU only.
enum class ResampleMode { kNearest, kBilinear, kNearestExact, kLinear, kBicubic };

/// Resamples the trailing output_size.size() dims (1 to 3; 2 for bilinear
/// and bicubic) of a float input [N, C, *spatial] to output_size. scales
/// holds the scale factor of each dim, or a value <= 0 where none was
/// given; a factor s maps output index o to input coordinate o / s, else
/// o * in / out. Nearest reads input floor(o * scale) (PyTorch 1.13's
/// "nearest"), nearest-exact floor((o + 0.5) * scale); linear weights the
/// two nearest inputs per dim and bicubic four, with align_corners mapping
/// the corner pixels' centres onto each other.
Tensor resample_forward(const Tensor& input, IntArrayRef output_size,
                        absl::Span<const double> scales, ResampleMode mode, bool align_corners);

/// The gradient of resample_forward with respect to its input.
Tensor resample_backward(const Tensor& grad_output, IntArrayRef input_shape,
                         absl::Span<const double> scales, ResampleMode mode, bool align_corners);

namespace detail {
/// resample_forward and resample_backward composed of index_select,
/// scatter_add_ and elementwise ops (Note [Composed resampling] in
/// tensor/pool.cc): what GPUs run, on any device's tensors. Arguments
/// already checked.
Tensor resample_forward_composed(const Tensor& input, IntArrayRef output_size,
                                 absl::Span<const double> scales, ResampleMode mode,
                                 bool align_corners);
Tensor resample_backward_composed(const Tensor& grad_output, IntArrayRef input_shape,
                                  absl::Span<const double> scales, ResampleMode mode,
                                  bool align_corners);
}  // namespace detail

}  // namespace torchlet
