// Differentiable matrix products, index ops and joining.

#include "autograd/functions.h"
#include "autograd/op_helpers.h"

namespace torchlet {

using autograd::FunctionNode;
using autograd::constant;
using autograd::record;
using autograd::save_meta;

// ---- Matrix products --------------------------------------------------------------------

Variable mm(const Variable& a, const Variable& b) {
  return record("MmBackward0", [](FunctionNode& n, const variable_list& g) -> variable_list {
    return {n.needs_input_grad(0) ? g[0].mm(n.var(1).t()) : Variable(),
            n.needs_input_grad(1) ? n.var(0).t().mm(g[0]) : Variable()};
  }, {&a, &b}, torchlet::mm(a.data(), b.data()), [&](FunctionNode& n) {
    n.saved.emplace_back(a, false);
    n.saved.emplace_back(b, false);
  });
}

Variable bmm(const Variable& a, const Variable& b) {
  return record("BmmBackward0", [](FunctionNode& n, const variable_list& g) -> variable_list {
    return {n.needs_input_grad(0) ? g[0].bmm(n.var(1).transpose(1, 2)) : Variable(),
            n.needs_input_grad(1) ? n.var(0).transpose(1, 2).bmm(g[0]) : Variable()};
  }, {&a, &b}, torchlet::bmm(a.data(), b.data()), [&](FunctionNode& n) {
    n.saved.emplace_back(a, false);
    n.saved.emplace_back(b, false);
  });
}

Variable mv(const Variable& m, const Variable& v) {
  return record("MvBackward0", [](FunctionNode& n, const variable_list& g) -> variable_list {
    return {n.needs_input_grad(0) ? g[0].unsqueeze(1).mm(n.var(1).unsqueeze(0)) : Variable(),
            n.needs_input_grad(1) ? torchlet::mv(n.var(0).t(), g[0]) : Variable()};
  }, {&m, &v}, torchlet::mv(m.data(), v.data()), [&](FunctionNode& n) {
    n.saved.emplace_back(m, false);
    n.saved.emplace_back(v, false);
  });
}

// One node over the fused kernel: beta * self + alpha * (m1 @ m2).
Variable addmm(const Variable& self, const Variable& m1, const Variable& m2, Scalar beta,
               Scalar alpha) {
  return record("AddmmBackward0", [](FunctionNode& n, const variable_list& g) -> variable_list {
    const double beta = n.numbers[0], alpha = n.numbers[1];
    const Variable ga = alpha == 1 ? g[0] : g[0] * alpha;
    variable_list grads(3);
    if (n.needs_input_grad(0)) {
      // With beta == 0 self is ignored: its gradient is zero, never nan.
      grads[0] = beta == 0 ? autograd::constant_zeros(n.shapes[0], n.dtypes[0], g[0].device())
                           : autograd::sum_to(beta == 1 ? g[0] : g[0] * beta, n.shapes[0], n.dtypes[0]);
    }
    if (n.needs_input_grad(1)) grads[1] = ga.mm(n.var(1).t());
    if (n.needs_input_grad(2)) grads[2] = n.var(0).t().mm(ga);
    return grads;
  }, {&self, &m1, &m2}, torchlet::addmm(self.data(), m1.data(), m2.data(), beta, alpha),
     [&](FunctionNode& n) {
       save_meta(n, self);
       n.numbers = {beta.to<double>(), alpha.to<double>()};
       n.saved.emplace_back(m1, false);
       n.saved.emplace_back(m2, false);
     });
}

Variable baddbmm(const Variable& self, const Variable& batch1, const Variable& batch2,
                 Scalar beta, Scalar alpha) {
  Variable product = bmm(batch1, batch2);
  if (alpha.to<double>() != 1) product = product * alpha;
  if (beta.to<double>() == 0) {
    return product + self.masked_fill(ones_like(self.data(), TensorOptions(kBool)), 0);
  }
  return (beta.to<double>() == 1 ? self : self * beta) + product;
}

Variable dot(const Variable& a, const Variable& b) {
  return record("DotBackward0", [](FunctionNode& n, const variable_list& g) -> variable_list {
    return {n.needs_input_grad(0) ? g[0] * n.var(1) : Variable(),
            n.needs_input_grad(1) ? g[0] * n.var(0) : Variable()};
  }, {&a, &b}, torchlet::dot(a.data(), b.data()), [&](FunctionNode& n) {
    n.saved.emplace_back(a, false);
    n.saved.emplace_back(b, false);
  });
}

Variable outer(const Variable& a, const Variable& b) {
  TORCHLET_CHECK(a.dim() == 1 && b.dim() == 1, "outer: expected 1-D vectors, got shapes ",
                 shape_str(a.sizes()), " and ", shape_str(b.sizes()));
  return a.unsqueeze(1) * b.unsqueeze(0);
}

// Composite, as in PyTorch: autograd flows through the pieces.
namespace {
// An N-d `a` (N >= 3) times a 1-D or 2-D `b` (nn.Linear on [batch, time,
// features]): a's leading dims fold into the rows of one mm, forward and
// backward, instead of expanding b into a bmm.
Variable folded_matmul(const Variable& a, const Variable& b) {
  const int64_t k = a.size(-1);
  SizeVec out_shape(a.sizes().begin(), a.sizes().end() - 1);
  const Variable rows = a.reshape({-1, k});
  if (b.dim() == 1) return mv(rows, b).view(out_shape);
  out_shape.push_back(b.size(1));
  return mm(rows, b).view(out_shape);
}
}  // namespace

Variable matmul(const Variable& a, const Variable& b) {
  TORCHLET_CHECK(a.dim() > 0 && b.dim() > 0, "matmul: both arguments need to be at least 1D, but "
                 "they are ", a.dim(), "D and ", b.dim(), "D");
  if (a.dim() == 1 && b.dim() == 1) {
    TORCHLET_CHECK(a.size(0) == b.size(0), "matmul: inconsistent tensor size, expected tensor [",
                   a.size(0), "] and src [", b.size(0), "] to have the same number of elements");
    return (a * b).sum();
  }
  if (a.dim() == 2 && b.dim() == 1) return mv(a, b);
  if (a.dim() == 1 && b.dim() == 2) return mm(a.unsqueeze(0), b).squeeze(0);
  if (a.dim() == 2 && b.dim() == 2) return mm(a, b);
  if (a.dim() >= 3 && b.dim() <= 2) return folded_matmul(a, b);
  // Batched: promote 1-D operands, broadcast the batch dims, multiply as 3-D.
  const Variable a2 = a.dim() == 1 ? a.unsqueeze(0) : a;
  const Variable b2 = b.dim() == 1 ? b.unsqueeze(1) : b;
  const int64_t n = a2.size(-2), k = a2.size(-1), m = b2.size(-1);
  TORCHLET_CHECK(b2.size(-2) == k, "matmul: mat1 and mat2 shapes cannot be multiplied (", n, "x",
                 k, " and ", b2.size(-2), "x", m, ")");
  const SizeVec batch = broadcast_shapes(a2.sizes().subspan(0, a2.dim() - 2),
                                         b2.sizes().subspan(0, b2.dim() - 2), "matmul");
  SizeVec a_shape = batch, b_shape = batch, out_shape = batch;
  a_shape.insert(a_shape.end(), {n, k});
  b_shape.insert(b_shape.end(), {k, m});
  out_shape.insert(out_shape.end(), {n, m});
  Variable out = bmm(a2.expand(a_shape).reshape({-1, n, k}), b2.expand(b_shape).reshape({-1, k, m}))
                     .view(out_shape);
  if (a.dim() == 1) out = out.squeeze(-2);
  if (b.dim() == 1) out = out.squeeze(-1);
  return out;
}

Variable Variable::mm(const Variable& other) const { return torchlet::mm(*this, other); }
Variable Variable::bmm(const Variable& other) const { return torchlet::bmm(*this, other); }
Variable Variable::matmul(const Variable& other) const { return torchlet::matmul(*this, other); }
Variable Variable::mv(const Variable& vec) const { return torchlet::mv(*this, vec); }
Variable Variable::dot(const Variable& other) const { return torchlet::dot(*this, other); }
Variable Variable::outer(const Variable& other) const { return torchlet::outer(*this, other); }

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
          if (shape.size() == 1 && shape[0] == 0) {  // skipped by cat
            grads.emplace_back();
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

Variable where(const Tensor& condition, const Variable& a, const Variable& b) {
  return a.where(condition, b);
}
Variable softmax(const Variable& x, int64_t dim) { return x.softmax(dim); }
Variable log_softmax(const Variable& x, int64_t dim) { return x.log_softmax(dim); }

}  // namespace torchlet
