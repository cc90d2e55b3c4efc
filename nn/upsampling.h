#pragma once

// Resampling layers (torch.nn.Upsample, PixelShuffle, PixelUnshuffle).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nn/cloneable.h"
#include "nn/functional/pooling.h"
#include "nn/functional/upsampling.h"
#include "nn/module_holder.h"

namespace torchlet::nn {

/// torch.nn.Upsample's arguments: a size or a scale factor (one number, or
/// one per spatial dim), the mode, align_corners for the interpolating
/// modes and recompute_scale_factor.
struct UpsampleOptions {
  UpsampleOptions& size(IntOrTuple v) { size_ = std::move(v); return *this; }
  UpsampleOptions& scale_factor(double v) {
    scale_factor_ = std::vector<double>{v};
    scale_is_tuple_ = false;
    return *this;
  }
  UpsampleOptions& scale_factor(std::vector<double> v) {
    scale_factor_ = std::move(v);
    scale_is_tuple_ = true;
    return *this;
  }
  UpsampleOptions& mode(functional::InterpolateMode v) { mode_ = v; return *this; }
  UpsampleOptions& align_corners(bool v) { align_corners_ = v; return *this; }
  UpsampleOptions& recompute_scale_factor(bool v) { recompute_scale_factor_ = v; return *this; }

  std::optional<IntOrTuple> size_;
  std::optional<std::vector<double>> scale_factor_;
  bool scale_is_tuple_ = false;
  functional::InterpolateMode mode_ = functional::InterpolateMode::kNearest;
  std::optional<bool> align_corners_;
  std::optional<bool> recompute_scale_factor_;
};

/// Resamples [N, C, *spatial] by functional::interpolate (torch.nn.Upsample).
class UpsampleImpl : public Cloneable<UpsampleImpl> {
 public:
  explicit UpsampleImpl(UpsampleOptions options = {}) : options(std::move(options)) {}
  void reset() override {}
  Variable forward(const Variable& input);
  /// `scale_factor=2.0, mode=nearest` or `size=(3, 4), mode=nearest-exact`.
  std::string extra_repr() const override;

  UpsampleOptions options;
};
TORCHLET_MODULE(Upsample);

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
