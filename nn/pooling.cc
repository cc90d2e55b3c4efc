#include "nn/pooling.h"

namespace torchlet::nn {
namespace {

const char* py_bool(bool value) { return value ? "True" : "False"; }

// AvgPool1d keeps its arguments as 1-tuples (PyTorch's _single) and prints
// them so.
IntOrTuple as_tuple(const IntOrTuple& value) { return std::vector<int64_t>(value.values()); }

}  // namespace

template <size_t D, typename Derived>
std::string MaxPoolImpl<D, Derived>::extra_repr() const {
  const IntOrTuple& stride = options.stride_ ? *options.stride_ : options.kernel_size_;
  return "kernel_size=" + options.kernel_size_.repr() + ", stride=" + stride.repr() +
         ", padding=" + options.padding_.repr() + ", dilation=" + options.dilation_.repr() +
         ", ceil_mode=" + py_bool(options.ceil_mode_);
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

}  // namespace torchlet::nn
