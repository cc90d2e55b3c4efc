#pragma once

// Differentiable forms of the pooling kernels (tensor/pool.h), for
// torchlet::nn::functional's pools. Each records one node whose backward is
// the pooling kernel's backward, or, when the backward itself is recorded
// (create_graph), a differentiable op, so second derivatives work.

#include <optional>
#include <tuple>

#include "autograd/variable.h"
#include "tensor/pool.h"

namespace torchlet {

/// Max pooling over the trailing geometry.spatial_dims dims of input.
/// Returns the output and the int64 indices of each maximum within its input
/// plane. Note [Max pooling indices]: the indices are computed only when
/// asked for (return_indices) or when the backward needs them (grad mode on
/// and input requires grad); otherwise the returned Tensor is undefined, so
/// inference pays nothing for them. `op` ("max_pool2d") names the op in
/// messages.
std::tuple<Variable, Tensor> max_pool(const char* op, const Variable& input,
                                      const PoolGeometry& geometry, bool return_indices);

/// Average pooling over the trailing geometry.spatial_dims dims of input
/// (geometry.dilation all ones), divided as tensor/pool.h's
/// avg_pool_forward.
Variable avg_pool(const char* op, const Variable& input, const PoolGeometry& geometry,
                  bool count_include_pad, std::optional<int64_t> divisor_override);

/// Adaptive average pooling to output_size over input's last
/// output_size.size() dims (tensor/pool.h's adaptive_avg_pool_forward).
Variable adaptive_avg_pool(const char* op, const Variable& input, IntArrayRef output_size);

/// Adaptive max pooling to output_size; indices as max_pool's (Note [Max
/// pooling indices]).
std::tuple<Variable, Tensor> adaptive_max_pool(const char* op, const Variable& input,
                                               IntArrayRef output_size, bool return_indices);

/// max_unpool2d: input's elements placed at indices in zero planes of
/// output_size [H, W]. Its gradient gathers the output's gradient at the
/// indices.
Variable max_unpool2d(const Variable& input, const Tensor& indices, IntArrayRef output_size);

/// Resampling of input [N, C, *spatial] to output_size (tensor/pool.h's
/// resample_forward), differentiable to any order: its backward is linear
/// in the gradient, and the backward's own gradient is the resampling.
Variable resample(const Variable& input, IntArrayRef output_size, absl::Span<const double> scales,
                  ResampleMode mode, bool align_corners);

}  // namespace torchlet
