#pragma once

// Convolutions (torch.nn.functional.conv1d/2d/3d and conv_transpose1d/2d/3d)
// with PyTorch 1.13's semantics: batched [N, C, *spatial] or unbatched
// [C, *spatial] input, parameters given as one number or one per spatial dim.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "autograd/variable.h"

namespace torchlet::nn::functional {

/// A convolution's padding: zeros added on both sides of each spatial dim
/// (one number for all, or one per dim), or "valid" (none) or "same" (the
/// output keeps the input's size; an odd total goes one more to the right).
class ConvPadding {
 public:
  ConvPadding(int64_t padding) : values_{padding} {}  // NOLINT: implicit, as PyTorch's int
  ConvPadding(std::initializer_list<int64_t> padding) : values_(padding) {}  // NOLINT
  ConvPadding(IntArrayRef padding) : values_(padding.begin(), padding.end()) {}  // NOLINT
  ConvPadding(const std::vector<int64_t>& padding)  // NOLINT
      : values_(padding.begin(), padding.end()) {}
  template <size_t N>
  ConvPadding(const char (&mode)[N]) : mode_(mode) {}  // NOLINT: implicit, as PyTorch's str
  ConvPadding(std::string mode) : mode_(std::move(mode)) {}  // NOLINT

  /// "valid", "same", or empty when given as numbers.
  const std::string& mode() const { return mode_; }
  /// The numbers, when given as numbers.
  IntArrayRef values() const { return values_; }
  bool is_mode() const { return !mode_.empty(); }

 private:
  SizeVec values_;
  std::string mode_;
};

/// Convolution over 1 spatial dim: input [N, C_in, L] or [C_in, L], weight
/// [C_out, C_in / groups, k], bias [C_out] or undefined.
Variable conv1d(const Variable& input, const Variable& weight, const Variable& bias = Variable(),
                IntArrayRef stride = {1}, const ConvPadding& padding = 0,
                IntArrayRef dilation = {1}, int64_t groups = 1);
/// Convolution over 2 spatial dims: input [N, C_in, H, W] or [C_in, H, W],
/// weight [C_out, C_in / groups, kH, kW], bias [C_out] or undefined.
Variable conv2d(const Variable& input, const Variable& weight, const Variable& bias = Variable(),
                IntArrayRef stride = {1}, const ConvPadding& padding = 0,
                IntArrayRef dilation = {1}, int64_t groups = 1);
/// Convolution over 3 spatial dims: input [N, C_in, D, H, W] or [C_in, D,
/// H, W], weight [C_out, C_in / groups, kD, kH, kW], bias [C_out] or
/// undefined.
Variable conv3d(const Variable& input, const Variable& weight, const Variable& bias = Variable(),
                IntArrayRef stride = {1}, const ConvPadding& padding = 0,
                IntArrayRef dilation = {1}, int64_t groups = 1);

/// Transposed convolution (the gradient of conv1d in its input) over 1
/// spatial dim: weight [C_in, C_out / groups, k]; output_padding (< stride
/// or < dilation) extends the output on the far side.
Variable conv_transpose1d(const Variable& input, const Variable& weight,
                          const Variable& bias = Variable(), IntArrayRef stride = {1},
                          IntArrayRef padding = {0}, IntArrayRef output_padding = {0},
                          int64_t groups = 1, IntArrayRef dilation = {1});
/// Transposed convolution over 2 spatial dims: weight [C_in, C_out /
/// groups, kH, kW].
Variable conv_transpose2d(const Variable& input, const Variable& weight,
                          const Variable& bias = Variable(), IntArrayRef stride = {1},
                          IntArrayRef padding = {0}, IntArrayRef output_padding = {0},
                          int64_t groups = 1, IntArrayRef dilation = {1});
/// Transposed convolution over 3 spatial dims: weight [C_in, C_out /
/// groups, kD, kH, kW].
Variable conv_transpose3d(const Variable& input, const Variable& weight,
                          const Variable& bias = Variable(), IntArrayRef stride = {1},
                          IntArrayRef padding = {0}, IntArrayRef output_padding = {0},
                          int64_t groups = 1, IntArrayRef dilation = {1});

}  // namespace torchlet::nn::functional
