// Views: tensors that share their input's storage with new geometry.
#include <algorithm>
#include <optional>

#include "tensor/factories.h"
#include "tensor/op_utils.h"
#include "tensor/shape_ops.h"

namespace torchlet {
namespace {

Tensor make_view(const Tensor& t, SizeVec sizes, SizeVec strides, int64_t offset) {
  return Tensor(IntrusivePtr<TensorImpl>::make(t.impl()->storage(), t.dtype(), std::move(sizes),
                                               std::move(strides), offset));
}

// Resolves a single -1 in `shape` against `numel` (PyTorch's infer_size).
SizeVec infer_size(IntArrayRef shape, int64_t numel, const char* op) {
  SizeVec out(shape.begin(), shape.end());
  int64_t product = 1;
  std::optional<size_t> infer;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      TORCHLET_CHECK(!infer, op, ": only one dimension can be inferred");
      infer = d;
    } else {
      TORCHLET_CHECK(shape[d] >= 0, op, ": invalid shape dimension ", shape[d]);
      product *= shape[d];
    }
  }
  if (infer) {
    TORCHLET_CHECK(product != 0, op, ": cannot reshape tensor of ", numel,
                   " elements into shape ", shape_str(shape),
                   " because the unspecified dimension size -1 can be any value and is ambiguous");
    TORCHLET_CHECK(numel % product == 0, op, ": shape '", shape_str(shape),
                   "' is invalid for input of size ", numel);
    out[*infer] = numel / product;
  } else {
    TORCHLET_CHECK(product == numel, op, ": shape '", shape_str(shape),
                   "' is invalid for input of size ", numel);
  }
  return out;
}

// Strides giving `newshape` over memory laid out as (oldshape, oldstride),
// or nothing when no such strides exist (PyTorch's computeStride).
std::optional<SizeVec> compute_view_strides(IntArrayRef oldshape, IntArrayRef oldstride,
                                            IntArrayRef newshape) {
  if (oldshape.empty()) return contiguous_strides(newshape);
  int64_t numel = 1;
  for (int64_t s : oldshape) numel *= s;
  if (numel == 0) {
    if (oldshape == newshape) return SizeVec(oldstride.begin(), oldstride.end());
    return contiguous_strides(newshape);
  }
  SizeVec newstride(newshape.size());
  int64_t view_d = static_cast<int64_t>(newshape.size()) - 1;
  int64_t chunk_base_stride = oldstride.back();
  int64_t tensor_numel = 1;
  int64_t view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(oldshape.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= oldshape[tensor_d];
    if (tensor_d == 0 || (oldshape[tensor_d - 1] != 1 &&
                          oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || newshape[view_d] == 1)) {
        newstride[view_d] = view_numel * chunk_base_stride;
        view_numel *= newshape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = oldstride[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return newstride;
}

}  // namespace

Tensor Tensor::as_strided(IntArrayRef sizes, IntArrayRef strides,
                          std::optional<int64_t> storage_offset) const {
  TORCHLET_CHECK(sizes.size() == strides.size(), "as_strided: mismatch in length of strides and "
                 "shape (", shape_str(sizes), " and ", shape_str(strides), ")");
  const int64_t offset = storage_offset.value_or(this->storage_offset());
  TORCHLET_CHECK(offset >= 0, "as_strided: Tensor: invalid storage offset ", offset);
  int64_t last = offset;
  bool empty_view = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    TORCHLET_CHECK(sizes[d] >= 0, "as_strided: Trying to create tensor with negative dimension ",
                   sizes[d], ": ", shape_str(sizes));
    TORCHLET_CHECK(strides[d] >= 0, "as_strided: negative strides are not supported: ",
                   shape_str(strides));
    if (sizes[d] == 0) empty_view = true;
    last += (sizes[d] - 1) * strides[d];
  }
  const int64_t capacity = static_cast<int64_t>(impl()->storage()->nbytes() / element_size());
  TORCHLET_CHECK(empty_view || last < capacity, "as_strided: sizes ", shape_str(sizes),
                 ", strides ", shape_str(strides), " and storage offset ", offset,
                 " reach element ", last, ", out of bounds for storage of ", capacity, " elements");
  return make_view(*this, SizeVec(sizes.begin(), sizes.end()),
                   SizeVec(strides.begin(), strides.end()), offset);
}

Tensor Tensor::view(IntArrayRef shape) const {
  const SizeVec sizes = infer_size(shape, numel(), "view");
  std::optional<SizeVec> strides = compute_view_strides(this->sizes(), this->strides(), sizes);
  TORCHLET_CHECK(strides.has_value(),
                 "view: view size is not compatible with input tensor's size and stride (at "
                 "least one dimension spans across two contiguous subspaces). Use .reshape(...) "
                 "instead. (input sizes ", shape_str(this->sizes()), ", strides ",
                 shape_str(this->strides()), "; requested ", shape_str(shape), ")");
  return make_view(*this, sizes, std::move(*strides), storage_offset());
}

Tensor Tensor::view_as(const Tensor& other) const { return view(other.sizes()); }

Tensor Tensor::reshape(IntArrayRef shape) const {
  const SizeVec sizes = infer_size(shape, numel(), "reshape");
  std::optional<SizeVec> strides = compute_view_strides(this->sizes(), this->strides(), sizes);
  if (strides) return make_view(*this, sizes, std::move(*strides), storage_offset());
  return clone().view(sizes);
}

Tensor Tensor::reshape_as(const Tensor& other) const { return reshape(other.sizes()); }

Tensor Tensor::permute(IntArrayRef dims) const {
  const int64_t nd = dim();
  TORCHLET_CHECK(static_cast<int64_t>(dims.size()) == nd,
                 "permute: number of dims don't match in permute (the tensor has ", nd,
                 " dims, got ", shape_str(dims), ")");
  SizeVec sizes(nd), strides(nd);
  absl::InlinedVector<bool, 6> seen(nd, false);
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t d = wrap_dim(dims[i], nd, "permute");
    TORCHLET_CHECK(!seen[d], "permute: repeated dim in permute (got ", shape_str(dims), ")");
    seen[d] = true;
    sizes[i] = this->sizes()[d];
    strides[i] = this->strides()[d];
  }
  return make_view(*this, sizes, strides, storage_offset());
}

Tensor Tensor::diagonal(int64_t offset, int64_t dim1, int64_t dim2) const {
  const char* op = "diagonal";
  const int64_t d1 = wrap_dim(dim1, dim(), op), d2 = wrap_dim(dim2, dim(), op);
  TORCHLET_CHECK(d1 != d2, op, ": diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  // Offsets beyond the matrix give an empty diagonal at the tensor's offset.
  const int64_t length = std::max<int64_t>(
      offset >= 0 ? std::min(size(d1), size(d2) - offset) : std::min(size(d1) + offset, size(d2)),
      0);
  int64_t start = storage_offset();
  if (length > 0) start += offset >= 0 ? offset * stride(d2) : -offset * stride(d1);
  SizeVec sizes, strides;
  for (int64_t d = 0; d < dim(); ++d) {
    if (d == d1 || d == d2) continue;
    sizes.push_back(this->sizes()[d]);
    strides.push_back(this->strides()[d]);
  }
  sizes.push_back(length);
  strides.push_back(stride(d1) + stride(d2));
  return make_view(*this, std::move(sizes), std::move(strides), start);
}

std::vector<int64_t> movedim_permutation(int64_t ndim, IntArrayRef source,
                                         IntArrayRef destination) {
  const char* op = "movedim";
  TORCHLET_CHECK(source.size() == destination.size(), op,
                 ": Invalid source or destination dims: source (", shape_str(source),
                 " dims) should contain the same number of dims as destination (",
                 shape_str(destination), " dims)");
  const size_t n = static_cast<size_t>(std::max<int64_t>(ndim, 1));
  std::vector<int64_t> perm(n, -1);
  std::vector<bool> moved(n, false);
  for (size_t i = 0; i < source.size(); ++i) {
    const int64_t s = wrap_dim(source[i], ndim, op), d = wrap_dim(destination[i], ndim, op);
    TORCHLET_CHECK(!moved[static_cast<size_t>(s)], op, ": repeated dim in `source` (",
                   shape_str(source), ")");
    TORCHLET_CHECK(perm[static_cast<size_t>(d)] == -1, op, ": repeated dim in `destination` (",
                   shape_str(destination), ")");
    moved[static_cast<size_t>(s)] = true;
    perm[static_cast<size_t>(d)] = s;
  }
  // The dims not moved keep their order in the free positions.
  size_t next = 0;
  for (size_t d = 0; d < n; ++d) {
    if (perm[d] != -1) continue;
    while (moved[next]) ++next;
    perm[d] = static_cast<int64_t>(next++);
  }
  if (ndim == 0) perm.clear();
  return perm;
}

Tensor Tensor::movedim(IntArrayRef source, IntArrayRef destination) const {
  return permute(movedim_permutation(dim(), source, destination));
}

Tensor Tensor::movedim(int64_t source, int64_t destination) const {
  return movedim(IntArrayRef(&source, 1), IntArrayRef(&destination, 1));
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  const int64_t d0 = wrap_dim(dim0, dim(), "transpose");
  const int64_t d1 = wrap_dim(dim1, dim(), "transpose");
  SizeVec sizes(this->sizes().begin(), this->sizes().end());
  SizeVec strides(this->strides().begin(), this->strides().end());
  if (dim() > 0) {
    std::swap(sizes[d0], sizes[d1]);
    std::swap(strides[d0], strides[d1]);
  }
  return make_view(*this, std::move(sizes), std::move(strides), storage_offset());
}

Tensor Tensor::t() const {
  TORCHLET_CHECK(dim() <= 2, "t: t() expects a tensor with <= 2 dimensions, but self is ", dim(),
                 "D");
  return dim() < 2 ? *this : transpose(0, 1);
}

Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length) const {
  TORCHLET_CHECK(this->dim() > 0, "narrow: narrow() cannot be applied to a 0-dim tensor.");
  const int64_t d = wrap_dim(dim, this->dim(), "narrow");
  const int64_t size = sizes()[d];
  TORCHLET_CHECK(start >= -size && start <= size, "narrow: start out of range (expected to be in "
                 "range of [", -size, ", ", size, "], but got ", start, ")");
  if (start < 0) start += size;
  TORCHLET_CHECK(length >= 0, "narrow: narrow(): length must be non-negative.");
  TORCHLET_CHECK(start + length <= size, "narrow: start (", start, ") + length (", length,
                 ") exceeds dimension size (", size, ").");
  return slice(d, start, start + length, 1);
}

Tensor Tensor::select(int64_t dim, int64_t index) const {
  TORCHLET_CHECK(this->dim() > 0, "select: select() cannot be applied to a 0-dim tensor.");
  const int64_t d = wrap_dim(dim, this->dim(), "select");
  const int64_t size = sizes()[d];
  TORCHLET_CHECK(index >= -size && index < size, "select: index ", index,
                 " out of range for tensor of size ", shape_str(sizes()), " at dimension ", d);
  if (index < 0) index += size;
  SizeVec sizes(this->sizes().begin(), this->sizes().end());
  SizeVec strides(this->strides().begin(), this->strides().end());
  const int64_t offset = storage_offset() + index * strides[d];
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return make_view(*this, sizes, strides, offset);
}

Tensor Tensor::slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                     int64_t step) const {
  TORCHLET_CHECK(this->dim() > 0, "slice: slice() cannot be applied to a 0-dim tensor.");
  TORCHLET_CHECK(step > 0, "slice: slice step must be positive, got ", step);
  const int64_t d = wrap_dim(dim, this->dim(), "slice");
  const int64_t size = sizes()[d];
  // Python's clamping of out-of-range bounds.
  int64_t s = start.value_or(0);
  int64_t e = end.value_or(size);
  if (s < 0) s += size;
  if (e < 0) e += size;
  s = std::clamp<int64_t>(s, 0, size);
  e = std::clamp<int64_t>(e, s, size);
  SizeVec sizes(this->sizes().begin(), this->sizes().end());
  SizeVec strides(this->strides().begin(), this->strides().end());
  const int64_t offset = storage_offset() + s * strides[d];
  sizes[d] = (e - s + step - 1) / step;
  strides[d] *= step;
  return make_view(*this, sizes, strides, offset);
}

Tensor Tensor::unsqueeze(int64_t dim) const {
  const int64_t d = wrap_dim(dim, this->dim() + 1, "unsqueeze");
  SizeVec sizes(this->sizes().begin(), this->sizes().end());
  SizeVec strides(this->strides().begin(), this->strides().end());
  const int64_t stride = d >= this->dim() ? 1 : sizes[d] * strides[d];
  sizes.insert(sizes.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return make_view(*this, sizes, strides, storage_offset());
}

Tensor Tensor::squeeze() const {
  SizeVec sizes, strides;
  for (int64_t d = 0; d < dim(); ++d) {
    if (this->sizes()[d] == 1) continue;
    sizes.push_back(this->sizes()[d]);
    strides.push_back(this->strides()[d]);
  }
  return make_view(*this, sizes, strides, storage_offset());
}

Tensor Tensor::squeeze(int64_t dim) const {
  const int64_t d = wrap_dim(dim, this->dim(), "squeeze");
  if (this->dim() == 0 || sizes()[d] != 1) return make_view(*this, SizeVec(sizes().begin(), sizes().end()),
                                                           SizeVec(strides().begin(), strides().end()),
                                                           storage_offset());
  SizeVec sizes(this->sizes().begin(), this->sizes().end());
  SizeVec strides(this->strides().begin(), this->strides().end());
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return make_view(*this, sizes, strides, storage_offset());
}

Tensor Tensor::expand(IntArrayRef target) const {
  const int64_t nd = static_cast<int64_t>(target.size());
  TORCHLET_CHECK(nd >= dim(), "expand: the number of sizes provided (", nd,
                 ") must be greater or equal to the number of dimensions in the tensor (", dim(),
                 ")");
  SizeVec sizes(nd), strides(nd);
  for (int64_t i = nd - 1; i >= 0; --i) {
    const int64_t offset = nd - 1 - i;
    const int64_t d = dim() - 1 - offset;
    const int64_t size = d >= 0 ? this->sizes()[d] : 1;
    const int64_t stride = d >= 0 ? this->strides()[d] : 0;
    int64_t want = target[i];
    if (want == -1) {
      TORCHLET_CHECK(d >= 0, "expand: The expanded size of the tensor (-1) isn't allowed in a "
                     "leading, non-existing dimension ", i);
      want = size;
    }
    TORCHLET_CHECK(want >= 0, "expand: invalid size ", want, " in ", shape_str(target));
    if (size == want) {
      sizes[i] = size;
      strides[i] = stride;
    } else {
      TORCHLET_CHECK(size == 1, "expand: The expanded size of the tensor (", want,
                     ") must match the existing size (", size, ") at non-singleton dimension ", i,
                     ".  Target sizes: ", shape_str(target), ".  Tensor sizes: ",
                     shape_str(this->sizes()));
      sizes[i] = want;
      strides[i] = 0;
    }
  }
  return make_view(*this, sizes, strides, storage_offset());
}

Tensor Tensor::expand_as(const Tensor& other) const { return expand(other.sizes()); }

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  const int64_t s = wrap_dim(start_dim, dim(), "flatten");
  const int64_t e = wrap_dim(end_dim, dim(), "flatten");
  TORCHLET_CHECK(s <= e, "flatten: flatten() has invalid args: start_dim cannot come after "
                 "end_dim");
  if (dim() == 0) return reshape({1});
  if (s == e) return *this;
  SizeVec shape;
  for (int64_t d = 0; d < s; ++d) shape.push_back(sizes()[d]);
  int64_t merged = 1;
  for (int64_t d = s; d <= e; ++d) merged *= sizes()[d];
  shape.push_back(merged);
  for (int64_t d = e + 1; d < dim(); ++d) shape.push_back(sizes()[d]);
  return reshape(shape);
}

Tensor Tensor::unflatten(int64_t dim, IntArrayRef sizes) const {
  const int64_t d = wrap_dim(dim, this->dim(), "unflatten");
  TORCHLET_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty");
  const SizeVec inferred = infer_size(sizes, this->sizes()[d], "unflatten");
  SizeVec shape(this->sizes().begin(), this->sizes().begin() + d);
  shape.insert(shape.end(), inferred.begin(), inferred.end());
  shape.insert(shape.end(), this->sizes().begin() + d + 1, this->sizes().end());
  return view(shape);
}

std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t dim) const {
  TORCHLET_CHECK(this->dim() > 0, "chunk: chunk expects at least a 1-dimensional tensor");
  TORCHLET_CHECK(chunks > 0, "chunk: chunk expects `chunks` to be greater than 0, got: ", chunks);
  const int64_t d = wrap_dim(dim, this->dim(), "chunk");
  const int64_t size = sizes()[d];
  const int64_t split_size = (size + chunks - 1) / chunks;
  if (split_size == 0 && size == 0) {
    // PyTorch returns `chunks` empty pieces for an empty dimension.
    return split_with_sizes(SizeVec(chunks, 0), d);
  }
  return split(split_size, d);
}

std::vector<Tensor> Tensor::split(int64_t split_size, int64_t dim) const {
  TORCHLET_CHECK(this->dim() > 0, "split: split expects at least a 1-dimensional tensor");
  TORCHLET_CHECK(split_size >= 0, "split: split expects split_size be non-negative, but got "
                 "split_size=", split_size);
  const int64_t d = wrap_dim(dim, this->dim(), "split");
  const int64_t size = sizes()[d];
  TORCHLET_CHECK(split_size > 0 || size == 0, "split: split_size can only be 0 if dimension size "
                 "is 0, but got dimension size of ", size);
  std::vector<Tensor> out;
  if (size == 0) {
    out.push_back(*this);
    return out;
  }
  for (int64_t start = 0; start < size; start += split_size) {
    out.push_back(narrow(d, start, std::min(split_size, size - start)));
  }
  return out;
}

std::vector<Tensor> Tensor::split_with_sizes(IntArrayRef split_sizes, int64_t dim) const {
  TORCHLET_CHECK(this->dim() > 0, "split_with_sizes: expects at least a 1-dimensional tensor");
  const int64_t d = wrap_dim(dim, this->dim(), "split_with_sizes");
  const int64_t size = sizes()[d];
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    TORCHLET_CHECK(s >= 0, "split_with_sizes: expects split_sizes have only non-negative entries, "
                   "but got split_sizes=", shape_str(split_sizes));
    total += s;
  }
  TORCHLET_CHECK(total == size, "split_with_sizes: expects split_sizes to sum exactly to ", size,
                 " (input tensor's size at dimension ", d, "), but got split_sizes=",
                 shape_str(split_sizes));
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(narrow(d, start, s));
    start += s;
  }
  return out;
}

std::vector<Tensor> Tensor::unbind(int64_t dim) const {
  TORCHLET_CHECK(this->dim() > 0, "unbind: Dimension specified as 0 but tensor has no dimensions");
  const int64_t d = wrap_dim(dim, this->dim(), "unbind");
  std::vector<Tensor> out;
  out.reserve(sizes()[d]);
  for (int64_t i = 0; i < sizes()[d]; ++i) out.push_back(select(d, i));
  return out;
}

}  // namespace torchlet
