// CPU kernels of the shape ops (tensor/shape_ops.cc): triangles, flips and
// the index lists of tril_indices and repeat_interleave. Triangles and flips
// only move elements, so they dispatch on the element size, not the dtype
// (all-zero bits are zero in every dtype).
#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "tensor/cpu/cpu_features.h"
#include "tensor/cpu/kernels.h"
#include "tensor/cpu/loops.h"
#include "tensor/parallel.h"

namespace torchlet::cpu {
namespace {

// Calls fn(T{}) with the unsigned type of `size` bytes; false for other sizes.
template <typename F>
bool dispatch_element_size(size_t size, F&& fn) {
  switch (size) {
    case 1: fn(uint8_t{}); return true;
    case 2: fn(uint16_t{}); return true;
    case 4: fn(uint32_t{}); return true;
    case 8: fn(uint64_t{}); return true;
    default: return false;
  }
}

// Whether a write through `t` could reach one location from two positions.
bool has_zero_stride(const Tensor& t) {
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.sizes()[d] > 1 && t.strides()[d] == 0) return true;
  }
  return false;
}

// Offset (elements) of matrix `b` of `t`'s leading dims, in row-major order.
int64_t matrix_offset(const Tensor& t, int64_t b) {
  int64_t offset = 0;
  for (int64_t d = t.dim() - 3; d >= 0 && b > 0; --d) {
    const int64_t size = t.sizes()[d];
    offset += (b % size) * t.strides()[d];
    b /= size;
  }
  return offset;
}

template <typename T>
void triangle_typed(const Tensor& out, const Tensor& in, int64_t diagonal, bool lower) {
  const int64_t rows = out.size(-2), cols = out.size(-1);
  const int64_t out_row = out.stride(-2), out_col = out.stride(-1);
  const int64_t in_row = in.stride(-2), in_col = in.stride(-1);
  const bool inplace = out.is_same(in);
  T* out_data = static_cast<T*>(out.data_ptr());
  const T* in_data = static_cast<const T*>(in.data_ptr());
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t b = i / rows, r = i % rows;
      T* o = out_data + matrix_offset(out, b) + r * out_row;
      const T* x = in_data + matrix_offset(in, b) + r * in_row;
      // Kept: columns [lo, hi).
      const int64_t lo = lower ? 0 : std::clamp<int64_t>(r + diagonal, 0, cols);
      const int64_t hi = lower ? std::clamp<int64_t>(r + diagonal + 1, 0, cols) : cols;
      if (out_col == 1) {
        std::fill(o, o + lo, T{0});
        if (!inplace && in_col == 1) std::memcpy(o + lo, x + lo, (hi - lo) * sizeof(T));
        std::fill(o + hi, o + cols, T{0});
      } else {
        for (int64_t c = 0; c < lo; ++c) o[c * out_col] = T{0};
        for (int64_t c = hi; c < cols; ++c) o[c * out_col] = T{0};
      }
      if (!inplace && !(out_col == 1 && in_col == 1)) {
        for (int64_t c = lo; c < hi; ++c) o[c * out_col] = x[c * in_col];
      }
    }
  };
  const int64_t total = out.numel() / cols;
  if (has_zero_stride(out)) return run(0, total);  // one location, many writes
  parallel_for(0, total, std::max<int64_t>(1, kParallelGrain / cols), run);
}

}  // namespace

void triangle(const Tensor& out, const Tensor& in, int64_t diagonal, bool lower) {
  const bool done = dispatch_element_size(out.element_size(), [&](auto tag) {
    triangle_typed<decltype(tag)>(out, in, diagonal, lower);
  });
  TORCHLET_INTERNAL_ASSERT(done);
}

#if defined(__x86_64__)
// dst[i] = src[-i] for n elements of 4 or 8 bytes, a vector of 32 bytes
// at a time, its lanes reversed (a flipped last dim: a loop GCC leaves
// scalar, or 4-wide in baseline x86-64).
template <int kSize>
__attribute__((target("avx2"))) void reverse_copy_avx2(char* dst, const char* src, int64_t n) {
  static_assert(kSize == 4 || kSize == 8);
  constexpr int64_t kLanes = 32 / kSize;
  const __m256i reverse = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0);
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const __m256i v =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src - (i + kLanes - 1) * kSize));
    const __m256i r = kSize == 4 ? _mm256_permutevar8x32_epi32(v, reverse)
                                 : _mm256_permute4x64_epi64(v, 0x1B);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i * kSize), r);
  }
  for (; i < n; ++i) std::memcpy(dst + i * kSize, src - i * kSize, kSize);
}
#endif

void flip(const Tensor& out, const Tensor& in, const std::vector<bool>& flipped) {
  // A loop over (out, in) where in's flipped dims start at their last
  // element and step backwards; dims merge where both operands allow it.
  const int64_t esize = static_cast<int64_t>(out.element_size());
  char* src = static_cast<char*>(in.data_ptr());
  StridedLoop loop;
  loop.operands = 2;
  loop.numel = out.numel();
  for (int64_t d = 0; d < out.dim(); ++d) {
    const int64_t size = out.sizes()[d];
    if (size == 1) continue;
    const int64_t out_stride = out.strides()[d] * esize;
    int64_t in_stride = in.strides()[d] * esize;
    if (flipped[static_cast<size_t>(d)]) {
      src += (size - 1) * in_stride;
      in_stride = -in_stride;
    }
    if (!loop.shape.empty() && loop.strides[0].back() == out_stride * size &&
        loop.strides[1].back() == in_stride * size) {
      loop.shape.back() *= size;
      loop.strides[0].back() = out_stride;
      loop.strides[1].back() = in_stride;
      continue;
    }
    loop.shape.push_back(size);
    loop.strides[0].push_back(out_stride);
    loop.strides[1].push_back(in_stride);
  }
  loop.data[0] = static_cast<char*>(out.data_ptr());
  loop.data[1] = src;
  const bool done = dispatch_element_size(out.element_size(), [&](auto tag) {
    using T = decltype(tag);
    for_each_run(loop, [](char** data, const int64_t* strides, int64_t n) {
      constexpr int64_t size = sizeof(T);
      T* o = reinterpret_cast<T*>(data[0]);
      const T* x = reinterpret_cast<const T*>(data[1]);
      if (strides[0] == size && strides[1] == size) {
        std::memcpy(o, x, n * size);
      } else if (strides[0] == size && strides[1] == -size) {
#if defined(__x86_64__)
        if constexpr (size == 4 || size == 8) {
          if (cpu_has_avx2()) return reverse_copy_avx2<size>(data[0], data[1], n);
        }
#endif
        for (int64_t i = 0; i < n; ++i) o[i] = x[-i];
      } else {
        for (int64_t i = 0; i < n; ++i) {
          *reinterpret_cast<T*>(data[0] + i * strides[0]) =
              *reinterpret_cast<const T*>(data[1] + i * strides[1]);
        }
      }
    });
  });
  TORCHLET_INTERNAL_ASSERT(done);
}

void triangle_indices(const Tensor& out, int64_t row, int64_t col, int64_t offset, bool lower) {
  const int64_t count = out.size(1);
  int64_t* rows = static_cast<int64_t*>(out.data_ptr());
  int64_t* cols = rows + count;
  int64_t k = 0;
  for (int64_t r = 0; r < row; ++r) {
    const int64_t begin = lower ? 0 : std::clamp<int64_t>(r + offset, 0, col);
    const int64_t end = lower ? std::clamp<int64_t>(r + offset + 1, 0, col) : col;
    for (int64_t c = begin; c < end; ++c, ++k) {
      rows[k] = r;
      cols[k] = c;
    }
  }
}

void repeat_indices(const Tensor& out, const Tensor& counts) {
  const int64_t* n = static_cast<const int64_t*>(counts.data_ptr());
  int64_t* o = static_cast<int64_t*>(out.data_ptr());
  for (int64_t i = 0; i < counts.numel(); ++i) o = std::fill_n(o, n[i], i);
}

}  // namespace torchlet::cpu
