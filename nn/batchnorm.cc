#include "nn/batchnorm.h"

#include "nn/functional/batchnorm.h"
#include "nn/normalization.h"  // the instance norm layers NormImplBase is instantiated for
#include "nn/repr.h"

namespace torchlet::nn {
namespace {

// A handle to v's data that in-place ops write through.
Tensor data_of(const Variable& v) { return v.data(); }

// PyTorch prints momentum None as `None`.
std::string momentum_repr(const std::optional<double>& momentum) {
  return momentum ? detail::float_repr(*momentum) : "None";
}

}  // namespace

template <typename Derived>
NormImplBase<Derived>::NormImplBase(const BatchNormOptions& options) : options_(options) {
  TORCHLET_CHECK(options.num_features() >= 0, "Trying to create tensor with negative dimension ",
                 options.num_features(), ": [", options.num_features(), "]");
  reset();
}

template <typename Derived>
void NormImplBase<Derived>::reset() {
  const int64_t c = options_.num_features();
  weight = this->register_parameter("weight", options_.affine() ? empty({c}) : Tensor());
  bias = this->register_parameter("bias", options_.affine() ? empty({c}) : Tensor());
  const bool track = options_.track_running_stats();
  running_mean = this->register_buffer("running_mean", track ? zeros({c}) : Tensor());
  running_var = this->register_buffer("running_var", track ? ones({c}) : Tensor());
  num_batches_tracked = this->register_buffer("num_batches_tracked",
                                              track ? zeros({}, TensorOptions(kInt64)) : Tensor());
  reset_parameters();
}

template <typename Derived>
void NormImplBase<Derived>::reset_running_stats() {
  if (!options_.track_running_stats()) return;
  data_of(running_mean).zero_();
  data_of(running_var).fill_(1);
  data_of(num_batches_tracked).zero_();
}

template <typename Derived>
void NormImplBase<Derived>::reset_parameters() {
  reset_running_stats();
  if (!options_.affine()) return;
  data_of(weight).fill_(1);
  data_of(bias).zero_();
}

template <typename Derived>
std::string NormImplBase<Derived>::extra_repr() const {
  return std::to_string(options_.num_features()) + ", eps=" + detail::float_repr(options_.eps()) +
         ", momentum=" + momentum_repr(options_.momentum()) +
         ", affine=" + detail::bool_repr(options_.affine()) +
         ", track_running_stats=" + detail::bool_repr(options_.track_running_stats());
}

// PyTorch's _BatchNorm.forward: a training step counts the batch (in place,
// Note [Running statistics are written in place]); momentum None averages
// over every batch so far.
template <typename Derived>
Variable BatchNormImplBase<Derived>::forward(const Variable& input) {
  this->check_input_dim(input);
  const BatchNormOptions& options = this->options();
  double factor = options.momentum().value_or(0.0);
  const bool training = this->is_training();
  if (training && this->num_batches_tracked.defined()) {
    data_of(this->num_batches_tracked).add_(1);
    if (!options.momentum()) {
      factor = 1.0 / this->num_batches_tracked.data().template item<double>();
    }
  }
  const bool use_batch_stats = training || !this->running_mean.defined();
  return functional::batch_norm(input, this->running_mean, this->running_var, this->weight,
                                this->bias, use_batch_stats, factor, options.eps());
}

template class NormImplBase<BatchNorm1dImpl>;
template class NormImplBase<BatchNorm2dImpl>;
template class NormImplBase<BatchNorm3dImpl>;
template class NormImplBase<InstanceNorm1dImpl>;
template class NormImplBase<InstanceNorm2dImpl>;
template class NormImplBase<InstanceNorm3dImpl>;
template class BatchNormImplBase<BatchNorm1dImpl>;
template class BatchNormImplBase<BatchNorm2dImpl>;
template class BatchNormImplBase<BatchNorm3dImpl>;

void BatchNorm1dImpl::check_input_dim(const Variable& input) const {
  TORCHLET_CHECK(input.dim() == 2 || input.dim() == 3, "expected 2D or 3D input (got ", input.dim(),
                 "D input)");
}

void BatchNorm2dImpl::check_input_dim(const Variable& input) const {
  TORCHLET_CHECK(input.dim() == 4, "expected 4D input (got ", input.dim(), "D input)");
}

void BatchNorm3dImpl::check_input_dim(const Variable& input) const {
  TORCHLET_CHECK(input.dim() == 5, "expected 5D input (got ", input.dim(), "D input)");
}

}  // namespace torchlet::nn
