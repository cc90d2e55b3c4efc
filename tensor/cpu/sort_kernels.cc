// CPU kernels of sorting and selection (tensor/sorting.cc).
//
// Every lane (the 1-D slice along `dim`) of a strided input is sorted
// through its element offsets, with a strict total order: NaN is the largest
// value and equal values keep their original order. That makes sort stable
// and topk/kthvalue deterministic.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <vector>

#include "tensor/cpu/dispatch.h"
#include "tensor/cpu/kernels.h"
#include "tensor/op_utils.h"
#include "tensor/parallel.h"

namespace torchlet::cpu {
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

template <typename T>
void sort_lanes_typed(const Tensor& values, const Tensor& indices, const Tensor& src, int64_t dim,
                      bool descending) {
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

}  // namespace

void sort_lanes(const Tensor& values, const Tensor& indices, const Tensor& src, int64_t dim,
                bool descending) {
  dispatch_all(src.dtype(), [&](auto tag) {
    sort_lanes_typed<decltype(tag)>(values, indices, src, dim, descending);
  });
}

std::vector<int64_t> nonzero_positions(const Tensor& t) {
  const Offsets offsets = element_offsets(t.sizes(), t.strides());
  Offsets positions;
  dispatch_all_and_reduced(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(t.data_ptr());
    for (size_t i = 0; i < offsets.size(); ++i) {
      if (x[offsets[i]] != T(0)) positions.push_back(static_cast<int64_t>(i));
    }
  });
  return positions;
}

void positions_to_coords(const Tensor& out, const std::vector<int64_t>& positions,
                         IntArrayRef sizes) {
  const int64_t count = static_cast<int64_t>(positions.size());
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  int64_t* coords = static_cast<int64_t*>(out.data_ptr());
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = positions[i];
    for (int64_t d = ndim - 1; d >= 0; --d) {
      coords[i * ndim + d] = rest % sizes[d];
      rest /= sizes[d];
    }
  }
}

void unique_groups(const Tensor& inverse, const Tensor& counts, const Tensor& first,
                   const Tensor& order) {
  const int64_t n = first.numel();
  const bool* starts = static_cast<const bool*>(first.data_ptr());
  const int64_t* positions = static_cast<const int64_t*>(order.data_ptr());
  int64_t* inv = static_cast<int64_t*>(inverse.data_ptr());
  int64_t* cnt = static_cast<int64_t*>(counts.data_ptr());
  int64_t group = -1;
  for (int64_t i = 0; i < n; ++i) {
    group += starts[i];
    inv[positions[i]] = group;
    ++cnt[group];
  }
}

}  // namespace torchlet::cpu
