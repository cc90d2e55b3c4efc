// Index-based ops (index_select, gather, scatter, scatter_add,
// masked_select, take, index_add, index_copy, index_fill, take_along_dim,
// one_hot) and joining (cat, stack). Their loops are in
// tensor/cpu/index_kernels.cc.
#include "tensor/index_ops.h"

#include <optional>
#include <string>

#include "tensor/cpu/kernels.h"
#include "tensor/cuda/kernels.h"
#include "tensor/elementwise.h"
#include "tensor/factories.h"
#include "tensor/indexing.h"
#include "tensor/op_utils.h"

namespace torchlet {
namespace {

// For the ops with a CUDA kernel too.
void check_any_device(const char* op, const Tensor& t) { check_defined(op, t); }

// gather and scatter accept an empty index of any dtype, as PyTorch does.
void check_index(const char* op, const Tensor& self, const Tensor& index) {
  check_any_device(op, index);
  check_same_device(op, self, index);
  TORCHLET_CHECK(index.dtype() == kInt64 || index.numel() == 0, op,
                 "(): Expected dtype int64 for index, got ", index.dtype());
}

// Throws unless every entry of `index` is in [0, size). `lead` starts the
// message (index_select keeps PyTorch's "index out of range in self").
void check_bounds(const char* op, const Tensor& index, int64_t dim, int64_t size,
                  const char* lead = "") {
  // A GPU's indices are checked on the host: an index out of range must be
  // an error that names it, not a fault in the kernel.
  const std::optional<int64_t> bad =
      cpu::find_index_outside(index.is_cuda() ? index.to(Device(kCPU, 0)) : index, 0, size);
  TORCHLET_CHECK(!bad, op, "(): ", lead, "index ", *bad, " is out of bounds for dimension ", dim,
                 " with size ", size);
}

// size(d), with 0-dim tensors acting as 1-element vectors.
int64_t nonempty_size(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.size(d); }

// Shape rule shared by gather and scatter (PyTorch's gather_shape_check and
// scatter_shape_check, messages included): same ndim, and index no larger
// than `self` except along `dim` (and, for scatter with a tensor `src`, than
// `src` everywhere). An empty index is never checked.
void check_gather_shapes(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                         bool is_scatter, const Tensor* src) {
  if (index.numel() == 0) return;
  const int64_t ndim = std::max<int64_t>(self.dim(), 1);
  TORCHLET_CHECK(std::max<int64_t>(index.dim(), 1) == ndim, op,
                 "(): Index tensor must have the same number of dimensions as ",
                 is_scatter ? "self" : "input", " tensor (", shape_str(index.sizes()), " vs ",
                 shape_str(self.sizes()), ")");
  for (int64_t d = 0; d < ndim; ++d) {
    const int64_t n = nonempty_size(index, d);
    const bool fits_self = d == dim || n <= nonempty_size(self, d);
    const bool fits_src = src == nullptr || n <= nonempty_size(*src, d);
    if (!is_scatter) {
      TORCHLET_CHECK(fits_self, op, "(): Size does not match at dimension ", d,
                     " expected index ", shape_str(index.sizes()), " to be smaller than self ",
                     shape_str(self.sizes()), " apart from dimension ", dim);
    } else if (src == nullptr) {
      TORCHLET_CHECK(fits_self, op, "(): Expected index ", shape_str(index.sizes()),
                     " to be smaller than self ", shape_str(self.sizes()), " apart from dimension ",
                     dim);
    } else {
      TORCHLET_CHECK(fits_self && fits_src, op, "(): Expected index ", shape_str(index.sizes()),
                     " to be smaller than self ", shape_str(self.sizes()), " apart from dimension ",
                     dim, " and to be smaller size than src ", shape_str(src->sizes()));
    }
  }
}

using cpu::ScatterMode;

// self[.., index[..], ..] = src[..] (or +=) along `dim`, for every element of
// `index`; `src` is a tensor of index's shape (possibly expanded).
void scatter_into(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                  ScatterMode mode) {
  if (index.numel() == 0) return;
  if (self.is_cuda()) {
    const DType t = self.dtype();
    const bool atomic = t == kFloat32 || t == kFloat64 || t == kInt32 || t == kInt64;
    if (mode == ScatterMode::kAdd && !atomic) {
      // GPUs add atomically in those four dtypes only: the others add in a
      // wider one and are narrowed once (int64 sums wrap back to the same
      // narrow integers; float16 and bfloat16 are rounded once from float32).
      const DType wide = is_floating_point(t) ? kFloat32 : kInt64;
      Tensor sums = self.to(wide);
      cuda::scatter(sums, dim, index, src.to(wide), /*add=*/true);
      self.copy_(sums);
    } else {
      cuda::scatter(self, dim, index, src, mode == ScatterMode::kAdd);
    }
  } else {
    cpu::scatter(self, dim, index, src, mode);
  }
  self.bump_version();
}

// The checks scatter, scatter_ and scatter_add(_) share; returns the wrapped dim.
int64_t check_scatter(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                      const Tensor* src) {
  check_any_device(op, self);
  check_index(op, self, index);
  const int64_t d = wrap_dim(dim, self.dim(), op);
  if (src != nullptr) {
    check_any_device(op, *src);
    check_same_device(op, self, *src);
    TORCHLET_CHECK(self.dtype() == src->dtype(), op,
                   "(): Expected self.dtype to be equal to src.dtype (got ", self.dtype(),
                   " and ", src->dtype(), ")");
  }
  check_gather_shapes(op, self, d, index, /*is_scatter=*/true, src);
  check_bounds(op, index, d, self.dim() > 0 ? self.size(d) : 1);
  check_no_internal_overlap(op, self);
  return d;
}

Tensor& scatter_impl(const char* op, Tensor& self, int64_t dim, const Tensor& index,
                     const Tensor& src, ScatterMode mode) {
  const int64_t d = check_scatter(op, self, dim, index, &src);
  scatter_into(self, d, index, unaliased_input(self, src), mode);
  return self;
}

Tensor& scatter_value_impl(Tensor& self, int64_t dim, const Tensor& index, Scalar value) {
  const int64_t d = check_scatter("scatter_", self, dim, index, nullptr);
  const Tensor src = full({}, value, self.options())
                         .expand(index.sizes());
  scatter_into(self, d, index, src, ScatterMode::kCopy);
  return self;
}

}  // namespace

// ---- Selection --------------------------------------------------------------------

Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  const char* op = "index_select";
  check_any_device(op, *this);
  check_any_device(op, index);
  check_same_device(op, *this, index);
  TORCHLET_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32, op,
                 "(): Expected dtype int32 or int64 for index, got ", index.dtype());
  TORCHLET_CHECK(index.dim() <= 1, op, "(): Index is supposed to be a vector, got shape ",
                 shape_str(index.sizes()));
  const int64_t d = wrap_dim(dim, this->dim(), op);
  const Tensor idx = index.to(kInt64).reshape({-1}).contiguous();
  TORCHLET_CHECK(this->dim() > 0 || idx.numel() == 1, op,
                 "(): Index to scalar can have only 1 value, got ", idx.numel(), " value(s)");
  const int64_t size = this->dim() > 0 ? this->size(d) : 1;
  check_bounds(op, idx, d, size, "index out of range in self: ");

  SizeVec shape(sizes().begin(), sizes().end());
  if (!shape.empty()) shape[d] = idx.numel();
  Tensor out = empty(shape, options());
  if (out.numel() == 0) return out;
  if (out.is_cuda()) {
    cuda::index_select(out, contiguous(), d, idx);
  } else {
    cpu::index_select(out, contiguous(), d, idx);
  }
  return out;
}

Tensor Tensor::gather(int64_t dim, const Tensor& index) const {
  const char* op = "gather";
  check_any_device(op, *this);
  check_index(op, *this, index);
  const int64_t d = wrap_dim(dim, this->dim(), op);
  check_gather_shapes(op, *this, d, index, /*is_scatter=*/false, nullptr);
  check_bounds(op, index, d, this->dim() > 0 ? size(d) : 1);
  Tensor result = empty(index.sizes(), options());
  if (result.numel() == 0) return result;
  if (result.is_cuda()) {
    cuda::gather(result, *this, d, index);
  } else {
    cpu::gather(result, *this, d, index);
  }
  return result;
}

Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatter_", *this, dim, index, src, ScatterMode::kCopy);
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, Scalar value) {
  return scatter_value_impl(*this, dim, index, value);
}
Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatter_add_", *this, dim, index, src, ScatterMode::kAdd);
}

Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  check_any_device("scatter", *this);
  Tensor out = clone();
  return scatter_impl("scatter", out, dim, index, src, ScatterMode::kCopy);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, Scalar value) const {
  check_any_device("scatter", *this);
  Tensor out = clone();
  return scatter_value_impl(out, dim, index, value);
}
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  check_any_device("scatter_add", *this);
  Tensor out = clone();
  return scatter_impl("scatter_add", out, dim, index, src, ScatterMode::kAdd);
}

Tensor Tensor::masked_select(const Tensor& mask) const {
  const char* op = "masked_select";
  check_any_device(op, *this);
  check_any_device(op, mask);
  check_same_device(op, *this, mask);
  TORCHLET_CHECK(mask.dtype() == kBool || mask.dtype() == kUInt8, op,
                 ": expected BoolTensor or ByteTensor for mask, got ", mask.dtype());
  const SizeVec shape = broadcast_shapes(sizes(), mask.sizes(), op);
  const Tensor values = expand(shape);
  const Tensor keep = mask.expand(shape);
  // On a GPU: advanced indexing by the mask over every dim, the same
  // elements in the same (row-major) order.
  if (is_cuda()) return values.index({keep.to(kBool)}).reshape({-1});
  Tensor out = empty({cpu::count_mask(keep)}, options());
  cpu::masked_select(out, values, keep);
  return out;
}

Tensor Tensor::take(const Tensor& index) const {
  const char* op = "take";
  check_any_device(op, *this);
  check_any_device(op, index);
  check_same_device(op, *this, index);
  TORCHLET_CHECK(index.dtype() == kInt64, op, "(): Expected a long tensor for index, but got ",
                 index.dtype());
  const int64_t n = numel();
  TORCHLET_CHECK(n > 0 || index.numel() == 0, op, "(): tried to take from an empty tensor");
  const std::optional<int64_t> bad =
      cpu::find_index_outside(index.is_cuda() ? index.to(Device(kCPU, 0)) : index, -n, n);
  TORCHLET_CHECK(!bad, op, "(): out of range: tried to access index ", *bad, " on a tensor of ",
                 n, " elements.");
  const Tensor flat = reshape({n});
  if (is_cuda()) {
    const Tensor wrapped = torchlet::where(index.lt(0), index + n, index);
    return flat.index_select(0, wrapped.reshape({-1})).view(index.sizes());
  }
  Tensor wrapped = empty(index.sizes(), options().dtype(kInt64));
  cpu::wrap_indices(wrapped, index, n);
  return flat.index_select(0, wrapped.reshape({-1})).view(index.sizes());
}

// ---- Slice-wise index ops ----------------------------------------------------------
// index_add, index_copy and index_fill place whole slices along `dim`: the
// 1-D index is expanded to the source's shape and scattered (PyTorch's
// checks and messages, which differ between the three).

namespace {

// `t` as a tensor of at least one dim (a 0-dim tensor acts as [1]).
Tensor at_least_1d(const Tensor& t) { return t.dim() == 0 ? t.view({1}) : t; }

// The 1-D int64 `index` (in range) laid along `dim` of a tensor of `shape`.
Tensor slice_index(const Tensor& index, IntArrayRef shape, int64_t dim) {
  SizeVec view_shape(shape.size(), 1);
  view_shape[dim] = -1;
  return index.view(view_shape).expand(shape);
}

// PyTorch's slice shape text: the sizes apart from `dim`, space-separated.
std::string slice_shape(const Tensor& t, int64_t dim) {
  std::string out;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d == dim) continue;
    out += (out.empty() ? "" : " ") + std::to_string(t.size(d));
  }
  return out;
}

// self and source agree apart from `dim` (0-dim ones as [1]).
bool same_slices(const Tensor& self, const Tensor& source, int64_t dim) {
  const Tensor a = at_least_1d(self), b = at_least_1d(source);
  if (a.dim() != b.dim()) return false;
  for (int64_t d = 0; d < a.dim(); ++d) {
    if (d != dim && a.size(d) != b.size(d)) return false;
  }
  return true;
}

int64_t source_length(const Tensor& source, int64_t dim) {
  return source.dim() > 0 ? source.size(dim) : 1;
}

Tensor& index_add_impl(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                       Scalar alpha) {
  const char* op = "index_add_";
  check_any_device(op, self);
  check_any_device(op, index);
  check_any_device(op, source);
  check_same_device(op, self, index);
  check_same_device(op, self, source);
  const int64_t d = wrap_dim(dim, self.dim(), op);
  TORCHLET_CHECK(index.dim() <= 1, op, "(): Index is supposed to be a vector, but got dim: ",
                 index.dim(), " with type: ", index.dtype(), " and size: ",
                 shape_str(index.sizes()));
  TORCHLET_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32, op,
                 "(): Expected dtype int32/int64 for index but got: ", index.dtype());
  TORCHLET_CHECK(self.dtype() == source.dtype(), op, "(): self (", self.dtype(),
                 ") and source (", source.dtype(), ") must have the same scalar type");
  TORCHLET_CHECK(index.numel() == source_length(source, d), op, "(): Number of indices (",
                 index.numel(), ") should be equal to source.size(dim): (",
                 source_length(source, d), "), for dim: ", d);
  TORCHLET_CHECK(same_slices(self, source, d), op, "(): source ", shape_str(source.sizes()),
                 " and self ", shape_str(self.sizes()),
                 " must match in every dimension apart from dimension ", d);
  const Tensor idx = index.to(kInt64).reshape({-1});
  check_bounds(op, idx, d, self.dim() > 0 ? self.size(d) : 1, "index out of range in self: ");
  check_no_internal_overlap(op, self);
  if (idx.numel() == 0) return self;
  Tensor target = at_least_1d(self);
  Tensor src = at_least_1d(unaliased_input(self, source));
  // alpha in self's dtype, as PyTorch converts it.
  if (!(alpha.is_integral() && alpha.to<int64_t>() == 1)) {
    src = src.mul(full({}, alpha, self.options()));
  }
  scatter_into(target, d, slice_index(idx, src.sizes(), d), src, ScatterMode::kAdd);
  return self;
}

Tensor& index_copy_impl(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  const char* op = "index_copy_";
  check_any_device(op, self);
  check_any_device(op, index);
  check_any_device(op, source);
  check_same_device(op, self, index);
  check_same_device(op, self, source);
  const int64_t d = wrap_dim(dim, self.dim(), op);
  TORCHLET_CHECK(index.dim() <= 1, op, "(): Index should have dimension 1 or 0 (got ",
                 index.dim(), ")");
  TORCHLET_CHECK(index.dtype() == kInt64, op, "(): Expected a long tensor for index, but got ",
                 index.dtype());
  TORCHLET_CHECK(self.dtype() == source.dtype(), op,
                 "(): self and source expected to have the same dtype, but got (self) ",
                 self.dtype(), " and (source) ", source.dtype());
  TORCHLET_CHECK(index.numel() == source_length(source, d), op, "(): Number of indices (",
                 index.numel(), ") should be equal to source.size(dim) (",
                 source_length(source, d), ")");
  TORCHLET_CHECK(same_slices(self, source, d), op,
                 "(): Source/destination tensor must have same slice shapes. Destination "
                 "slice shape: ", slice_shape(self, d), " at dimension ", d,
                 " and source slice shape: ", slice_shape(source, d), " at dimension ", d, ".");
  const Tensor idx = index.reshape({-1});
  check_bounds(op, idx, d, self.dim() > 0 ? self.size(d) : 1);
  check_no_internal_overlap(op, self);
  if (idx.numel() == 0) return self;
  Tensor target = at_least_1d(self);
  const Tensor src = at_least_1d(unaliased_input(self, source));
  scatter_into(target, d, slice_index(idx, src.sizes(), d), src, ScatterMode::kCopy);
  return self;
}

Tensor& index_fill_impl(Tensor& self, int64_t dim, const Tensor& index, Scalar value) {
  const char* op = "index_fill_";
  check_any_device(op, self);
  check_any_device(op, index);
  check_same_device(op, self, index);
  const int64_t d = wrap_dim(dim, self.dim(), op);
  TORCHLET_CHECK(index.dtype() == kInt64, op, "(): Expected dtype int64 for index.");
  TORCHLET_CHECK(index.dim() <= 1, op, "(): Index has to be a vector/scalar");
  check_no_internal_overlap(op, self);
  // Indices may count from the end, as in PyTorch.
  const int64_t size = self.dim() > 0 ? self.size(d) : 1;
  const Tensor host = index.is_cuda() ? index.to(Device(kCPU, 0)) : index;
  const std::optional<int64_t> bad = cpu::find_index_outside(host, -size, size);
  TORCHLET_CHECK(!bad, op, "(): index ", *bad, " is out of bounds for dimension ", d,
                 " with size ", size);
  if (index.numel() == 0 || self.numel() == 0) return self;
  const Tensor idx = torchlet::where(index.lt(0), index + size, index).reshape({-1});
  Tensor target = at_least_1d(self);
  SizeVec shape(target.sizes().begin(), target.sizes().end());
  shape[d] = idx.numel();
  scatter_into(target, d, slice_index(idx, shape, d),
               full({}, value, self.options()).expand(shape), ScatterMode::kCopy);
  return self;
}

}  // namespace

Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source,
                           Scalar alpha) {
  return index_add_impl(*this, dim, index, source, alpha);
}
Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source,
                         Scalar alpha) const {
  check_any_device("index_add", *this);
  Tensor out = clone();
  return index_add_impl(out, dim, index, source, alpha);
}
Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) {
  return index_copy_impl(*this, dim, index, source);
}
Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source) const {
  check_any_device("index_copy", *this);
  Tensor out = clone();
  return index_copy_impl(out, dim, index, source);
}
Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, Scalar value) {
  return index_fill_impl(*this, dim, index, value);
}
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, Scalar value) const {
  check_any_device("index_fill", *this);
  Tensor out = clone();
  return index_fill_impl(out, dim, index, value);
}

Tensor Tensor::take_along_dim(const Tensor& indices, std::optional<int64_t> dim) const {
  const char* op = "take_along_dim";
  check_any_device(op, *this);
  check_any_device(op, indices);
  TORCHLET_CHECK(indices.dtype() == kInt64,
                 "torch.take_along_dim(): dtype of indices should be Long but got ",
                 indices.dtype());
  if (!dim) return reshape({-1}).gather(0, indices.reshape({-1}));
  const int64_t d = wrap_dim(*dim, this->dim(), op);
  TORCHLET_CHECK(this->dim() == indices.dim(),
                 "torch.take_along_dim(): input and indices should have the same number of "
                 "dimensions, but got ", this->dim(), " dimensions for input, and ",
                 indices.dim(), " dimensions for indices");
  // Both broadcast against each other apart from `dim`.
  SizeVec self_shape(sizes().begin(), sizes().end());
  if (!self_shape.empty()) self_shape[d] = indices.size(d);
  SizeVec index_shape = broadcast_shapes(self_shape, indices.sizes(), op);
  SizeVec input_shape = index_shape;
  if (!input_shape.empty()) input_shape[d] = size(d);
  return expand(input_shape).gather(d, indices.expand(index_shape));
}

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 Scalar alpha) {
  return self.index_add(dim, index, source, alpha);
}
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  return self.index_copy(dim, index, source);
}
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, Scalar value) {
  return self.index_fill(dim, index, value);
}
Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  return self.take_along_dim(indices, dim);
}

// ---- Free functions ----------------------------------------------------------------

Tensor one_hot(const Tensor& t, int64_t num_classes) {
  const char* op = "one_hot";
  check_any_device(op, t);
  TORCHLET_CHECK(t.dtype() == kInt64, op, ": one_hot is only applicable to index tensor, got ",
                 t.dtype());
  // PyTorch's order of checks: an empty input needs a positive num_classes;
  // otherwise the values are checked before num_classes is inferred.
  SizeVec shape(t.sizes().begin(), t.sizes().end());
  if (t.numel() == 0) {
    TORCHLET_CHECK(num_classes > 0, op,
                   ": Can not infer total number of classes from empty tensor.");
    shape.push_back(num_classes);
    return empty(shape, t.options().dtype(kInt64));
  }
  const int64_t lo = t.min().item<int64_t>(), hi = t.max().item<int64_t>();
  TORCHLET_CHECK(lo >= 0, op, ": Class values must be non-negative, got ", lo);
  if (num_classes == -1) {
    num_classes = hi + 1;
  } else {
    TORCHLET_CHECK(hi < num_classes, op, ": Class values must be smaller than num_classes (",
                   num_classes, "), got ", hi);
  }
  shape.push_back(num_classes);
  Tensor out = zeros(shape, t.options().dtype(kInt64));
  return out.scatter_(-1, t.unsqueeze(-1), 1);
}

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  const char* op = "cat";
  TORCHLET_CHECK(!tensors.empty(), op, "(): expected a non-empty list of Tensors");
  // Legacy rule kept by PyTorch: 1-D empty tensors are skipped.
  std::vector<size_t> parts;  // positions in `tensors` of the tensors kept
  DType dtype = kBool;
  bool first = true;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    check_defined(op, t);  // copies only: any device
    TORCHLET_CHECK(t.dim() > 0, op, "(): zero-dimensional tensor (at position ", i,
                   ") cannot be concatenated");
    check_same_device(op, tensors[0], t);
    dtype = first ? t.dtype() : promote_types(dtype, t.dtype());
    first = false;
    if (t.dim() == 1 && t.numel() == 0) continue;
    parts.push_back(i);
  }
  if (parts.empty()) return empty({0}, tensors[0].options().dtype(dtype));
  const Tensor& ref = tensors[parts[0]];
  const int64_t d = wrap_dim(dim, ref.dim(), op);
  SizeVec shape(ref.sizes().begin(), ref.sizes().end());
  shape[d] = 0;
  for (size_t i : parts) {
    const Tensor& t = tensors[i];
    TORCHLET_CHECK(t.dim() == ref.dim(), op,
                   "(): Tensors must have same number of dimensions: got ", ref.dim(), " and ",
                   t.dim());
    for (int64_t k = 0; k < ref.dim(); ++k) {
      TORCHLET_CHECK(k == d || t.size(k) == ref.size(k), op,
                     "(): Sizes of tensors must match except in dimension ", d,
                     ". Expected size ", ref.size(k), " but got size ", t.size(k),
                     " for tensor number ", i, " in the list.");
    }
    shape[d] += t.size(d);
  }
  Tensor out = empty(shape, ref.options().dtype(dtype));
  int64_t offset = 0;
  for (size_t i : parts) {
    out.narrow(d, offset, tensors[i].size(d)).copy_(tensors[i]);
    offset += tensors[i].size(d);
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  const char* op = "stack";
  TORCHLET_CHECK(!tensors.empty(), op, "(): expects a non-empty TensorList");
  for (size_t i = 0; i < tensors.size(); ++i) {
    check_defined(op, tensors[i]);
    TORCHLET_CHECK(tensors[i].sizes() == tensors[0].sizes(), op,
                   "(): expects each tensor to be equal size, but got ",
                   shape_str(tensors[0].sizes()), " at entry 0 and ",
                   shape_str(tensors[i].sizes()), " at entry ", i);
  }
  const int64_t d = wrap_dim(dim, tensors[0].dim() + 1, op);
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) parts.push_back(t.unsqueeze(d));
  return cat(parts, d);
}

}  // namespace torchlet
