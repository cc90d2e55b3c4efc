#include "nn/init.h"

#include <cmath>

#include "autograd/grad_mode.h"
#include "tensor/tensor.h"

namespace torchlet::nn::init {
namespace {

/// The data to fill, with grad mode off while it is written.
Tensor data_of(const Variable& tensor, const char* op) {
  TORCHLET_CHECK(tensor.defined(), "nn.init.", op, ": the tensor is undefined");
  return tensor.data();
}

int64_t fan_for(const Variable& tensor, const std::string& mode) {
  TORCHLET_CHECK(mode == "fan_in" || mode == "fan_out", "Mode ", mode,
                 " not supported, please use one of ['fan_in', 'fan_out']");
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  return mode == "fan_in" ? fan_in : fan_out;
}

double kaiming_std(const Variable& tensor, double a, const std::string& mode,
                   const std::string& nonlinearity) {
  const int64_t fan = fan_for(tensor, mode);
  return calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan));
}

double xavier_std(const Variable& tensor, double gain) {
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  return gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
}

double norm_cdf(double x) { return (1 + std::erf(x / std::sqrt(2.0))) / 2; }

/// Orthonormal columns spanning those of `a` (rows >= cols), with the
/// signs a QR decomposition normalized to a positive diagonal of R gives
/// (modified Gram-Schmidt, each column orthogonalized twice).
Tensor orthonormal_columns(const Tensor& a) {
  Tensor q = zeros(a.sizes(), a.dtype());
  for (int64_t j = 0; j < a.size(1); ++j) {
    Tensor v = a.select(1, j).clone();
    for (int pass = 0; pass < 2 && j > 0; ++pass) {
      const Tensor basis = q.slice(1, 0, j);
      v = v - basis.mv(basis.t().mv(v));
    }
    q.select(1, j).copy_(v / v.norm());
  }
  return q;
}

}  // namespace

double calculate_gain(const std::string& nonlinearity, std::optional<double> param) {
  static const char* const kLinear[] = {"linear",           "conv1d",           "conv2d",
                                        "conv3d",           "conv_transpose1d", "conv_transpose2d",
                                        "conv_transpose3d", "sigmoid"};
  for (const char* name : kLinear) {
    if (nonlinearity == name) return 1;
  }
  if (nonlinearity == "tanh") return 5.0 / 3;
  if (nonlinearity == "relu") return std::sqrt(2.0);
  if (nonlinearity == "leaky_relu") {
    const double slope = param.value_or(0.01);
    return std::sqrt(2.0 / (1 + slope * slope));
  }
  if (nonlinearity == "selu") return 3.0 / 4;
  ::torchlet::detail::throw_error("Unsupported nonlinearity " + nonlinearity);
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Variable& tensor) {
  const Tensor data = data_of(tensor, "calculate_fan_in_and_fan_out");
  TORCHLET_CHECK(data.dim() >= 2,
                 "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
  int64_t receptive_field = 1;
  for (int64_t d = 2; d < data.dim(); ++d) receptive_field *= data.size(d);
  return {data.size(1) * receptive_field, data.size(0) * receptive_field};
}

Variable uniform_(const Variable& tensor, double a, double b) {
  NoGradGuard no_grad;
  data_of(tensor, "uniform_").uniform_(a, b);
  return tensor;
}

Variable normal_(const Variable& tensor, double mean, double std) {
  NoGradGuard no_grad;
  data_of(tensor, "normal_").normal_(mean, std);
  return tensor;
}

Variable trunc_normal_(const Variable& tensor, double mean, double std, double a, double b) {
  NoGradGuard no_grad;
  Tensor data = data_of(tensor, "trunc_normal_");
  const double low = norm_cdf((a - mean) / std), high = norm_cdf((b - mean) / std);
  const double limit = 1 - 1e-15;
  Tensor y = empty(data.sizes(), data.options().dtype(kFloat64));
  y.uniform_(2 * low - 1, 2 * high - 1).clamp_(-limit, limit);
  Tensor x = y.erfinv() * (std * std::sqrt(2.0)) + mean;
  data.copy_(x.clamp(a, b));
  return tensor;
}

Variable constant_(const Variable& tensor, double value) {
  NoGradGuard no_grad;
  data_of(tensor, "constant_").fill_(value);
  return tensor;
}

Variable ones_(const Variable& tensor) { return constant_(tensor, 1); }

Variable zeros_(const Variable& tensor) { return constant_(tensor, 0); }

Variable eye_(const Variable& tensor) {
  NoGradGuard no_grad;
  Tensor data = data_of(tensor, "eye_");
  TORCHLET_CHECK(data.dim() == 2, "Only tensors with 2 dimensions are supported");
  data.copy_(eye(data.size(0), data.size(1), data.options()));
  return tensor;
}

Variable xavier_uniform_(const Variable& tensor, double gain) {
  const double bound = std::sqrt(3.0) * xavier_std(tensor, gain);
  return uniform_(tensor, -bound, bound);
}

Variable xavier_normal_(const Variable& tensor, double gain) {
  return normal_(tensor, 0, xavier_std(tensor, gain));
}

Variable kaiming_uniform_(const Variable& tensor, double a, const std::string& mode,
                          const std::string& nonlinearity) {
  if (data_of(tensor, "kaiming_uniform_").numel() == 0) return tensor;
  const double bound = std::sqrt(3.0) * kaiming_std(tensor, a, mode, nonlinearity);
  return uniform_(tensor, -bound, bound);
}

Variable kaiming_normal_(const Variable& tensor, double a, const std::string& mode,
                         const std::string& nonlinearity) {
  if (data_of(tensor, "kaiming_normal_").numel() == 0) return tensor;
  return normal_(tensor, 0, kaiming_std(tensor, a, mode, nonlinearity));
}

Variable orthogonal_(const Variable& tensor, double gain) {
  NoGradGuard no_grad;
  Tensor data = data_of(tensor, "orthogonal_");
  TORCHLET_CHECK(data.dim() >= 2, "Only tensors with 2 or more dimensions are supported");
  if (data.numel() == 0) return tensor;
  const int64_t rows = data.size(0), cols = data.numel() / rows;
  Tensor flat = randn({rows, cols}, data.options().dtype(kFloat64));
  if (rows < cols) flat = flat.t();
  Tensor q = orthonormal_columns(flat);
  if (rows < cols) q = q.t();
  data.copy_(q.mul(gain).reshape(data.sizes()));
  return tensor;
}

}  // namespace torchlet::nn::init
