#pragma once

// Affine maps (torch.nn.functional.linear and bilinear).

#include "autograd/variable.h"

namespace torchlet::nn::functional {

/// input @ weight^T + bias: input [*, in], weight [out, in] (PyTorch's
/// layout), bias [out] or undefined; the result is [*, out].
Variable linear(const Variable& input, const Variable& weight, const Variable& bias = Variable());

/// out[..., k] = input1 @ weight[k] @ input2 + bias[k]: input1 [*, in1],
/// input2 [*, in2] (same leading dims), weight [out, in1, in2], bias [out]
/// or undefined; the result is [*, out].
Variable bilinear(const Variable& input1, const Variable& input2, const Variable& weight,
                  const Variable& bias = Variable());

}  // namespace torchlet::nn::functional
