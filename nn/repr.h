#pragma once

// Pieces of PyTorch's module reprs (extra_repr), printed as Python prints
// the values.

#include <string>

#include "tensor/scalar.h"
#include "tensor/shape.h"

namespace torchlet::nn::detail {

/// A float as Python's repr() prints it: the shortest text that reads back
/// exactly, in scientific notation below 1e-4 and from 1e16 (`1e-05`,
/// `0.01`, `1.0`, `100000.0`, `inf`).
std::string float_repr(double value);
/// A number as Python prints it: integers without a point (`20`), floats as
/// float_repr.
std::string scalar_repr(Scalar value);
/// `True` or `False`.
std::string bool_repr(bool value);
/// A shape as a Python tuple: `(4,)`, `(2, 3)`.
std::string tuple_repr(IntArrayRef shape);
/// `separator + "inplace=True"` when inplace, else "" (how activations print
/// the flag after their other options).
std::string inplace_repr(bool inplace, const std::string& separator = ", ");

}  // namespace torchlet::nn::detail
