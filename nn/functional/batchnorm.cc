#include "nn/functional/batchnorm.h"

#include <utility>

#include "autograd/functions.h"
#include "autograd/norm_ops.h"

namespace torchlet::nn::functional {
namespace {

// PyTorch's _verify_batch_size: statistics of one value are meaningless.
void verify_batch_size(const Variable& input) {
  int64_t values = input.size(0);
  for (int64_t d = 2; d < input.dim(); ++d) values *= input.size(d);
  TORCHLET_CHECK(values != 1,
                 "Expected more than 1 value per channel when training, got input size torch.Size(",
                 shape_str(input.sizes()), ")");
}

Tensor data_or_undefined(const Variable& v) { return v.defined() ? v.data() : Tensor(); }

// PyTorch's _verify_spatial_size: a sample's statistics over one value are
// meaningless.
void verify_spatial_size(const Variable& input) {
  int64_t values = 1;
  for (int64_t d = 2; d < input.dim(); ++d) values *= input.size(d);
  // PyTorch prints input.size(), a torch.Size.
  TORCHLET_CHECK(values != 1, "Expected more than 1 spatial element when training, got input size ",
                 "torch.Size(", shape_str(input.sizes()), ")");
}

// [C] repeated n times: [n * C] (undefined stays undefined).
Variable repeat_channels(const Variable& v, int64_t n) {
  if (!v.defined()) return v;
  return v.reshape({1, -1}).expand({n, v.numel()}).reshape({-1});
}

Tensor repeat_channels(const Tensor& t, int64_t n) {
  if (!t.defined()) return t;
  return t.reshape({1, -1}).expand({n, t.numel()}).contiguous().view({-1});
}

// The per-sample running statistics [N * C] averaged into the module's [C]
// buffer, written in place.
void average_into(const Variable& running, const Tensor& per_sample, int64_t n) {
  if (!running.defined()) return;
  Tensor target = running.data();
  target.copy_(per_sample.view({n, -1}).mean({0}).view(target.sizes()));
}

// [1, C, 1, ...] for an input of `dim` dims.
SizeVec channel_shape(int64_t dim, int64_t channels) {
  SizeVec shape(static_cast<size_t>(dim), 1);
  shape[1] = channels;
  return shape;
}

}  // namespace

Variable batch_norm(const Variable& input, const Variable& running_mean,
                    const Variable& running_var, const Variable& weight, const Variable& bias,
                    bool training, double momentum, double eps) {
  if (training) verify_batch_size(input);
  return torchlet::batch_norm(input, weight, bias, data_or_undefined(running_mean),
                              data_or_undefined(running_var), training, momentum, eps);
}

Variable instance_norm(const Variable& input, const Variable& running_mean,
                       const Variable& running_var, const Variable& weight, const Variable& bias,
                       bool use_input_stats, double momentum, double eps) {
  if (use_input_stats) verify_spatial_size(input);
  TORCHLET_CHECK(use_input_stats || (running_mean.defined() && running_var.defined()),
                 "Expected running_mean and running_var to be defined when use_input_stats is "
                 "false");
  const int64_t n = input.size(0), c = input.size(1);
  SizeVec shape(input.sizes().begin(), input.sizes().end());
  shape[0] = 1;
  shape[1] = n * c;
  const Tensor mean = repeat_channels(data_or_undefined(running_mean), n);
  const Tensor var = repeat_channels(data_or_undefined(running_var), n);
  const Variable out =
      torchlet::batch_norm(input.reshape(shape), repeat_channels(weight, n),
                           repeat_channels(bias, n), mean, var, use_input_stats, momentum, eps);
  if (use_input_stats) {
    average_into(running_mean, mean, n);
    average_into(running_var, var, n);
  }
  return out.view(input.sizes());
}

Variable group_norm(const Variable& input, int64_t num_groups, const Variable& weight,
                    const Variable& bias, double eps) {
  TORCHLET_CHECK(num_groups > 0, "group_norm: num_groups must be positive, got ", num_groups);
  const int64_t n = input.size(0), c = input.size(1);
  SizeVec verified{n * c / num_groups, num_groups};
  int64_t values = verified[0], spatial = 1;
  for (int64_t d = 2; d < input.dim(); ++d) {
    verified.push_back(input.size(d));
    values *= input.size(d);
    spatial *= input.size(d);
  }
  TORCHLET_CHECK(values != 1,
                 "Expected more than 1 value per channel when training, got input size ",
                 shape_str(verified));
  TORCHLET_CHECK(c % num_groups == 0,
                 "Expected number of channels in input to be divisible by num_groups, but got "
                 "input of shape ",
                 shape_str(input.sizes()), " and num_groups=", num_groups);
  for (const auto& [v, name] : {std::pair{&weight, "weight"}, std::pair{&bias, "bias"}}) {
    TORCHLET_CHECK(!v->defined() || (v->dim() == 1 && v->numel() == c), "Expected ", name,
                   " to be a vector of size equal to the number of channels in input, but got ",
                   name, " of shape ", shape_str(v->defined() ? v->sizes() : IntArrayRef()),
                   " and input of shape ", shape_str(input.sizes()));
  }
  // PyTorch's CPU kernel reads weight and bias as the input's type.
  for (const Variable* v : {&weight, &bias}) {
    TORCHLET_CHECK(!v->defined() || v->dtype() == input.dtype(), "expected scalar type ",
                   scalar_type_name(input.dtype()), " but found ", scalar_type_name(v->dtype()));
  }
  const Variable normalized =
      torchlet::batch_norm(input.reshape({1, n * num_groups, c / num_groups * spatial}), Variable(),
                           Variable(), Tensor(), Tensor(), true, 0.0, eps)
          .view(input.sizes());
  const SizeVec shape = channel_shape(input.dim(), c);
  const Variable scaled = weight.defined() ? normalized * weight.view(shape) : normalized;
  return bias.defined() ? scaled + bias.view(shape) : scaled;
}

Variable local_response_norm(const Variable& input, int64_t size, double alpha, double beta,
                             double k) {
  TORCHLET_CHECK(input.dim() >= 3,
                 "Expected 3D or higher dimensionality                          input (got ",
                 input.dim(), " dimensions)");
  TORCHLET_CHECK(size > 0, "local_response_norm: size must be positive, got ", size);
  if (input.numel() == 0) return input;
  const int64_t channels = input.size(1);
  const Variable squares = input * input;
  const auto zero_channels = [&](int64_t count) {
    SizeVec shape(input.sizes().begin(), input.sizes().end());
    shape[1] = count;
    return Variable(zeros(shape, input.options()));
  };
  const Variable padded = cat({zero_channels(size / 2), squares, zero_channels((size - 1) / 2)}, 1);
  Variable window_sum = padded.narrow(1, 0, channels);
  for (int64_t i = 1; i < size; ++i) window_sum = window_sum + padded.narrow(1, i, channels);
  const Variable div = (window_sum * (alpha / static_cast<double>(size)) + k).pow(beta);
  return input / div;
}

}  // namespace torchlet::nn::functional
