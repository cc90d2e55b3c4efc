#pragma once

#include <cstdint>

#include "tensor/device.h"
#include "tensor/dtype.h"
#include "tensor/intrusive_ptr.h"
#include "tensor/shape.h"
#include "tensor/storage.h"

namespace torchlet {

/// What a Tensor handle points to: the view's geometry over a shared Storage.
/// Views of one tensor are distinct TensorImpls sharing one Storage.
class TensorImpl : public RefCounted {
 public:
  TensorImpl(IntrusivePtr<Storage> storage, DType dtype, SizeVec sizes, SizeVec strides,
             int64_t storage_offset);
  /// A new contiguous tensor of `sizes` (`numel` elements) at the start of
  /// `storage`: the strides computed in place, nothing checked again.
  struct Contiguous {};
  TensorImpl(Contiguous, IntrusivePtr<Storage> storage, DType dtype, IntArrayRef sizes,
             int64_t numel);
  // Every op makes one: recycled through the per-thread block cache.
  static void* operator new(size_t nbytes) { return cached_allocate(nbytes); }
  static void operator delete(void* p, size_t nbytes) { cached_deallocate(p, nbytes); }

  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t storage_offset() const { return storage_offset_; }
  int64_t numel() const { return numel_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  DType dtype() const { return dtype_; }
  Device device() const { return storage_->device(); }
  bool is_contiguous() const { return contiguous_; }
  const IntrusivePtr<Storage>& storage() const { return storage_; }
  /// The address of element 0 of this view.
  void* data() const {
    return static_cast<char*>(storage_->data()) + storage_offset_ * int64_t(element_size(dtype_));
  }

  /// A number wrapped into a 0-dim tensor (`t + 2.5`): it takes part in type
  /// promotion with the lowest priority, as a Python number does in PyTorch.
  bool is_wrapped_number() const { return wrapped_number_; }
  void set_wrapped_number(bool value) { wrapped_number_ = value; }

 private:
  IntrusivePtr<Storage> storage_;
  SizeVec sizes_;
  SizeVec strides_;
  int64_t storage_offset_;
  int64_t numel_;
  DType dtype_;
  bool contiguous_;
  bool wrapped_number_ = false;
};

}  // namespace torchlet
