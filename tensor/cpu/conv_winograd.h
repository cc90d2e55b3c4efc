#pragma once

// Internal: the Winograd F(2x2, 3x3) forward of a dense 3x3 convolution
// (Note [Winograd convolution] in conv_winograd.cc).

#include "tensor/cpu/conv_kernels.h"

namespace torchlet::cpu {

/// Whether winograd_forward computes this convolution (float32; see the
/// Note for the shapes).
bool winograd_applies(const ConvGeometry& g);

/// out [batch, out, oh, ow] = the convolution of in with w (+ bias, which
/// may be null); contiguous float32 tensors, `winograd_applies(g)` holds.
void winograd_forward(float* out, const float* in, const float* w, const float* bias,
                      const ConvGeometry& g);

/// Whether winograd_backward_input computes this convolution's input
/// gradient: winograd_applies(g) and padding of at most 2.
bool winograd_backward_input_applies(const ConvGeometry& g);

/// grad_in [batch, in, h, w] = the input gradient of the convolution for
/// grad_out [batch, out, oh, ow] (overwritten; contiguous float32).
void winograd_backward_input(float* grad_in, const float* grad_out, const float* w,
                             const ConvGeometry& g);

}  // namespace torchlet::cpu
