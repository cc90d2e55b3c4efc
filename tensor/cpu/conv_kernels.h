#pragma once

// CPU loops of convolution (tensor/conv.h validates and lays out their
// arguments). Every tensor is contiguous; see Note [Convolution as 3-d].

#include <array>
#include <cstdint>

#include "tensor/tensor_body.h"

namespace torchlet::cpu {

// Note [Convolution as 3-d]
// The kernels know one convolution: 3 spatial dims. A 1-d or 2-d one is the
// same call with leading spatial dims of size 1 (kernel 1, stride 1,
// padding 0, dilation 1), which costs nothing in the loops, whose innermost
// level runs along the last (width) dim.

/// The shapes of one convolution: input [batch, in_channels, *input],
/// weight [out_channels, in_channels / groups, *kernel], output [batch,
/// out_channels, *output].
struct ConvGeometry {
  int64_t batch = 0;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t groups = 1;
  std::array<int64_t, 3> input{1, 1, 1};
  std::array<int64_t, 3> output{1, 1, 1};
  std::array<int64_t, 3> kernel{1, 1, 1};
  std::array<int64_t, 3> stride{1, 1, 1};
  std::array<int64_t, 3> padding{0, 0, 0};
  std::array<int64_t, 3> dilation{1, 1, 1};
};

/// How a convolution is computed (Note [Convolution algorithms]).
enum class ConvAlgorithm { kDirect, kPointwiseGemm, kIm2colGemm };
ConvAlgorithm conv_algorithm(const ConvGeometry& g);

/// out = the convolution of input with weight, plus bias[out_channels] if
/// defined.
void conv_forward(const Tensor& out, const Tensor& input, const Tensor& weight,
                  const Tensor& bias, const ConvGeometry& g);
/// grad_input = the adjoint of conv_forward in its input applied to
/// grad_out (the transposed convolution); overwrites grad_input.
void conv_backward_input(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                         const ConvGeometry& g);
/// grad_weight = the gradient of conv_forward in its weight for grad_out,
/// summed over the batch; overwrites grad_weight.
void conv_backward_weight(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                          const ConvGeometry& g);

/// columns [batch, in_channels * prod(kernel), prod(output)] = the patches
/// of input (im2col; zeros where a patch reaches into the padding).
void im2col(const Tensor& columns, const Tensor& input, const ConvGeometry& g);
/// input [batch, in_channels, *input] = the sum of columns' patches back at
/// their places (col2im, the adjoint of im2col); overwrites input.
void col2im(const Tensor& input, const Tensor& columns, const ConvGeometry& g);

}  // namespace torchlet::cpu
