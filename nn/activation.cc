#include "nn/activation.h"

#include "nn/functional/activation.h"
#include "nn/init.h"
#include "nn/repr.h"

namespace torchlet::nn {
namespace {

namespace F = functional;
using detail::float_repr;
using detail::inplace_repr;

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

Variable ReLUImpl::forward(const Variable& input) { return F::relu(input, options.inplace()); }
std::string ReLUImpl::extra_repr() const { return inplace_repr(options.inplace(), ""); }

Variable ReLU6Impl::forward(const Variable& input) { return F::relu6(input, options.inplace()); }
std::string ReLU6Impl::extra_repr() const { return inplace_repr(options.inplace(), ""); }

Variable LeakyReLUImpl::forward(const Variable& input) {
  return F::leaky_relu(input, options.negative_slope(), options.inplace());
}
std::string LeakyReLUImpl::extra_repr() const {
  return "negative_slope=" + float_repr(options.negative_slope()) +
         inplace_repr(options.inplace());
}

Variable ELUImpl::forward(const Variable& input) {
  return F::elu(input, options.alpha(), options.inplace());
}
std::string ELUImpl::extra_repr() const {
  return "alpha=" + float_repr(options.alpha()) + inplace_repr(options.inplace());
}

Variable SELUImpl::forward(const Variable& input) { return F::selu(input, options.inplace()); }
std::string SELUImpl::extra_repr() const { return inplace_repr(options.inplace(), ""); }

Variable GELUImpl::forward(const Variable& input) {
  return F::gelu(input, options.approximate());
}
std::string GELUImpl::extra_repr() const { return "approximate='" + options.approximate() + "'"; }

Variable SiLUImpl::forward(const Variable& input) { return F::silu(input, options.inplace()); }
std::string SiLUImpl::extra_repr() const { return inplace_repr(options.inplace(), ""); }

Variable MishImpl::forward(const Variable& input) { return F::mish(input, options.inplace()); }
std::string MishImpl::extra_repr() const { return inplace_repr(options.inplace(), ""); }

Variable HardtanhImpl::forward(const Variable& input) {
  return F::hardtanh(input, options.min_val(), options.max_val(), options.inplace());
}
std::string HardtanhImpl::extra_repr() const {
  return "min_val=" + float_repr(options.min_val()) + ", max_val=" +
         float_repr(options.max_val()) + inplace_repr(options.inplace());
}

Variable SoftplusImpl::forward(const Variable& input) {
  return F::softplus(input, options.beta().to_double(), options.threshold().to_double());
}
std::string SoftplusImpl::extra_repr() const {
  return "beta=" + detail::scalar_repr(options.beta()) +
         ", threshold=" + detail::scalar_repr(options.threshold());
}

Variable CELUImpl::forward(const Variable& input) {
  return F::celu(input, options.alpha().to_double(), options.inplace());
}
std::string CELUImpl::extra_repr() const {
  return "alpha=" + detail::scalar_repr(options.alpha()) + inplace_repr(options.inplace());
}

Variable HardswishImpl::forward(const Variable& input) {
  return F::hardswish(input, options.inplace());
}

Variable HardsigmoidImpl::forward(const Variable& input) {
  return F::hardsigmoid(input, options.inplace());
}

Variable ThresholdImpl::forward(const Variable& input) {
  return F::threshold(input, options.threshold().to_double(), options.value().to_double(),
                      options.inplace());
}
std::string ThresholdImpl::extra_repr() const {
  return "threshold=" + detail::scalar_repr(options.threshold()) +
         ", value=" + detail::scalar_repr(options.value()) + inplace_repr(options.inplace());
}

Variable SoftshrinkImpl::forward(const Variable& input) {
  return F::softshrink(input, options.lambda().to_double());
}
std::string SoftshrinkImpl::extra_repr() const { return detail::scalar_repr(options.lambda()); }

Variable HardshrinkImpl::forward(const Variable& input) {
  return F::hardshrink(input, options.lambda().to_double());
}
std::string HardshrinkImpl::extra_repr() const { return detail::scalar_repr(options.lambda()); }

Variable GLUImpl::forward(const Variable& input) { return F::glu(input, options.dim()); }
std::string GLUImpl::extra_repr() const { return "dim=" + std::to_string(options.dim()); }

Variable LogSigmoidImpl::forward(const Variable& input) { return F::logsigmoid(input); }
Variable SoftsignImpl::forward(const Variable& input) { return F::softsign(input); }
Variable TanhshrinkImpl::forward(const Variable& input) { return F::tanhshrink(input); }

PReLUImpl::PReLUImpl(PReLUOptions options) : options(std::move(options)) { reset(); }

void PReLUImpl::reset() {
  weight = register_parameter("weight", empty({options.num_parameters()}));
  init::constant_(weight, options.init());
}

Variable PReLUImpl::forward(const Variable& input) { return F::prelu(input, weight); }

std::string PReLUImpl::extra_repr() const {
  return "num_parameters=" + std::to_string(options.num_parameters());
}

Variable SoftmaxImpl::forward(const Variable& input) {
  return input.softmax(softmax_dim(dim_, input));
}

std::string SoftmaxImpl::extra_repr() const { return dim_repr(dim_); }

Variable LogSoftmaxImpl::forward(const Variable& input) {
  return input.log_softmax(softmax_dim(dim_, input));
}

std::string LogSoftmaxImpl::extra_repr() const { return dim_repr(dim_); }

Variable SoftminImpl::forward(const Variable& input) {
  return F::softmin(input, softmax_dim(dim_, input));
}

std::string SoftminImpl::extra_repr() const { return dim_repr(dim_); }

}  // namespace torchlet::nn
