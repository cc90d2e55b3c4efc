// Differentiable reductions, softmax, scans and sorting.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "autograd/functions.h"
#include "autograd/op_helpers.h"

namespace torchlet {

using autograd::InputMeta;
using autograd::NoState;
using autograd::OpNode;
using autograd::constant;
using autograd::record;

namespace {

// Saved-variable slots of the reductions that save their input and result.
enum Saved : size_t { kInput = 0, kResult = 1 };

// What a reduction's backward needs: the input's shape and dtype, the
// reduced dims (wrapped and sorted) and whether they were kept.
struct ReductionState {
  InputMeta input;
  std::vector<int64_t> dims;
  bool keepdim = false;
};
// var and std: the reduction, and whether the estimate is unbiased.
struct VarState : ReductionState {
  bool unbiased = false;
};
// norm: the reduction and the order p.
struct NormState : ReductionState {
  double p = 2;
};
// Ops that pick elements by index along `dim` (max(dim), sort, topk).
struct IndexedState {
  InputMeta input;
  int64_t dim = 0;
  bool keepdim = false;
  Tensor indices;
  bool release() {
    indices = Tensor();
    return true;
  }
};
// Softmax and scans: the dim they run along.
struct DimState {
  int64_t dim = 0;
};
using ReductionNode = OpNode<ReductionState>;

// The reduced dims of `shape` (all when `dims` is empty), wrapped and sorted.
// The tensor op that made the result has checked `dims`, so this only wraps.
std::vector<int64_t> reduced_dims(IntArrayRef dims, int64_t ndim, const char* op) {
  std::vector<int64_t> out;
  if (dims.empty()) {
    for (int64_t d = 0; d < ndim; ++d) out.push_back(d);
  } else {
    for (int64_t d : dims) out.push_back(wrap_dim(d, ndim, op));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A reduction's gradient (or output) given back its reduced dims as size 1,
// so it broadcasts against the input.
Variable unreduce(const ReductionState& s, const Variable& g) {
  if (s.keepdim || s.input.shape.empty()) return g;
  Variable out = g;
  for (int64_t d : s.dims) out = out.unsqueeze(d);
  return out;
}

void save_reduction(ReductionState& s, const char* op, const Variable& x, IntArrayRef dims,
                    bool keepdim) {
  s.input = InputMeta(x);
  s.dims = reduced_dims(dims, x.dim(), op);
  s.keepdim = keepdim;
}

int64_t reduced_count(const ReductionState& s) {
  int64_t count = 1;
  for (int64_t d : s.dims) count *= s.input.shape.empty() ? 1 : s.input.shape[d];
  return count;
}

// Gradient of var() given the gradient of its result with the reduced dims
// kept (`grad`).
Variable var_backward(const OpNode<VarState>& n, const Variable& grad) {
  const Variable x = n.var(kInput);
  const double denom = static_cast<double>(reduced_count(n.state)) - (n.state.unbiased ? 1 : 0);
  return grad * (x - x.mean(n.state.dims, true)) * (2.0 / denom);
}

// Gradient of amax/amin/max()/min(): shared evenly among the extreme values.
variable_list extreme_backward(ReductionNode& n, const variable_list& g) {
  const Tensor x = n.var(kInput).data();
  const Tensor hit = x.eq(unreduce(n.state, n.var(kResult)).data()).to(x.dtype());
  const Tensor count = hit.sum(n.state.dims, true);
  return {unreduce(n.state, g[0]) * constant(hit.div(count))};
}

// Gradient of max() and min() over every element (PyTorch's
// evenly_distribute_backward): shared evenly among the elements equal to
// the result, or among the NaNs when the result is NaN.
variable_list evenly_distribute_backward(ReductionNode& n, const variable_list& g) {
  const Tensor x = n.var(kInput).data();
  const Tensor result = n.var(kResult).data();
  const Tensor hit = (result.isnan().item<bool>() ? x.isnan() : x.eq(result)).to(x.dtype());
  return {g[0] * constant(hit.div(hit.sum()))};
}

// A reduction that saves its input and result (slots kInput and kResult)
// besides its ReductionState (or one derived from it); `fill` completes the
// derived state.
template <class State, class Fill>
Variable reduction_with_result(const char* name, typename OpNode<State>::Formula formula,
                               const Variable& x, Tensor out, IntArrayRef dims, bool keepdim,
                               Fill fill) {
  auto node = autograd::record_op(name, formula, {&x}, out.device());
  if (node) {
    save_reduction(node->state, name, x, dims, keepdim);
    fill(node->state);
    node->saved.emplace_back(x, false);
  }
  Variable result = autograd::make_result(std::move(out), node);
  if (node) node->saved.emplace_back(result, true);
  return result;
}

Variable extreme(const char* name, const Variable& x, Tensor out, IntArrayRef dims, bool keepdim,
                 ReductionNode::Formula formula = extreme_backward) {
  return reduction_with_result<ReductionState>(name, formula, x, std::move(out), dims, keepdim,
                                               [](ReductionState&) {});
}

// Gradient of ops that pick elements by index along a dim (max(dim), sort,
// topk): scattered back through a differentiable scatter. The tensor op that
// made `values` has checked `dim`, so this only wraps it.
Variable indexed(const char* name, const Variable& x, Tensor values, const Tensor& indices,
                 int64_t dim, bool keepdim) {
  return record(name, [](OpNode<IndexedState>& n, const variable_list& g) -> variable_list {
    const IndexedState& s = n.state;
    const Variable base = autograd::constant_zeros(s.input.shape, s.input.dtype, g[0].device());
    Variable grad = g[0];
    Tensor index = s.indices;
    if (!s.keepdim && !s.input.shape.empty()) {
      grad = grad.unsqueeze(s.dim);
      index = index.unsqueeze(s.dim);
    }
    return {base.scatter(s.dim, index, grad)};
  }, {&x}, std::move(values), [&](OpNode<IndexedState>& n) {
    n.state = {InputMeta(x), wrap_dim(dim, x.dim(), name), keepdim, indices};
  });
}

// Exclusive running products of `v` along `dim`: element i is
// v[0] * ... * v[i-1] (or, `from_back`, v[i+1] * ... * v[k-1]). Built by
// doubling from Variable ops, so it differentiates to any order and takes
// log2(k) steps.
Variable exclusive_cumprod(const Variable& v, int64_t dim, bool from_back) {
  const int64_t k = v.size(dim);
  const TensorOptions options = v.options();
  SizeVec fill_shape(v.sizes().begin(), v.sizes().end());
  if (k <= 1) return constant(ones(fill_shape, options));
  // `p` moved `s` places along the scan, the vacated places holding 1.
  const auto shift = [&](const Variable& p, int64_t s) {
    fill_shape[static_cast<size_t>(dim)] = s;
    const Variable fill = constant(ones(fill_shape, options));
    return from_back ? cat({p.narrow(dim, s, k - s), fill}, dim)
                     : cat({fill, p.narrow(dim, 0, k - s)}, dim);
  };
  Variable p = shift(v, 1);
  for (int64_t s = 1; s < k; s *= 2) p = p * shift(p, s);
  return p;
}

// Each element's gradient of a product along `dim`: the product of the
// others (no division, so zeros are handled).
Variable product_of_others(const Variable& x, int64_t dim) {
  return exclusive_cumprod(x, dim, false) * exclusive_cumprod(x, dim, true);
}

// The gradient of norm(p) given the result `r` and `g` with reduced dims
// kept, by PyTorch's norm_backward: x |x|^(p-2) g / r^(p-1), written so that
// zero elements get 0 for 0 < p < 2 (never 0 * inf) and a zero norm gives 0;
// p = 0 counts nonzeros, whose gradient is 0.
Variable norm_backward(const Variable& x, const Variable& r, const Variable& g, double p) {
  if (p == 0) return constant(zeros_like(x.data()));
  if (p == 1) return g * x.sign();
  if (p == 2) return (g * x / r).masked_fill(r.data().eq(0), 0);
  if (p < 1) {
    const Variable scaled = x.sign() * x.abs().pow(p - 1).masked_fill(x.data().eq(0), 0);
    return scaled * g * r.pow(1 - p);
  }
  const Variable scaled = p < 2 ? x.sign() * x.abs().pow(p - 1) : x * x.abs().pow(p - 2);
  return scaled * (g / r.pow(p - 1)).masked_fill(r.data().eq(0), 0);
}

}  // namespace

Variable Variable::sum() const { return sum({}, false); }
Variable Variable::sum(IntArrayRef dims, bool keepdim) const {
  const char* name = dims.empty() ? "SumBackward0" : "SumBackward1";
  return record(name, [](ReductionNode& n, const variable_list& g) -> variable_list {
    return {unreduce(n.state, g[0]).expand(n.state.input.shape)};
  }, {this}, data().sum(dims, keepdim), [&](ReductionNode& n) {
    save_reduction(n.state, name, *this, dims, keepdim);
  });
}
Variable Variable::mean() const { return mean({}, false); }
Variable Variable::mean(IntArrayRef dims, bool keepdim) const {
  const char* name = dims.empty() ? "MeanBackward0" : "MeanBackward1";
  return record(name, [](ReductionNode& n, const variable_list& g) -> variable_list {
    const ReductionState& s = n.state;
    return {unreduce(s, g[0]).expand(s.input.shape) / static_cast<double>(reduced_count(s))};
  }, {this}, data().mean(dims, keepdim), [&](ReductionNode& n) {
    save_reduction(n.state, name, *this, dims, keepdim);
  });
}
Variable Variable::prod() const {
  auto node = autograd::record_op(
      "ProdBackward0", [](OpNode<NoState>& n, const variable_list& g) -> variable_list {
        const Variable x = n.var(kInput);
        if (x.data().eq(0).sum().item<int64_t>() == 0) return {g[0] * n.var(kResult) / x};
        // With zeros, each element's gradient is the product of all the others,
        // built from running products so that it stays differentiable there.
        return {g[0] * product_of_others(x.reshape({-1}), 0).reshape(x.sizes())};
      }, {this}, device());
  if (node) node->saved.emplace_back(*this, false);
  Variable result = autograd::make_result(data().prod(), node);
  if (node) node->saved.emplace_back(result, true);
  return result;
}

Variable Variable::prod(int64_t dim, bool keepdim) const {
  const int64_t d = wrap_dim(dim, this->dim(), "prod");
  return record("ProdBackward1", [](ReductionNode& n, const variable_list& g) -> variable_list {
    const Variable x = n.var(kInput);
    if (x.dim() == 0) return {g[0]};
    return {unreduce(n.state, g[0]) * product_of_others(x, n.state.dims[0])};
  }, {this}, data().prod(dim, keepdim), [&](ReductionNode& n) {
    save_reduction(n.state, "prod", *this, {d}, keepdim);
    n.saved.emplace_back(*this, false);
  });
}

Variable Variable::max() const {
  return extreme("MaxBackward1", *this, data().max(), {}, false, evenly_distribute_backward);
}
Variable Variable::min() const {
  return extreme("MinBackward1", *this, data().min(), {}, false, evenly_distribute_backward);
}
Variable Variable::amax(IntArrayRef dims, bool keepdim) const {
  return extreme("AmaxBackward0", *this, data().amax(dims, keepdim), dims, keepdim);
}
Variable Variable::amin(IntArrayRef dims, bool keepdim) const {
  return extreme("AminBackward0", *this, data().amin(dims, keepdim), dims, keepdim);
}
std::tuple<Variable, Tensor> Variable::max(int64_t dim, bool keepdim) const {
  auto [values, indices] = data().max(dim, keepdim);
  return {indexed("MaxBackward0", *this, values, indices, dim, keepdim), indices};
}
std::tuple<Variable, Tensor> Variable::min(int64_t dim, bool keepdim) const {
  auto [values, indices] = data().min(dim, keepdim);
  return {indexed("MinBackward0", *this, values, indices, dim, keepdim), indices};
}
std::tuple<Variable, Tensor> Variable::kthvalue(int64_t k, int64_t dim, bool keepdim) const {
  auto [values, indices] = data().kthvalue(k, dim, keepdim);
  return {indexed("KthvalueBackward0", *this, values, indices, dim, keepdim), indices};
}
std::tuple<Variable, Tensor> Variable::sort(int64_t dim, bool descending, bool stable) const {
  auto [values, indices] = data().sort(dim, descending, stable);
  return {indexed("SortBackward0", *this, values, indices, dim, true), indices};
}
std::tuple<Variable, Tensor> Variable::topk(int64_t k, int64_t dim, bool largest,
                                            bool sorted) const {
  auto [values, indices] = data().topk(k, dim, largest, sorted);
  return {indexed("TopkBackward0", *this, values, indices, dim, true), indices};
}

Variable Variable::var(IntArrayRef dims, bool unbiased, bool keepdim) const {
  return record("VarBackward0", [](OpNode<VarState>& n, const variable_list& g) -> variable_list {
    return {var_backward(n, unreduce(n.state, g[0]))};
  }, {this}, data().var(dims, unbiased, keepdim), [&](OpNode<VarState>& n) {
    save_reduction(n.state, "VarBackward0", *this, dims, keepdim);
    n.state.unbiased = unbiased;
    n.saved.emplace_back(*this, false);
  });
}
Variable Variable::std(IntArrayRef dims, bool unbiased, bool keepdim) const {
  return reduction_with_result<VarState>(
      "StdBackward0", [](OpNode<VarState>& n, const variable_list& g) -> variable_list {
        // Through var, with sqrt's derivative; where the deviation is 0 that
        // is infinite and the gradient is taken as 0, as PyTorch does.
        const Variable result = unreduce(n.state, n.var(kResult));
        const Variable grad_var =
            (unreduce(n.state, g[0]) / (result * 2.0)).masked_fill(result.data().eq(0), 0);
        return {var_backward(n, grad_var)};
      }, *this, data().std(dims, unbiased, keepdim), dims, keepdim,
      [&](VarState& s) { s.unbiased = unbiased; });
}

Variable Variable::norm(Scalar p) const { return norm(p, {}, false); }
Variable Variable::norm(Scalar p, IntArrayRef dims, bool keepdim) const {
  const double order = p.to<double>();
  if (std::isinf(order)) {
    return order > 0 ? abs().amax(dims, keepdim) : abs().amin(dims, keepdim);
  }
  return reduction_with_result<NormState>(
      "NormBackward1", [](OpNode<NormState>& n, const variable_list& g) -> variable_list {
        const NormState& s = n.state;
        return {norm_backward(n.var(kInput), unreduce(s, n.var(kResult)), unreduce(s, g[0]), s.p)};
      }, *this, data().norm(p, dims, keepdim), dims, keepdim,
      [&](NormState& s) { s.p = order; });
}

Variable Variable::logsumexp(IntArrayRef dims, bool keepdim) const {
  return reduction_with_result<ReductionState>(
      "LogsumexpBackward0", [](ReductionNode& n, const variable_list& g) -> variable_list {
        const ReductionState& s = n.state;
        return {unreduce(s, g[0]) * (n.var(kInput) - unreduce(s, n.var(kResult))).exp()};
      }, *this, data().logsumexp(dims, keepdim), dims, keepdim, [](ReductionState&) {});
}

Variable Variable::softmax(int64_t dim) const {
  auto node = autograd::record_op(
      "SoftmaxBackward0", [](OpNode<DimState>& n, const variable_list& g) -> variable_list {
        const Variable y = n.var(0);  // the result
        const int64_t dim = n.state.dim;
        if (!is_grad_enabled()) return {constant(softmax_backward(g[0].data(), y.data(), dim))};
        return {y * (g[0] - (g[0] * y).sum({dim}, true))};
      }, {this}, device());
  if (node) node->state.dim = dim;
  Variable result = autograd::make_result(data().softmax(dim), node);
  if (node) node->saved.emplace_back(result, true);
  return result;
}
Variable Variable::log_softmax(int64_t dim) const {
  auto node = autograd::record_op(
      "LogSoftmaxBackward0", [](OpNode<DimState>& n, const variable_list& g) -> variable_list {
        const Variable y = n.var(0);  // the result
        const int64_t dim = n.state.dim;
        if (!is_grad_enabled()) return {constant(log_softmax_backward(g[0].data(), y.data(), dim))};
        return {g[0] - y.exp() * g[0].sum({dim}, true)};
      }, {this}, device());
  if (node) node->state.dim = dim;
  Variable result = autograd::make_result(data().log_softmax(dim), node);
  if (node) node->saved.emplace_back(result, true);
  return result;
}
Variable softmax(const Variable& x, int64_t dim) { return x.softmax(dim); }
Variable log_softmax(const Variable& x, int64_t dim) { return x.log_softmax(dim); }
Variable Variable::cumsum(int64_t dim) const {
  return record("CumsumBackward0", [](OpNode<DimState>& n, const variable_list& g)
                                        -> variable_list {
    // Each input reaches every later output: a reversed running sum.
    const int64_t d = n.state.dim;
    return {g[0].sum({d}, true) - g[0].cumsum(d) + g[0]};
  }, {this}, data().cumsum(dim), [&](OpNode<DimState>& n) { n.state.dim = dim; });
}

Variable Variable::cumprod(int64_t dim) const {
  auto node = autograd::record_op(
      "CumprodBackward0", [](OpNode<DimState>& n, const variable_list& g) -> variable_list {
        const Variable x = n.var(kInput);
        const int64_t d = n.state.dim;
        if (x.dim() == 0) return {g[0]};
        if (x.data().eq(0).sum().item<int64_t>() == 0) {
          // Input i reaches every later output j with dy_j/dx_i = y_j / x_i:
          // a reversed running sum of g * y, over x.
          const Variable gy = g[0] * n.var(kResult);
          return {(gy.sum({d}, true) - gy.cumsum(d) + gy) / x};
        }
        // With zeros, dy_j/dx_i is the running product with x_i taken as 1.
        const int64_t k = x.size(d);
        SizeVec one_shape(x.sizes().begin(), x.sizes().end());
        one_shape[static_cast<size_t>(d)] = 1;
        const Variable one = constant(ones(one_shape, x.options()));
        std::vector<Variable> parts;
        for (int64_t i = 0; i < k; ++i) {
          const Variable without_i =
              cat({x.narrow(d, 0, i), one, x.narrow(d, i + 1, k - i - 1)}, d);
          parts.push_back((g[0] * without_i.cumprod(d)).narrow(d, i, k - i).sum({d}, true));
        }
        return {cat(parts, d)};
      }, {this}, device());
  const int64_t d = wrap_dim(dim, this->dim(), "cumprod");
  if (node) {
    node->state.dim = d;
    node->saved.emplace_back(*this, false);
  }
  Variable result = autograd::make_result(data().cumprod(dim), node);
  if (node) node->saved.emplace_back(result, true);
  return result;
}

// ---- Statistics ------------------------------------------------------------------------

namespace {

// 1 where `x` is not NaN, 0 where it is, in x's dtype.
Variable not_nan(const Variable& x) {
  return constant(x.data().isnan().logical_not().to(x.dtype()));
}

// The gradient of cummax and cummin: each output's gradient summed into the
// element it was taken from.
Variable cumulative_extreme(const char* name, const Variable& x, Tensor values,
                            const Tensor& indices, int64_t dim) {
  return record(name, [](OpNode<IndexedState>& n, const variable_list& g) -> variable_list {
    const IndexedState& s = n.state;
    if (s.input.shape.empty()) return {g[0]};
    const Variable base = autograd::constant_zeros(s.input.shape, s.input.dtype, g[0].device());
    if (s.indices.numel() == 0) return {base};
    return {base.scatter_add(s.dim, s.indices, g[0])};
  }, {&x}, std::move(values), [&](OpNode<IndexedState>& n) {
    n.state = {InputMeta(x), wrap_dim(dim, x.dim(), name), false, indices};
  });
}

// `v` reversed along `dim`.
Variable reversed(const Variable& v, int64_t dim) {
  const int64_t n = v.size(dim);
  return v.index_select(dim, arange(n - 1, -1, -1, TensorOptions(kInt64).device(v.device())));
}

// quantile and nanquantile: the plan's positions read from the sorted lanes
// of `x` by differentiable ops, so the gradient flows through the sort and
// the interpolation as in PyTorch (q itself is a constant).
Variable quantile_of(const Variable& x, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                     const std::string& interpolation, bool ignore_nan) {
  const QuantilePlan p = quantile_plan(x.data(), q, dim, keepdim, interpolation, ignore_nan);
  const Variable lanes = p.flatten ? x.reshape({-1}) : x.permute(p.order);
  const Variable sorted = std::get<0>(lanes.sort(-1, false, true));
  SizeVec expanded(p.below.sizes().begin(), p.below.sizes().end());
  expanded.back() = sorted.size(-1);
  const Variable source = sorted.unsqueeze(0).expand(expanded);
  Variable result = source.gather(-1, p.below);
  if (p.weight.defined()) result = result + (source.gather(-1, p.above) - result) * constant(p.weight);
  return result.reshape(p.shape);
}

Tensor scalar_q(const Variable& x, double q) {
  TORCHLET_CHECK(q >= 0 && q <= 1, "quantile() q must be in the range [0, 1] but got ", q);
  return full({}, q, x.options());
}

}  // namespace

Variable Variable::nansum(IntArrayRef dims, bool keepdim, std::optional<DType> dtype) const {
  return record("NansumBackward0", [](ReductionNode& n, const variable_list& g) -> variable_list {
    const ReductionState& s = n.state;
    const Variable grad = unreduce(s, g[0]).expand(s.input.shape) * not_nan(n.var(kInput));
    return {grad.to(s.input.dtype)};
  }, {this}, data().nansum(dims, keepdim, dtype), [&](ReductionNode& n) {
    save_reduction(n.state, "nansum", *this, dims, keepdim);
    n.saved.emplace_back(*this, false);
  });
}

Variable Variable::nanmean(IntArrayRef dims, bool keepdim, std::optional<DType> dtype) const {
  return record("NanmeanBackward0", [](ReductionNode& n, const variable_list& g) -> variable_list {
    // nansum's gradient over the count of non-NaN elements.
    const ReductionState& s = n.state;
    const Variable keep = not_nan(n.var(kInput));
    const Variable count = constant(keep.data().sum(s.dims, true));
    return {(unreduce(s, g[0]).expand(s.input.shape) * keep / count).to(s.input.dtype)};
  }, {this}, data().nanmean(dims, keepdim, dtype), [&](ReductionNode& n) {
    save_reduction(n.state, "nanmean", *this, dims, keepdim);
    n.saved.emplace_back(*this, false);
  });
}

std::tuple<Variable, Variable> Variable::aminmax(std::optional<int64_t> dim, bool keepdim) const {
  auto [low, high] = data().aminmax(dim, keepdim);
  const std::vector<int64_t> dims = dim ? std::vector<int64_t>{*dim} : std::vector<int64_t>{};
  return {extreme("AminmaxBackward0", *this, low, dims, keepdim),
          extreme("AminmaxBackward0", *this, high, dims, keepdim)};
}

Variable Variable::median() const {
  return extreme("MedianBackward0", *this, data().median(), {}, false, evenly_distribute_backward);
}
std::tuple<Variable, Tensor> Variable::median(int64_t dim, bool keepdim) const {
  auto [values, indices] = data().median(dim, keepdim);
  return {indexed("MedianBackward1", *this, values, indices, dim, keepdim), indices};
}
Variable Variable::nanmedian() const {
  return extreme("NanmedianBackward0", *this, data().nanmedian(), {}, false,
                 evenly_distribute_backward);
}
std::tuple<Variable, Tensor> Variable::nanmedian(int64_t dim, bool keepdim) const {
  auto [values, indices] = data().nanmedian(dim, keepdim);
  return {indexed("NanmedianBackward1", *this, values, indices, dim, keepdim), indices};
}

Variable Variable::quantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                            const std::string& interpolation) const {
  return quantile_of(*this, q, dim, keepdim, interpolation, false);
}
Variable Variable::quantile(double q, std::optional<int64_t> dim, bool keepdim,
                            const std::string& interpolation) const {
  return quantile_of(*this, scalar_q(*this, q), dim, keepdim, interpolation, false);
}
Variable Variable::nanquantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                               const std::string& interpolation) const {
  return quantile_of(*this, q, dim, keepdim, interpolation, true);
}
Variable Variable::nanquantile(double q, std::optional<int64_t> dim, bool keepdim,
                               const std::string& interpolation) const {
  return quantile_of(*this, scalar_q(*this, q), dim, keepdim, interpolation, true);
}

std::tuple<Variable, Tensor> Variable::cummax(int64_t dim) const {
  auto [values, indices] = data().cummax(dim);
  return {cumulative_extreme("CummaxBackward0", *this, values, indices, dim), indices};
}
std::tuple<Variable, Tensor> Variable::cummin(int64_t dim) const {
  auto [values, indices] = data().cummin(dim);
  return {cumulative_extreme("CumminBackward0", *this, values, indices, dim), indices};
}

Variable Variable::logcumsumexp(int64_t dim) const {
  auto node = autograd::record_op(
      "LogcumsumexpBackward0", [](OpNode<DimState>& n, const variable_list& g) -> variable_list {
        // PyTorch's formula: the gradient's positive and negative parts, each
        // carried in log space through a reversed logcumsumexp.
        const Variable x = n.var(kInput), y = n.var(kResult);
        const int64_t d = n.state.dim;
        if (x.dim() == 0 || x.numel() == 0) return {g[0]};
        const double lowest = x.dtype() == kFloat32 ? std::numeric_limits<float>::lowest()
                                                    : std::numeric_limits<double>::lowest();
        const Tensor grad = g[0].data();
        const Variable log_abs = g[0].abs().log();
        const auto part = [&](const Tensor& where) {
          const Variable log_grad = log_abs.masked_fill(where.logical_not(), lowest);
          return (reversed(reversed(log_grad - y, d).logcumsumexp(d), d) + x).exp();
        };
        return {part(grad.gt(0)) - part(grad.lt(0))};
      }, {this}, device());
  const int64_t d = wrap_dim(dim, this->dim(), "logcumsumexp");
  if (node) {
    node->state.dim = d;
    node->saved.emplace_back(*this, false);
  }
  Variable result = autograd::make_result(data().logcumsumexp(dim), node);
  if (node) node->saved.emplace_back(result, true);
  return result;
}

std::tuple<Variable, Variable> std_mean(const Variable& x, IntArrayRef dims, bool unbiased,
                                        bool keepdim) {
  TORCHLET_CHECK(x.is_floating_point(), "std_mean only support floating point and complex dtypes");
  return {x.std(dims, unbiased, keepdim), x.mean(dims, keepdim)};
}

std::tuple<Variable, Variable> var_mean(const Variable& x, IntArrayRef dims, bool unbiased,
                                        bool keepdim) {
  TORCHLET_CHECK(x.is_floating_point(), "var_mean only support floating point and complex dtypes");
  return {x.var(dims, unbiased, keepdim), x.mean(dims, keepdim)};
}

}  // namespace torchlet
