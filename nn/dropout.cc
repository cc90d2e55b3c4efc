#include "nn/dropout.h"

#include "nn/functional/dropout.h"
#include "nn/repr.h"

namespace torchlet::nn {

template <typename Derived>
DropoutImplBase<Derived>::DropoutImplBase(const DropoutOptions& options) : options_(options) {
  TORCHLET_CHECK(options.p() >= 0 && options.p() <= 1,
                 "dropout probability has to be between 0 and 1, but got ", options.p());
}

template <typename Derived>
std::string DropoutImplBase<Derived>::extra_repr() const {
  return "p=" + detail::float_repr(options_.p()) +
         ", inplace=" + detail::bool_repr(options_.inplace());
}

template class DropoutImplBase<DropoutImpl>;
template class DropoutImplBase<Dropout1dImpl>;
template class DropoutImplBase<Dropout2dImpl>;
template class DropoutImplBase<Dropout3dImpl>;
template class DropoutImplBase<AlphaDropoutImpl>;
template class DropoutImplBase<FeatureAlphaDropoutImpl>;

Variable DropoutImpl::forward(const Variable& input) {
  return functional::dropout(input, options().p(), is_training(), options().inplace());
}

Variable Dropout1dImpl::forward(const Variable& input) {
  return functional::dropout1d(input, options().p(), is_training(), options().inplace());
}

Variable Dropout2dImpl::forward(const Variable& input) {
  return functional::dropout2d(input, options().p(), is_training(), options().inplace());
}

Variable Dropout3dImpl::forward(const Variable& input) {
  return functional::dropout3d(input, options().p(), is_training(), options().inplace());
}

Variable AlphaDropoutImpl::forward(const Variable& input) {
  return functional::alpha_dropout(input, options().p(), is_training(), options().inplace());
}

Variable FeatureAlphaDropoutImpl::forward(const Variable& input) {
  return functional::feature_alpha_dropout(input, options().p(), is_training(),
                                           options().inplace());
}

}  // namespace torchlet::nn
