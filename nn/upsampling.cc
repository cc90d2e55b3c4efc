#include "nn/upsampling.h"

#include "nn/functional/upsampling.h"

namespace torchlet::nn {

Variable PixelShuffleImpl::forward(const Variable& input) {
  return functional::pixel_shuffle(input, upscale_factor_);
}

Variable PixelUnshuffleImpl::forward(const Variable& input) {
  return functional::pixel_unshuffle(input, downscale_factor_);
}

}  // namespace torchlet::nn
