// Sorting and selection: sort, argsort, topk, kthvalue, nonzero, unique,
// unique_consecutive, median, nanmedian, quantile and nanquantile.
//
// Every op sorts each lane (the 1-D slice along `dim`) of a strided input
// with a strict total order: NaN is the largest value and equal values keep
// their original order. That makes sort stable and topk/kthvalue
// deterministic. The loops are in tensor/cpu/sort_kernels.cc and, on GPUs,
// CUB's radix sorts (tensor/cuda/sort_kernels.cu).
#include "tensor/sorting.h"

#include <cmath>
#include <string>
#include <vector>

#include "tensor/cpu/kernels.h"
#include "tensor/cuda/kernels.h"
#include "tensor/factories.h"
#include "tensor/index_ops.h"
#include "tensor/op_utils.h"

namespace torchlet {
namespace {

// sorted_prefix on a GPU: the lanes made rows of a contiguous matrix, each
// row's order sorted there (cuda::sort_rows), the first k positions kept and
// the values gathered from the original lanes (so -0.0 and NaN payloads
// come back as they were).
std::tuple<Tensor, Tensor> sorted_prefix_cuda(const Tensor& src, int64_t dim, bool descending,
                                              int64_t k) {
  const int64_t last = src.dim() - 1;
  const Tensor lanes = src.transpose(dim, last).contiguous();
  const int64_t n = lanes.size(last);
  const int64_t rows = n == 0 ? 0 : lanes.numel() / n;
  SizeVec shape(lanes.sizes().begin(), lanes.sizes().end());
  shape[last] = k;
  if (rows == 0 || k == 0) {
    return {empty(shape, src.options()).transpose(dim, last).contiguous(),
            empty(shape, src.options().dtype(kInt64)).transpose(dim, last).contiguous()};
  }
  const Tensor matrix = lanes.view({rows, n});
  Tensor order = empty({rows, n}, src.options().dtype(kInt64));
  cuda::sort_rows(order, matrix, descending);
  const Tensor indices = order.narrow(1, 0, k).contiguous();
  const Tensor values = matrix.gather(1, indices);
  return {values.view(shape).transpose(dim, last).contiguous(),
          indices.view(shape).transpose(dim, last).contiguous()};
}

// The first `k` entries of every lane along `dim` in sorted order, as
// contiguous (values, indices). A 0-dim `t` is sorted as a 1-element vector.
std::tuple<Tensor, Tensor> sorted_prefix(const Tensor& t, int64_t dim, bool descending,
                                         int64_t k) {
  if (is_reduced_floating_point(t.dtype())) {  // sorted as float32, which is exact
    auto [values, indices] = sorted_prefix(t.to(kFloat32), dim, descending, k);
    return {values.to(t.dtype()), indices};
  }
  const Tensor src = t.dim() == 0 ? t.view({1}) : t;
  if (src.is_cuda()) return sorted_prefix_cuda(src, dim, descending, k);
  SizeVec shape(src.sizes().begin(), src.sizes().end());
  shape[dim] = k;
  Tensor values = empty(shape, t.options());
  Tensor indices = empty(shape, t.options().dtype(kInt64));
  cpu::sort_lanes(values, indices, src, dim, descending);
  return {values, indices};
}

void check_input(const char* op, const Tensor& t) { check_defined(op, t); }

int64_t lane_length(const Tensor& t, int64_t dim) { return t.dim() == 0 ? 1 : t.size(dim); }

// `sizes` without `dim` (or with it as 1 when `keepdim`); 0-dim stays 0-dim.
SizeVec reduced_shape(IntArrayRef sizes, int64_t dim, bool keepdim) {
  SizeVec shape(sizes.begin(), sizes.end());
  if (shape.empty()) return shape;
  if (keepdim) {
    shape[dim] = 1;
  } else {
    shape.erase(shape.begin() + dim);
  }
  return shape;
}

}  // namespace

std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending, bool /*stable*/) const {
  check_input("sort", *this);
  const int64_t d = wrap_dim(dim, this->dim(), "sort");
  auto [values, indices] = sorted_prefix(*this, d, descending, lane_length(*this, d));
  return {values.view(sizes()), indices.view(sizes())};
}

Tensor Tensor::argsort(int64_t dim, bool descending) const {
  return std::get<1>(sort(dim, descending));
}

std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest,
                                        bool /*sorted*/) const {
  check_input("topk", *this);
  const int64_t d = wrap_dim(dim, this->dim(), "topk");
  TORCHLET_CHECK(k >= 0 && k <= lane_length(*this, d), "topk(): selected index k out of range");
  auto [values, indices] = sorted_prefix(*this, d, largest, k);
  if (this->dim() > 0 || k == 0) return {values, indices};
  return {values.reshape(sizes()), indices.reshape(sizes())};
}

std::tuple<Tensor, Tensor> Tensor::kthvalue(int64_t k, int64_t dim, bool keepdim) const {
  check_input("kthvalue", *this);
  const int64_t d = wrap_dim(dim, this->dim(), "kthvalue");
  TORCHLET_CHECK(lane_length(*this, d) > 0, "kthvalue(): Expected reduction dim ", d,
                 " to have non-zero size.");
  TORCHLET_CHECK(k >= 1 && k <= lane_length(*this, d),
                 "kthvalue(): selected number k out of range for dimension ", d);
  auto [values, indices] = sorted_prefix(*this, d, /*descending=*/false, k);
  const SizeVec shape = reduced_shape(sizes(), d, keepdim);
  return {values.narrow(d, k - 1, 1).reshape(shape), indices.narrow(d, k - 1, 1).reshape(shape)};
}

Tensor Tensor::nonzero() const {
  check_defined("nonzero", *this);
  // A GPU's tensor is read on the host: the result's size depends on every
  // element, so PyTorch's GPU nonzero waits for the device too.
  if (is_cuda()) return to(Device(kCPU, 0)).nonzero().to(device());
  const std::vector<int64_t> positions = cpu::nonzero_positions(*this);
  const int64_t count = static_cast<int64_t>(positions.size());
  Tensor out = empty({count, dim()}, options().dtype(kInt64));
  cpu::positions_to_coords(out, positions, sizes());
  return out;
}

std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& t, bool /*sorted*/, bool return_inverse,
                                          bool return_counts) {
  check_input("unique", t);
  const auto [sorted, order] = t.flatten().sort(0, false, true);
  const int64_t n = sorted.numel();
  // first[i]: sorted[i] starts a new group (NaNs never equal one another).
  const Tensor first = n == 0 ? empty({0}, t.options().dtype(kBool))
                              : cat({ones({1}, t.options().dtype(kBool)),
                                     sorted.slice(0, 1).ne(sorted.slice(0, 0, n - 1))});
  const Tensor values = sorted.masked_select(first);
  Tensor inverse = empty({n}, t.options().dtype(kInt64));
  Tensor counts = zeros({values.numel()}, t.options().dtype(kInt64));
  if (t.is_cuda()) {
    // Each sorted element's group is the number of group starts up to it.
    const Tensor group = first.to(kInt64).cumsum(0).sub(1);
    inverse.scatter_(0, order, group);
    counts.scatter_add_(0, group, ones_like(group));
  } else {
    cpu::unique_groups(inverse, counts, first.contiguous(), order.contiguous());
  }
  return {values, return_inverse ? inverse.view(t.sizes()) : Tensor(),
          return_counts ? counts : Tensor()};
}

// ---- Medians and quantiles ---------------------------------------------------------
// A CPU median is selected as PyTorch's is (cpu::median_lanes). GPU medians
// and all quantiles read the stable sort, NaNs last, at positions found by
// counting the NaNs; ties take the sort's order, which is PyTorch's too.

namespace {

// The position in each sorted lane (of `n` elements, `valid` of them not
// NaN) that median (or, `ignore_nan`, nanmedian) picks: the lower median,
// or the first NaN when median meets one; int64 of valid's shape.
Tensor median_position(const Tensor& valid, int64_t n, bool ignore_nan) {
  if (ignore_nan) return valid.sub(1).clamp_min(0).floor_divide(2);
  return valid.where(valid.lt(n), full_like(valid, (n - 1) / 2));
}

void check_median_dtype(const char* kernel, const Tensor& t) {
  TORCHLET_CHECK(t.dtype() != kBool, "\"", kernel, "\" not implemented for 'Bool'");
}

std::tuple<Tensor, Tensor> median_along(const char* op, const Tensor& t, int64_t dim,
                                        bool keepdim, bool ignore_nan) {
  check_input(op, t);
  check_median_dtype(ignore_nan ? "nanmedian_cpu" : "median_cpu", t);
  const int64_t d = wrap_dim(dim, t.dim(), op);
  if (t.dim() == 0) return {t.clone(), zeros({}, t.options().dtype(kInt64))};
  TORCHLET_CHECK(t.size(d) > 0, op, "(): Expected reduction dim ", d, " to have non-zero size.");
  if (is_reduced_floating_point(t.dtype())) {  // selected in float32, which is exact
    auto [values, indices] = median_along(op, t.to(kFloat32), d, keepdim, ignore_nan);
    return {values.to(t.dtype()), indices};
  }
  Tensor values, indices;
  if (t.is_cuda()) {
    // The sorted lanes, read where the median (or the first NaN) sits.
    const auto [sorted, order] = t.sort(d, false, true);
    const Tensor valid = t.isnan().logical_not().sum({d}, true);
    const Tensor position = median_position(valid, t.size(d), ignore_nan);
    values = sorted.gather(d, position);
    indices = order.gather(d, position);
  } else {
    SizeVec shape(t.sizes().begin(), t.sizes().end());
    shape[d] = 1;
    values = empty(shape, t.options());
    indices = empty(shape, t.options().dtype(kInt64));
    if (t.numel() > 0) cpu::median_lanes(values, indices, t, d, ignore_nan);
  }
  if (!keepdim) {
    values = values.squeeze(d);
    indices = indices.squeeze(d);
  }
  return {values, indices};
}

enum class Interpolation { kLinear, kLower, kHigher, kMidpoint, kNearest };

Interpolation parse_interpolation(const std::string& name) {
  if (name == "linear") return Interpolation::kLinear;
  if (name == "lower") return Interpolation::kLower;
  if (name == "higher") return Interpolation::kHigher;
  if (name == "midpoint") return Interpolation::kMidpoint;
  TORCHLET_CHECK(name == "nearest",
                 "quantile() interpolation must be one of linear, lower, higher, midpoint or "
                 "nearest, but got ", name);
  return Interpolation::kNearest;
}

Tensor quantile_impl(const Tensor& t, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                     const std::string& interpolation, bool ignore_nan) {
  const QuantilePlan p = quantile_plan(t, q, dim, keepdim, interpolation, ignore_nan);
  const Tensor lanes = p.flatten ? t.reshape({-1}) : t.permute(p.order);
  const Tensor sorted = std::get<0>(lanes.sort(-1, false, true));
  SizeVec expanded(p.below.sizes().begin(), p.below.sizes().end());
  expanded.back() = sorted.size(-1);
  const Tensor source = sorted.unsqueeze(0).expand(expanded);
  Tensor result = source.gather(-1, p.below);
  if (p.weight.defined()) {
    const Tensor above = source.gather(-1, p.above);
    result = result.add(above.sub(result).mul(p.weight));
  }
  return result.reshape(p.shape);
}

Tensor scalar_q(const Tensor& t, double q) {
  check_input("quantile", t);
  TORCHLET_CHECK(q >= 0 && q <= 1, "quantile() q must be in the range [0, 1] but got ", q);
  return full({}, q, t.options());
}

}  // namespace

QuantilePlan quantile_plan(const Tensor& t, const Tensor& q, std::optional<int64_t> dim,
                           bool keepdim, const std::string& interpolation, bool ignore_nan) {
  check_input("quantile", t);
  check_input("quantile", q);
  const Interpolation mode = parse_interpolation(interpolation);
  TORCHLET_CHECK(t.numel() > 0, "quantile() input tensor must be non-empty");
  TORCHLET_CHECK(q.dim() <= 1, "quantile() q must be a scalar or 1D tensor");
  TORCHLET_CHECK(t.dtype() == kFloat32 || t.dtype() == kFloat64,
                 "quantile() input tensor must be either float or double dtype");
  TORCHLET_CHECK(t.dtype() == q.dtype(),
                 "quantile() q tensor must be same dtype as the input tensor");
  TORCHLET_CHECK(t.device() == q.device(),
                 "quantile() q tensor must be on the same device as the input tensor");
  // As in PyTorch, only CPU tensors are checked (no device round trip).
  if (t.device().is_cpu()) {
    TORCHLET_CHECK(q.ge(0).logical_and(q.le(1)).all().item<bool>(),
                   "quantile() q values must be in the range [0, 1]");
  }
  QuantilePlan p;
  const int64_t k = q.numel();
  if (q.dim() == 1) p.shape.push_back(k);
  if (dim) {
    const int64_t d = wrap_dim(*dim, t.dim(), "quantile");
    for (int64_t i = 0; i < t.dim(); ++i) {
      if (i != d) {
        p.order.push_back(i);
        p.shape.push_back(t.size(i));
      } else if (keepdim) {
        p.shape.push_back(1);
      }
    }
    p.order.push_back(d);
    p.flatten = t.dim() == 0;
  } else {
    p.flatten = true;
    if (keepdim) p.shape.insert(p.shape.end(), t.dim(), 1);
  }
  // The lanes' shape with the lane length as 1, below a leading dim for q.
  const Tensor lanes = p.flatten ? t.reshape({-1}) : t.permute(p.order);
  const int64_t n = lanes.size(-1);
  SizeVec q_shape(static_cast<size_t>(lanes.dim()) + 1, 1);
  q_shape[0] = k;
  const Tensor qs = q.reshape(q_shape);
  Tensor ranks;
  if (ignore_nan) {
    // Ranks among each lane's non-NaN elements; an all-NaN lane reads its
    // first element, a NaN.
    const Tensor valid = lanes.isnan().logical_not().sum({-1}, true).to(t.dtype());
    ranks = qs.mul(valid.sub(1)).clamp_min(0);
  } else {
    // A lane with a NaN reads its last element, a NaN.
    const Tensor has_nan = lanes.isnan().any(-1, true).unsqueeze(0);
    const Tensor last = full({}, static_cast<double>(n - 1), t.options());
    ranks = qs.mul(static_cast<double>(n - 1)).where(has_nan.logical_not(), last);
  }
  switch (mode) {
    case Interpolation::kLower: ranks = ranks.floor(); break;
    case Interpolation::kHigher: ranks = ranks.ceil(); break;
    case Interpolation::kNearest: ranks = ranks.round(); break;
    default: break;
  }
  p.below = ranks.to(kInt64);
  if (mode == Interpolation::kLinear || mode == Interpolation::kMidpoint) {
    p.above = ranks.ceil().to(kInt64);
    p.weight = mode == Interpolation::kMidpoint ? full_like(ranks, 0.5)
                                                : ranks.sub(p.below.to(t.dtype()));
  }
  return p;
}

namespace {
Tensor median_all(const char* op, const Tensor& t, bool ignore_nan) {
  check_input(op, t);
  check_median_dtype(ignore_nan ? "nanmedian_cpu" : "median_cpu", t);
  if (t.numel() == 0) return full({}, NAN, t.options());
  return std::get<0>(median_along(op, t.reshape({-1}), 0, false, ignore_nan));
}
}  // namespace

Tensor median(const Tensor& t) { return median_all("median", t, false); }
std::tuple<Tensor, Tensor> median(const Tensor& t, int64_t dim, bool keepdim) {
  return median_along("median", t, dim, keepdim, false);
}
Tensor nanmedian(const Tensor& t) { return median_all("nanmedian", t, true); }
std::tuple<Tensor, Tensor> nanmedian(const Tensor& t, int64_t dim, bool keepdim) {
  return median_along("nanmedian", t, dim, keepdim, true);
}

Tensor quantile(const Tensor& t, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                const std::string& interpolation) {
  return quantile_impl(t, q, dim, keepdim, interpolation, false);
}
Tensor quantile(const Tensor& t, double q, std::optional<int64_t> dim, bool keepdim,
                const std::string& interpolation) {
  return quantile_impl(t, scalar_q(t, q), dim, keepdim, interpolation, false);
}
Tensor nanquantile(const Tensor& t, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   const std::string& interpolation) {
  return quantile_impl(t, q, dim, keepdim, interpolation, true);
}
Tensor nanquantile(const Tensor& t, double q, std::optional<int64_t> dim, bool keepdim,
                   const std::string& interpolation) {
  return quantile_impl(t, scalar_q(t, q), dim, keepdim, interpolation, true);
}

// ---- Consecutive runs ------------------------------------------------------------------

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& t, bool return_inverse,
                                                      bool return_counts,
                                                      std::optional<int64_t> dim) {
  check_input("unique_consecutive", t);
  const TensorOptions index_options = t.options().dtype(kInt64);
  Tensor values, first;
  SizeVec inverse_shape;
  if (!dim) {
    const Tensor flat = t.reshape({-1});
    const int64_t n = flat.numel();
    inverse_shape.assign(t.sizes().begin(), t.sizes().end());
    // first[i]: element i starts a run (NaNs never equal one another).
    first = n == 0 ? empty({0}, t.options().dtype(kBool))
                   : cat({ones({1}, t.options().dtype(kBool)),
                          flat.slice(0, 1).ne(flat.slice(0, 0, n - 1))});
    values = flat.masked_select(first);
  } else {
    const int64_t d = wrap_dim(*dim, t.dim(), "unique_consecutive");
    TORCHLET_CHECK(t.dim() > 0, "unique_consecutive: Dimension specified as ", *dim,
                   " but tensor has no dimensions");
    const int64_t n = t.size(d);
    for (int64_t i = 0; i < t.dim(); ++i) {
      TORCHLET_CHECK(i == d || t.size(i) > 0,
                     "There are 0 sized dimensions, and they aren't selected, so unique cannot "
                     "be applied");
    }
    inverse_shape.push_back(n);
    if (n == 0) {
      first = empty({0}, t.options().dtype(kBool));
    } else {
      // Slice i starts a run when it differs anywhere from slice i - 1.
      const Tensor slices = t.transpose(0, d).reshape({n, -1});
      const Tensor differs = slices.slice(0, 1).ne(slices.slice(0, 0, n - 1)).any(1);
      first = cat({ones({1}, t.options().dtype(kBool)), differs});
    }
    values = t.index_select(d, first.nonzero().view({-1}));
  }
  const Tensor group = first.to(kInt64).cumsum(0).sub(1);
  Tensor inverse, counts;
  if (return_inverse) inverse = group.view(inverse_shape);
  if (return_counts) {
    const int64_t runs = dim ? values.size(*dim) : values.size(0);
    counts = zeros({runs}, index_options);
    if (group.numel() > 0) counts.scatter_add_(0, group, ones_like(group));
  }
  return {values, inverse, counts};
}

// ---- Methods ---------------------------------------------------------------------------

Tensor Tensor::median() const { return torchlet::median(*this); }
std::tuple<Tensor, Tensor> Tensor::median(int64_t dim, bool keepdim) const {
  return torchlet::median(*this, dim, keepdim);
}
Tensor Tensor::nanmedian() const { return torchlet::nanmedian(*this); }
std::tuple<Tensor, Tensor> Tensor::nanmedian(int64_t dim, bool keepdim) const {
  return torchlet::nanmedian(*this, dim, keepdim);
}
Tensor Tensor::quantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                        const std::string& interpolation) const {
  return torchlet::quantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::quantile(double q, std::optional<int64_t> dim, bool keepdim,
                        const std::string& interpolation) const {
  return torchlet::quantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::nanquantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                           const std::string& interpolation) const {
  return torchlet::nanquantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::nanquantile(double q, std::optional<int64_t> dim, bool keepdim,
                           const std::string& interpolation) const {
  return torchlet::nanquantile(*this, q, dim, keepdim, interpolation);
}
std::tuple<Tensor, Tensor, Tensor> Tensor::unique_consecutive(bool return_inverse,
                                                              bool return_counts,
                                                              std::optional<int64_t> dim) const {
  return torchlet::unique_consecutive(*this, return_inverse, return_counts, dim);
}

}  // namespace torchlet
