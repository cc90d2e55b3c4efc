// Sorting and selection: sort, argsort, topk, kthvalue, nonzero, unique.
//
// Every op sorts each lane (the 1-D slice along `dim`) of a strided input
// with a strict total order: NaN is the largest value and equal values keep
// their original order. That makes sort stable and topk/kthvalue
// deterministic. The loops are in tensor/cpu/sort_kernels.cc and, on GPUs,
// CUB's radix sorts (tensor/cuda/sort_kernels.cu).
#include "tensor/sorting.h"

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

}  // namespace torchlet
