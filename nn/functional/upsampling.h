#pragma once

// Resampling (torch.nn.functional.pixel_shuffle, pixel_unshuffle).

#include <cstdint>

#include "autograd/variable.h"

namespace torchlet::nn::functional {

/// Rearranges input [*, C * r^2, H, W] to [*, C, H * r, W * r] (r =
/// upscale_factor): output[c][h * r + i][w * r + j] = input[c * r^2 + i * r
/// + j][h][w]. Views and a permute, so differentiable.
Variable pixel_shuffle(const Variable& input, int64_t upscale_factor);

/// The inverse of pixel_shuffle: [*, C, H * r, W * r] to [*, C * r^2, H, W]
/// (r = downscale_factor).
Variable pixel_unshuffle(const Variable& input, int64_t downscale_factor);

}  // namespace torchlet::nn::functional
