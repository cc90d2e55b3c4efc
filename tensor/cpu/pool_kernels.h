#pragma once

// CPU loops of the pooling kernels (tensor/pool.h checks and lays out their
// arguments). Inputs and outputs are contiguous [planes, D, H, W]: 1-D and
// 2-D pools are 3-D pools with leading spatial sizes of 1.

#include <cstdint>
#include <vector>

#include "tensor/tensor_body.h"

namespace torchlet::cpu {

/// One pooling window's geometry in three spatial dims (D, H, W).
struct PoolWindow {
  int64_t planes = 0;
  int64_t in[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};
  int64_t dilation[3] = {1, 1, 1};

  int64_t in_plane() const { return in[0] * in[1] * in[2]; }
  int64_t out_plane() const { return out[0] * out[1] * out[2]; }
};

/// out = each window's maximum; indices (int64, or undefined to skip them)
/// = its flat position in the input plane.
void max_pool(const Tensor& out, const Tensor& indices, const Tensor& input,
              const PoolWindow& window);
/// grad_input (zeroed here) [planes, in_plane] += grad_out at indices.
void max_pool_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices,
                       const PoolWindow& window);

/// How average pooling divides each window's sum.
struct AvgDivisor {
  bool count_include_pad = true;
  /// 0: none.
  int64_t divisor_override = 0;
};

/// out = each window's average (no dilation).
void avg_pool(const Tensor& out, const Tensor& input, const PoolWindow& window,
              AvgDivisor divisor);
/// grad_input (zeroed here) = the transpose of avg_pool applied to grad_out.
void avg_pool_backward(const Tensor& grad_input, const Tensor& grad_out, const PoolWindow& window,
                       AvgDivisor divisor);

/// Adaptive pooling over window's in and out sizes (kernel, stride, pad and
/// dilation unused): out = each window's mean.
void adaptive_avg_pool(const Tensor& out, const Tensor& input, const PoolWindow& window);
/// grad_input (zeroed here) = the transpose of adaptive_avg_pool.
void adaptive_avg_pool_backward(const Tensor& grad_input, const Tensor& grad_out,
                                const PoolWindow& window);
/// out = each adaptive window's maximum; indices (or undefined) its position.
void adaptive_max_pool(const Tensor& out, const Tensor& indices, const Tensor& input,
                       const PoolWindow& window);

/// out (zeroed here) [planes, out_plane]: out[p][indices[p][i]] = input[p][i]
/// for input [planes, in_plane]. Returns false, with the first index outside
/// [0, out_plane) in *bad_index, if there is one (nothing is written then).
bool max_unpool(const Tensor& out, const Tensor& input, const Tensor& indices,
                const PoolWindow& window, int64_t* bad_index);

/// A resampling of planes [planes, in] to [planes, out] (3-D sizes, leading
/// ones for 1-D and 2-D); scales[d] <= 0 where no scale factor was given.
struct Resample {
  int64_t planes = 0;
  int64_t in[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  double scales[3] = {0, 0, 0};
  bool align_corners = false;
  /// Nearest reads input floor((o + 0.5) * scale) ("nearest-exact") instead
  /// of floor(o * scale).
  bool nearest_exact = false;
};

/// The input index that output index o of dim d (0 to 2, as in Resample)
/// reads by nearest neighbour, for every o.
std::vector<int64_t> resample_nearest_indices(const Resample& r, int d);
/// Dim d's bilinear taps, computed in `dtype` (float32 or float64) as the
/// kernels below compute them: output o is in[i0[o]] * w0[o] +
/// in[i1[o]] * w1[o] (the weights are that dtype's values).
struct LinearTaps {
  std::vector<int64_t> i0, i1;
  std::vector<double> w0, w1;
};
LinearTaps resample_linear_taps(const Resample& r, int d, DType dtype);

/// Dim d's taps as upsample_separable reads them, computed in `dtype`
/// (float32 or float64): output o is the sum, in k's order, of
/// in[index[o * taps + k]] * weight[o * taps + k] over k < taps.
struct SeparableTaps {
  int taps = 1;
  std::vector<int64_t> index;
  std::vector<double> weight;
};
SeparableTaps resample_separable_taps(const Resample& r, int d, bool cubic, DType dtype);

/// out = input resampled by nearest neighbour (PyTorch 1.13's "nearest").
void upsample_nearest(const Tensor& out, const Tensor& input, const Resample& r);
/// grad_input (zeroed here) = the transpose of upsample_nearest.
void upsample_nearest_backward(const Tensor& grad_input, const Tensor& grad_out,
                               const Resample& r);
/// out = input resampled bilinearly over its last two dims.
void upsample_bilinear(const Tensor& out, const Tensor& input, const Resample& r);
/// grad_input (zeroed here) = the transpose of upsample_bilinear.
void upsample_bilinear_backward(const Tensor& grad_input, const Tensor& grad_out,
                                const Resample& r);
/// out = input resampled separably over its three dims: two linear taps per
/// dim (linear, bilinear, trilinear) or four cubic ones (bicubic: A =
/// -0.75, indices clamped to the border); a dim whose size does not change
/// is copied (for cubic, only a dim of size 1). Sums nest with the first
/// dim outermost, as PyTorch 1.13's CPU kernels do.
void upsample_separable(const Tensor& out, const Tensor& input, const Resample& r, bool cubic);
/// grad_input (zeroed here) = the transpose of upsample_separable.
void upsample_separable_backward(const Tensor& grad_input, const Tensor& grad_out,
                                 const Resample& r, bool cubic);

}  // namespace torchlet::cpu
