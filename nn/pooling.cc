#include "nn/pooling.h"

#include "nn/repr.h"

namespace torchlet::nn {
namespace {

// AvgPool1d keeps its arguments as 1-tuples (PyTorch's _single) and prints
// them so.
IntOrTuple as_tuple(const IntOrTuple& value) { return std::vector<int64_t>(value.values()); }

}  // namespace

template <size_t D, typename Derived>
std::string MaxPoolImpl<D, Derived>::extra_repr() const {
  const IntOrTuple& stride = options.stride_ ? *options.stride_ : options.kernel_size_;
  return "kernel_size=" + options.kernel_size_.repr() + ", stride=" + stride.repr() +
         ", padding=" + options.padding_.repr() + ", dilation=" + options.dilation_.repr() +
         ", ceil_mode=" + detail::bool_repr(options.ceil_mode_);
}

template <size_t D, typename Derived>
std::string AvgPoolImpl<D, Derived>::extra_repr() const {
  IntOrTuple kernel = options.kernel_size_;
  IntOrTuple stride = options.stride_ ? *options.stride_ : options.kernel_size_;
  IntOrTuple padding = options.padding_;
  if (D == 1) {
    kernel = as_tuple(kernel);
    stride = as_tuple(stride);
    padding = as_tuple(padding);
  }
  return "kernel_size=" + kernel.repr() + ", stride=" + stride.repr() +
         ", padding=" + padding.repr();
}

template class MaxPoolImpl<1, MaxPool1dImpl>;
template class MaxPoolImpl<2, MaxPool2dImpl>;
template class MaxPoolImpl<3, MaxPool3dImpl>;
template class AvgPoolImpl<1, AvgPool1dImpl>;
template class AvgPoolImpl<2, AvgPool2dImpl>;
template class AvgPoolImpl<3, AvgPool3dImpl>;

Variable MaxPool1dImpl::forward(const Variable& input) {
  return functional::max_pool1d(input, options);
}
std::tuple<Variable, Tensor> MaxPool1dImpl::forward_with_indices(const Variable& input) {
  return functional::max_pool1d_with_indices(input, options);
}
Variable MaxPool2dImpl::forward(const Variable& input) {
  return functional::max_pool2d(input, options);
}
std::tuple<Variable, Tensor> MaxPool2dImpl::forward_with_indices(const Variable& input) {
  return functional::max_pool2d_with_indices(input, options);
}
Variable MaxPool3dImpl::forward(const Variable& input) {
  return functional::max_pool3d(input, options);
}
std::tuple<Variable, Tensor> MaxPool3dImpl::forward_with_indices(const Variable& input) {
  return functional::max_pool3d_with_indices(input, options);
}

Variable AvgPool1dImpl::forward(const Variable& input) {
  return functional::avg_pool1d(input, options);
}
Variable AvgPool2dImpl::forward(const Variable& input) {
  return functional::avg_pool2d(input, options);
}
Variable AvgPool3dImpl::forward(const Variable& input) {
  return functional::avg_pool3d(input, options);
}

Variable AdaptiveAvgPool1dImpl::forward(const Variable& input) {
  return functional::adaptive_avg_pool1d(input, options);
}
Variable AdaptiveAvgPool2dImpl::forward(const Variable& input) {
  return functional::adaptive_avg_pool2d(input, options);
}
Variable AdaptiveAvgPool3dImpl::forward(const Variable& input) {
  return functional::adaptive_avg_pool3d(input, options);
}

Variable AdaptiveMaxPool1dImpl::forward(const Variable& input) {
  return functional::adaptive_max_pool1d(input, options);
}
std::tuple<Variable, Tensor> AdaptiveMaxPool1dImpl::forward_with_indices(const Variable& input) {
  return functional::adaptive_max_pool1d_with_indices(input, options);
}
Variable AdaptiveMaxPool2dImpl::forward(const Variable& input) {
  return functional::adaptive_max_pool2d(input, options);
}
std::tuple<Variable, Tensor> AdaptiveMaxPool2dImpl::forward_with_indices(const Variable& input) {
  return functional::adaptive_max_pool2d_with_indices(input, options);
}

Variable MaxUnpool2dImpl::forward(const Variable& input, const Tensor& indices,
                                  const std::optional<std::vector<int64_t>>& output_size) {
  functional::MaxUnpool2dFuncOptions func(options.kernel_size_);
  if (options.stride_) func.stride(*options.stride_);
  func.padding(options.padding_);
  if (output_size) func.output_size(*output_size);
  return functional::max_unpool2d(input, indices, func);
}

std::string MaxUnpool2dImpl::extra_repr() const {
  const auto pair = [](const IntOrTuple& v) {
    return v.is_tuple() ? v : IntOrTuple({v.values()[0], v.values()[0]});
  };
  const IntOrTuple& stride = options.stride_ ? *options.stride_ : options.kernel_size_;
  return "kernel_size=" + pair(options.kernel_size_).repr() + ", stride=" + pair(stride).repr() +
         ", padding=" + pair(options.padding_).repr();
}

Variable LPPool2dImpl::forward(const Variable& input) {
  return functional::lp_pool2d(input, options);
}

std::string LPPool2dImpl::extra_repr() const {
  return "norm_type=" + detail::scalar_repr(options.norm_type_) +
         ", kernel_size=" + options.kernel_size_.repr() +
         ", stride=" + (options.stride_ ? options.stride_->repr() : "None") +
         ", ceil_mode=" + detail::bool_repr(options.ceil_mode_);
}

}  // namespace torchlet::nn
