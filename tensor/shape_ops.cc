// Shape ops: tril/triu, flip, roll, rot90, diag, diag_embed, trace, repeat,
// tile, repeat_interleave, meshgrid and the triangle-index factories.
// diagonal and movedim are views (tensor/views.cc). tril/triu and flip have
// CPU kernels (tensor/cpu/shape_kernels.cc); the rest are views and copies,
// which run on every device.
#include "tensor/shape_ops.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <vector>

#include "tensor/cpu/kernels.h"
#include "tensor/elementwise.h"
#include "tensor/factories.h"
#include "tensor/op_utils.h"
#include "tensor/reduction.h"
#include "tensor/warning.h"

namespace torchlet {
namespace {

// PyTorch's error for a dim given to a 0-dim tensor where it takes none.
int64_t wrap_dim_of_matrix_op(int64_t dim, int64_t ndim, const char* op) {
  TORCHLET_CHECK(ndim > 0, op, ": Dimension specified as ", dim, " but tensor has no dimensions");
  return wrap_dim(dim, ndim, op);
}

// A bool [rows, cols] mask of the elements tril (lower) or triu keeps.
Tensor triangle_mask(int64_t rows, int64_t cols, int64_t diagonal, bool lower, Device device) {
  const TensorOptions options = TensorOptions(kInt64).device(device);
  const Tensor offset = arange(cols, options).unsqueeze(0).sub(arange(rows, options).unsqueeze(1));
  return lower ? offset.le(diagonal) : offset.ge(diagonal);
}

void check_triangle_input(const Tensor& t, const char* op) {
  check_defined(op, t);
  wrap_dim_of_matrix_op(-2, t.dim(), op);
}

Tensor triangle(const Tensor& t, int64_t diagonal, bool lower, const char* op) {
  check_triangle_input(t, op);
  if (t.is_cuda()) {
    const Tensor keep = triangle_mask(t.size(-2), t.size(-1), diagonal, lower, t.device());
    return t.masked_fill(keep.logical_not(), 0);
  }
  Tensor out = empty(t.sizes(), t.options());
  if (out.numel() > 0) cpu::triangle(out, t, diagonal, lower);
  return out;
}

Tensor& triangle_(Tensor& t, int64_t diagonal, bool lower, const char* op) {
  check_triangle_input(t, op);
  if (t.numel() == 0) return t;
  if (t.is_cuda()) {
    const Tensor keep = triangle_mask(t.size(-2), t.size(-1), diagonal, lower, t.device());
    return t.masked_fill_(keep.logical_not(), 0);
  }
  cpu::triangle(t, t, diagonal, lower);
  t.bump_version();
  return t;
}

// The coordinates of a row x col triangle, row by row: computed on the host
// (a short serial loop) and moved to the requested device.
Tensor triangle_indices(int64_t row, int64_t col, int64_t offset, TensorOptions options,
                        bool lower, const char* op) {
  TORCHLET_CHECK(row >= 0, op, ": row must be non-negative, got", row);
  TORCHLET_CHECK(col >= 0, op, ": col must be non-negative, got", col);
  const DType dtype = options.dtype_or(kInt64);
  TORCHLET_CHECK(dtype == kInt64 || dtype == kInt32, "\"", op, "\" not implemented for '",
                 dtype, "'");
  int64_t count = 0;
  for (int64_t r = 0; r < row; ++r) {
    const int64_t begin = lower ? 0 : std::clamp<int64_t>(r + offset, 0, col);
    const int64_t end = lower ? std::clamp<int64_t>(r + offset + 1, 0, col) : col;
    count += end - begin;
  }
  Tensor out = empty({2, count}, TensorOptions(kInt64).device(Device(kCPU, 0)));
  cpu::triangle_indices(out, row, col, offset, lower);
  return out.to(options.device_or_current(), dtype);
}

// For each dim of `t`, whether it is listed in `dims` (each at most once).
std::vector<bool> flipped_dims(const Tensor& t, IntArrayRef dims, const char* op) {
  std::vector<bool> flipped(static_cast<size_t>(std::max<int64_t>(t.dim(), 1)), false);
  for (int64_t d : dims) {
    const size_t w = static_cast<size_t>(wrap_dim(d, t.dim(), op));
    TORCHLET_CHECK(!flipped[w], op, ": dim ", w, " appears multiple times in the list of dims");
    flipped[w] = true;
  }
  return flipped;
}

// [1, ..., 1] + sizes, of length `ndim` (>= sizes.size()).
SizeVec padded_sizes(IntArrayRef sizes, size_t ndim) {
  SizeVec out(ndim - sizes.size(), 1);
  out.insert(out.end(), sizes.begin(), sizes.end());
  return out;
}

// `out` (fresh) = `t` repeated `repeats` times along `dim`, each element (or
// slice) repeated in place: one copy from an expanded view.
Tensor repeat_each(const Tensor& t, int64_t repeats, int64_t dim) {
  SizeVec out_shape(t.sizes().begin(), t.sizes().end());
  out_shape[dim] *= repeats;
  Tensor out = empty(out_shape, t.options());
  if (out.numel() == 0) return out;
  SizeVec expanded(t.sizes().begin(), t.sizes().end());
  expanded.insert(expanded.begin() + dim + 1, repeats);
  out.view(expanded).copy_(t.unsqueeze(dim + 1).expand(expanded));
  return out;
}

}  // namespace

// ---- Triangles ----------------------------------------------------------------------------

Tensor Tensor::tril(int64_t diagonal) const { return triangle(*this, diagonal, true, "tril"); }
Tensor Tensor::triu(int64_t diagonal) const { return triangle(*this, diagonal, false, "triu"); }
Tensor& Tensor::tril_(int64_t diagonal) { return triangle_(*this, diagonal, true, "tril_"); }
Tensor& Tensor::triu_(int64_t diagonal) { return triangle_(*this, diagonal, false, "triu_"); }
Tensor tril(const Tensor& t, int64_t diagonal) { return t.tril(diagonal); }
Tensor triu(const Tensor& t, int64_t diagonal) { return t.triu(diagonal); }

Tensor tril_indices(int64_t row, int64_t col, int64_t offset, TensorOptions options) {
  return triangle_indices(row, col, offset, options, true, "tril_indices");
}
Tensor triu_indices(int64_t row, int64_t col, int64_t offset, TensorOptions options) {
  return triangle_indices(row, col, offset, options, false, "triu_indices");
}

// ---- Flips, rolls and rotations -------------------------------------------------------------

Tensor Tensor::flip(IntArrayRef dims) const {
  const char* op = "flip";
  check_defined(op, *this);
  const std::vector<bool> flipped = flipped_dims(*this, dims, op);
  if (is_cuda()) {
    // One index_select per flipped dim.
    Tensor out = *this;
    bool copied = false;
    for (int64_t d = 0; d < this->dim(); ++d) {
      if (!flipped[static_cast<size_t>(d)]) continue;
      const int64_t n = size(d);
      out = out.index_select(d, arange(n - 1, -1, -1, TensorOptions(kInt64).device(device())));
      copied = true;
    }
    return copied ? out : clone();
  }
  Tensor out = empty(sizes(), options());
  if (out.numel() > 0) cpu::flip(out, *this, flipped);
  return out;
}

Tensor Tensor::fliplr() const {
  TORCHLET_CHECK(dim() >= 2, "fliplr: Input must be >= 2-d.");
  return flip({1});
}

Tensor Tensor::flipud() const {
  TORCHLET_CHECK(dim() >= 1, "flipud: Input must be >= 1-d.");
  return flip({0});
}

Tensor flip(const Tensor& t, IntArrayRef dims) { return t.flip(dims); }
Tensor fliplr(const Tensor& t) { return t.fliplr(); }
Tensor flipud(const Tensor& t) { return t.flipud(); }

Tensor Tensor::roll(IntArrayRef shifts, IntArrayRef dims) const {
  const char* op = "roll";
  check_defined(op, *this);
  TORCHLET_CHECK(!shifts.empty(), op, ": `shifts` required");
  if (dims.empty() && shifts.size() == 1) {
    return reshape({-1}).roll(shifts, {0}).view(sizes());
  }
  TORCHLET_CHECK(shifts.size() == dims.size(), op,
                 ": shifts and dimensions must align. shifts: ", shifts.size(),
                 ", dims:", dims.size());
  // Shifts along one dim add up; each becomes a rotation in [0, size).
  SizeVec total(static_cast<size_t>(this->dim()), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim_of_matrix_op(dims[i], this->dim(), op);
    total[d] += shifts[i];
  }
  Tensor out = empty(sizes(), options());
  if (out.numel() == 0) return out;
  std::vector<int64_t> rolled;
  for (int64_t d = 0; d < this->dim(); ++d) {
    const int64_t n = size(d);
    total[d] = ((total[d] % n) + n) % n;
    if (total[d] != 0) rolled.push_back(d);
  }
  // Each of the 2^k blocks (the head or the tail along every rolled dim) is
  // one strided copy.
  const size_t k = rolled.size();
  for (size_t block = 0; block < (size_t{1} << k); ++block) {
    Tensor dst = out, src = *this;
    for (size_t j = 0; j < k; ++j) {
      const int64_t d = rolled[j], n = size(d), s = total[d];
      if (block & (size_t{1} << j)) {
        dst = dst.narrow(d, 0, s);
        src = src.narrow(d, n - s, s);
      } else {
        dst = dst.narrow(d, s, n - s);
        src = src.narrow(d, 0, n - s);
      }
    }
    dst.copy_(src);
  }
  return out;
}

Tensor Tensor::roll(int64_t shifts, std::optional<int64_t> dim) const {
  if (!dim) return roll(IntArrayRef(&shifts, 1), {});
  return roll(IntArrayRef(&shifts, 1), IntArrayRef(&*dim, 1));
}

Tensor roll(const Tensor& t, IntArrayRef shifts, IntArrayRef dims) { return t.roll(shifts, dims); }

Tensor Tensor::rot90(int64_t k, IntArrayRef dims) const {
  const char* op = "rot90";
  check_defined(op, *this);
  const int64_t n = dim();
  TORCHLET_CHECK(dims.size() == 2, op, ": expected total rotation dims == 2, but got dims = ",
                 dims.size());
  TORCHLET_CHECK(n >= 2, op, ": expected total dims >= 2, but got total dims = ", n);
  TORCHLET_CHECK(dims[0] != dims[1] && std::abs(dims[0] - dims[1]) != n, op,
                 ": expected rotation dims to be different, but got dim0 = ", dims[0],
                 " and dim1 = ", dims[1]);
  TORCHLET_CHECK(dims[0] < n && dims[0] >= -n, op, ": Rotation dim0 out of range, dim0 = ",
                 dims[0]);
  TORCHLET_CHECK(dims[1] < n && dims[1] >= -n, op, ": Rotation dim1 out of range, dim1 = ",
                 dims[1]);
  switch (((k % 4) + 4) % 4) {
    case 1: return flip({dims[1]}).transpose(dims[0], dims[1]);
    case 2: return flip(dims);
    case 3: return flip({dims[0]}).transpose(dims[0], dims[1]);
    default: return clone();
  }
}

Tensor rot90(const Tensor& t, int64_t k, IntArrayRef dims) { return t.rot90(k, dims); }

// ---- Diagonals ------------------------------------------------------------------------------

Tensor Tensor::diag(int64_t diagonal) const {
  const char* op = "diag";
  check_defined(op, *this);
  TORCHLET_CHECK(dim() == 1 || dim() == 2, op, "(): Supports 1D or 2D tensors. Got ", dim(),
                 "D (matrix or a vector expected)");
  if (dim() == 1) return diag_embed(diagonal, 0, 1);
  return this->diagonal(diagonal).clone();
}

Tensor Tensor::diag_embed(int64_t offset, int64_t dim1, int64_t dim2) const {
  const char* op = "diag_embed";
  check_defined(op, *this);
  const int64_t out_dim = dim() + 1;
  const int64_t d1 = wrap_dim(dim1, out_dim, op), d2 = wrap_dim(dim2, out_dim, op);
  TORCHLET_CHECK(d1 != d2, op, ": diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const int64_t n = size(-1) + std::abs(offset);
  SizeVec shape(sizes().begin(), sizes().end() - 1);
  shape.insert(shape.begin() + std::min(d1, d2), n);
  shape.insert(shape.begin() + std::max(d1, d2), n);
  Tensor out = zeros(shape, options());
  if (numel() > 0) out.diagonal(offset, d1, d2).copy_(*this);
  return out;
}

Tensor Tensor::trace() const {
  check_defined("trace", *this);
  TORCHLET_CHECK(dim() == 2, "trace: expected a matrix, but got tensor with dim ", dim());
  return diagonal().sum();
}

Tensor diagonal(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  return t.diagonal(offset, dim1, dim2);
}
Tensor diag(const Tensor& t, int64_t diagonal) { return t.diag(diagonal); }
Tensor diag_embed(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  return t.diag_embed(offset, dim1, dim2);
}
Tensor trace(const Tensor& t) { return t.trace(); }

Tensor diagonal_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t offset,
                         int64_t dim1, int64_t dim2) {
  Tensor out = zeros(input_sizes, grad.options());
  if (grad.numel() > 0) out.diagonal(offset, dim1, dim2).copy_(grad);
  return out;
}

// ---- Repeats --------------------------------------------------------------------------------

Tensor Tensor::repeat(IntArrayRef repeats) const {
  const char* op = "repeat";
  check_defined(op, *this);
  TORCHLET_CHECK(static_cast<int64_t>(repeats.size()) >= dim(), op,
                 ": Number of dimensions of repeat dims can not be smaller than number of "
                 "dimensions of tensor");
  const size_t n = repeats.size();
  const SizeVec padded = padded_sizes(sizes(), n);
  SizeVec out_shape(n), blocks;
  for (size_t i = 0; i < n; ++i) out_shape[i] = padded[i] * repeats[i];
  for (size_t i = 0; i < n; ++i) {
    TORCHLET_CHECK(out_shape[i] >= 0, op, ": Trying to create tensor with negative dimension ",
                   out_shape[i], ": ", shape_str(out_shape));
    blocks.push_back(repeats[i]);
    blocks.push_back(padded[i]);
  }
  Tensor out = empty(out_shape, options());
  if (out.numel() == 0) return out;
  // The input viewed as [1, s0, 1, s1, ...], expanded to [r0, s0, r1, s1, ...]:
  // one copy into the output viewed that way.
  Tensor src = *this;
  while (src.dim() < static_cast<int64_t>(n)) src = src.unsqueeze(0);
  for (int64_t i = static_cast<int64_t>(n) - 1; i >= 0; --i) src = src.unsqueeze(i);
  out.view(blocks).copy_(src.expand(blocks));
  return out;
}

Tensor Tensor::tile(IntArrayRef dims) const {
  check_defined("tile", *this);
  if (static_cast<int64_t>(dims.size()) >= dim()) return repeat(dims);
  return repeat(padded_sizes(dims, static_cast<size_t>(dim())));
}

Tensor tile(const Tensor& t, IntArrayRef dims) { return t.tile(dims); }

Tensor Tensor::repeat_interleave(int64_t repeats, std::optional<int64_t> dim,
                                 std::optional<int64_t> output_size) const {
  const char* op = "repeat_interleave";
  check_defined(op, *this);
  TORCHLET_CHECK(repeats >= 0, op, ": repeats can not be negative");
  const Tensor x = dim ? *this : reshape({-1});
  const int64_t d = dim ? wrap_dim_of_matrix_op(*dim, this->dim(), op) : 0;
  TORCHLET_CHECK(!output_size || *output_size == x.size(d) * repeats, op,
                 ": allocated size does not match required size");
  return repeat_each(x, repeats, d);
}

Tensor Tensor::repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim,
                                 std::optional<int64_t> output_size) const {
  const char* op = "repeat_interleave";
  check_defined(op, *this);
  check_defined(op, repeats);
  TORCHLET_CHECK(repeats.dim() <= 1, op, ": repeats must be 0-dim or 1-dim tensor");
  TORCHLET_CHECK(repeats.dtype() == kInt64 || repeats.dtype() == kInt32, op,
                 ": repeats must be an int64 or int32 tensor, got ", repeats.dtype());
  if (repeats.numel() == 1) {
    return repeat_interleave(repeats.item<int64_t>(), dim, output_size);
  }
  const Tensor x = dim ? *this : reshape({-1});
  const int64_t d = dim ? wrap_dim_of_matrix_op(*dim, this->dim(), op) : 0;
  TORCHLET_CHECK(repeats.size(0) == x.size(d), op,
                 ": repeats must have the same size as input along dim");
  check_same_device(op, *this, repeats);
  return x.index_select(d, torchlet::repeat_interleave(repeats.to(kInt64), output_size));
}

Tensor repeat_interleave(const Tensor& t, int64_t repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  return t.repeat_interleave(repeats, dim, output_size);
}
Tensor repeat_interleave(const Tensor& t, const Tensor& repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  return t.repeat_interleave(repeats, dim, output_size);
}

Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  const char* op = "repeat_interleave";
  check_defined(op, repeats);
  TORCHLET_CHECK(repeats.dim() == 1, op, ": repeat_interleave only accept 1D vector as repeat");
  TORCHLET_CHECK(repeats.dtype() == kInt64 || repeats.dtype() == kInt32, op,
                 ": repeats must be an int64 or int32 tensor, got ", repeats.dtype());
  // The output's length depends on the values: computed on the host (a GPU's
  // repeats make a round trip, as PyTorch's do for the total).
  const Tensor counts = repeats.to(Device(kCPU, 0), kInt64).contiguous();
  const std::optional<int64_t> negative =
      cpu::find_index_outside(counts, 0, std::numeric_limits<int64_t>::max());
  TORCHLET_CHECK(!negative, op, ": repeats can not be negative");
  const int64_t total = counts.numel() > 0 ? counts.sum().item<int64_t>() : 0;
  TORCHLET_CHECK(!output_size || *output_size == total, op,
                 ": allocated size does not match required size");
  Tensor out = empty({total}, TensorOptions(kInt64).device(Device(kCPU, 0)));
  cpu::repeat_indices(out, counts);
  return out.to(repeats.device(), repeats.dtype());
}

// ---- Moved dims and grids -------------------------------------------------------------------

Tensor movedim(const Tensor& t, IntArrayRef source, IntArrayRef destination) {
  return t.movedim(source, destination);
}
Tensor movedim(const Tensor& t, int64_t source, int64_t destination) {
  return t.movedim(source, destination);
}
Tensor moveaxis(const Tensor& t, IntArrayRef source, IntArrayRef destination) {
  return t.movedim(source, destination);
}
Tensor moveaxis(const Tensor& t, int64_t source, int64_t destination) {
  return t.movedim(source, destination);
}
Tensor Tensor::moveaxis(IntArrayRef source, IntArrayRef destination) const {
  return movedim(source, destination);
}
Tensor Tensor::moveaxis(int64_t source, int64_t destination) const {
  return movedim(source, destination);
}

std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors) {
  warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
       "argument.");
  return meshgrid(tensors, "ij");
}

std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, const std::string& indexing) {
  const char* op = "meshgrid";
  TORCHLET_CHECK(!tensors.empty(), op, ": meshgrid expects a non-empty TensorList");
  for (const Tensor& t : tensors) {
    check_defined(op, t);
    TORCHLET_CHECK(t.dim() <= 1, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                   "but got a tensor of shape ", shape_str(t.sizes()));
    TORCHLET_CHECK(t.dtype() == tensors[0].dtype(), op,
                   ": meshgrid expects all tensors to have the same dtype");
    TORCHLET_CHECK(t.device() == tensors[0].device(), op,
                   ": meshgrid expects all tensors to have the same device");
  }
  TORCHLET_CHECK(indexing == "ij" || indexing == "xy",
                 "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: ",
                 indexing);
  const bool swap = indexing == "xy" && tensors.size() >= 2;
  const size_t n = tensors.size();
  SizeVec shape(n);
  for (size_t i = 0; i < n; ++i) shape[i] = tensors[i].numel();
  if (swap) std::swap(shape[0], shape[1]);
  std::vector<Tensor> grids;
  grids.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t at = swap && i < 2 ? 1 - i : i;
    SizeVec view_shape(n, 1);
    view_shape[at] = -1;
    grids.push_back(tensors[i].reshape(view_shape).expand(shape));
  }
  return grids;
}

}  // namespace torchlet
