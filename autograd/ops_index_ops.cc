// Differentiable index ops and joining: the autograd side of
// tensor/index_ops.cc (index_select, gather, scatter, take, index_add,
// index_copy, index_fill, take_along_dim, masked_select, cat, stack).

#include "autograd/functions.h"
#include "autograd/op_helpers.h"

namespace torchlet {

using autograd::InputMeta;
using autograd::OpNode;
using autograd::constant;
using autograd::record;

namespace {
SizeVec to_sizes(IntArrayRef s) { return SizeVec(s.begin(), s.end()); }
}  // namespace

// ---- Index ops ------------------------------------------------------------------------------

namespace {

// Ops that pick or place elements by an index tensor along `dim`.
struct DimIndexState {
  InputMeta input;
  int64_t dim = 0;
  Tensor index;
  bool release() {
    index = Tensor();
    return true;
  }
};
using DimIndexNode = OpNode<DimIndexState>;

struct MaskedSelectState {
  InputMeta input;
  SizeVec broadcast_shape;  // of input and mask
  Tensor positions;         // flat indices of the mask's true elements
  bool release() {
    positions = Tensor();
    return true;
  }
};

// cat: each input's shape and dtype, and the dim joined along.
struct CatState {
  std::vector<InputMeta> inputs;
  int64_t dim = 0;
};

Variable zeros_of(const InputMeta& input, Device device) {
  return autograd::constant_zeros(input.shape, input.dtype, device);
}

}  // namespace

Variable Variable::index_select(int64_t dim, const Tensor& index) const {
  const int64_t d = wrap_dim(dim, this->dim(), "index_select");
  Tensor out = data().index_select(d, index);
  return record("IndexSelectBackward0", [](DimIndexNode& n, const variable_list& g)
                                             -> variable_list {
    // Rows picked twice get both gradients: scatter_add over the index
    // broadcast along the other dims.
    const DimIndexState& s = n.state;
    SizeVec view_shape(g[0].dim(), 1);
    if (!view_shape.empty()) view_shape[s.dim] = -1;
    const Tensor idx = g[0].dim() == 0
                           ? s.index.view({})
                           : s.index.to(kInt64).view(view_shape).expand(g[0].sizes());
    return {zeros_of(s.input, g[0].device()).scatter_add(s.dim, idx, g[0])};
  }, {this}, std::move(out), [&](DimIndexNode& n) { n.state = {InputMeta(*this), d, index}; });
}

Variable Variable::gather(int64_t dim, const Tensor& index) const {
  const int64_t d = wrap_dim(dim, this->dim(), "gather");
  return record("GatherBackward0", [](DimIndexNode& n, const variable_list& g) -> variable_list {
    const DimIndexState& s = n.state;
    return {zeros_of(s.input, g[0].device()).scatter_add(s.dim, s.index, g[0])};
  }, {this}, data().gather(d, index), [&](DimIndexNode& n) {
    n.state = {InputMeta(*this), d, index};
  });
}

Variable Variable::scatter(int64_t dim, const Tensor& index, const Variable& src) const {
  const int64_t d = wrap_dim(dim, this->dim(), "scatter");
  return record("ScatterBackward0", [](DimIndexNode& n, const variable_list& g) -> variable_list {
    const DimIndexState& s = n.state;
    const Variable zero = autograd::constant_zeros({}, g[0].dtype(), g[0].device());
    return {n.needs_input_grad(0) ? g[0].scatter(s.dim, s.index, zero.expand(s.index.sizes()))
                                  : Variable(),
            n.needs_input_grad(1) ? g[0].gather(s.dim, s.index) : Variable()};
  }, {this, &src}, data().scatter(d, index, src.data()), [&](DimIndexNode& n) {
    n.state = {InputMeta(*this), d, index};
  });
}

Variable Variable::scatter_add(int64_t dim, const Tensor& index, const Variable& src) const {
  const int64_t d = wrap_dim(dim, this->dim(), "scatter_add");
  return record("ScatterAddBackward0", [](DimIndexNode& n, const variable_list& g)
                                            -> variable_list {
    return {n.needs_input_grad(0) ? g[0] : Variable(),
            n.needs_input_grad(1) ? g[0].gather(n.state.dim, n.state.index) : Variable()};
  }, {this, &src}, data().scatter_add(d, index, src.data()), [&](DimIndexNode& n) {
    n.state = {InputMeta(*this), d, index};
  });
}

Variable& Variable::scatter_(int64_t dim, const Tensor& index, const Variable& src) {
  return autograd::inplace("scatter_", *this, false, {&src}, [&](const Variable& old) {
    return old.scatter(dim, index, src);
  }, [&](Tensor& t) { t.scatter_(dim, index, src.data()); });
}

Variable& Variable::scatter_add_(int64_t dim, const Tensor& index, const Variable& src) {
  return autograd::inplace("scatter_add_", *this, false, {&src}, [&](const Variable& old) {
    return old.scatter_add(dim, index, src);
  }, [&](Tensor& t) { t.scatter_add_(dim, index, src.data()); });
}

Variable Variable::take(const Tensor& index) const {
  return record("TakeBackward0", [](DimIndexNode& n, const variable_list& g) -> variable_list {
    // Into the flattened input, summing repeated indices.
    const InputMeta& input = n.state.input;
    int64_t numel = 1;
    for (int64_t s : input.shape) numel *= s;
    const Variable flat = autograd::constant_zeros({numel}, input.dtype, g[0].device());
    return {flat.index_put({n.state.index}, g[0], /*accumulate=*/true).view(input.shape)};
  }, {this}, data().take(index), [&](DimIndexNode& n) {
    n.state = {InputMeta(*this), 0, index};
  });
}

namespace {

// index_add, index_copy and index_fill: the slices at `index` along `dim`.
struct SliceIndexState {
  int64_t dim = 0;
  Tensor index;  // 1-D int64
  SizeVec source_shape;
  Scalar alpha = 1;
  bool release() {
    index = Tensor();
    return true;
  }
};
using SliceIndexNode = OpNode<SliceIndexState>;

// The gradient of a source whose slices went to `index`: those slices of g.
Variable source_grad(const Variable& g, const SliceIndexState& s) {
  return g.index_select(s.dim, s.index).reshape(s.source_shape);
}

// A take_along_dim: the input expanded to `expanded`, gathered by `index`
// (broadcast) along `dim`; without a dim, over the flattened input.
struct TakeAlongDimState {
  InputMeta input;
  SizeVec expanded;
  std::optional<int64_t> dim;
  Tensor index;
  bool release() {
    index = Tensor();
    return true;
  }
};

}  // namespace

Variable Variable::index_add(int64_t dim, const Tensor& index, const Variable& source,
                             Scalar alpha) const {
  Tensor out = data().index_add(dim, index, source.data(), alpha);
  return record("IndexAddBackward0", [](SliceIndexNode& n, const variable_list& g)
                                         -> variable_list {
    const SliceIndexState& s = n.state;
    Variable grad_source;
    if (n.needs_input_grad(1)) {
      grad_source = source_grad(g[0], s);
      if (!(s.alpha.is_integral() && s.alpha.to<int64_t>() == 1)) {
        grad_source = grad_source.mul(s.alpha);
      }
    }
    return {n.needs_input_grad(0) ? g[0] : Variable(), grad_source};
  }, {this, &source}, std::move(out), [&](SliceIndexNode& n) {
    n.state = {wrap_dim(dim, this->dim(), "index_add"), index.to(kInt64).reshape({-1}),
               to_sizes(source.sizes()), alpha};
  });
}

Variable Variable::index_copy(int64_t dim, const Tensor& index, const Variable& source) const {
  Tensor out = data().index_copy(dim, index, source.data());
  return record("IndexCopyBackward0", [](SliceIndexNode& n, const variable_list& g)
                                          -> variable_list {
    const SliceIndexState& s = n.state;
    return {n.needs_input_grad(0) ? g[0].index_fill(s.dim, s.index, 0) : Variable(),
            n.needs_input_grad(1) ? source_grad(g[0], s) : Variable()};
  }, {this, &source}, std::move(out), [&](SliceIndexNode& n) {
    n.state = {wrap_dim(dim, this->dim(), "index_copy"), index.reshape({-1}),
               to_sizes(source.sizes()), 1};
  });
}

Variable Variable::index_fill(int64_t dim, const Tensor& index, Scalar value) const {
  Tensor out = data().index_fill(dim, index, value);
  return record("IndexFillBackward0", [](SliceIndexNode& n, const variable_list& g)
                                          -> variable_list {
    return {g[0].index_fill(n.state.dim, n.state.index, 0)};
  }, {this}, std::move(out), [&](SliceIndexNode& n) {
    n.state = {wrap_dim(dim, this->dim(), "index_fill"), index.reshape({-1}), {}, 1};
  });
}

Variable& Variable::index_add_(int64_t dim, const Tensor& index, const Variable& source,
                               Scalar alpha) {
  return autograd::inplace("index_add_", *this, false, {&source}, [&](const Variable& old) {
    return old.index_add(dim, index, source, alpha);
  }, [&](Tensor& t) { t.index_add_(dim, index, source.data(), alpha); });
}

Variable& Variable::index_copy_(int64_t dim, const Tensor& index, const Variable& source) {
  return autograd::inplace("index_copy_", *this, false, {&source}, [&](const Variable& old) {
    return old.index_copy(dim, index, source);
  }, [&](Tensor& t) { t.index_copy_(dim, index, source.data()); });
}

Variable& Variable::index_fill_(int64_t dim, const Tensor& index, Scalar value) {
  return autograd::inplace("index_fill_", *this, false, {}, [&](const Variable& old) {
    return old.index_fill(dim, index, value);
  }, [&](Tensor& t) { t.index_fill_(dim, index, value); });
}

Variable Variable::take_along_dim(const Tensor& indices, std::optional<int64_t> dim) const {
  Tensor out = data().take_along_dim(indices, dim);
  return record("TakeAlongDimBackward0", [](OpNode<TakeAlongDimState>& n,
                                            const variable_list& g) -> variable_list {
    // Scatter-added into zeros of the expanded input, then summed back.
    const TakeAlongDimState& s = n.state;
    const Variable zeros = autograd::constant_zeros(s.expanded, g[0].dtype(), g[0].device());
    if (!s.dim) {
      return {zeros.scatter_add(0, s.index, g[0].reshape({-1})).reshape(s.input.shape)};
    }
    return {autograd::sum_to(zeros.scatter_add(*s.dim, s.index, g[0]), s.input)};
  }, {this}, std::move(out), [&](OpNode<TakeAlongDimState>& n) {
    n.state.input = InputMeta(*this);
    if (!dim) {
      n.state.expanded = {numel()};
      n.state.index = indices.reshape({-1});
      return;
    }
    const int64_t d = wrap_dim(*dim, this->dim(), "take_along_dim");
    n.state.dim = d;
    if (this->dim() == 0) {
      n.state.index = indices;
      return;
    }
    SizeVec self_shape = to_sizes(sizes());
    self_shape[d] = indices.size(d);
    const SizeVec index_shape = broadcast_shapes(self_shape, indices.sizes(), "take_along_dim");
    n.state.expanded = index_shape;
    n.state.expanded[d] = size(d);
    n.state.index = indices.expand(index_shape);
  });
}

Variable index_add(const Variable& x, int64_t dim, const Tensor& index, const Variable& source,
                   Scalar alpha) {
  return x.index_add(dim, index, source, alpha);
}
Variable index_copy(const Variable& x, int64_t dim, const Tensor& index, const Variable& source) {
  return x.index_copy(dim, index, source);
}
Variable index_fill(const Variable& x, int64_t dim, const Tensor& index, Scalar value) {
  return x.index_fill(dim, index, value);
}
Variable take_along_dim(const Variable& x, const Tensor& indices, std::optional<int64_t> dim) {
  return x.take_along_dim(indices, dim);
}

Variable Variable::masked_select(const Tensor& mask) const {
  return record("MaskedSelectBackward0", [](OpNode<MaskedSelectState>& n,
                                               const variable_list& g) -> variable_list {
    // Scattered into zeros of the broadcast shape at the mask's positions,
    // then summed back to the input's shape; scatter keeps it
    // differentiable in g.
    const MaskedSelectState& s = n.state;
    const Variable flat = constant(zeros(s.broadcast_shape, g[0].options()).view({-1}));
    const Variable grad = flat.scatter(0, s.positions, g[0]).view(s.broadcast_shape);
    return {autograd::sum_to(grad, s.input)};
  }, {this}, data().masked_select(mask), [&](OpNode<MaskedSelectState>& n) {
    const SizeVec shape = broadcast_shapes(sizes(), mask.sizes(), "masked_select");
    n.state = {InputMeta(*this), shape,
               mask.to(kBool).expand(shape).reshape({-1}).nonzero().view({-1})};
  });
}

// ---- Joining ----------------------------------------------------------------------------------

Variable cat(const std::vector<Variable>& tensors, int64_t dim) {
  std::vector<Tensor> data;
  data.reserve(tensors.size());
  for (const Variable& v : tensors) data.push_back(v.data());
  Tensor out = torchlet::cat(data, dim);
  auto node = autograd::record_op(
      "CatBackward0", [](OpNode<CatState>& n, const variable_list& g) -> variable_list {
        const CatState& s = n.state;
        variable_list grads;
        int64_t offset = 0;
        for (size_t i = 0; i < s.inputs.size(); ++i) {
          const InputMeta& input = s.inputs[i];
          // Skipped by cat: an empty gradient.
          if (input.shape.size() == 1 && input.shape[0] == 0) {
            grads.push_back(n.needs_input_grad(i) ? zeros_of(input, g[0].device()) : Variable());
            continue;
          }
          const int64_t length = input.shape[s.dim];
          grads.push_back(n.needs_input_grad(i)
                              ? g[0].narrow(s.dim, offset, length).to(input.dtype)
                              : Variable());
          offset += length;
        }
        return grads;
      }, tensors, out.device());
  if (node) {
    node->state.inputs.reserve(tensors.size());
    for (const Variable& v : tensors) node->state.inputs.emplace_back(v);
    // Note [cat of only skipped tensors]: when every input is a 1-D empty
    // tensor, cat checks no dim (PyTorch's legacy rule) and the backward
    // reads none.
    const bool all_skipped = out.dim() == 1 && out.numel() == 0;
    node->state.dim = all_skipped ? 0 : wrap_dim(dim, out.dim(), "cat");
  }
  return autograd::make_result(std::move(out), std::move(node));
}

Variable stack(const std::vector<Variable>& tensors, int64_t dim) {
  TORCHLET_CHECK(!tensors.empty(), "stack(): expects a non-empty TensorList");
  const int64_t d = wrap_dim(dim, tensors[0].dim() + 1, "stack");
  std::vector<Variable> parts;
  parts.reserve(tensors.size());
  for (const Variable& t : tensors) {
    TORCHLET_CHECK(t.sizes() == tensors[0].sizes(), "stack(): expects each tensor to be equal "
                   "size, but got ", shape_str(tensors[0].sizes()), " at entry 0 and ",
                   shape_str(t.sizes()));
    parts.push_back(t.unsqueeze(d));
  }
  return cat(parts, d);
}

}  // namespace torchlet
