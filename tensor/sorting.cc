// Sorting and selection: sort, argsort, topk, kthvalue, nonzero, unique.
//
// Every op sorts each lane (the 1-D slice along `dim`) of a strided input
// through its element offsets, with a strict total order: NaN is the largest
// value and equal values keep their original order. That makes sort stable
// and topk/kthvalue deterministic.
#include "tensor/sorting.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <vector>

#include "tensor/cpu/dispatch.h"
#include "tensor/factories.h"
#include "tensor/index_ops.h"
#include "tensor/op_utils.h"
#include "tensor/parallel.h"

namespace torchlet {
namespace {

using Offsets = std::vector<int64_t>;

// Offsets of the first element of every lane along `dim`.
Offsets lane_start_offsets(const Tensor& t, int64_t dim) {
  SizeVec sizes(t.sizes().begin(), t.sizes().end());
  sizes[dim] = 1;
  return element_offsets(sizes, t.strides());
}

template <typename T>
bool less_nan_last(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return !std::isnan(a) && (std::isnan(b) || a < b);
  } else {
    return a < b;
  }
}

// Sorts every lane of `src` along `dim` and writes the first `values.size(dim)`
// entries to `values` and their positions to `indices` (same shape).
template <typename T>
void sort_lanes(const Tensor& src, int64_t dim, bool descending, const Tensor& values,
                const Tensor& indices) {
  const int64_t n = src.size(dim), k = values.size(dim);
  const int64_t in_stride = src.stride(dim), out_stride = values.stride(dim);
  const Offsets in_starts = lane_start_offsets(src, dim);
  const Offsets out_starts = lane_start_offsets(values, dim);
  const T* in = static_cast<const T*>(src.data_ptr());
  T* out = static_cast<T*>(values.data_ptr());
  int64_t* out_index = static_cast<int64_t*>(indices.data_ptr());
  const int64_t lanes = static_cast<int64_t>(in_starts.size());
  parallel_for(0, lanes, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(n, 1)),
               [&](int64_t begin, int64_t end) {
    Offsets order(n);
    for (int64_t lane = begin; lane < end; ++lane) {
      const T* x = in + in_starts[lane];
      auto before = [&](int64_t i, int64_t j) {
        const T a = x[i * in_stride], b = x[j * in_stride];
        if (descending ? less_nan_last(b, a) : less_nan_last(a, b)) return true;
        if (descending ? less_nan_last(a, b) : less_nan_last(b, a)) return false;
        return i < j;
      };
      std::iota(order.begin(), order.end(), int64_t{0});
      if (k < n) {
        std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      } else {
        std::sort(order.begin(), order.end(), before);
      }
      for (int64_t j = 0; j < k; ++j) {
        const int64_t at = out_starts[lane] + j * out_stride;
        out[at] = x[order[j] * in_stride];
        out_index[at] = order[j];
      }
    }
  });
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
  SizeVec shape(src.sizes().begin(), src.sizes().end());
  shape[dim] = k;
  Tensor values = empty(shape, t.options());
  Tensor indices = empty(shape, t.options().dtype(kInt64));
  cpu::dispatch_all(t.dtype(), [&](auto tag) {
    sort_lanes<decltype(tag)>(src, dim, descending, values, indices);
  });
  return {values, indices};
}

void check_input(const char* op, const Tensor& t) {
  check_defined(op, t);
  check_cpu_kernel(op, t);
}

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

// Positions (row-major) of the nonzero elements of `t`.
Offsets nonzero_positions(const Tensor& t) {
  const Offsets offsets = element_offsets(t.sizes(), t.strides());
  Offsets positions;
  cpu::dispatch_all_and_reduced(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(t.data_ptr());
    for (size_t i = 0; i < offsets.size(); ++i) {
      if (x[offsets[i]] != T(0)) positions.push_back(static_cast<int64_t>(i));
    }
  });
  return positions;
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
  check_input("nonzero", *this);
  const Offsets positions = nonzero_positions(*this);
  const int64_t count = static_cast<int64_t>(positions.size()), ndim = dim();
  Tensor out = empty({count, ndim}, options().dtype(kInt64));
  int64_t* coords = out.data<int64_t>();
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = positions[i];
    for (int64_t d = ndim - 1; d >= 0; --d) {
      coords[i * ndim + d] = rest % size(d);
      rest /= size(d);
    }
  }
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
  const std::vector<bool> starts = first.to_vector<bool>();
  const std::vector<int64_t> positions = order.to_vector<int64_t>();
  Tensor inverse = empty({n}, t.options().dtype(kInt64));
  Tensor counts = zeros({values.numel()}, t.options().dtype(kInt64));
  int64_t* inv = inverse.data<int64_t>();
  int64_t* cnt = counts.data<int64_t>();
  int64_t group = -1;
  for (int64_t i = 0; i < n; ++i) {
    group += starts[i];
    inv[positions[i]] = group;
    ++cnt[group];
  }
  return {values, return_inverse ? inverse.view(t.sizes()) : Tensor(),
          return_counts ? counts : Tensor()};
}

}  // namespace torchlet
