#include "nn/normalization.h"

#include "nn/functional/batchnorm.h"
#include "nn/repr.h"

namespace torchlet::nn {

// PyTorch's _InstanceNorm.forward: an unbatched input is a batch of one.
template <typename Derived>
Variable InstanceNormImplBase<Derived>::forward(const Variable& input) {
  this->check_input_dim(input);
  const BatchNormOptions& options = this->options();
  TORCHLET_CHECK(options.momentum().has_value(),
                 "instance_norm(): argument 'momentum' (position 7) must be float, not NoneType");
  const bool unbatched = input.dim() == no_batch_dim();
  const Variable batched = unbatched ? input.unsqueeze(0) : input;
  const Variable out = functional::instance_norm(
      batched, this->running_mean, this->running_var, this->weight, this->bias,
      this->is_training() || !options.track_running_stats(), *options.momentum(), options.eps());
  return unbatched ? out.squeeze(0) : out;
}

template class InstanceNormImplBase<InstanceNorm1dImpl>;
template class InstanceNormImplBase<InstanceNorm2dImpl>;
template class InstanceNormImplBase<InstanceNorm3dImpl>;

void InstanceNorm1dImpl::check_input_dim(const Variable& input) const {
  TORCHLET_CHECK(input.dim() == 2 || input.dim() == 3, "expected 2D or 3D input (got ", input.dim(),
                 "D input)");
}

void InstanceNorm2dImpl::check_input_dim(const Variable& input) const {
  TORCHLET_CHECK(input.dim() == 3 || input.dim() == 4, "expected 3D or 4D input (got ", input.dim(),
                 "D input)");
}

void InstanceNorm3dImpl::check_input_dim(const Variable& input) const {
  TORCHLET_CHECK(input.dim() == 4 || input.dim() == 5, "expected 4D or 5D input (got ", input.dim(),
                 "D input)");
}

GroupNormImpl::GroupNormImpl(int64_t num_groups, int64_t num_channels)
    : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}

GroupNormImpl::GroupNormImpl(const GroupNormOptions& options) : options_(options) {
  TORCHLET_CHECK(options.num_groups() > 0 && options.num_channels() % options.num_groups() == 0,
                 "num_channels must be divisible by num_groups");
  reset();
}

void GroupNormImpl::reset() {
  const int64_t c = options_.num_channels();
  weight = register_parameter("weight", options_.affine() ? empty({c}) : Tensor());
  bias = register_parameter("bias", options_.affine() ? empty({c}) : Tensor());
  reset_parameters();
}

void GroupNormImpl::reset_parameters() {
  if (!options_.affine()) return;
  Tensor w = weight.data(), b = bias.data();
  w.fill_(1);
  b.zero_();
}

Variable GroupNormImpl::forward(const Variable& input) {
  return functional::group_norm(input, options_.num_groups(), weight, bias, options_.eps());
}

std::string GroupNormImpl::extra_repr() const {
  return std::to_string(options_.num_groups()) + ", " + std::to_string(options_.num_channels()) +
         ", eps=" + detail::float_repr(options_.eps()) +
         ", affine=" + detail::bool_repr(options_.affine());
}

Variable LocalResponseNormImpl::forward(const Variable& input) {
  return functional::local_response_norm(input, options_.size(), options_.alpha(), options_.beta(),
                                         options_.k());
}

std::string LocalResponseNormImpl::extra_repr() const {
  return std::to_string(options_.size()) + ", alpha=" + detail::float_repr(options_.alpha()) +
         ", beta=" + detail::float_repr(options_.beta()) +
         ", k=" + detail::float_repr(options_.k());
}

}  // namespace torchlet::nn
