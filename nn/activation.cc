#include "nn/activation.h"

namespace torchlet::nn {
namespace {

/// PyTorch's _get_softmax_dim for a module built without a dim.
int64_t softmax_dim(const std::optional<int64_t>& dim, const Variable& input) {
  if (dim) return *dim;
  const int64_t ndim = input.dim();
  return ndim == 0 || ndim == 1 || ndim == 3 ? 0 : 1;
}

std::string dim_repr(const std::optional<int64_t>& dim) {
  return "dim=" + (dim ? std::to_string(*dim) : std::string("None"));
}

}  // namespace

Variable ReLUImpl::forward(const Variable& input) {
  if (!inplace_) return input.relu();
  Variable output = input;
  output.relu_();
  return output;
}

Variable SoftmaxImpl::forward(const Variable& input) {
  return input.softmax(softmax_dim(dim_, input));
}

std::string SoftmaxImpl::extra_repr() const { return dim_repr(dim_); }

Variable LogSoftmaxImpl::forward(const Variable& input) {
  return input.log_softmax(softmax_dim(dim_, input));
}

std::string LogSoftmaxImpl::extra_repr() const { return dim_repr(dim_); }

}  // namespace torchlet::nn
