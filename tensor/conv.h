#pragma once

// Convolution on raw tensors (at::convolution), with PyTorch 1.13's checks
// and messages. The differentiable forms live in autograd/conv_ops.h; the
// loops in tensor/cpu/conv_kernels.cc.

#include <cstdint>

#include "tensor/tensor_body.h"

namespace torchlet {

/// The parameters of a convolution over N spatial dims (N = 1, 2 or 3): one
/// entry per spatial dim in stride, padding (on both sides), dilation and
/// output_padding (transposed convolutions only).
struct ConvParams {
  SizeVec stride;
  SizeVec padding;
  SizeVec dilation;
  bool transposed = false;
  SizeVec output_padding;
  int64_t groups = 1;
};

/// at::convolution: input [N, C_in, *spatial]; weight [C_out, C_in / groups,
/// *kernel], or [C_in, C_out / groups, *kernel] when transposed; bias
/// [C_out] or undefined. A transposed convolution is the adjoint of the
/// convolution with the same parameters in its input, output_padding
/// extending its output on the far side.
Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias,
                   const ConvParams& params);

/// The gradient in the weight of the (not transposed) convolution of
/// `input` with parameters `params` and a weight of shape `weight_size`, for
/// the output gradient `grad_output`; summed over the batch. grad_output
/// may cover only the first positions of a spatial dim (the outputs a
/// transposed convolution's input reaches).
Tensor convolution_backward_weight(const Tensor& input, const Tensor& grad_output,
                                   IntArrayRef weight_size, const ConvParams& params);

/// The shape of the output of `convolution` for these shapes (no checks).
SizeVec conv_output_size(IntArrayRef input_size, IntArrayRef weight_size,
                         const ConvParams& params);

}  // namespace torchlet
