#pragma once

// Python's text for the numbers modules print in their reprs.

#include <optional>
#include <string>

namespace torchlet::nn {

/// Python's repr() of a float: the shortest text that reads back exactly,
/// in scientific notation below 1e-4 and from 1e16 (`1e-05`, `0.1`, `1.0`).
std::string python_float_repr(double value);
/// python_float_repr, or `None` for nullopt.
std::string python_float_repr(const std::optional<double>& value);
/// `True` or `False`.
inline std::string python_bool_repr(bool value) { return value ? "True" : "False"; }

}  // namespace torchlet::nn
