#pragma once

// Parameter initialization (torch.nn.init): each function fills the
// Variable's data in place, without recording a graph, and returns it.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "autograd/variable.h"

namespace torchlet::nn::init {

/// The recommended gain for `nonlinearity` ("linear", "conv1d", …,
/// "sigmoid", "tanh", "relu", "leaky_relu" with `param` as its negative
/// slope (default 0.01), "selu").
double calculate_gain(const std::string& nonlinearity, std::optional<double> param = std::nullopt);
/// (fan_in, fan_out) of a weight of 2 or more dimensions: size(1) and
/// size(0), each times the receptive field (the product of sizes after 2).
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Variable& tensor);

/// Uniform on [a, b).
Variable uniform_(const Variable& tensor, double a = 0, double b = 1);
/// Normal with `mean` and `std`.
Variable normal_(const Variable& tensor, double mean = 0, double std = 1);
/// Normal with `mean` and `std`, truncated to [a, b] (inverse-CDF sampling).
Variable trunc_normal_(const Variable& tensor, double mean = 0, double std = 1, double a = -2,
                       double b = 2);
Variable constant_(const Variable& tensor, double value);
Variable ones_(const Variable& tensor);
Variable zeros_(const Variable& tensor);
/// The identity matrix (2-D tensors only).
Variable eye_(const Variable& tensor);
/// Glorot: uniform on ±gain·sqrt(6 / (fan_in + fan_out)).
Variable xavier_uniform_(const Variable& tensor, double gain = 1);
/// Glorot: normal with std gain·sqrt(2 / (fan_in + fan_out)).
Variable xavier_normal_(const Variable& tensor, double gain = 1);
/// He: uniform on ±sqrt(3)·gain/sqrt(fan), gain = calculate_gain(nonlinearity, a);
/// `mode` is "fan_in" or "fan_out".
Variable kaiming_uniform_(const Variable& tensor, double a = 0, const std::string& mode = "fan_in",
                          const std::string& nonlinearity = "leaky_relu");
/// He: normal with std gain/sqrt(fan).
Variable kaiming_normal_(const Variable& tensor, double a = 0, const std::string& mode = "fan_in",
                         const std::string& nonlinearity = "leaky_relu");
/// A (semi-)orthogonal matrix times `gain`, over the tensor flattened to
/// size(0) rows (2 or more dimensions).
Variable orthogonal_(const Variable& tensor, double gain = 1);

}  // namespace torchlet::nn::init
