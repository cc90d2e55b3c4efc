#pragma once

#include "tensor/tensor.h"

namespace torchlet::examples {

/// Sharpens each channel of a [1, C, H, W] image with a 3x3 convolution
/// without bias whose weight is -1/9 everywhere but 1 in the centre:
/// [1, C, H - 2, W - 2].
Tensor sharpen(const Tensor& image);

/// AvgPool2d(2, 2) of a [1, C, H, W] image.
Tensor average_pool(const Tensor& image);

/// MaxPool2d(2) of a [1, C, H, W] image.
Tensor max_pool(const Tensor& image);

}  // namespace torchlet::examples
