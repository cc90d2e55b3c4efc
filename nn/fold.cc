#include "nn/fold.h"

#include <string>

#include "nn/functional/conv.h"

namespace torchlet::nn {
namespace {

// The value as given: "2" or "(2, 3)".
std::string as_given(const ExpandingArray<2>& v) {
  if (v.single()) return std::to_string(v[0]);
  return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ")";
}

}  // namespace

Variable UnfoldImpl::forward(const Variable& input) {
  const UnfoldOptions& o = options_;
  return functional::unfold(input, o.kernel_size_.ref(), o.dilation_.ref(), o.padding_.ref(),
                            o.stride_.ref());
}

std::string UnfoldImpl::extra_repr() const {
  const UnfoldOptions& o = options_;
  return "kernel_size=" + as_given(o.kernel_size_) + ", dilation=" + as_given(o.dilation_) +
         ", padding=" + as_given(o.padding_) + ", stride=" + as_given(o.stride_);
}

Variable FoldImpl::forward(const Variable& input) {
  const FoldOptions& o = options_;
  return functional::fold(input, o.output_size_.ref(), o.kernel_size_.ref(), o.dilation_.ref(),
                          o.padding_.ref(), o.stride_.ref());
}

std::string FoldImpl::extra_repr() const {
  const FoldOptions& o = options_;
  return "output_size=" + as_given(o.output_size_) + ", kernel_size=" + as_given(o.kernel_size_) +
         ", dilation=" + as_given(o.dilation_) + ", padding=" + as_given(o.padding_) +
         ", stride=" + as_given(o.stride_);
}

}  // namespace torchlet::nn
