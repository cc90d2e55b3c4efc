// CPU kernels of the index ops (tensor/index_ops.cc) and of advanced
// indexing (tensor/indexing.cc). The ops have validated shapes, dtypes and
// devices; the kernels scan indices for the op's bounds messages and move
// elements.
//
// gather and scatter follow PyTorch's CPU scheme: `self` is restrided to the
// index's shape with stride 0 along `dim`, so one strided loop over the index
// visits, for each index element, the lane of `self` it selects from.
#include <cstring>
#include <type_traits>

#include "tensor/cpu/dispatch.h"
#include "tensor/cpu/kernels.h"
#include "tensor/cpu/loops.h"
#include "tensor/parallel.h"

namespace torchlet::cpu {
namespace {

// Calls f(value, position) for every element of an int64 `index`, serially,
// in row-major order.
template <typename F>
void for_each_index(const Tensor& index, F&& f) {
  const StridedLoop loop = make_loop({&index}, index.sizes());
  int64_t position = 0;
  for_each_run(
      loop,
      [&](char** data, const int64_t* strides, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          f(*reinterpret_cast<const int64_t*>(data[0] + i * strides[0]), position++);
        }
      },
      /*parallel=*/false);
}

// `t` restrided to `shape` with stride 0 along `dim`: each element of the
// view is the first element of the lane along `dim` that contains it, so
// adding index * stride(dim) reaches the selected element. 0-dim tensors act
// as 1-element vectors.
Tensor lane_start_view(const Tensor& t, IntArrayRef shape, int64_t dim) {
  const Tensor base = t.dim() == 0 ? t.view({1}) : t;
  SizeVec strides(base.strides().begin(), base.strides().end());
  strides[dim] = 0;
  return base.as_strided(shape, strides);
}

// A 0-dim index acts as a 1-element vector.
Tensor as_vector_if_scalar(const Tensor& t) { return t.dim() == 0 ? t.view({1}) : t; }

// Copies one element of `size` bytes.
inline void copy_element(char* dst, const char* src, size_t size) {
  switch (size) {
    case 8: std::memcpy(dst, src, 8); return;
    case 4: std::memcpy(dst, src, 4); return;
    default: std::memcpy(dst, src, size); return;
  }
}

}  // namespace

std::optional<int64_t> find_index_outside(const Tensor& index, int64_t lo, int64_t hi) {
  const StridedLoop loop = make_loop({&index}, index.sizes());
  std::optional<int64_t> found;
  for_each_run(
      loop,
      [&](char** data, const int64_t* strides, int64_t n) {
        if (found) return;
        for (int64_t i = 0; i < n; ++i) {
          const int64_t at = *reinterpret_cast<const int64_t*>(data[0] + i * strides[0]);
          if (__builtin_expect(at < lo || at >= hi, 0)) {
            found = at;
            return;
          }
        }
      },
      /*parallel=*/false);
  return found;
}

void wrap_indices(const Tensor& out, const Tensor& index, int64_t n) {
  int64_t* w = static_cast<int64_t*>(out.data_ptr());
  for_each_index(index, [&](int64_t i, int64_t position) { w[position] = i < 0 ? i + n : i; });
}

void index_select(const Tensor& out, const Tensor& src, int64_t dim, const Tensor& index) {
  // src viewed as [outer, size, inner], out as [outer, n, inner].
  const int64_t size = src.dim() > 0 ? src.size(dim) : 1;
  const int64_t n = index.numel();
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < dim; ++i) outer *= src.size(i);
  for (int64_t i = dim + 1; i < src.dim(); ++i) inner *= src.size(i);
  const size_t row_bytes = static_cast<size_t>(inner) * src.element_size();
  const char* in = static_cast<const char*>(src.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  const int64_t* pick = static_cast<const int64_t*>(index.data_ptr());
  const int64_t rows = outer * n;
  parallel_for(0, rows, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(inner, 1)),
               [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t o = r / n, j = r % n;
      std::memcpy(dst + r * row_bytes, in + (o * size + pick[j]) * row_bytes, row_bytes);
    }
  });
}

void gather(const Tensor& result, const Tensor& self, int64_t dim, const Tensor& index) {
  const Tensor out = as_vector_if_scalar(result);
  const Tensor src = lane_start_view(self, out.sizes(), dim);
  const int64_t esize = static_cast<int64_t>(self.element_size());
  const int64_t dim_stride = (self.dim() > 0 ? self.stride(dim) : 0) * esize;
  const Tensor idx = as_vector_if_scalar(index);
  const StridedLoop loop = make_loop({&out, &idx, &src}, out.sizes());
  for_each_run(loop, [&](char** data, const int64_t* strides, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t at = *reinterpret_cast<const int64_t*>(data[1] + i * strides[1]);
      copy_element(data[0] + i * strides[0], data[2] + i * strides[2] + at * dim_stride,
                   static_cast<size_t>(esize));
    }
  });
}

void scatter(const Tensor& self, int64_t dim, const Tensor& index_in, const Tensor& src,
             ScatterMode mode) {
  const Tensor index = as_vector_if_scalar(index_in);
  const Tensor dst = lane_start_view(self, index.sizes(), dim);
  const Tensor src_view = as_vector_if_scalar(src).as_strided(
      index.sizes(), as_vector_if_scalar(src).strides());
  const int64_t dim_stride = (self.dim() > 0 ? self.stride(dim) : 0) *
                             static_cast<int64_t>(self.element_size());
  const StridedLoop loop = make_loop({&dst, &index, &src_view}, index.sizes());
  // One loop per mode, so the mode is not tested per element.
  auto run = [&](auto add) {
    dispatch_all_and_reduced(self.dtype(), [&](auto tag) {
      using T = decltype(tag);
      for_each_run(
          loop,
          [&](char** data, const int64_t* strides, int64_t n) {
            for (int64_t i = 0; i < n; ++i) {
              const int64_t at = *reinterpret_cast<const int64_t*>(data[1] + i * strides[1]);
              T* out = reinterpret_cast<T*>(data[0] + i * strides[0] + at * dim_stride);
              const T value = *reinterpret_cast<const T*>(data[2] + i * strides[2]);
              if constexpr (decltype(add)::value) {
                *out = static_cast<T>(*out + value);
              } else {
                *out = value;
              }
            }
          },
          /*parallel=*/false);  // two index entries may name one element
    });
  };
  if (mode == ScatterMode::kAdd) {
    run(std::true_type{});
  } else {
    run(std::false_type{});
  }
}

int64_t count_mask(const Tensor& mask) {
  const StridedLoop loop = make_loop({&mask}, mask.sizes());
  int64_t count = 0;
  for_each_run(
      loop,
      [&](char** data, const int64_t* strides, int64_t n) {
        for (int64_t i = 0; i < n; ++i) count += data[0][i * strides[0]] != 0;
      },
      /*parallel=*/false);
  return count;
}

void masked_select(const Tensor& out, const Tensor& values, const Tensor& mask) {
  const StridedLoop loop = make_loop({&values, &mask}, values.sizes());
  char* dst = static_cast<char*>(out.data_ptr());
  const size_t esize = values.element_size();
  for_each_run(
      loop,
      [&](char** data, const int64_t* strides, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          if (data[1][i * strides[1]] == 0) continue;
          copy_element(dst, data[0] + i * strides[0], esize);
          dst += esize;
        }
      },
      /*parallel=*/false);
}

// ---- Advanced indexing ----------------------------------------------------------

std::optional<int64_t> indices_to_offsets(std::vector<int64_t>& indices, int64_t size,
                                          int64_t stride) {
  for (int64_t& p : indices) {
    if (p < -size || p >= size) return p;
    p = (p < 0 ? p + size : p) * stride;
  }
  return std::nullopt;
}

std::vector<int64_t> masked_offsets(const std::vector<int64_t>& cells,
                                    const std::vector<bool>& mask) {
  std::vector<int64_t> positions;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (mask[i]) positions.push_back(cells[i]);
  }
  return positions;
}

void offset_gather(const Tensor& out, const Tensor& src, const OffsetIndex& ix) {
  dispatch_all_and_reduced(src.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = static_cast<const T*>(src.data_ptr());
    T* dst = static_cast<T*>(out.data_ptr());
    for (int64_t o : ix.outer) {
      for (int64_t p : ix.positions) {
        for (int64_t i : ix.inner) *dst++ = in[o + p + i];
      }
    }
  });
}

void offset_scatter(const Tensor& dst, const Tensor& src, const OffsetIndex& ix,
                    bool accumulate) {
  dispatch_all_and_reduced(dst.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = static_cast<const T*>(src.data_ptr());
    T* base = static_cast<T*>(dst.data_ptr());
    for (int64_t o : ix.outer) {
      for (int64_t p : ix.positions) {
        for (int64_t i : ix.inner) {
          T& out = base[o + p + i];
          if (!accumulate) {
            out = *in;
          } else if constexpr (std::is_same_v<T, bool>) {
            out = out || *in;
          } else {
            out = static_cast<T>(out + *in);
          }
          ++in;
        }
      }
    }
  });
}

}  // namespace torchlet::cpu
