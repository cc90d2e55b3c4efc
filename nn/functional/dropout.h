#pragma once

// Dropout (torch.nn.functional.dropout, dropout1d, dropout2d, dropout3d, alpha_dropout,
// feature_alpha_dropout). Masks are drawn from the generator manual_seed()
// seeds; p outside [0, 1] is an error. Out of training, or with p == 0 or
// an empty input, each returns input itself; with p == 1 the output is
// zeros (input times zero).

#include "autograd/variable.h"

namespace torchlet::nn::functional {

/// In training, zeroes each element with probability p and scales the
/// others by 1 / (1 - p).
Variable dropout(const Variable& input, double p = 0.5, bool training = true,
                 bool inplace = false);

/// In training, zeroes whole channels of input [N, C, L] (or unbatched
/// [C, L]) with probability p, each (sample, channel) drawn once, and
/// scales the others by 1 / (1 - p). Other ranks are an error.
Variable dropout1d(const Variable& input, double p = 0.5, bool training = true,
                   bool inplace = false);

/// In training, zeroes whole channels of input [N, C, H, W] (or [C, H, W]
/// read as [N, C, L]) with probability p, each (sample, channel) drawn once,
/// and scales the others by 1 / (1 - p). Other ranks work as PyTorch 1.13's
/// do, with its deprecation warnings (tensor/warning.h).
Variable dropout2d(const Variable& input, double p = 0.5, bool training = true,
                   bool inplace = false);

/// dropout2d for input [N, C, D, H, W] or unbatched [C, D, H, W]; other
/// ranks warn as in PyTorch 1.13 and are read as unbatched unless 5-D.
Variable dropout3d(const Variable& input, double p = 0.5, bool training = true,
                   bool inplace = false);

/// Dropout that keeps SELU's self-normalizing mean and variance: in
/// training each element is dropped with probability p to SELU's negative
/// saturation value, then the result is scaled and shifted back to zero
/// mean and unit variance (PyTorch's affine constants).
Variable alpha_dropout(const Variable& input, double p = 0.5, bool training = false,
                       bool inplace = false);

/// alpha_dropout that drops whole channels of input [N, C, *] ((sample,
/// channel) pairs drawn once).
Variable feature_alpha_dropout(const Variable& input, double p = 0.5, bool training = false,
                               bool inplace = false);

}  // namespace torchlet::nn::functional
