#pragma once

// Differentiable convolution (tensor/conv.h) for torchlet::nn::functional.
// See Note [Convolution backward is convolution].

#include "autograd/variable.h"
#include "tensor/conv.h"

namespace torchlet {

/// at::convolution on Variables: input [N, C_in, *spatial], weight [C_out,
/// C_in / groups, *kernel] ([C_in, C_out / groups, *kernel] when
/// transposed), bias [C_out] or undefined. Differentiable in all three, to
/// any order.
Variable convolution(const Variable& input, const Variable& weight, const Variable& bias,
                     const ConvParams& params);

/// The weight gradient of the (not transposed) convolution of input with
/// parameters `params` and a weight of shape `weight_size`, for
/// grad_output; differentiable in input and grad_output, to any order.
Variable convolution_backward_weight(const Variable& input, const Variable& grad_output,
                                     IntArrayRef weight_size, const ConvParams& params);

}  // namespace torchlet
