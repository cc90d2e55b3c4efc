#include "nn/python_repr.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace torchlet::nn {
namespace {

// The shortest decimal digits of |value| that read back exactly, and the
// decimal exponent of the first one.
std::pair<std::string, int> shortest_digits(double value) {
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*e", precision - 1, std::fabs(value));
    if (std::strtod(buf, nullptr) == std::fabs(value)) break;
  }
  const std::string text(buf);
  const size_t e = text.find('e');
  std::string digits;
  for (size_t i = 0; i < e; ++i) {
    if (text[i] != '.') digits += text[i];
  }
  return {digits, std::atoi(text.c_str() + e + 1)};
}

std::string scientific(const std::string& digits, int exponent) {
  std::string out = digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  const int magnitude = std::abs(exponent);
  return out + (exponent < 0 ? "e-" : "e+") + (magnitude < 10 ? "0" : "") +
         std::to_string(magnitude);
}

std::string positional(const std::string& digits, int exponent) {
  if (exponent < 0) return "0." + std::string(-exponent - 1, '0') + digits;
  const size_t int_digits = static_cast<size_t>(exponent) + 1;
  if (digits.size() <= int_digits) return digits + std::string(int_digits - digits.size(), '0') + ".0";
  return digits.substr(0, int_digits) + "." + digits.substr(int_digits);
}

}  // namespace

std::string python_float_repr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  const auto [digits, exponent] = shortest_digits(value);
  const std::string sign = value < 0 ? "-" : "";
  if (exponent < -4 || exponent >= 16) return sign + scientific(digits, exponent);
  return sign + positional(digits, exponent);
}

std::string python_float_repr(const std::optional<double>& value) {
  return value ? python_float_repr(*value) : "None";
}

}  // namespace torchlet::nn
