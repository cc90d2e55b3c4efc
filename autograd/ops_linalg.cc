// Differentiable matrix products: the autograd side of tensor/linalg.cc.

#include <cmath>

#include "autograd/functions.h"
#include "autograd/linalg_decompositions.h"
#include "autograd/op_helpers.h"
#include "tensor/einsum.h"

namespace torchlet {

using autograd::InputMeta;
using autograd::OpNode;
using autograd::PlainNode;
using autograd::record;

namespace {
// Saved-variable slots of the products of two operands.
enum Saved : size_t { kA = 0, kB = 1 };

// addmm: self's shape and dtype, and the two scales.
struct AddmmState {
  InputMeta self;
  double beta = 1;
  double alpha = 1;
};

// Note [Matrix gradients keep their input's layout]
// The gradient of a matrix that is a transposed contiguous one (a Linear's
// weight.t()) is computed transposed, (m2 @ g^T)^T rather than g @ m2^T: the
// same product, but the result is laid out as the input is, so the t()
// node's backward hands the weight a contiguous gradient that
// AccumulateGrad takes as it is instead of copying (Note [Stealing the
// incoming gradient]). PyTorch's mm_mat1_backward/mm_mat2_backward do the
// same.
bool is_transposed(const Tensor& t) {
  return t.dim() == 2 && t.size(0) > 1 && t.size(1) > 1 && t.stride(0) == 1 &&
         t.stride(1) == t.size(0);
}

// d(m1 @ m2)/d m1 given the output's gradient `g`.
Variable mm_mat1_backward(const Variable& g, const Variable& m1, const Variable& m2) {
  return is_transposed(m1.data()) ? m2.mm(g.t()).t() : g.mm(m2.t());
}

// d(m1 @ m2)/d m2 given the output's gradient `g`.
Variable mm_mat2_backward(const Variable& g, const Variable& m1, const Variable& m2) {
  return is_transposed(m2.data()) ? g.t().mm(m1).t() : m1.t().mm(g);
}

}  // namespace

Variable mm(const Variable& a, const Variable& b) {
  return record("MmBackward0", [](PlainNode& n, const variable_list& g) -> variable_list {
    const Variable a = n.var(kA), b = n.var(kB);
    return {n.needs_input_grad(0) ? mm_mat1_backward(g[0], a, b) : Variable(),
            n.needs_input_grad(1) ? mm_mat2_backward(g[0], a, b) : Variable()};
  }, {&a, &b}, torchlet::mm(a.data(), b.data()), [&](PlainNode& n) {
    n.saved.emplace_back(a, false);
    n.saved.emplace_back(b, false);
  });
}

Variable bmm(const Variable& a, const Variable& b) {
  return record("BmmBackward0", [](PlainNode& n, const variable_list& g) -> variable_list {
    return {n.needs_input_grad(0) ? g[0].bmm(n.var(kB).transpose(1, 2)) : Variable(),
            n.needs_input_grad(1) ? n.var(kA).transpose(1, 2).bmm(g[0]) : Variable()};
  }, {&a, &b}, torchlet::bmm(a.data(), b.data()), [&](PlainNode& n) {
    n.saved.emplace_back(a, false);
    n.saved.emplace_back(b, false);
  });
}

Variable mv(const Variable& m, const Variable& v) {
  return record("MvBackward0", [](PlainNode& n, const variable_list& g) -> variable_list {
    return {n.needs_input_grad(0) ? g[0].unsqueeze(1).mm(n.var(kB).unsqueeze(0)) : Variable(),
            n.needs_input_grad(1) ? torchlet::mv(n.var(kA).t(), g[0]) : Variable()};
  }, {&m, &v}, torchlet::mv(m.data(), v.data()), [&](PlainNode& n) {
    n.saved.emplace_back(m, false);
    n.saved.emplace_back(v, false);
  });
}

// One node over the fused kernel: beta * self + alpha * (m1 @ m2).
Variable addmm(const Variable& self, const Variable& m1, const Variable& m2, Scalar beta,
               Scalar alpha) {
  return record("AddmmBackward0", [](OpNode<AddmmState>& n, const variable_list& g)
                                       -> variable_list {
    const AddmmState& s = n.state;
    const Variable ga = s.alpha == 1 ? g[0] : g[0] * s.alpha;
    variable_list grads(3);
    if (n.needs_input_grad(0)) {
      // With beta == 0 self is ignored: its gradient is zero, never nan.
      grads[0] = s.beta == 0
                     ? autograd::constant_zeros(s.self.shape, s.self.dtype, g[0].device())
                     : autograd::sum_to(s.beta == 1 ? g[0] : g[0] * s.beta, s.self);
    }
    const Variable m1 = n.var(kA), m2 = n.var(kB);
    if (n.needs_input_grad(1)) grads[1] = mm_mat1_backward(ga, m1, m2);
    if (n.needs_input_grad(2)) grads[2] = mm_mat2_backward(ga, m1, m2);
    return grads;
  }, {&self, &m1, &m2}, torchlet::addmm(self.data(), m1.data(), m2.data(), beta, alpha),
     [&](OpNode<AddmmState>& n) {
       n.state = {InputMeta(self), beta.to<double>(), alpha.to<double>()};
       n.saved.emplace_back(m1, false);
       n.saved.emplace_back(m2, false);
     });
}

// Note [A Linear layer is one node]
// PyTorch records a Linear layer as addmm(bias, input, weight.t()): a t()
// node and an addmm node, and the addmm's backward makes views, products
// and transposes as Variables. Here it is one node with addmm's name and
// addmm's input order (bias, input, weight), the weight taken directly
// rather than through a TBackward0; a backward that records no graph (the
// usual case) computes its three gradients on tensors. The products are the
// ones addmm's backward computes, operand layouts included, so the
// gradients are the same bit for bit.
Variable linear(const Variable& input, const Variable& weight, const Variable& bias) {
  return record("AddmmBackward0", [](PlainNode& n, const variable_list& g) -> variable_list {
    const Variable x = n.var(kA), w = n.var(kB);
    variable_list grads(3);
    if (is_grad_enabled()) {  // create_graph: differentiable formulas
      const Variable wt = w.t();
      if (n.needs_input_grad(0)) grads[0] = g[0].sum({0});
      if (n.needs_input_grad(1)) grads[1] = mm_mat1_backward(g[0], x, wt);
      if (n.needs_input_grad(2)) grads[2] = mm_mat2_backward(g[0], x, wt).t();
      return grads;
    }
    // The same products on tensors: mm_mat1_backward and mm_mat2_backward
    // with mat2 = weight.t(), then the t() node's transpose.
    const Tensor& gt = g[0].data();
    const Tensor& xt = x.data();
    const Tensor& wd = w.data();
    if (n.needs_input_grad(0)) grads[0] = Variable(gt.sum({0}));
    if (n.needs_input_grad(1)) {
      grads[1] = Variable(is_transposed(xt) ? torchlet::mm(wd.t(), gt.t()).t()
                                            : torchlet::mm(gt, wd));
    }
    if (n.needs_input_grad(2)) {
      // is_transposed(weight.t()), without making the view.
      const bool weight_contiguous = wd.size(0) > 1 && wd.size(1) > 1 && wd.stride(1) == 1 &&
                                     wd.stride(0) == wd.size(1);
      grads[2] = Variable(weight_contiguous ? torchlet::mm(gt.t(), xt)
                                                : torchlet::mm(xt.t(), gt).t());
    }
    return grads;
  }, {&bias, &input, &weight}, torchlet::addmm(bias.data(), input.data(), weight.data().t()),
     [&](PlainNode& n) {
       n.saved.emplace_back(input, false);
       n.saved.emplace_back(weight, false);
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
  return record("DotBackward0", [](PlainNode& n, const variable_list& g) -> variable_list {
    return {n.needs_input_grad(0) ? g[0] * n.var(kB) : Variable(),
            n.needs_input_grad(1) ? g[0] * n.var(kA) : Variable()};
  }, {&a, &b}, torchlet::dot(a.data(), b.data()), [&](PlainNode& n) {
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

// ---- einsum and the other products (tensor/einsum.h plans them) ----------------

// apply_einsum's view of a Variable's data (Note [einsum plan]).
const Tensor& einsum_data(const Variable& v) { return v.data(); }

// Composite, as in PyTorch: permutes, reshapes, sums and bmm's, each
// differentiable.
Variable einsum(const std::string& equation, const std::vector<Variable>& operands) {
  std::vector<SizeVec> shapes;
  shapes.reserve(operands.size());
  for (const Variable& v : operands) shapes.emplace_back(v.sizes().begin(), v.sizes().end());
  EinsumPlan plan = plan_einsum(equation, shapes);
  return apply_einsum(plan, operands);
}

Variable tensordot(const Variable& a, const Variable& b, int64_t dims) {
  const auto [dims_a, dims_b] = tensordot_dims(dims);
  return tensordot(a, b, dims_a, dims_b);
}

Variable tensordot(const Variable& a, const Variable& b, IntArrayRef dims_a, IntArrayRef dims_b) {
  const TensordotPlan plan = plan_tensordot(a.sizes(), b.sizes(), dims_a, dims_b);
  const Variable sa = plan.a_sum.empty() ? a : a.sum(plan.a_sum, true);
  const Variable sb = plan.b_sum.empty() ? b : b.sum(plan.b_sum, true);
  return mm(sa.permute(plan.a_permutation).reshape(plan.a_shape),
            sb.permute(plan.b_permutation).reshape(plan.b_shape))
      .view(plan.result_shape);
}

Variable kron(const Variable& a, const Variable& b) {
  const KronPlan plan = plan_kron(a.sizes(), b.sizes());
  return (a.reshape(plan.a_shape) * b.reshape(plan.b_shape)).view(plan.result_shape);
}

namespace {
// cross: the dim and both inputs' shapes and dtypes (the gradients are
// summed back over broadcast dims).
struct CrossState {
  int64_t dim = 0;
  InputMeta a, b;
};
}  // namespace

namespace linalg {

Variable cross(const Variable& a, const Variable& b, int64_t dim) {
  const int64_t d = check_cross(a.data(), b.data(), dim);
  return record("LinalgCrossBackward0", [](OpNode<CrossState>& n, const variable_list& g)
                                            -> variable_list {
    const CrossState& s = n.state;
    const Variable a = n.var(kA), b = n.var(kB);
    return {n.needs_input_grad(0) ? autograd::sum_to(cross(b, g[0], s.dim), s.a) : Variable(),
            n.needs_input_grad(1) ? autograd::sum_to(cross(g[0], a, s.dim), s.b) : Variable()};
  }, {&a, &b}, torchlet::linalg::cross(a.data(), b.data(), d), [&](OpNode<CrossState>& n) {
    n.state = {d, InputMeta(a), InputMeta(b)};
    n.saved.emplace_back(a, false);
    n.saved.emplace_back(b, false);
  });
}

Variable vecdot(const Variable& x, const Variable& y, int64_t dim) {
  check_vecdot(x.data(), y.data());
  return (x * y).sum({dim});
}

Variable multi_dot(const std::vector<Variable>& tensors) {
  std::vector<SizeVec> shapes;
  std::vector<DType> dtypes;
  std::vector<Device> devices;
  for (const Variable& t : tensors) {
    shapes.emplace_back(t.sizes().begin(), t.sizes().end());
    dtypes.push_back(t.dtype());
    devices.push_back(t.device());
  }
  const MultiDotPlan plan = plan_multi_dot(shapes, dtypes, devices);
  std::vector<Variable> mats = tensors;
  if (mats.front().dim() == 1) mats.front() = mats.front().unsqueeze(0);
  if (mats.back().dim() == 1) mats.back() = mats.back().unsqueeze(1);
  return apply_multi_dot(plan, mats, 0, mats.size() - 1).view(plan.result_shape);
}

// Through Variable::norm, whose backward is PyTorch's norm_backward (the
// inf norms through amax/amin of abs: ties share the gradient evenly).
Variable vector_norm(const Variable& x, double ord, IntArrayRef dim, bool keepdim,
                     std::optional<DType> dtype) {
  check_vector_norm(x.data(), ord, dim, dtype);
  const Variable in = dtype && *dtype != x.dtype() ? x.to(*dtype) : x;
  return in.norm(ord, dim, keepdim);
}

namespace {
// The singular values of the matrices over dims (d0, d1), reduced by `reduce`.
template <typename Reduce>
Variable singular_value_norm(const Variable& a, int64_t d0, int64_t d1, bool keepdim,
                             std::optional<DType> dtype, Reduce reduce) {
  const Variable in = dtype && *dtype != a.dtype() ? a.to(*dtype) : a;
  Variable result = reduce(svdvals(in.permute(matrix_last_permutation(in.dim(), d0, d1))));
  return keepdim ? result.unsqueeze(std::min(d0, d1)).unsqueeze(std::max(d0, d1)) : result;
}
}  // namespace

Variable matrix_norm(const Variable& a, const std::string& ord, IntArrayRef dim, bool keepdim,
                     std::optional<DType> dtype) {
  check_matrix_norm_order(ord);
  const auto [d0, d1] = check_matrix_norm(a.data(), dim, dtype);
  if (ord == "fro") return vector_norm(a, 2, {d0, d1}, keepdim, dtype);
  return singular_value_norm(a, d0, d1, keepdim, dtype,
                             [](const Variable& s) { return s.sum({-1}); });
}

Variable matrix_norm(const Variable& a, double ord, IntArrayRef dim, bool keepdim,
                     std::optional<DType> dtype) {
  check_matrix_norm_order(ord);
  auto [d0, d1] = check_matrix_norm(a.data(), dim, dtype);
  if (std::abs(ord) == 2) {
    return singular_value_norm(a, d0, d1, keepdim, dtype, [ord](const Variable& s) {
      return ord > 0 ? s.amax({-1}) : s.amin({-1});
    });
  }
  if (std::isinf(ord)) std::swap(d0, d1);
  if (!keepdim && d0 < d1) --d1;
  const Variable sums = vector_norm(a, 1, {d0}, keepdim, dtype);
  return ord > 0 ? sums.amax({d1}, keepdim) : sums.amin({d1}, keepdim);
}

Variable norm(const Variable& a, std::optional<double> ord,
              std::optional<std::vector<int64_t>> dim, bool keepdim, std::optional<DType> dtype) {
  const LinalgNormPlan plan = plan_linalg_norm(a.data(), ord.has_value(), false, dim);
  if (plan.matrix) return matrix_norm(a, *ord, plan.dim, keepdim, dtype);
  return vector_norm(a, ord.value_or(2), plan.dim, keepdim, dtype);
}

Variable norm(const Variable& a, const std::string& ord, std::optional<std::vector<int64_t>> dim,
              bool keepdim, std::optional<DType> dtype) {
  const LinalgNormPlan plan = plan_linalg_norm(a.data(), true, true, dim);
  return matrix_norm(a, ord, plan.dim, keepdim, dtype);
}

}  // namespace linalg

Variable cross(const Variable& a, const Variable& b, std::optional<int64_t> dim) {
  return linalg::cross(a, b, default_cross_dim(dim, a.sizes()));
}

namespace {
// cdist: p and which path the forward took.
struct CdistState {
  double p = 2;
  bool used_mm = false;
};
enum CdistSaved : size_t { kX1 = 0, kX2 = 1, kDist = 2 };
}  // namespace

// One node over the Tensor op; its backward is PyTorch's _cdist_backward (or
// _euclidean_dist_backward after the matrix-product path), computed on
// tensors: first derivatives only, as in PyTorch.
Variable cdist(const Variable& x1, const Variable& x2, double p,
               const std::string& compute_mode) {
  Tensor out = torchlet::cdist(x1.data(), x2.data(), p, compute_mode);
  auto node = autograd::record_op(
      "CdistBackward0", [](OpNode<CdistState>& n, const variable_list& g) -> variable_list {
        const std::vector<Tensor> grads =
            cdist_backward(g[0].data(), n.var(kX1).data(), n.var(kX2).data(), n.state.p,
                           n.var(kDist).data(), n.state.used_mm);
        return {n.needs_input_grad(0) ? autograd::constant(grads[0]) : Variable(),
                n.needs_input_grad(1) ? autograd::constant(grads[1]) : Variable()};
      }, {&x1, &x2}, out.device());
  if (node) {
    node->state = {p, cdist_uses_mm(x1.data(), x2.data(), p, compute_mode)};
    node->saved.emplace_back(x1, false);
    node->saved.emplace_back(x2, false);
  }
  Variable result = autograd::make_result(std::move(out), node);
  if (node) node->saved.emplace_back(result, true);
  return result;
}

Variable Variable::cross(const Variable& other, std::optional<int64_t> dim) const {
  return torchlet::cross(*this, other, dim);
}
Variable Variable::kron(const Variable& other) const { return torchlet::kron(*this, other); }

}  // namespace torchlet
