#pragma once

// Resampling layers (torch.nn.PixelShuffle, PixelUnshuffle).

#include <cstdint>
#include <string>

#include "nn/cloneable.h"
#include "nn/module_holder.h"

namespace torchlet::nn {

/// [*, C * r^2, H, W] to [*, C, H * r, W * r] (torch.nn.PixelShuffle).
class PixelShuffleImpl : public Cloneable<PixelShuffleImpl> {
 public:
  explicit PixelShuffleImpl(int64_t upscale_factor) : upscale_factor_(upscale_factor) {}
  void reset() override {}
  Variable forward(const Variable& input);
  std::string extra_repr() const override {
    return "upscale_factor=" + std::to_string(upscale_factor_);
  }

 private:
  int64_t upscale_factor_;
};
TORCHLET_MODULE(PixelShuffle);

/// [*, C, H * r, W * r] to [*, C * r^2, H, W] (torch.nn.PixelUnshuffle).
class PixelUnshuffleImpl : public Cloneable<PixelUnshuffleImpl> {
 public:
  explicit PixelUnshuffleImpl(int64_t downscale_factor) : downscale_factor_(downscale_factor) {}
  void reset() override {}
  Variable forward(const Variable& input);
  std::string extra_repr() const override {
    return "downscale_factor=" + std::to_string(downscale_factor_);
  }

 private:
  int64_t downscale_factor_;
};
TORCHLET_MODULE(PixelUnshuffle);

}  // namespace torchlet::nn
