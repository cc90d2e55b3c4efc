#pragma once

// Internal: convolutions on GPUs through cuDNN (Note [cuDNN convolutions] in
// cudnn_conv.cc), behind the contracts of tensor/cuda/kernels.h's conv_*.
// Each returns false, having done nothing, where cuDNN is not to be used:
// switched off (cuda::set_cudnn_enabled), a pass of less work than
// cuda::cudnn_min_macs(), a dtype other than float32 and
// float64, or a geometry no cuDNN algorithm takes; the caller then runs
// im2col + cuBLAS.

#include <cstdint>
#include <vector>

#include "tensor/cpu/conv_kernels.h"
#include "tensor/tensor_body.h"

namespace torchlet::cuda {

/// out = the convolution of input with weight (no bias).
bool cudnn_conv_forward(const Tensor& out, const Tensor& input, const Tensor& weight,
                        const cpu::ConvGeometry& g);
/// grad_input = the transposed convolution of grad_out with weight.
bool cudnn_conv_backward_input(const Tensor& grad_input, const Tensor& grad_out,
                               const Tensor& weight, const cpu::ConvGeometry& g);
/// grad_weight = the weight gradient of the convolution for grad_out.
bool cudnn_conv_backward_weight(const Tensor& grad_weight, const Tensor& grad_out,
                                const Tensor& input, const cpu::ConvGeometry& g);

/// For tests: how many convolution passes cuDNN has run in this process.
int64_t cudnn_passes_run();

/// For tests, without a GPU: the output shape cuDNN derives from the
/// descriptors made for g ([batch, out_channels, then 2 or 3 spatial dims]),
/// which must be g's own; empty where cuDNN is unavailable.
std::vector<int64_t> cudnn_output_shape(const cpu::ConvGeometry& g, DType dtype);

}  // namespace torchlet::cuda
