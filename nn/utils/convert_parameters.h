#pragma once

// Parameters as one flat vector and back (torch.nn.utils.parameters_to_vector
// and vector_to_parameters).

#include <vector>

#include "autograd/variable.h"

namespace torchlet::nn::utils {

/// The parameters flattened and concatenated in order, as one 1-D Variable
/// (differentiable in each). The parameters must be on one device.
Variable parameters_to_vector(const std::vector<Variable>& parameters);

/// Points each parameter's data at the next numel() elements of `vec`,
/// viewed as the parameter's shape (sharing `vec`'s storage, as PyTorch's
/// `param.data = ...`). The parameters must be on one device; a `vec`
/// too short for them is an error, extra elements are ignored.
void vector_to_parameters(const Variable& vec, const std::vector<Variable>& parameters);

}  // namespace torchlet::nn::utils
