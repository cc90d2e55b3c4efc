#pragma once

// torch.nn.functional.pad: constant, reflect, replicate and circular
// padding, with PyTorch 1.13's rules and messages.

#include <string>

#include "autograd/variable.h"

namespace torchlet::nn::functional {

/// Pads input's last len(pad) / 2 dims: pad lists (left, right) for the
/// last dim, then for the one before it, and so on; a negative amount cuts.
/// "constant" fills with `value` and pads any number of dims; "reflect"
/// (mirroring without repeating the edge, each amount below the dim's
/// size), "replicate" (repeating the edge) and "circular" (wrapping around
/// at most once) pad the last 1, 2 or 3 dims of an input with one or two
/// more (PyTorch 1.13's rule; circular pads exactly the dims after the
/// first two). Differentiable to any order.
Variable pad(const Variable& input, IntArrayRef pad, const std::string& mode = "constant",
             double value = 0);

}  // namespace torchlet::nn::functional
