// Differentiable views and conversions. A view's gradient is the incoming
// gradient mapped back to the input's geometry; slicing ops scatter it into
// zeros through a differentiable op so that double backward works.
#include <numeric>

#include "autograd/op_helpers.h"

namespace torchlet {

using autograd::InputMeta;
using autograd::InputMetaState;
using autograd::NoState;
using autograd::OpNode;
using autograd::PlainNode;
using autograd::record;

namespace {

SizeVec to_sizes(IntArrayRef s) { return SizeVec(s.begin(), s.end()); }

// Views whose gradient is reshaped back to the input's shape.
struct ShapeState {
  SizeVec input_shape;
};
struct PermuteState {
  std::vector<int64_t> inverse;  // the permutation that undoes the op's
};
struct TransposeState {
  int64_t dim0 = 0;
  int64_t dim1 = 0;
};
// A slice along `dim`, normalized: start <= end, both within the size.
struct SliceRange {
  int64_t dim = 0;
  int64_t start = 0;
  int64_t end = 0;
  int64_t step = 1;
};
struct SliceState {
  SizeVec input_shape;
  SliceRange range;
};
struct SelectIndex {
  int64_t dim = 0;
  int64_t index = 0;  // normalized (not negative)
};
struct SelectState {
  SizeVec input_shape;
  SelectIndex at;
};

// A view result: the node (if any) holds `state`, and the result is marked
// as a view when recorded.
template <class State>
Variable view_op(const char* name, typename OpNode<State>::Formula f, const Variable& x,
                 Tensor out, State state) {
  Variable result = record(name, f, {&x}, std::move(out),
                           [&](OpNode<State>& n) { n.state = std::move(state); });
  autograd::mark_view(result, x);
  return result;
}

variable_list reshape_back(OpNode<ShapeState>& n, const variable_list& g) {
  return {g[0].reshape(n.state.input_shape)};
}

Variable reshape_view(const char* name, const Variable& x, Tensor out) {
  return view_op<ShapeState>(name, reshape_back, x, std::move(out), {to_sizes(x.sizes())});
}

// The gradient of x.slice(...) embedded in zeros of x's shape; itself
// differentiable (its gradient slices again).
Variable slice_backward(const Variable& g, const SizeVec& shape, const SliceRange& r) {
  Tensor out = zeros(shape, g.options());
  out.slice(r.dim, r.start, r.end, r.step).copy_(g.data());
  return record("SliceBackwardBackward0", [](OpNode<SliceRange>& n, const variable_list& gg)
                                               -> variable_list {
    const SliceRange& r = n.state;
    return {gg[0].slice(r.dim, r.start, r.end, r.step)};
  }, {&g}, std::move(out), [&](OpNode<SliceRange>& n) { n.state = r; });
}

Variable select_backward(const Variable& g, const SizeVec& shape, const SelectIndex& at) {
  Tensor out = zeros(shape, g.options());
  out.select(at.dim, at.index).copy_(g.data());
  return record("SelectBackwardBackward0", [](OpNode<SelectIndex>& n, const variable_list& gg)
                                                -> variable_list {
    return {gg[0].select(n.state.dim, n.state.index)};
  }, {&g}, std::move(out), [&](OpNode<SelectIndex>& n) { n.state = at; });
}

variable_list slice_back(OpNode<SliceState>& n, const variable_list& g) {
  return {slice_backward(g[0], n.state.input_shape, n.state.range)};
}

// A diagonal of the input (dims wrapped).
struct DiagonalState {
  SizeVec input_shape;
  int64_t offset = 0;
  int64_t dim1 = 0;
  int64_t dim2 = 0;
};

// The gradient of x.diagonal(...): zeros of x's shape with g on the
// diagonal; itself differentiable (its gradient takes the diagonal again).
Variable diagonal_backward(const Variable& g, const DiagonalState& d) {
  Tensor out = torchlet::diagonal_backward(g.data(), d.input_shape, d.offset, d.dim1, d.dim2);
  return record("DiagonalBackwardBackward0", [](OpNode<DiagonalState>& n,
                                                const variable_list& gg) -> variable_list {
    const DiagonalState& d = n.state;
    return {gg[0].diagonal(d.offset, d.dim1, d.dim2)};
  }, {&g}, std::move(out), [&](OpNode<DiagonalState>& n) { n.state = d; });
}

}  // namespace

Variable Variable::diagonal(int64_t offset, int64_t dim1, int64_t dim2) const {
  Tensor out = data().diagonal(offset, dim1, dim2);
  const int64_t d1 = wrap_dim(dim1, dim(), "diagonal"), d2 = wrap_dim(dim2, dim(), "diagonal");
  return view_op<DiagonalState>("DiagonalBackward0", [](OpNode<DiagonalState>& n,
                                                        const variable_list& g)
                                                         -> variable_list {
    return {diagonal_backward(g[0], n.state)};
  }, *this, std::move(out), {to_sizes(sizes()), offset, d1, d2});
}

Variable Variable::view(IntArrayRef shape) const {
  return reshape_view("ViewBackward0", *this, data().view(shape));
}
Variable Variable::reshape(IntArrayRef shape) const {
  return reshape_view("ReshapeAliasBackward0", *this, data().reshape(shape));
}
Variable Variable::view_as(const Variable& other) const { return view(other.sizes()); }
Variable Variable::reshape_as(const Variable& other) const { return reshape(other.sizes()); }
Variable Variable::flatten(int64_t start_dim, int64_t end_dim) const {
  return reshape_view("ViewBackward0", *this, data().flatten(start_dim, end_dim));
}
Variable Variable::unflatten(int64_t dim, IntArrayRef sizes) const {
  return reshape_view("ViewBackward0", *this, data().unflatten(dim, sizes));
}
Variable Variable::squeeze() const {
  return reshape_view("SqueezeBackward0", *this, data().squeeze());
}
Variable Variable::squeeze(int64_t dim) const {
  return reshape_view("SqueezeBackward1", *this, data().squeeze(dim));
}
Variable Variable::unsqueeze(int64_t dim) const {
  return reshape_view("UnsqueezeBackward0", *this, data().unsqueeze(dim));
}

Variable Variable::permute(IntArrayRef dims) const {
  Tensor out = data().permute(dims);
  std::vector<int64_t> inverse(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    inverse[static_cast<size_t>(wrap_dim(dims[i], dim(), "permute"))] = static_cast<int64_t>(i);
  }
  return view_op<PermuteState>("PermuteBackward0", [](OpNode<PermuteState>& n,
                                                      const variable_list& g) -> variable_list {
    return {g[0].permute(n.state.inverse)};
  }, *this, std::move(out), {std::move(inverse)});
}
Variable Variable::transpose(int64_t dim0, int64_t dim1) const {
  return view_op<TransposeState>("TransposeBackward0", [](OpNode<TransposeState>& n,
                                                          const variable_list& g)
                                                           -> variable_list {
    return {g[0].transpose(n.state.dim0, n.state.dim1)};
  }, *this, data().transpose(dim0, dim1), {dim0, dim1});
}
Variable Variable::t() const {
  return view_op<NoState>("TBackward0", [](PlainNode&, const variable_list& g) -> variable_list {
    return {g[0].t()};
  }, *this, data().t(), {});
}
Variable Variable::expand(IntArrayRef sizes) const {
  return view_op<InputMetaState>("ExpandBackward0", [](OpNode<InputMetaState>& n,
                                                        const variable_list& g) -> variable_list {
    return {autograd::sum_to(g[0], n.state.input)};
  }, *this, data().expand(sizes), {InputMeta(*this)});
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
  return view_op<SliceState>("SliceBackward0", slice_back, *this, std::move(out),
                             {to_sizes(sizes()), {d, first, std::max(first, last), step}});
}
Variable Variable::narrow(int64_t dim, int64_t start, int64_t length) const {
  Tensor out = data().narrow(dim, start, length);
  const int64_t d = wrap_dim(dim, this->dim(), "narrow");
  const int64_t s = start < 0 ? start + size(d) : start;
  return view_op<SliceState>("SliceBackward0", slice_back, *this, std::move(out),
                             {to_sizes(sizes()), {d, s, s + length, 1}});
}
Variable Variable::select(int64_t dim, int64_t index) const {
  Tensor out = data().select(dim, index);
  const int64_t d = wrap_dim(dim, this->dim(), "select");
  const int64_t i = index < 0 ? index + size(d) : index;
  return view_op<SelectState>("SelectBackward0", [](OpNode<SelectState>& n,
                                                    const variable_list& g) -> variable_list {
    return {select_backward(g[0], n.state.input_shape, n.state.at)};
  }, *this, std::move(out), {to_sizes(sizes()), {d, i}});
}

namespace {
// Note [One node for all pieces]
// split, chunk and unbind record one node with an output per piece (PyTorch's
// SplitBackward0 / UnbindBackward0). Its backward writes every piece's
// gradient into one buffer of the input's shape, so it costs O(numel) for
// any number of pieces; a node per piece would fill a zero tensor of the
// whole input for each, O(pieces x numel).

// How the input was cut: along `dim`, into pieces of `lengths`; squeezed
// pieces (unbind) lack the dim.
struct Pieces {
  int64_t dim = 0;
  bool squeezed = false;
  std::vector<int64_t> lengths;
};
struct PiecesState {
  SizeVec input_shape;
  Pieces pieces;
};

// The gradient of the pieces `g` gathered back into the input's `shape`;
// itself differentiable (its gradient splits again).
Variable gather_pieces(const variable_list& g, const SizeVec& shape, const Pieces& pieces) {
  Tensor out = empty(shape, g[0].options());
  int64_t offset = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    const int64_t length = pieces.lengths[i];
    Tensor slot = out.narrow(pieces.dim, offset, length);
    slot.copy_(pieces.squeezed ? g[i].data().unsqueeze(pieces.dim) : g[i].data());
    offset += length;
  }
  auto node = autograd::record_op(
      "SplitBackwardBackward0", [](OpNode<Pieces>& n, const variable_list& gg) -> variable_list {
        const Pieces& p = n.state;
        if (p.squeezed) return gg[0].unbind(p.dim);
        return gg[0].split_with_sizes(p.lengths, p.dim);
      }, g, out.device());
  if (node) node->state = pieces;
  return autograd::make_result(std::move(out), std::move(node));
}

// The tensor op that made `pieces` has checked `dim`, so this only wraps it.
std::vector<Variable> record_pieces(const char* name, const Variable& x, std::vector<Tensor> pieces,
                                    int64_t dim, bool squeezed) {
  const int64_t d = wrap_dim(dim, x.dim(), name);
  auto node = autograd::record_op(
      name, [](OpNode<PiecesState>& n, const variable_list& g) -> variable_list {
        return {gather_pieces(g, n.state.input_shape, n.state.pieces)};
      }, {&x}, x.device());
  if (node) {
    PiecesState& s = node->state;
    s.input_shape = to_sizes(x.sizes());
    s.pieces.dim = d;
    s.pieces.squeezed = squeezed;
    s.pieces.lengths.reserve(pieces.size());
    for (const Tensor& piece : pieces) s.pieces.lengths.push_back(squeezed ? 1 : piece.size(d));
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
  return record("CloneBackward0", [](PlainNode&, const variable_list& g) -> variable_list {
    return {g[0]};
  }, {this}, data().clone(), [](PlainNode&) {});
}
Variable Variable::contiguous() const {
  if (data().is_contiguous()) return *this;
  return clone();
}
Variable Variable::to(DType dtype) const {
  if (dtype == this->dtype()) return *this;
  struct SourceDType {
    DType dtype;
  };
  return record("ToCopyBackward0", [](OpNode<SourceDType>& n, const variable_list& g)
                                        -> variable_list {
    return {g[0].to(n.state.dtype)};
  }, {this}, data().to(dtype), [&](OpNode<SourceDType>& n) { n.state.dtype = this->dtype(); });
}
Variable Variable::to(Device device) const {
  if (device == this->device()) return *this;
  const Device source = this->device();
  struct SourceDevice {
    Device device;
  };
  return record("ToCopyBackward0", [](OpNode<SourceDevice>& n, const variable_list& g)
                                        -> variable_list {
    return {g[0].to(n.state.device)};
  }, {this}, data().to(device), [&](OpNode<SourceDevice>& n) { n.state.device = source; });
}

}  // namespace torchlet
