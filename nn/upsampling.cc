#include "nn/upsampling.h"

#include "nn/repr.h"

namespace torchlet::nn {

Variable UpsampleImpl::forward(const Variable& input) {
  functional::InterpolateFuncOptions func;
  if (options.size_) func.size(options.size_->values());
  if (options.scale_factor_) func.scale_factor(*options.scale_factor_);
  func.mode(options.mode_);
  if (options.align_corners_) func.align_corners(*options.align_corners_);
  if (options.recompute_scale_factor_) {
    func.recompute_scale_factor(*options.recompute_scale_factor_);
  }
  return functional::interpolate(input, func);
}

std::string UpsampleImpl::extra_repr() const {
  std::string info;
  if (options.scale_factor_) {
    const std::vector<double>& s = *options.scale_factor_;
    if (options.scale_is_tuple_) {
      info = "scale_factor=(";
      for (size_t i = 0; i < s.size(); ++i) info += (i ? ", " : "") + detail::float_repr(s[i]);
      info += s.size() == 1 ? ",)" : ")";
    } else {
      info = "scale_factor=" + detail::float_repr(s[0]);
    }
  } else {
    info = "size=" + (options.size_ ? options.size_->repr() : std::string("None"));
  }
  return info + ", mode=" + functional::interpolate_mode_name(options.mode_);
}

Variable PixelShuffleImpl::forward(const Variable& input) {
  return functional::pixel_shuffle(input, upscale_factor_);
}

Variable PixelUnshuffleImpl::forward(const Variable& input) {
  return functional::pixel_unshuffle(input, downscale_factor_);
}

}  // namespace torchlet::nn
