// CPU loops of embedding_bag: the forward runs bags in parallel, each bag's
// rows read straight into its output row; the weight gradient splits the
// weight's rows across threads, each thread adding into its own rows only
// (in entry order, so the sums do not depend on the number of threads).
#include "tensor/cpu/embedding_bag_kernels.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "tensor/error.h"
#include "tensor/parallel.h"

namespace torchlet::cpu {
namespace {

template <typename T>
T* ptr(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

template <typename T>
const T* ptr_or_null(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.data_ptr()) : nullptr;
}

// Calls fn(T{}) with T float or double, the dtypes the loops compute in.
template <typename F>
void dispatch(DType dtype, F&& fn) {
  switch (dtype) {
    case kFloat32: fn(float{}); return;
    case kFloat64: fn(double{}); return;
    default: break;
  }
  detail::throw_error(
      detail::str_cat("embedding_bag: expected a float32 or float64 weight, got ", dtype));
}

// Note [Prefetching embedding rows]
// The rows a bag reads (or a gradient adds into) are scattered over a table
// that is often larger than the caches, and one row is a few cache lines:
// the loops are bound by memory latency, not arithmetic. Each loop asks for
// the row kPrefetchAhead entries ahead before it reads the current one, so
// that several misses are in flight at once.
constexpr int64_t kPrefetchAhead = 8;

template <typename T>
void prefetch_row(const T* row, int64_t dim) {
  const char* p = reinterpret_cast<const char*>(row);
  const int64_t bytes = dim * static_cast<int64_t>(sizeof(T));
  for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(p + b);
}

// Bags per parallel task: about kParallelGrain elements of rows each.
int64_t bag_grain(int64_t entries, int64_t bags, int64_t dim) {
  const int64_t per_bag = std::max<int64_t>(1, entries / std::max<int64_t>(bags, 1)) *
                          std::max<int64_t>(dim, 1);
  return std::max<int64_t>(1, kParallelGrain / per_bag);
}

// Splits `rows` across every intra-op thread once the work (`work`
// elements) is worth it; otherwise one task.
int64_t row_split_grain(int64_t rows, int64_t work) {
  return work <= kParallelGrain ? std::max<int64_t>(rows, 1) : 1;
}

// A place in a bag, as wide as T: the maximum's loop then compares and
// selects in vectors of one width.
template <typename T>
using Position = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;

// One bag of "max": out[d] = the largest row[d] of the bag's entries in
// [begin, end) (not padding), the first on ties; arg[d] = the row holding
// it, -1 when the bag is empty. `place` (dim P's) holds, while the bag
// runs, the place in the bag of each column's maximum. Returns the count
// of entries taken.
template <typename T, typename P>
int64_t max_bag(T* __restrict out, int64_t* __restrict arg, std::vector<P>& place_buffer,
                const T* __restrict w, const int64_t* __restrict ind, int64_t begin,
                int64_t end, int64_t limit, int64_t dim, int64_t pad) {
  P* __restrict place = place_buffer.data();
  int64_t count = 0;
  for (int64_t i = begin; i < end; ++i) {
    if (i + kPrefetchAhead < limit) prefetch_row(w + ind[i + kPrefetchAhead] * dim, dim);
    const int64_t idx = ind[i];
    if (idx == pad) continue;
    const T* __restrict row = w + idx * dim;
    const P at = static_cast<P>(i - begin);
    if (count == 0) {
      std::copy(row, row + dim, out);
      std::fill(place, place + dim, at);
    } else {
      // Only a larger value takes over: the first maximum stays. The place
      // is selected through a mask, which the compiler vectorizes (a plain
      // conditional became a branch per element).
      for (int64_t d = 0; d < dim; ++d) {
        const P larger = -static_cast<P>(row[d] > out[d]);
        place[d] = (at & larger) | (place[d] & ~larger);
        out[d] = row[d] > out[d] ? row[d] : out[d];
      }
    }
    ++count;
  }
  if (count == 0) {
    std::fill(arg, arg + dim, int64_t{-1});
  } else {
    for (int64_t d = 0; d < dim; ++d) arg[d] = ind[begin + place[d]];
  }
  return count;
}

template <typename T>
void forward_rows(T* __restrict out, int64_t* __restrict sizes, int64_t* __restrict arg,
                  const T* __restrict w, const int64_t* __restrict ind,
                  const int64_t* __restrict starts, const T* __restrict psw, int64_t bags,
                  int64_t dim, EmbeddingBagMode mode, int64_t pad) {
  const int64_t entries = starts[bags] - starts[0];
  const int64_t end = starts[bags];
  parallel_for(0, bags, bag_grain(entries, bags, dim), [&](int64_t b0, int64_t b1) {
    std::vector<Position<T>> place(mode == EmbeddingBagMode::kMax ? dim : 0);
    std::vector<int64_t> wide_place;
    if (mode == EmbeddingBagMode::kMax && !std::is_same_v<Position<T>, int64_t>) {
      wide_place.resize(dim);
    }
    for (int64_t b = b0; b < b1; ++b) {
      T* __restrict o = out + b * dim;
      std::fill(o, o + dim, T(0));
      int64_t count = 0;
      if (mode == EmbeddingBagMode::kMax) {
        // A bag too long for an int32 place takes int64 ones.
        if (std::is_same_v<Position<T>, int64_t> ||
            starts[b + 1] - starts[b] <= std::numeric_limits<int32_t>::max()) {
          count = max_bag<T, Position<T>>(o, arg + b * dim, place, w, ind, starts[b],
                                          starts[b + 1], end, dim, pad);
        } else {
          count = max_bag<T, int64_t>(o, arg + b * dim, wide_place, w, ind, starts[b],
                                      starts[b + 1], end, dim, pad);
        }
      } else {
        for (int64_t i = starts[b]; i < starts[b + 1]; ++i) {
          if (i + kPrefetchAhead < end) prefetch_row(w + ind[i + kPrefetchAhead] * dim, dim);
          const int64_t idx = ind[i];
          if (idx == pad) continue;
          const T* __restrict row = w + idx * dim;
          if (psw != nullptr) {
            const T s = psw[i];
            for (int64_t d = 0; d < dim; ++d) o[d] += s * row[d];
          } else {
            for (int64_t d = 0; d < dim; ++d) o[d] += row[d];
          }
          ++count;
        }
        if (mode == EmbeddingBagMode::kMean && count > 0) {
          const T n = static_cast<T>(count);
          for (int64_t d = 0; d < dim; ++d) o[d] /= n;
        }
      }
      sizes[b] = count;
    }
  });
}

template <typename T>
void weight_grad_rows(T* __restrict gw, const T* __restrict g, const int64_t* __restrict ind,
                      const int64_t* __restrict starts, const int64_t* __restrict sizes,
                      const int64_t* __restrict arg, const T* __restrict psw, int64_t rows,
                      int64_t bags, int64_t dim, EmbeddingBagMode mode, int64_t pad,
                      bool scale_grad_by_freq) {
  const int64_t first = starts[0], last = starts[bags];
  const int64_t work = (rows + (mode == EmbeddingBagMode::kMax ? bags : last - first)) * dim;
  parallel_for(0, rows, row_split_grain(rows, work), [&](int64_t r0, int64_t r1) {
    std::fill(gw + r0 * dim, gw + r1 * dim, T(0));
    if (mode == EmbeddingBagMode::kMax) {
      for (int64_t b = 0; b < bags; ++b) {
        const int64_t* a = arg + b * dim;
        const T* gb = g + b * dim;
        for (int64_t d = 0; d < dim; ++d) {
          if (a[d] >= r0 && a[d] < r1) gw[a[d] * dim + d] += gb[d];
        }
      }
      return;
    }
    // How often the bags refer to each of this task's rows.
    std::vector<int64_t> counts;
    if (scale_grad_by_freq) {
      counts.assign(r1 - r0, 0);
      for (int64_t i = first; i < last; ++i) {
        const int64_t idx = ind[i];
        if (idx >= r0 && idx < r1 && idx != pad) ++counts[idx - r0];
      }
    }
    // The entries, a block at a time: first those whose row is this task's
    // (with their bags) gathered without a branch, then their gradients
    // added, the rows to add into fetched ahead.
    constexpr int64_t kBlock = 1024;
    int64_t entry[kBlock], bag_of[kBlock];
    int64_t b = 0;
    for (int64_t i0 = first; i0 < last; i0 += kBlock) {
      const int64_t i1 = std::min(last, i0 + kBlock);
      int64_t m = 0;
      for (int64_t i = i0; i < i1; ++i) {
        while (starts[b + 1] <= i) ++b;
        const int64_t idx = ind[i];
        entry[m] = i;
        bag_of[m] = b;
        m += static_cast<int64_t>((idx >= r0) & (idx < r1) & (idx != pad));
      }
      for (int64_t k = 0; k < m; ++k) {
        if (k + kPrefetchAhead < m) prefetch_row(gw + ind[entry[k + kPrefetchAhead]] * dim, dim);
        const int64_t i = entry[k], idx = ind[i];
        const T* __restrict gb = g + bag_of[k] * dim;
        T factor = mode == EmbeddingBagMode::kMean ? T(1) / static_cast<T>(sizes[bag_of[k]])
                                                   : T(1);
        if (psw != nullptr) factor *= psw[i];
        if (scale_grad_by_freq) factor /= static_cast<T>(counts[idx - r0]);
        T* __restrict o = gw + idx * dim;
        for (int64_t d = 0; d < dim; ++d) o[d] += factor * gb[d];
      }
    }
  });
}

template <typename T>
void psw_grad(T* __restrict out, const T* __restrict g, const T* __restrict w,
              const int64_t* __restrict ind, const int64_t* __restrict starts, int64_t n,
              int64_t bags, int64_t dim, int64_t pad) {
  std::fill(out, out + n, T(0));
  parallel_for(0, bags, bag_grain(starts[bags] - starts[0], bags, dim),
               [&](int64_t b0, int64_t b1) {
                 for (int64_t b = b0; b < b1; ++b) {
                   const T* __restrict gb = g + b * dim;
                   for (int64_t i = starts[b]; i < starts[b + 1]; ++i) {
                     if (i + kPrefetchAhead < starts[bags]) {
                       prefetch_row(w + ind[i + kPrefetchAhead] * dim, dim);
                     }
                     const int64_t idx = ind[i];
                     if (idx == pad) continue;
                     const T* __restrict row = w + idx * dim;
                     T dot = 0;
                     for (int64_t d = 0; d < dim; ++d) dot += gb[d] * row[d];
                     out[i] = dot;
                   }
                 }
               });
}

}  // namespace

int64_t first_decreasing_offset(const Tensor& offsets) {
  const int64_t* o = ptr_or_null<int64_t>(offsets);
  for (int64_t i = 1; i < offsets.numel(); ++i) {
    if (o[i] < o[i - 1]) return i;
  }
  return -1;
}

int64_t first_index_out_of_range(const Tensor& indices, int64_t num_embeddings) {
  const int64_t* ind = ptr_or_null<int64_t>(indices);
  const int64_t n = indices.numel();
  // Most calls are valid: one branch-free pass finds whether any is not.
  bool any = false;
  for (int64_t i = 0; i < n; ++i) {
    any |= static_cast<uint64_t>(ind[i]) >= static_cast<uint64_t>(num_embeddings);
  }
  if (!any) return -1;
  for (int64_t i = 0; i < n; ++i) {
    if (ind[i] < 0 || ind[i] >= num_embeddings) return i;
  }
  return -1;
}

void embedding_bag_forward_rows(const Tensor& output, const Tensor& bag_size,
                                const Tensor& max_rows, const Tensor& weight,
                                const Tensor& indices, const Tensor& starts, EmbeddingBagMode mode,
                                const Tensor& per_sample_weights, int64_t padding_idx) {
  dispatch(weight.dtype(), [&](auto tag) {
    using T = decltype(tag);
    forward_rows<T>(ptr<T>(output), ptr<int64_t>(bag_size),
                    max_rows.defined() ? ptr<int64_t>(max_rows) : nullptr,
                    ptr_or_null<T>(weight), ptr_or_null<int64_t>(indices),
                    ptr_or_null<int64_t>(starts), ptr_or_null<T>(per_sample_weights),
                    output.size(0), output.size(1), mode, padding_idx);
  });
}

void embedding_bag_weight_grad_rows(const Tensor& grad_weight, const Tensor& grad,
                                    const Tensor& indices, const Tensor& starts,
                                    const Tensor& bag_size, const Tensor& max_rows,
                                    EmbeddingBagMode mode, const Tensor& per_sample_weights,
                                    int64_t padding_idx, bool scale_grad_by_freq) {
  dispatch(grad_weight.dtype(), [&](auto tag) {
    using T = decltype(tag);
    weight_grad_rows<T>(ptr<T>(grad_weight), ptr_or_null<T>(grad),
                        ptr_or_null<int64_t>(indices), ptr_or_null<int64_t>(starts),
                        ptr_or_null<int64_t>(bag_size), ptr_or_null<int64_t>(max_rows),
                        ptr_or_null<T>(per_sample_weights), grad_weight.size(0), grad.size(0),
                        grad_weight.size(1), mode, padding_idx, scale_grad_by_freq);
  });
}

void embedding_bag_per_sample_weights_grad(const Tensor& grad_psw, const Tensor& grad,
                                           const Tensor& weight, const Tensor& indices,
                                           const Tensor& starts, int64_t padding_idx) {
  dispatch(grad_psw.dtype(), [&](auto tag) {
    using T = decltype(tag);
    psw_grad<T>(ptr<T>(grad_psw), ptr_or_null<T>(grad), ptr_or_null<T>(weight),
                ptr_or_null<int64_t>(indices), ptr_or_null<int64_t>(starts), grad_psw.numel(),
                grad.size(0), weight.size(1), padding_idx);
  });
}

}  // namespace torchlet::cpu
