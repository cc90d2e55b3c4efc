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

}  // namespace torchlet
