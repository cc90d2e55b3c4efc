#include "tensor/factories.h"

#include <algorithm>
#include <cmath>

#include "tensor/cpu/dispatch.h"
#include "tensor/cpu/kernels.h"
#include "tensor/cuda/kernels.h"
#include "tensor/op_utils.h"

namespace torchlet {
namespace {

Tensor make_empty(IntArrayRef sizes, DType dtype, Device device, const char* op) {
  const int64_t n = checked_numel(sizes, op);
  if (!(device.is_cpu() && device.index == 0)) check_device_exists(device, op);  // cpu:0 always is
  size_t nbytes = 0;
  TORCHLET_CHECK(!__builtin_mul_overflow(static_cast<size_t>(n), element_size(dtype), &nbytes),
                 op, ": shape ", shape_str(sizes), " of ", dtype, " overflows the address space");
  return Tensor(IntrusivePtr<TensorImpl>::make(TensorImpl::Contiguous{},
                                               Storage::allocate(nbytes, device), dtype, sizes, n));
}

// Options for a *_like factory: the tensor's dtype and device unless given.
TensorOptions like(const Tensor& t, TensorOptions options) {
  return TensorOptions(options.dtype_or(t.dtype()))
      .device(options.has_device() ? options.device_or_current() : t.device());
}

}  // namespace

Tensor empty(IntArrayRef sizes, TensorOptions options) {
  return make_empty(sizes, options.dtype_or(kFloat32), options.device_or_current(), "empty");
}

Tensor empty_pinned(IntArrayRef sizes, DType dtype) {
  const int64_t n = checked_numel(sizes, "pin_memory");
  size_t nbytes = 0;
  TORCHLET_CHECK(!__builtin_mul_overflow(static_cast<size_t>(n), element_size(dtype), &nbytes),
                 "pin_memory: shape ", shape_str(sizes), " of ", dtype,
                 " overflows the address space");
  return Tensor(IntrusivePtr<TensorImpl>::make(TensorImpl::Contiguous{},
                                               Storage::allocate_pinned(nbytes), dtype, sizes, n));
}

Tensor zeros(IntArrayRef sizes, TensorOptions options) {
  Tensor t = empty(sizes, options);
  t.zero_();
  return t;
}

Tensor ones(IntArrayRef sizes, TensorOptions options) {
  return full(sizes, 1, options.dtype(options.dtype_or(kFloat32)));
}

Tensor full(IntArrayRef sizes, Scalar value, TensorOptions options) {
  Tensor t = empty(sizes, options.dtype(options.dtype_or(value.default_dtype())));
  t.fill_(value);
  return t;
}

Tensor scalar_tensor(Scalar value, TensorOptions options) {
  const DType dtype = options.dtype_or(value.default_dtype());
  const Device device = options.has_device() ? options.device_or_current() : Device(kCPU, 0);
  Tensor t = make_empty({}, dtype, device.is_cpu() ? device : Device(kCPU, 0), "scalar_tensor");
  cpu::dispatch_all_and_reduced(dtype, [&](auto tag) {
    using T = decltype(tag);
    *static_cast<T*>(t.data_ptr()) = value.to<T>();
  });
  return t.to(device);
}

Tensor arange(Scalar end, TensorOptions options) { return arange(0, end, 1, options); }

Tensor arange(Scalar start, Scalar end, Scalar step, TensorOptions options) {
  const bool integral = !start.is_floating_point() && !end.is_floating_point() &&
                        !step.is_floating_point();
  const DType dtype = options.dtype_or(integral ? kInt64 : kFloat32);
  const double s = start.to_double(), e = end.to_double(), st = step.to_double();
  TORCHLET_CHECK(st != 0, "arange: step must be nonzero");
  TORCHLET_CHECK(std::isfinite(s) && std::isfinite(e), "arange: unsupported range: ", s, " -> ", e);
  TORCHLET_CHECK((st > 0 && e >= s) || (st < 0 && e <= s),
                 "arange: upper bound and larger bound inconsistent with step sign (start ", s,
                 ", end ", e, ", step ", st, ")");
  const int64_t n = integral ? (end.to<int64_t>() - start.to<int64_t>() + step.to<int64_t>() -
                                (step.to<int64_t>() > 0 ? 1 : -1)) /
                                   step.to<int64_t>()
                             : static_cast<int64_t>(std::ceil((e - s) / st));
  Tensor t = make_empty({n}, dtype, options.device_or_current(), "arange");
  if (t.is_cuda()) {
    cuda::arange(t, start, step, integral);
  } else {
    cpu::arange(t, start, step, integral);
  }
  return t;
}

Tensor linspace(double start, double end, int64_t steps, TensorOptions options) {
  TORCHLET_CHECK(steps >= 0, "linspace: number of steps must be non-negative, got ", steps);
  const DType dtype = options.dtype_or(kFloat32);
  Tensor t = make_empty({steps}, dtype, options.device_or_current(), "linspace");
  if (t.is_cuda()) {
    cuda::linspace(t, start, end);
  } else {
    cpu::linspace(t, start, end);
  }
  return t;
}

Tensor eye(int64_t n, TensorOptions options) { return eye(n, n, options); }

Tensor eye(int64_t n, int64_t m, TensorOptions options) {
  TORCHLET_CHECK(n >= 0, "eye: n must be greater or equal to 0, got ", n);
  TORCHLET_CHECK(m >= 0, "eye: m must be greater or equal to 0, got ", m);
  Tensor t = zeros({n, m}, options);
  const int64_t k = std::min(n, m);
  t.as_strided({k}, {m + 1}, 0).fill_(1);
  return t;
}

Tensor empty_like(const Tensor& t, TensorOptions options) {
  return empty(t.sizes(), like(t, options));
}
Tensor zeros_like(const Tensor& t, TensorOptions options) {
  return zeros(t.sizes(), like(t, options));
}
Tensor ones_like(const Tensor& t, TensorOptions options) {
  return ones(t.sizes(), like(t, options));
}
Tensor full_like(const Tensor& t, Scalar value, TensorOptions options) {
  return full(t.sizes(), value, like(t, options));
}

template <typename T>
Tensor from_vector(const std::vector<T>& values, IntArrayRef sizes, TensorOptions options) {
  const int64_t n = checked_numel(sizes, "from_vector");
  TORCHLET_CHECK(n == static_cast<int64_t>(values.size()), "from_vector: ", values.size(),
                 " values do not fill shape ", shape_str(sizes), " (", n, " elements)");
  Tensor host = make_empty(sizes, dtype_of<T>(), Device(kCPU, 0), "from_vector");
  std::copy(values.begin(), values.end(), static_cast<T*>(host.data_ptr()));
  return host.to(options.device_or_current(), options.dtype_or(dtype_of<T>()));
}

template Tensor from_vector(const std::vector<float>&, IntArrayRef, TensorOptions);
template Tensor from_vector(const std::vector<double>&, IntArrayRef, TensorOptions);
template Tensor from_vector(const std::vector<int64_t>&, IntArrayRef, TensorOptions);
template Tensor from_vector(const std::vector<int32_t>&, IntArrayRef, TensorOptions);
template Tensor from_vector(const std::vector<uint8_t>&, IntArrayRef, TensorOptions);
template Tensor from_vector(const std::vector<bool>&, IntArrayRef, TensorOptions);
template Tensor from_vector(const std::vector<Half>&, IntArrayRef, TensorOptions);
template Tensor from_vector(const std::vector<BFloat16>&, IntArrayRef, TensorOptions);

Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions options) {
  const SizeVec strides = contiguous_strides(sizes);
  return from_blob(data, sizes, strides, options);
}

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, TensorOptions options,
                 Storage::Deleter deleter) {
  TORCHLET_CHECK(sizes.size() == strides.size(), "from_blob: got ", sizes.size(), " sizes but ",
                 strides.size(), " strides");
  checked_numel(sizes, "from_blob");
  const DType dtype = options.dtype_or(kFloat32);
  const Device device = options.device_or_current();
  check_device_exists(device, "from_blob");
  TORCHLET_CHECK(device.is_cpu(), "from_blob: only host memory on a CPU device can be wrapped, got ",
                 device);
  int64_t extent = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) extent = 0;
    TORCHLET_CHECK(strides[d] >= 0, "from_blob: negative strides are not supported: ",
                   shape_str(strides));
  }
  if (extent != 0) {
    for (size_t d = 0; d < sizes.size(); ++d) extent += (sizes[d] - 1) * strides[d];
  }
  auto storage = Storage::wrap(data, static_cast<size_t>(extent) * element_size(dtype), device,
                               std::move(deleter));
  return Tensor(IntrusivePtr<TensorImpl>::make(std::move(storage), dtype,
                                               SizeVec(sizes.begin(), sizes.end()),
                                               SizeVec(strides.begin(), strides.end()), 0));
}

// ---- tensor() literals --------------------------------------------------------

TensorLiteral::TensorLiteral(std::initializer_list<TensorLiteral> children)
    : is_list_(true), children_(children) {}

class LiteralReader {
 public:
  // Fills `shape` from the first path and checks every list agrees.
  static void shape_of(const TensorLiteral& lit, size_t depth, SizeVec& shape) {
    if (!lit.is_list_) {
      TORCHLET_CHECK(depth == shape.size(), "tensor: expected a sequence of length ",
                     depth < shape.size() ? shape[depth] : 0, " at dim ", depth,
                     " but got a number");
      return;
    }
    const int64_t n = static_cast<int64_t>(lit.children_.size());
    if (depth == shape.size()) {
      shape.push_back(n);
    } else {
      TORCHLET_CHECK(shape[depth] == n, "tensor: expected sequence of length ", shape[depth],
                     " at dim ", depth, " (got ", n, ")");
    }
    for (const TensorLiteral& child : lit.children_) shape_of(child, depth + 1, shape);
  }

  static void kind_of(const TensorLiteral& lit, Scalar::Kind& kind) {
    if (!lit.is_list_) {
      if (lit.kind_ == Scalar::Kind::kFloating ||
          (lit.kind_ == Scalar::Kind::kIntegral && kind == Scalar::Kind::kBool)) {
        kind = lit.kind_;
      }
      return;
    }
    for (const TensorLiteral& child : lit.children_) kind_of(child, kind);
  }

  template <typename T>
  static void write(const TensorLiteral& lit, T*& out) {
    if (!lit.is_list_) {
      *out++ = lit.kind_ == Scalar::Kind::kFloating ? static_cast<T>(lit.value_)
                                                    : static_cast<T>(lit.int_);
      return;
    }
    for (const TensorLiteral& child : lit.children_) write(child, out);
  }
};

Tensor tensor(const TensorLiteral& literal, TensorOptions options) {
  SizeVec shape;
  LiteralReader::shape_of(literal, 0, shape);
  Scalar::Kind kind = Scalar::Kind::kBool;
  LiteralReader::kind_of(literal, kind);
  if (kind == Scalar::Kind::kBool && shape.size() > 0 && shape[shape.size() - 1] == 0) {
    kind = Scalar::Kind::kFloating;  // torch.tensor([]) is float32
  }
  const DType natural = kind == Scalar::Kind::kFloating   ? kFloat32
                        : kind == Scalar::Kind::kIntegral ? kInt64
                                                          : kBool;
  const DType dtype = options.dtype_or(natural);
  Tensor host = make_empty(shape, dtype, Device(kCPU, 0), "tensor");
  cpu::dispatch_all_and_reduced(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(host.data_ptr());
    LiteralReader::write(literal, p);
  });
  return host.to(options.device_or_current());
}

}  // namespace torchlet
