#pragma once

#include <string>

#include "tensor/tensor.h"

namespace torchlet::examples {

/// Reads a PNG as torchvision's ToTensor does, batched: a float32
/// [1, C, H, W] tensor in [0, 1], C = 1 (gray), 2 (gray + alpha), 3 (RGB) or
/// 4 (RGBA); palette images become RGB(A), 16-bit samples 8-bit. Throws
/// torchlet::Error naming the file when it cannot be read or is no PNG.
Tensor read_png(const std::string& path);

/// Writes a [1, C, H, W] or [C, H, W] tensor with C in 1..4 as an 8-bit PNG:
/// values clamped to [0, 1], scaled by 255 and rounded. Throws
/// torchlet::Error naming the file or the offending shape.
void write_png(const Tensor& image, const std::string& path);

}  // namespace torchlet::examples
