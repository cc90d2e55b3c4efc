// Differentiable views and conversions. A view's gradient is the incoming
// gradient mapped back to the input's geometry; slicing ops scatter it into
// zeros through a differentiable op so that double backward works.
#include <numeric>

#include "autograd/op_helpers.h"

namespace torchlet {

using autograd::FunctionNode;
using autograd::record;

namespace {

SizeVec to_sizes(IntArrayRef s) { return SizeVec(s.begin(), s.end()); }

// A view result: the node (if any) gets the input's shape saved, and the
// result is marked as a view when recorded.
Variable view_op(const char* name, FunctionNode::Formula f, const Variable& x, Tensor out,
                 std::vector<int64_t> ints = {}) {
  Variable result = record(name, f, {&x}, std::move(out), [&](FunctionNode& n) {
    n.shapes.push_back(to_sizes(x.sizes()));
    n.ints = std::move(ints);
  });
  autograd::mark_view(result, x);
  return result;
}

variable_list reshape_back(FunctionNode& n, const variable_list& g) {
  return {g[0].reshape(n.shapes[0])};
}

// ints = {dim, start, end, step}: the gradient of x.slice(...) embedded in
// zeros of x's shape; itself differentiable (its gradient slices again).
Variable slice_backward(const Variable& g, const SizeVec& shape, int64_t dim, int64_t start,
                        int64_t end, int64_t step) {
  Tensor out = zeros(shape, g.options());
  out.slice(dim, start, end, step).copy_(g.data());
  return record("SliceBackwardBackward0", [](FunctionNode& n, const variable_list& gg)
                                               -> variable_list {
    return {gg[0].slice(n.ints[0], n.ints[1], n.ints[2], n.ints[3])};
  }, {&g}, std::move(out), [&](FunctionNode& n) { n.ints = {dim, start, end, step}; });
}

Variable select_backward(const Variable& g, const SizeVec& shape, int64_t dim, int64_t index) {
  Tensor out = zeros(shape, g.options());
  out.select(dim, index).copy_(g.data());
  return record("SelectBackwardBackward0", [](FunctionNode& n, const variable_list& gg)
                                                -> variable_list {
    return {gg[0].select(n.ints[0], n.ints[1])};
  }, {&g}, std::move(out), [&](FunctionNode& n) { n.ints = {dim, index}; });
}

}  // namespace

Variable Variable::view(IntArrayRef shape) const {
  return view_op("ViewBackward0", reshape_back, *this, data().view(shape));
}
Variable Variable::reshape(IntArrayRef shape) const {
  return view_op("ReshapeAliasBackward0", reshape_back, *this, data().reshape(shape));
}
Variable Variable::view_as(const Variable& other) const { return view(other.sizes()); }
Variable Variable::reshape_as(const Variable& other) const { return reshape(other.sizes()); }
Variable Variable::flatten(int64_t start_dim, int64_t end_dim) const {
  return view_op("ViewBackward0", reshape_back, *this, data().flatten(start_dim, end_dim));
}
Variable Variable::unflatten(int64_t dim, IntArrayRef sizes) const {
  return view_op("ViewBackward0", reshape_back, *this, data().unflatten(dim, sizes));
}
Variable Variable::squeeze() const {
  return view_op("SqueezeBackward0", reshape_back, *this, data().squeeze());
}
Variable Variable::squeeze(int64_t dim) const {
  return view_op("SqueezeBackward1", reshape_back, *this, data().squeeze(dim));
}
Variable Variable::unsqueeze(int64_t dim) const {
  return view_op("UnsqueezeBackward0", reshape_back, *this, data().unsqueeze(dim));
}

Variable Variable::permute(IntArrayRef dims) const {
  Tensor out = data().permute(dims);
  std::vector<int64_t> inverse(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    inverse[static_cast<size_t>(wrap_dim(dims[i], dim(), "permute"))] = static_cast<int64_t>(i);
  }
  return view_op("PermuteBackward0", [](FunctionNode& n, const variable_list& g) -> variable_list {
    return {g[0].permute(n.ints)};
  }, *this, std::move(out), std::move(inverse));
}
Variable Variable::transpose(int64_t dim0, int64_t dim1) const {
  return view_op("TransposeBackward0", [](FunctionNode& n, const variable_list& g) -> variable_list {
    return {g[0].transpose(n.ints[0], n.ints[1])};
  }, *this, data().transpose(dim0, dim1), {dim0, dim1});
}
Variable Variable::t() const {
  return view_op("TBackward0", [](FunctionNode&, const variable_list& g) -> variable_list {
    return {g[0].t()};
  }, *this, data().t());
}
Variable Variable::expand(IntArrayRef sizes) const {
  Variable result = record("ExpandBackward0", [](FunctionNode& n, const variable_list& g) -> variable_list {
    return {autograd::sum_to(g[0], n.shapes[0], n.dtypes[0])};
  }, {this}, data().expand(sizes), [&](FunctionNode& n) { autograd::save_meta(n, *this); });
  autograd::mark_view(result, *this);
  return result;
}
Variable Variable::expand_as(const Variable& other) const { return expand(other.sizes()); }

Variable Variable::slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                         int64_t step) const {
  Tensor out = data().slice(dim, start, end, step);
  // Recover the normalized start from the view's offset; end from its size.
  const int64_t d = wrap_dim(dim, this->dim(), "slice");
  const int64_t stride = data().stride(d);
  const int64_t first = stride == 0 || out.numel() == 0
                            ? 0
                            : (out.storage_offset() - data().storage_offset()) / stride;
  const int64_t last = first + (out.size(d) - 1) * step + 1;
  return view_op("SliceBackward0", [](FunctionNode& n, const variable_list& g) -> variable_list {
    return {slice_backward(g[0], n.shapes[0], n.ints[0], n.ints[1], n.ints[2], n.ints[3])};
  }, *this, std::move(out), {d, first, std::max(first, last), step});
}
Variable Variable::narrow(int64_t dim, int64_t start, int64_t length) const {
  Tensor out = data().narrow(dim, start, length);
  const int64_t d = wrap_dim(dim, this->dim(), "narrow");
  const int64_t s = start < 0 ? start + size(d) : start;
  return view_op("SliceBackward0", [](FunctionNode& n, const variable_list& g) -> variable_list {
    return {slice_backward(g[0], n.shapes[0], n.ints[0], n.ints[1], n.ints[2], n.ints[3])};
  }, *this, std::move(out), {d, s, s + length, 1});
}
Variable Variable::select(int64_t dim, int64_t index) const {
  Tensor out = data().select(dim, index);
  const int64_t d = wrap_dim(dim, this->dim(), "select");
  const int64_t i = index < 0 ? index + size(d) : index;
  return view_op("SelectBackward0", [](FunctionNode& n, const variable_list& g) -> variable_list {
    return {select_backward(g[0], n.shapes[0], n.ints[0], n.ints[1])};
  }, *this, std::move(out), {d, i});
}

namespace {
// Note [One node for all pieces]
// split, chunk and unbind record one node with an output per piece (PyTorch's
// SplitBackward0 / UnbindBackward0). Its backward writes every piece's
// gradient into one buffer of the input's shape, so it costs O(numel) for
// any number of pieces; a node per piece would fill a zero tensor of the
// whole input for each, O(pieces x numel).
//
// ints = {dim, squeezed, size of each piece along dim}; squeezed pieces
// (unbind) lack the dim.

// The gradient of the pieces `g` gathered back into the input's `shape`;
// itself differentiable (its gradient splits again).
Variable gather_pieces(const variable_list& g, const SizeVec& shape, const std::vector<int64_t>& ints) {
  const int64_t dim = ints[0];
  const bool squeezed = ints[1] != 0;
  Tensor out = empty(shape, g[0].options());
  int64_t offset = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    const int64_t length = ints[i + 2];
    Tensor slot = out.narrow(dim, offset, length);
    slot.copy_(squeezed ? g[i].data().unsqueeze(dim) : g[i].data());
    offset += length;
  }
  std::shared_ptr<FunctionNode> node = autograd::record_op(
      "SplitBackwardBackward0", [](FunctionNode& n, const variable_list& gg) -> variable_list {
        if (n.ints[1] != 0) return gg[0].unbind(n.ints[0]);
        const std::vector<int64_t> sizes(n.ints.begin() + 2, n.ints.end());
        return gg[0].split_with_sizes(sizes, n.ints[0]);
      }, g, out.device());
  if (node) node->ints = ints;
  return autograd::make_result(std::move(out), node);
}

// The tensor op that made `pieces` has checked `dim`, so this only wraps it.
std::vector<Variable> record_pieces(const char* name, const Variable& x, std::vector<Tensor> pieces,
                                    int64_t dim, bool squeezed) {
  const int64_t d = wrap_dim(dim, x.dim(), name);
  std::shared_ptr<FunctionNode> node = autograd::record_op(
      name, [](FunctionNode& n, const variable_list& g) -> variable_list {
        return {gather_pieces(g, n.shapes[0], n.ints)};
      }, {&x}, x.device());
  if (node) {
    node->shapes.push_back(to_sizes(x.sizes()));
    node->ints = {d, squeezed ? 1 : 0};
    for (const Tensor& piece : pieces) node->ints.push_back(squeezed ? 1 : piece.size(d));
  }
  std::vector<Variable> parts;
  parts.reserve(pieces.size());
  for (size_t i = 0; i < pieces.size(); ++i) {
    parts.push_back(autograd::make_result(std::move(pieces[i]), node, static_cast<uint32_t>(i)));
    autograd::mark_view(parts.back(), x);
  }
  return parts;
}
}  // namespace

std::vector<Variable> Variable::split(int64_t split_size, int64_t dim) const {
  return record_pieces("SplitBackward0", *this, data().split(split_size, dim), dim, false);
}
std::vector<Variable> Variable::split_with_sizes(IntArrayRef split_sizes, int64_t dim) const {
  return record_pieces("SplitWithSizesBackward0", *this, data().split_with_sizes(split_sizes, dim),
                       dim, false);
}
Variable Variable::as_strided(IntArrayRef sizes, IntArrayRef strides,
                              std::optional<int64_t> storage_offset) const {
  Variable result = autograd::as_strided_view(*this, data().as_strided(sizes, strides, storage_offset));
  autograd::mark_view(result, *this);
  return result;
}
std::vector<Variable> Variable::chunk(int64_t chunks, int64_t dim) const {
  return record_pieces("SplitBackward0", *this, data().chunk(chunks, dim), dim, false);
}
std::vector<Variable> Variable::unbind(int64_t dim) const {
  return record_pieces("UnbindBackward0", *this, data().unbind(dim), dim, true);
}

// ---- Copies and conversions -------------------------------------------------------------

Variable Variable::clone() const {
  return record("CloneBackward0", [](FunctionNode&, const variable_list& g) -> variable_list {
    return {g[0]};
  }, {this}, data().clone(), [](FunctionNode&) {});
}
Variable Variable::contiguous() const {
  if (data().is_contiguous()) return *this;
  return clone();
}
Variable Variable::to(DType dtype) const {
  if (dtype == this->dtype()) return *this;
  return record("ToCopyBackward0", [](FunctionNode& n, const variable_list& g) -> variable_list {
    return {g[0].to(n.dtypes[0])};
  }, {this}, data().to(dtype), [&](FunctionNode& n) { n.dtypes.push_back(this->dtype()); });
}
Variable Variable::to(Device device) const {
  if (device == this->device()) return *this;
  const Device source = this->device();
  return record("ToCopyBackward0", [](FunctionNode& n, const variable_list& g) -> variable_list {
    return {g[0].to(Device(static_cast<DeviceType>(n.ints[0]), static_cast<int>(n.ints[1])))};
  }, {this}, data().to(device), [&](FunctionNode& n) {
    n.ints = {static_cast<int64_t>(source.type), source.index};
  });
}

}  // namespace torchlet
