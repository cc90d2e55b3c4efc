#pragma once

// Resampling (torch.nn.functional.interpolate, pixel_shuffle,
// pixel_unshuffle).

#include <cstdint>
#include <optional>
#include <vector>

#include "autograd/variable.h"
#include "tensor/pool.h"

namespace torchlet::nn::functional {

/// interpolate's modes, PyTorch's strings: "nearest", "nearest-exact" and
/// "area" (1-D, 2-D and 3-D), "linear" (1-D), "bilinear" and "bicubic"
/// (2-D), "trilinear" (3-D).
enum class InterpolateMode {
  kNearest,
  kLinear,
  kBilinear,
  kBicubic,
  kTrilinear,
  kArea,
  kNearestExact
};

/// The mode's PyTorch string ("nearest-exact").
const char* interpolate_mode_name(InterpolateMode mode);

/// interpolate's arguments, libtorch's way:
/// `InterpolateFuncOptions().scale_factor({2, 2}).mode(InterpolateMode::kBilinear)`.
/// Exactly one of size and scale_factor must be given; one value stands
/// for every spatial dim.
struct InterpolateFuncOptions {
  InterpolateFuncOptions& size(std::vector<int64_t> v) { size_ = std::move(v); return *this; }
  InterpolateFuncOptions& scale_factor(std::vector<double> v) {
    scale_factor_ = std::move(v);
    return *this;
  }
  InterpolateFuncOptions& mode(InterpolateMode v) { mode_ = v; return *this; }
  /// Only for linear, bilinear, bicubic and trilinear; false when not given.
  InterpolateFuncOptions& align_corners(bool v) { align_corners_ = v; return *this; }
  /// With scale_factor: true computes the output size, then maps indices
  /// by in / out as if that size had been given; false or unset maps them
  /// by 1 / scale_factor. An error with size.
  InterpolateFuncOptions& recompute_scale_factor(bool v) {
    recompute_scale_factor_ = v;
    return *this;
  }

  std::optional<std::vector<int64_t>> size_;
  std::optional<std::vector<double>> scale_factor_;
  InterpolateMode mode_ = InterpolateMode::kNearest;
  std::optional<bool> align_corners_;
  std::optional<bool> recompute_scale_factor_;
};

/// Resamples input [N, C, *spatial] (1 to 3 spatial dims) to `size`, or to
/// floor(in * scale_factor) per dim with the factors used for the index
/// mapping as PyTorch 1.13 does unless recompute_scale_factor. Nearest
/// reads input floor(o * in / out) (or floor(o / scale_factor)),
/// nearest-exact floor((o + 0.5) * in / out); linear, bilinear and
/// trilinear interpolate the two nearest inputs per dim, bicubic four (A =
/// -0.75); area is adaptive average pooling to the output size.
Variable interpolate(const Variable& input, const InterpolateFuncOptions& options);

/// Rearranges input [*, C * r^2, H, W] to [*, C, H * r, W * r] (r =
/// upscale_factor): output[c][h * r + i][w * r + j] = input[c * r^2 + i * r
/// + j][h][w]. Views and a permute, so differentiable.
Variable pixel_shuffle(const Variable& input, int64_t upscale_factor);

/// The inverse of pixel_shuffle: [*, C, H * r, W * r] to [*, C * r^2, H, W]
/// (r = downscale_factor).
Variable pixel_unshuffle(const Variable& input, int64_t downscale_factor);

}  // namespace torchlet::nn::functional
