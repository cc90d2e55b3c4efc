#include "tensor/tensor_impl.h"

namespace torchlet {

TensorImpl::TensorImpl(IntrusivePtr<Storage> storage, DType dtype, SizeVec sizes, SizeVec strides,
                       int64_t storage_offset)
    : storage_(std::move(storage)),
      sizes_(std::move(sizes)),
      strides_(std::move(strides)),
      storage_offset_(storage_offset),
      dtype_(dtype) {
  numel_ = 1;
  for (int64_t s : sizes_) numel_ *= s;
  contiguous_ = is_contiguous_layout(sizes_, strides_);
}

TensorImpl::TensorImpl(Contiguous, IntrusivePtr<Storage> storage, DType dtype, IntArrayRef sizes,
                       int64_t numel)
    : storage_(std::move(storage)),
      sizes_(sizes.begin(), sizes.end()),
      strides_(sizes.size()),
      storage_offset_(0),
      numel_(numel),
      dtype_(dtype),
      contiguous_(true) {
  int64_t stride = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    strides_[d] = stride;
    stride *= sizes[d] > 1 ? sizes[d] : 1;
  }
}

}  // namespace torchlet
