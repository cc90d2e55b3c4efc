#include "tensor/tensor_body.h"

#include <cstring>
#include <ostream>

#include "tensor/cpu/kernels.h"
#include "tensor/cuda/cuda_runtime.h"
#include "tensor/cuda/kernels.h"
#include "tensor/cuda/stream.h"
#include "tensor/factories.h"
#include "tensor/op_utils.h"

namespace torchlet {
namespace {

// Copies between tensors of one shape and dtype where at least one side is
// on a GPU; both sides are contiguous. Queued without waiting when asked
// and the host side (if any) is page-locked.
void copy_with_gpu(const Tensor& dst, const Tensor& src, bool non_blocking) {
  const size_t nbytes = static_cast<size_t>(dst.numel()) * dst.element_size();
  const cuda::CopyKind kind = src.is_cuda() && dst.is_cuda() ? cuda::CopyKind::kDeviceToDevice
                              : src.is_cuda()                ? cuda::CopyKind::kDeviceToHost
                                                             : cuda::CopyKind::kHostToDevice;
  const int index = dst.is_cuda() ? dst.device().index : src.device().index;
  const bool host_pinned = (dst.is_cuda() || dst.is_pinned()) && (src.is_cuda() || src.is_pinned());
  if (non_blocking && host_pinned) {
    cuda::copy_async(dst.data_ptr(), src.data_ptr(), nbytes, kind, index,
                     src.is_cuda() ? src.device().index : -1);
  } else {
    cuda::copy(dst.data_ptr(), src.data_ptr(), nbytes, kind, index,
               src.is_cuda() ? src.device().index : -1);
  }
}

}  // namespace

// Note [size and stride of a 0-dim tensor]
// wrap_dim lets a 0-dim tensor take dim 0 or -1 (a reduction over its one
// element), but a 0-dim tensor has no size or stride to read: PyTorch raises
// an IndexError there, and so do these.
void Tensor::throw_no_dimensions(const char* op, int64_t dim) {
  detail::throw_error(
      detail::str_cat(op, ": Dimension specified as ", dim, " but tensor has no dimensions"));
}

bool Tensor::shares_storage(const Tensor& other) const {
  return checked_impl()->storage() == other.checked_impl()->storage();
}

void Tensor::check_dtype_is(DType expected, const char* op) const {
  TORCHLET_CHECK(dtype() == expected, op, ": expected a tensor of dtype ", expected,
                 " but got dtype ", dtype());
}

Scalar Tensor::item_scalar() const {
  TORCHLET_CHECK(numel() == 1, "item: a Tensor with ", numel(),
                 " elements cannot be converted to Scalar");
  const Tensor host = host_contiguous(dtype());
  switch (dtype()) {
    case kFloat32: return Scalar(*static_cast<const float*>(host.data_ptr()));
    case kFloat64: return Scalar(*static_cast<const double*>(host.data_ptr()));
    case kInt64: return Scalar(*static_cast<const int64_t*>(host.data_ptr()));
    case kInt32: return Scalar(*static_cast<const int32_t*>(host.data_ptr()));
    case kUInt8: return Scalar(*static_cast<const uint8_t*>(host.data_ptr()));
    case kBool: return Scalar(*static_cast<const bool*>(host.data_ptr()));
    case kFloat16: return Scalar(static_cast<float>(*static_cast<const Half*>(host.data_ptr())));
    case kBFloat16:
      return Scalar(static_cast<float>(*static_cast<const BFloat16*>(host.data_ptr())));
  }
  return Scalar();
}

Tensor Tensor::host_contiguous(DType dtype) const {
  Tensor host = is_cuda() ? to(Device(kCPU, 0)) : *this;
  if (host.dtype() == dtype && host.is_contiguous()) return host;
  Tensor out = empty(host.sizes(), host.options().dtype(dtype));
  cpu::copy(out, host);
  return out;
}

Tensor Tensor::to(Device device) const { return to(device, dtype()); }

Tensor Tensor::to(DType dtype) const { return to(device(), dtype); }

Tensor Tensor::to(Device device, DType dtype) const { return to(device, dtype, false); }

Tensor Tensor::to(Device device, bool non_blocking) const {
  return to(device, dtype(), non_blocking);
}

Tensor Tensor::to(Device device, DType dtype, bool non_blocking) const {
  if (device == this->device() && dtype == this->dtype()) return *this;
  check_device_exists(device, "to");
  // PyTorch's _to_copy: a non-blocking copy from a GPU lands in pinned
  // memory, so that it can be queued.
  Tensor out = non_blocking && is_cuda() && device.is_cpu()
                   ? empty_pinned(sizes(), dtype)
                   : empty(sizes(), TensorOptions(dtype).device(device));
  out.copy_(*this, non_blocking);
  return out;
}

bool Tensor::is_pinned() const { return checked_impl()->storage()->is_pinned(); }

void Tensor::record_stream(const cuda::Stream& stream) const {
  TORCHLET_CHECK(is_cuda(), "record_stream: expected a CUDA tensor, but got a '", device(),
                 "' tensor");
  cuda::record_stream(checked_impl()->storage()->data(), device().index, stream.device_index(),
                      stream.handle());
}

Tensor Tensor::pin_memory() const {
  TORCHLET_CHECK(device().is_cpu(), "pin_memory: cannot pin '", device(), "' ", dtype(),
                 " tensor: only dense CPU tensors can be pinned");
  if (is_pinned()) return *this;
  Tensor out = empty_pinned(sizes(), dtype());
  out.copy_(*this);
  return out;
}

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  return clone();
}

Tensor Tensor::clone() const {
  Tensor out = empty(sizes(), options());
  out.copy_(*this);
  return out;
}

Tensor& Tensor::copy_(const Tensor& src, bool non_blocking) {
  check_defined("copy_", src);
  const SizeVec shape = broadcast_shapes(sizes(), src.sizes(), "copy_");
  TORCHLET_CHECK(IntArrayRef(shape) == sizes(), "copy_: output with shape ", shape_str(sizes()),
                 " doesn't match the broadcast shape ", shape_str(shape));
  check_no_internal_overlap("copy_", *this);
  if (numel() == 0) return *this;
  if (is_cuda() && src.device() == device()) {
    cuda::copy(*this, unaliased_input(*this, src));
  } else if (is_cuda() || src.is_cuda()) {
    // Across devices: the source made dense in the destination's dtype and
    // shape on its own side, the bytes moved, then laid out on this side.
    auto local_copy = [](const Tensor& dst, const Tensor& from) {
      if (dst.is_cuda()) {
        cuda::copy(dst, from);
      } else {
        cpu::copy(dst, from);
      }
    };
    Tensor staged = src;
    if (src.dtype() != dtype() || src.sizes() != sizes() || !src.is_contiguous()) {
      staged = empty(sizes(), src.options().dtype(dtype()));
      local_copy(staged, src);
    }
    if (is_contiguous()) {
      copy_with_gpu(*this, staged, non_blocking);
    } else {
      Tensor landing = empty(sizes(), options());
      copy_with_gpu(landing, staged, false);
      local_copy(*this, landing);
    }
  } else {
    cpu::copy(*this, unaliased_input(*this, src));
  }
  bump_version();
  return *this;
}

Tensor& Tensor::fill_(Scalar value) {
  check_no_internal_overlap("fill_", *this);
  if (is_cuda() && is_contiguous()) {
    // A byte pattern, for every dtype (float16 and bfloat16 included).
    Tensor host = scalar_tensor(value, dtype());
    cuda::fill(data_ptr(), numel(), element_size(), host.data_ptr(), device().index);
  } else if (is_cuda()) {
    cuda::fill(*this, value);
  } else {
    cpu::fill(*this, value);
  }
  bump_version();
  return *this;
}

Tensor& Tensor::zero_() { return fill_(0); }

std::ostream& operator<<(std::ostream& out, const Tensor& t) { return out << t.str(); }

}  // namespace torchlet
