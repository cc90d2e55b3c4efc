// CPU kernels of sorting and selection (tensor/sorting.cc).
//
// Every lane (the 1-D slice along `dim`) of a strided input is sorted
// through its element offsets, with a strict total order: NaN is the largest
// value and equal values keep their original order. That makes sort stable
// and topk/kthvalue deterministic.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
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
bool is_nan_value(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// Note [Sort keys]
// Every element becomes an unsigned key whose integer order is the lane's
// strict total order: the IEEE bits of a float with the sign folded in (so
// that negative values come first), every NaN as the largest key and -0.0
// as +0.0 (equal values keep their order); an integer with its sign bit
// flipped; all of them inverted when descending. A key of 32 bits or fewer
// is packed above the element's index into one uint64, so one plain integer
// sort orders by value and then by position: stable without a stable sort,
// and with no comparator reading the strided input (an indirect
// comparator was 2.6x slower than PyTorch's quantile, whose time is its
// sort). Full sorts of packed keys are radix sorts.
template <typename T>
uint64_t sort_key(T v) {
  if constexpr (std::is_same_v<T, float>) {
    if (std::isnan(v)) return 0xFFFFFFFFu;
    uint32_t bits = 0;
    if (v != 0.0f) std::memcpy(&bits, &v, sizeof(bits));
    return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
  } else if constexpr (std::is_same_v<T, double>) {
    if (std::isnan(v)) return ~uint64_t{0};
    uint64_t bits = 0;
    if (v != 0.0) std::memcpy(&bits, &v, sizeof(bits));
    return (bits >> 63) ? ~bits : (bits | (uint64_t{1} << 63));
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return static_cast<uint64_t>(v) ^ (uint64_t{1} << 63);
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return static_cast<uint32_t>(v) ^ 0x80000000u;
  } else {
    return static_cast<uint64_t>(v);  // uint8, bool
  }
}

template <typename T>
constexpr bool kWideKey = sizeof(T) == 8;

// Sorts `n` packed keys (value above, index below) by their top 32 bits,
// least significant byte first; `scratch` holds n more. Stable, so equal
// values keep their index order (which the low bits also give).
void radix_sort_packed(uint64_t* keys, uint64_t* scratch, int64_t n) {
  if (n < 64) {
    std::sort(keys, keys + n);
    return;
  }
  int64_t counts[4][256] = {};
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t k = keys[i] >> 32;
    ++counts[0][k & 0xFF];
    ++counts[1][(k >> 8) & 0xFF];
    ++counts[2][(k >> 16) & 0xFF];
    ++counts[3][k >> 24];
  }
  uint64_t* from = keys;
  uint64_t* to = scratch;
  for (int pass = 0; pass < 4; ++pass) {
    int64_t* c = counts[pass];
    const int shift = 32 + 8 * pass;
    if (c[(from[0] >> shift) & 0xFF] == n) continue;  // one digit for all: order unchanged
    int64_t sum = 0;
    for (int b = 0; b < 256; ++b) {
      const int64_t count = c[b];
      c[b] = sum;
      sum += count;
    }
    for (int64_t i = 0; i < n; ++i) to[c[(from[i] >> shift) & 0xFF]++] = from[i];
    std::swap(from, to);
  }
  if (from != keys) std::memcpy(keys, from, static_cast<size_t>(n) * sizeof(uint64_t));
}

struct WideKey {
  uint64_t key;
  int64_t index;
  bool operator<(const WideKey& o) const {
    return key < o.key || (key == o.key && index < o.index);
  }
};

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
  const uint64_t flip = descending ? ~uint64_t{0} : 0;
  // Packed keys need the index in 32 bits.
  const bool packed = !kWideKey<T> && n <= (int64_t{1} << 32);
  parallel_for(0, lanes, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(n, 1)),
               [&](int64_t begin, int64_t end) {
    std::vector<uint64_t> keys, scratch;
    std::vector<WideKey> wide;
    if (packed) {
      keys.resize(static_cast<size_t>(n));
      if (k == n) scratch.resize(static_cast<size_t>(n));
    } else {
      wide.resize(static_cast<size_t>(n));
    }
    for (int64_t lane = begin; lane < end; ++lane) {
      const T* x = in + in_starts[lane];
      auto emit = [&](int64_t j, int64_t i) {
        const int64_t at = out_starts[lane] + j * out_stride;
        out[at] = x[i * in_stride];
        out_index[at] = i;
      };
      if (packed) {
        const uint64_t lane_flip = flip & 0xFFFFFFFFu;
        for (int64_t i = 0; i < n; ++i) {
          keys[i] = ((sort_key(x[i * in_stride]) ^ lane_flip) << 32) | static_cast<uint64_t>(i);
        }
        if (k < n) {
          std::partial_sort(keys.begin(), keys.begin() + k, keys.end());
        } else {
          radix_sort_packed(keys.data(), scratch.data(), n);
        }
        for (int64_t j = 0; j < k; ++j) emit(j, static_cast<int64_t>(keys[j] & 0xFFFFFFFFu));
      } else {
        for (int64_t i = 0; i < n; ++i) wide[i] = {sort_key(x[i * in_stride]) ^ flip, i};
        if (k < n) {
          std::partial_sort(wide.begin(), wide.begin() + k, wide.end());
        } else {
          std::sort(wide.begin(), wide.end());
        }
        for (int64_t j = 0; j < k; ++j) emit(j, wide[j].index);
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

// ---- Medians ---------------------------------------------------------------------

namespace {

template <typename T>
void median_lanes_typed(const Tensor& values, const Tensor& indices, const Tensor& src,
                        int64_t dim, bool ignore_nan) {
  const int64_t n = src.size(dim), stride = src.stride(dim);
  const Offsets in_starts = lane_start_offsets(src, dim);
  const Offsets value_starts = lane_start_offsets(values, dim);
  const Offsets index_starts = lane_start_offsets(indices, dim);
  const T* in = static_cast<const T*>(src.data_ptr());
  T* out = static_cast<T*>(values.data_ptr());
  int64_t* out_index = static_cast<int64_t*>(indices.data_ptr());
  const auto nan = [](T v) { return is_nan_value(v); };
  const int64_t lanes = static_cast<int64_t>(in_starts.size());
  parallel_for(0, lanes, std::max<int64_t>(1, kParallelGrain / n), [&](int64_t begin,
                                                                       int64_t end) {
    const std::unique_ptr<T[]> lane(new T[n]);  // std::vector<bool> has no data()
    Offsets order(n);
    for (int64_t l = begin; l < end; ++l) {
      for (int64_t i = 0; i < n; ++i) lane[i] = in[in_starts[l] + i * stride];
      const T* x = lane.get();
      int64_t pick = 0;
      if (!ignore_nan) {
        pick = std::find_if(x, x + n, nan) - x;
        if (pick == n) {
          std::iota(order.begin(), order.end(), 0);
          const auto nth = order.begin() + (n - 1) / 2;
          std::nth_element(order.begin(), nth, order.end(), [x](int64_t i, int64_t j) {
            return x[i] < x[j] || (x[i] == x[j] && i < j);
          });
          pick = *nth;
        }
      } else {
        // The NaNs sort last; an all-NaN lane takes whichever the selection
        // leaves first, as PyTorch's does.
        const int64_t nans = std::count_if(x, x + n, nan);
        std::iota(order.begin(), order.end(), 0);
        const auto nth = order.begin() + (n - nans - 1) / 2;
        std::nth_element(order.begin(), nth, order.end(), [x, nan](int64_t i, int64_t j) {
          return x[i] < x[j] || (x[i] == x[j] && i < j) || (nan(x[j]) && !nan(x[i]));
        });
        pick = *nth;
      }
      out[value_starts[l]] = x[pick];
      out_index[index_starts[l]] = pick;
    }
  });
}

}  // namespace

void median_lanes(const Tensor& values, const Tensor& indices, const Tensor& src, int64_t dim,
                  bool ignore_nan) {
  dispatch_all(src.dtype(), [&](auto tag) {
    using T = decltype(tag);
    median_lanes_typed<T>(values, indices, src, dim, ignore_nan);
  });
}

// ---- Searching and counting -----------------------------------------------------

namespace {

// The first position in row `seq` (read through `order` when it is not
// null) whose value is >= v (> v with `right`), by PyTorch's comparisons,
// which send a NaN `v` past every element.
template <typename T>
int64_t bound(const T* seq, const int64_t* order, int64_t n, T v, bool right) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    const T x = seq[order ? order[mid] : mid];
    if (right ? !(x > v) : !(x >= v)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

template <typename T, typename Out>
void searchsorted_typed(const Tensor& out, const Tensor& sorted, const Tensor& values,
                        const Tensor& sorter, bool right) {
  const int64_t n = sorted.size(1), m = values.size(1);
  const bool shared = sorted.size(0) == 1;
  const T* seq = static_cast<const T*>(sorted.data_ptr());
  const int64_t* order = sorter.defined() ? static_cast<const int64_t*>(sorter.data_ptr()) : nullptr;
  const T* v = static_cast<const T*>(values.data_ptr());
  Out* dst = static_cast<Out*>(out.data_ptr());
  const int64_t total = values.numel();
  parallel_for(0, total, std::max<int64_t>(1, kParallelGrain / 16), [&](int64_t begin,
                                                                       int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t row = shared ? 0 : i / m;
      dst[i] = static_cast<Out>(bound(seq + row * n, order ? order + row * n : nullptr, n, v[i],
                                      right));
    }
  });
}

}  // namespace

void searchsorted(const Tensor& out, const Tensor& sorted, const Tensor& values,
                  const Tensor& sorter, bool right) {
  dispatch_all(values.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (out.dtype() == kInt32) {
      searchsorted_typed<T, int32_t>(out, sorted, values, sorter, right);
    } else {
      searchsorted_typed<T, int64_t>(out, sorted, values, sorter, right);
    }
  });
}

void bincount(const Tensor& out, const Tensor& input, const Tensor& weights) {
  const int64_t* x = static_cast<const int64_t*>(input.data_ptr());
  const int64_t n = input.numel();
  if (!weights.defined()) {
    int64_t* dst = static_cast<int64_t*>(out.data_ptr());
    for (int64_t i = 0; i < n; ++i) ++dst[x[i]];
    return;
  }
  dispatch_floating(out.dtype(), "bincount", [&](auto tag) {
    using T = decltype(tag);
    const T* w = static_cast<const T*>(weights.data_ptr());
    T* dst = static_cast<T*>(out.data_ptr());
    for (int64_t i = 0; i < n; ++i) dst[x[i]] += w[i];
  });
}

void histc(const Tensor& out, const Tensor& in, double min, double max) {
  dispatch_floating(in.dtype(), "histc", [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(in.data_ptr());
    T* dst = static_cast<T*>(out.data_ptr());
    const int64_t bins = out.numel(), n = in.numel();
    const T lo = static_cast<T>(min), hi = static_cast<T>(max);
    for (int64_t i = 0; i < n; ++i) {
      const T v = x[i];
      if (!(v >= lo && v <= hi)) continue;
      // PyTorch's bin, computed in the input's dtype; the last bin is closed.
      int64_t bin = static_cast<int64_t>((v - lo) * static_cast<T>(bins) / (hi - lo));
      if (bin == bins) bin = bins - 1;
      dst[bin] += 1;
    }
  });
}

}  // namespace torchlet::cpu
