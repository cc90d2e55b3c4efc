// Differentiable shape ops: the autograd side of tensor/shape_ops.cc (tril,
// triu, flip, roll, rot90, diag, diag_embed, trace, repeat, tile,
// repeat_interleave, movedim, meshgrid). diagonal is a view
// (autograd/ops_views.cc).
#include <cstdlib>

#include "autograd/functions.h"
#include "autograd/op_helpers.h"

namespace torchlet {

using autograd::InputMeta;
using autograd::OpNode;
using autograd::record;

namespace {

SizeVec to_sizes(IntArrayRef s) { return SizeVec(s.begin(), s.end()); }

struct TriangleState {
  int64_t diagonal = 0;
  bool lower = true;
};
struct FlipState {
  SizeVec dims;
};
struct RollState {
  SizeVec shifts;  // negated: the roll that undoes the op's
  SizeVec dims;
};
struct Rot90State {
  int64_t k = 0;
  SizeVec dims;
};
struct DiagEmbedState {
  int64_t offset = 0;
  int64_t dim1 = 0;
  int64_t dim2 = 0;
};
struct RepeatState {
  SizeVec input_shape;
  SizeVec repeats;
};
// repeat_interleave along `dim` of the input (flattened first when no dim
// was given): `repeats` copies of each slice, or the slices at `index`.
struct RepeatInterleaveState {
  SizeVec input_shape;
  bool flattened = false;
  int64_t dim = 0;
  int64_t repeats = 0;
  Tensor index;
  bool release() {
    index = Tensor();
    return true;
  }
};

// tril or triu recorded with `out` as its (already computed) result.
Variable triangle(const Variable& x, int64_t diagonal, bool lower, Tensor out) {
  return record(lower ? "TrilBackward0" : "TriuBackward0",
                [](OpNode<TriangleState>& n, const variable_list& g) -> variable_list {
    const TriangleState& s = n.state;
    return {s.lower ? g[0].tril(s.diagonal) : g[0].triu(s.diagonal)};
  }, {&x}, std::move(out), [&](OpNode<TriangleState>& n) { n.state = {diagonal, lower}; });
}

// The input's shape along which repeat_interleave worked.
SizeVec interleave_shape(const RepeatInterleaveState& s) {
  if (!s.flattened) return s.input_shape;
  int64_t numel = 1;
  for (int64_t size : s.input_shape) numel *= size;
  return {numel};
}

}  // namespace

// ---- Triangles ------------------------------------------------------------------------------

Variable Variable::tril(int64_t diagonal) const {
  return triangle(*this, diagonal, true, data().tril(diagonal));
}
Variable Variable::triu(int64_t diagonal) const {
  return triangle(*this, diagonal, false, data().triu(diagonal));
}
Variable& Variable::tril_(int64_t diagonal) {
  return autograd::inplace_direct("tril_", *this, {}, [&](Tensor& t) { t.tril_(diagonal); },
                                  [&](const Variable& old, Tensor out) {
                                    return triangle(old, diagonal, true, std::move(out));
                                  });
}
Variable& Variable::triu_(int64_t diagonal) {
  return autograd::inplace_direct("triu_", *this, {}, [&](Tensor& t) { t.triu_(diagonal); },
                                  [&](const Variable& old, Tensor out) {
                                    return triangle(old, diagonal, false, std::move(out));
                                  });
}

// ---- Flips, rolls and rotations -------------------------------------------------------------

Variable Variable::flip(IntArrayRef dims) const {
  return record("FlipBackward0", [](OpNode<FlipState>& n, const variable_list& g)
                                     -> variable_list {
    return {g[0].flip(n.state.dims)};
  }, {this}, data().flip(dims), [&](OpNode<FlipState>& n) { n.state = {to_sizes(dims)}; });
}
Variable Variable::fliplr() const {
  TORCHLET_CHECK(dim() >= 2, "fliplr: Input must be >= 2-d.");
  return flip({1});
}
Variable Variable::flipud() const {
  TORCHLET_CHECK(dim() >= 1, "flipud: Input must be >= 1-d.");
  return flip({0});
}

Variable Variable::roll(IntArrayRef shifts, IntArrayRef dims) const {
  return record("RollBackward0", [](OpNode<RollState>& n, const variable_list& g)
                                     -> variable_list {
    return {g[0].roll(n.state.shifts, n.state.dims)};
  }, {this}, data().roll(shifts, dims), [&](OpNode<RollState>& n) {
    SizeVec back;
    for (int64_t s : shifts) back.push_back(-s);
    n.state = {std::move(back), to_sizes(dims)};
  });
}
Variable Variable::roll(int64_t shifts, std::optional<int64_t> dim) const {
  if (!dim) return roll(IntArrayRef(&shifts, 1), {});
  return roll(IntArrayRef(&shifts, 1), IntArrayRef(&*dim, 1));
}

Variable Variable::rot90(int64_t k, IntArrayRef dims) const {
  return record("Rot90Backward0", [](OpNode<Rot90State>& n, const variable_list& g)
                                      -> variable_list {
    return {g[0].rot90(-n.state.k, n.state.dims)};
  }, {this}, data().rot90(k, dims), [&](OpNode<Rot90State>& n) {
    n.state = {k % 4, to_sizes(dims)};
  });
}

// ---- Diagonals ------------------------------------------------------------------------------

Variable Variable::diag(int64_t diagonal) const {
  if (dim() == 1) return diag_embed(diagonal, 0, 1);
  if (dim() == 2) return this->diagonal(diagonal).clone();
  return Variable(data().diag(diagonal));  // throws diag's error
}

Variable Variable::diag_embed(int64_t offset, int64_t dim1, int64_t dim2) const {
  Tensor out = data().diag_embed(offset, dim1, dim2);
  const int64_t d1 = wrap_dim(dim1, out.dim(), "diag_embed");
  const int64_t d2 = wrap_dim(dim2, out.dim(), "diag_embed");
  return record("DiagEmbedBackward0", [](OpNode<DiagEmbedState>& n, const variable_list& g)
                                          -> variable_list {
    const DiagEmbedState& s = n.state;
    return {g[0].diagonal(s.offset, s.dim1, s.dim2)};
  }, {this}, std::move(out), [&](OpNode<DiagEmbedState>& n) { n.state = {offset, d1, d2}; });
}

Variable Variable::trace() const {
  TORCHLET_CHECK(dim() == 2, "trace: expected a matrix, but got tensor with dim ", dim());
  return diagonal().sum();
}

// ---- Repeats --------------------------------------------------------------------------------

Variable Variable::repeat(IntArrayRef repeats) const {
  return record("RepeatBackward0", [](OpNode<RepeatState>& n, const variable_list& g)
                                       -> variable_list {
    // The gradient viewed as [r0, s0, r1, s1, ...], summed over the r's.
    const RepeatState& s = n.state;
    const size_t pad = s.repeats.size() - s.input_shape.size();
    SizeVec blocks, repeated_dims;
    for (size_t i = 0; i < s.repeats.size(); ++i) {
      blocks.push_back(s.repeats[i]);
      blocks.push_back(i < pad ? 1 : s.input_shape[i - pad]);
      repeated_dims.push_back(static_cast<int64_t>(2 * i));
    }
    if (repeated_dims.empty()) return {g[0]};
    return {g[0].reshape(blocks).sum(repeated_dims).reshape(s.input_shape)};
  }, {this}, data().repeat(repeats), [&](OpNode<RepeatState>& n) {
    n.state = {to_sizes(sizes()), to_sizes(repeats)};
  });
}

Variable Variable::tile(IntArrayRef dims) const {
  if (static_cast<int64_t>(dims.size()) >= dim()) return repeat(dims);
  SizeVec padded(static_cast<size_t>(dim()) - dims.size(), 1);
  padded.insert(padded.end(), dims.begin(), dims.end());
  return repeat(padded);
}

Variable Variable::repeat_interleave(int64_t repeats, std::optional<int64_t> dim,
                                     std::optional<int64_t> output_size) const {
  Tensor out = data().repeat_interleave(repeats, dim, output_size);
  return record("RepeatInterleaveBackward0", [](OpNode<RepeatInterleaveState>& n,
                                                const variable_list& g) -> variable_list {
    // Each group of `repeats` copies sums into its source slice.
    const RepeatInterleaveState& s = n.state;
    SizeVec groups = interleave_shape(s);
    groups.insert(groups.begin() + s.dim + 1, s.repeats);
    return {g[0].reshape(groups).sum({s.dim + 1}).reshape(s.input_shape)};
  }, {this}, std::move(out), [&](OpNode<RepeatInterleaveState>& n) {
    n.state.input_shape = to_sizes(sizes());
    n.state.flattened = !dim;
    n.state.dim = dim ? wrap_dim(*dim, this->dim(), "repeat_interleave") : 0;
    n.state.repeats = repeats;
  });
}

Variable Variable::repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim,
                                     std::optional<int64_t> output_size) const {
  if (repeats.dim() <= 1 && repeats.numel() == 1 &&
      (repeats.dtype() == kInt64 || repeats.dtype() == kInt32)) {
    return repeat_interleave(repeats.item<int64_t>(), dim, output_size);
  }
  Tensor out = data().repeat_interleave(repeats, dim, output_size);
  return record("RepeatInterleaveBackward0", [](OpNode<RepeatInterleaveState>& n,
                                                const variable_list& g) -> variable_list {
    // Each slice's copies sum into it.
    const RepeatInterleaveState& s = n.state;
    const Variable zeros = autograd::constant_zeros(interleave_shape(s), g[0].dtype(),
                                                    g[0].device());
    return {zeros.index_add(s.dim, s.index, g[0]).reshape(s.input_shape)};
  }, {this}, std::move(out), [&](OpNode<RepeatInterleaveState>& n) {
    n.state.input_shape = to_sizes(sizes());
    n.state.flattened = !dim;
    n.state.dim = dim ? wrap_dim(*dim, this->dim(), "repeat_interleave") : 0;
    n.state.index = torchlet::repeat_interleave(repeats.to(kInt64));
  });
}

// ---- Moved dims and grids -------------------------------------------------------------------

Variable Variable::movedim(IntArrayRef source, IntArrayRef destination) const {
  return permute(movedim_permutation(dim(), source, destination));
}
Variable Variable::movedim(int64_t source, int64_t destination) const {
  return movedim(IntArrayRef(&source, 1), IntArrayRef(&destination, 1));
}
Variable Variable::moveaxis(IntArrayRef source, IntArrayRef destination) const {
  return movedim(source, destination);
}
Variable Variable::moveaxis(int64_t source, int64_t destination) const {
  return movedim(source, destination);
}

std::vector<Variable> meshgrid(const std::vector<Variable>& tensors) {
  std::vector<Tensor> data;
  data.reserve(tensors.size());
  for (const Variable& v : tensors) data.push_back(v.data());
  torchlet::meshgrid(data);  // checks the inputs and warns
  return meshgrid(tensors, "ij");
}

std::vector<Variable> meshgrid(const std::vector<Variable>& tensors, const std::string& indexing) {
  std::vector<Tensor> data;
  data.reserve(tensors.size());
  for (const Variable& v : tensors) data.push_back(v.data());
  const std::vector<Tensor> grids = torchlet::meshgrid(data, indexing);  // checks the inputs
  // Each grid is its input laid along its own dim (the first two swapped for
  // "xy"), then expanded.
  const size_t n = tensors.size();
  const bool swap = indexing == "xy" && n >= 2;
  std::vector<Variable> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    SizeVec view_shape(n, 1);
    view_shape[swap && i < 2 ? 1 - i : i] = -1;
    out.push_back(tensors[i].reshape(view_shape).expand(grids[i].sizes()));
  }
  return out;
}

// ---- Free functions -------------------------------------------------------------------------

Variable tril(const Variable& x, int64_t diagonal) { return x.tril(diagonal); }
Variable triu(const Variable& x, int64_t diagonal) { return x.triu(diagonal); }
Variable flip(const Variable& x, IntArrayRef dims) { return x.flip(dims); }
Variable fliplr(const Variable& x) { return x.fliplr(); }
Variable flipud(const Variable& x) { return x.flipud(); }
Variable roll(const Variable& x, IntArrayRef shifts, IntArrayRef dims) {
  return x.roll(shifts, dims);
}
Variable rot90(const Variable& x, int64_t k, IntArrayRef dims) { return x.rot90(k, dims); }
Variable diagonal(const Variable& x, int64_t offset, int64_t dim1, int64_t dim2) {
  return x.diagonal(offset, dim1, dim2);
}
Variable diag(const Variable& x, int64_t diagonal) { return x.diag(diagonal); }
Variable diag_embed(const Variable& x, int64_t offset, int64_t dim1, int64_t dim2) {
  return x.diag_embed(offset, dim1, dim2);
}
Variable trace(const Variable& x) { return x.trace(); }
Variable tile(const Variable& x, IntArrayRef dims) { return x.tile(dims); }
Variable repeat_interleave(const Variable& x, int64_t repeats, std::optional<int64_t> dim,
                           std::optional<int64_t> output_size) {
  return x.repeat_interleave(repeats, dim, output_size);
}
Variable repeat_interleave(const Variable& x, const Tensor& repeats, std::optional<int64_t> dim,
                           std::optional<int64_t> output_size) {
  return x.repeat_interleave(repeats, dim, output_size);
}
Variable movedim(const Variable& x, IntArrayRef source, IntArrayRef destination) {
  return x.movedim(source, destination);
}
Variable movedim(const Variable& x, int64_t source, int64_t destination) {
  return x.movedim(source, destination);
}
Variable moveaxis(const Variable& x, IntArrayRef source, IntArrayRef destination) {
  return x.movedim(source, destination);
}
Variable moveaxis(const Variable& x, int64_t source, int64_t destination) {
  return x.movedim(source, destination);
}

}  // namespace torchlet
