// Differentiable index ops and joining: the autograd side of
// tensor/index_ops.cc (index_select, gather, scatter, take, masked_select,
// cat, stack).

#include "autograd/functions.h"
#include "autograd/op_helpers.h"

namespace torchlet {

using autograd::FunctionNode;
using autograd::constant;
using autograd::record;
using autograd::save_meta;

// ---- Index ops ------------------------------------------------------------------------------

namespace {

Variable zeros_of(const FunctionNode& n, size_t i, Device device) {
  return autograd::constant_zeros(n.shapes[i], n.dtypes[i], device);
}

}  // namespace

Variable Variable::index_select(int64_t dim, const Tensor& index) const {
  const int64_t d = wrap_dim(dim, this->dim(), "index_select");
  Tensor out = data().index_select(d, index);
  return record("IndexSelectBackward0", [](FunctionNode& n, const variable_list& g) -> variable_list {
    // Rows picked twice get both gradients: scatter_add over the index
    // broadcast along the other dims.
    const int64_t d = n.ints[0];
    SizeVec view_shape(g[0].dim(), 1);
    if (!view_shape.empty()) view_shape[d] = -1;
    const Tensor idx = g[0].dim() == 0 ? n.tensors[0].view({})
                                       : n.tensors[0].to(kInt64).view(view_shape).expand(g[0].sizes());
    return {zeros_of(n, 0, g[0].device()).scatter_add(d, idx, g[0])};
  }, {this}, std::move(out), [&](FunctionNode& n) {
    save_meta(n, *this);
    n.ints = {d};
    n.tensors = {index};
  });
}

Variable Variable::gather(int64_t dim, const Tensor& index) const {
  const int64_t d = wrap_dim(dim, this->dim(), "gather");
  return record("GatherBackward0", [](FunctionNode& n, const variable_list& g) -> variable_list {
    return {zeros_of(n, 0, g[0].device()).scatter_add(n.ints[0], n.tensors[0], g[0])};
  }, {this}, data().gather(d, index), [&](FunctionNode& n) {
    save_meta(n, *this);
    n.ints = {d};
    n.tensors = {index};
  });
}

Variable Variable::scatter(int64_t dim, const Tensor& index, const Variable& src) const {
  const int64_t d = wrap_dim(dim, this->dim(), "scatter");
  return record("ScatterBackward0", [](FunctionNode& n, const variable_list& g) -> variable_list {
    const Tensor& idx = n.tensors[0];
    return {n.needs_input_grad(0) ? g[0].scatter(n.ints[0], idx, autograd::constant_zeros({}, g[0].dtype(), g[0].device()).expand(idx.sizes())) : Variable(),
            n.needs_input_grad(1) ? g[0].gather(n.ints[0], idx) : Variable()};
  }, {this, &src}, data().scatter(d, index, src.data()), [&](FunctionNode& n) {
    n.ints = {d};
    n.tensors = {index};
  });
}

Variable Variable::scatter_add(int64_t dim, const Tensor& index, const Variable& src) const {
  const int64_t d = wrap_dim(dim, this->dim(), "scatter_add");
  return record("ScatterAddBackward0", [](FunctionNode& n, const variable_list& g) -> variable_list {
    return {n.needs_input_grad(0) ? g[0] : Variable(),
            n.needs_input_grad(1) ? g[0].gather(n.ints[0], n.tensors[0]) : Variable()};
  }, {this, &src}, data().scatter_add(d, index, src.data()), [&](FunctionNode& n) {
    n.ints = {d};
    n.tensors = {index};
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
  return record("TakeBackward0", [](FunctionNode& n, const variable_list& g) -> variable_list {
    // Into the flattened input, summing repeated indices.
    int64_t numel = 1;
    for (int64_t s : n.shapes[0]) numel *= s;
    const Variable flat = autograd::constant_zeros({numel}, n.dtypes[0], g[0].device());
    return {flat.index_put({n.tensors[0]}, g[0], /*accumulate=*/true).view(n.shapes[0])};
  }, {this}, data().take(index), [&](FunctionNode& n) {
    save_meta(n, *this);
    n.tensors = {index};
  });
}

Variable Variable::masked_select(const Tensor& mask) const {
  return record("MaskedSelectBackward0", [](FunctionNode& n, const variable_list& g) -> variable_list {
    // Scattered into zeros of the broadcast shape at the mask's positions
    // (flat indices in n.tensors[0], shape in n.shapes[1]), then summed back
    // to the input's shape; scatter keeps it differentiable in g.
    const Variable flat = constant(zeros(n.shapes[1], g[0].options()).view({-1}));
    const Variable grad = flat.scatter(0, n.tensors[0], g[0]).view(n.shapes[1]);
    return {autograd::sum_to(grad, n.shapes[0], n.dtypes[0])};
  }, {this}, data().masked_select(mask), [&](FunctionNode& n) {
    save_meta(n, *this);
    const SizeVec shape = broadcast_shapes(sizes(), mask.sizes(), "masked_select");
    n.shapes.push_back(shape);
    n.tensors = {mask.to(kBool).expand(shape).reshape({-1}).nonzero().view({-1})};
  });
}

// ---- Joining ----------------------------------------------------------------------------------

Variable cat(const std::vector<Variable>& tensors, int64_t dim) {
  std::vector<Tensor> data;
  data.reserve(tensors.size());
  for (const Variable& v : tensors) data.push_back(v.data());
  Tensor out = torchlet::cat(data, dim);
  std::shared_ptr<FunctionNode> node = autograd::record_op(
      "CatBackward0", [](FunctionNode& n, const variable_list& g) -> variable_list {
        variable_list grads;
        int64_t offset = 0;
        for (size_t i = 0; i < n.shapes.size(); ++i) {
          const SizeVec& shape = n.shapes[i];
          if (shape.size() == 1 && shape[0] == 0) {  // skipped by cat: an empty gradient
            grads.push_back(n.needs_input_grad(i) ? zeros_of(n, i, g[0].device()) : Variable());
            continue;
          }
          const int64_t length = shape[n.ints[0]];
          grads.push_back(n.needs_input_grad(i)
                              ? g[0].narrow(n.ints[0], offset, length).to(n.dtypes[i])
                              : Variable());
          offset += length;
        }
        return grads;
      }, tensors, out.device());
  if (node) {
    for (const Variable& v : tensors) save_meta(*node, v);
    // Note [cat of only skipped tensors]: when every input is a 1-D empty
    // tensor, cat checks no dim (PyTorch's legacy rule) and the backward
    // reads none.
    const bool all_skipped = out.dim() == 1 && out.numel() == 0;
    node->ints = {all_skipped ? 0 : wrap_dim(dim, out.dim(), "cat")};
  }
  return autograd::make_result(std::move(out), node);
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
