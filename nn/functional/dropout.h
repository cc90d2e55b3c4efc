#pragma once

// Dropout (torch.nn.functional.dropout).

#include "autograd/variable.h"

namespace torchlet::nn::functional {

/// In training, zeroes each element with probability p (drawn from the
/// generator manual_seed() seeds) and scales the others by 1 / (1 - p);
/// otherwise returns input itself. p outside [0, 1] is an error.
Variable dropout(const Variable& input, double p = 0.5, bool training = true,
                 bool inplace = false);

}  // namespace torchlet::nn::functional
