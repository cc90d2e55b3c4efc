#include <algorithm>
#include <cstdint>
#include <cstring>

#include "tensor/cpu/dispatch.h"
#include "tensor/cpu/half_convert.h"
#include "tensor/cpu/kernels.h"
#include "tensor/cpu/loops.h"
#include "tensor/device.h"
#include "tensor/factories.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace torchlet::cpu {
namespace {

// A run that is contiguous on both sides is a plain typed loop, which the
// compiler vectorizes (uint8 images to float: 14 us -> 3 us for 64x784);
// the strided form, with runtime strides, stays scalar.
template <typename Out, typename In>
void convert(const StridedLoop& loop) {
  for_each_run(loop, [](char** d, const int64_t* s, int64_t n) {
    if (s[0] == static_cast<int64_t>(sizeof(Out)) && s[1] == static_cast<int64_t>(sizeof(In))) {
      Out* out = reinterpret_cast<Out*>(d[0]);
      const In* in = reinterpret_cast<const In*>(d[1]);
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(in[i]);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      *reinterpret_cast<Out*>(d[0] + i * s[0]) =
          static_cast<Out>(*reinterpret_cast<const In*>(d[1] + i * s[1]));
    }
  });
}

// `convert` with contiguous runs handed to a bulk (vectorized) conversion.
template <typename Out, typename In>
void convert_bulk(const StridedLoop& loop, void (*bulk)(const In*, Out*, int64_t)) {
  for_each_run(loop, [bulk](char** d, const int64_t* s, int64_t n) {
    if (s[0] == static_cast<int64_t>(sizeof(Out)) && s[1] == static_cast<int64_t>(sizeof(In))) {
      return bulk(reinterpret_cast<const In*>(d[1]), reinterpret_cast<Out*>(d[0]), n);
    }
    for (int64_t i = 0; i < n; ++i) {
      *reinterpret_cast<Out*>(d[0] + i * s[0]) =
          static_cast<Out>(*reinterpret_cast<const In*>(d[1] + i * s[1]));
    }
  });
}

// Between float32 and float16 or bfloat16, one side each.
void convert_reduced(const StridedLoop& loop, DType dst, DType src) {
  if (dst == kFloat16) return convert_bulk<Half, float>(loop, float_to_half);
  if (dst == kBFloat16) return convert_bulk<BFloat16, float>(loop, float_to_bfloat16);
  if (src == kFloat16) return convert_bulk<float, Half>(loop, half_to_float);
  convert_bulk<float, BFloat16>(loop, bfloat16_to_float);
}

// Note [Transposing copies]
// A copy whose destination runs along one dim while the source runs along
// another (t().contiguous(), permute(...).contiguous()) read the source one
// element per cache line, element by element: 3-4 GB/s. It goes in square
// tiles instead, so that the cache lines a tile reads stay in L1 while the
// tile's rows are written, with typed moves rather than a memcpy call per
// element; tile rows split across the intra-op threads.
constexpr int64_t kTile = 16;
constexpr int64_t kMinTransposeNumel = 1024;

// dst[r, c] = src[r, c] for an [rows, cols] block: dst's elements adjacent
// along c, src's along r; strides in bytes.
template <typename T>
void transpose_block(char* dst, const char* src, int64_t rows, int64_t cols,
                     int64_t dst_row_stride, int64_t src_col_stride) {
  const int64_t tile_rows = (rows + kTile - 1) / kTile;
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / (kTile * std::max<int64_t>(cols, 1)));
  parallel_for(0, tile_rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t rt = begin; rt < end; ++rt) {
      const int64_t r0 = rt * kTile, r1 = std::min(rows, r0 + kTile);
      for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
        const int64_t c1 = std::min(cols, c0 + kTile);
        for (int64_t r = r0; r < r1; ++r) {
          T* d = reinterpret_cast<T*>(dst + r * dst_row_stride);
          const char* s = src + r * int64_t{sizeof(T)};
          for (int64_t c = c0; c < c1; ++c) std::memcpy(d + c, s + c * src_col_stride, sizeof(T));
        }
      }
    }
  });
}

// The transposing copy for a same-dtype loop whose last two dims are
// [rows, cols] with the destination contiguous along cols and the source
// along rows; false when the loop is not one.
bool copy_transposed(const StridedLoop& loop, int64_t esize) {
  const int nd = static_cast<int>(loop.shape.size());
  if (nd < 2 || loop.numel < kMinTransposeNumel) return false;
  const SizeVec& ds = loop.strides[0];
  const SizeVec& ss = loop.strides[1];
  if (ds[nd - 1] != esize || ss[nd - 2] != esize || ss[nd - 1] == esize) return false;
  const int64_t rows = loop.shape[nd - 2], cols = loop.shape[nd - 1];
  if (rows < 2 || cols < 2) return false;
  auto block = [&](char* d, const char* s) {
    switch (esize) {
      case 1: return transpose_block<uint8_t>(d, s, rows, cols, ds[nd - 2], ss[nd - 1]);
      case 2: return transpose_block<uint16_t>(d, s, rows, cols, ds[nd - 2], ss[nd - 1]);
      case 4: return transpose_block<uint32_t>(d, s, rows, cols, ds[nd - 2], ss[nd - 1]);
      default: return transpose_block<uint64_t>(d, s, rows, cols, ds[nd - 2], ss[nd - 1]);
    }
  };
  // Any outer dims: one block each.
  const int64_t outer = loop.numel / (rows * cols);
  for (int64_t o = 0; o < outer; ++o) {
    char* d = loop.data[0];
    const char* s = loop.data[1];
    int64_t rest = o;
    for (int dim = nd - 3; dim >= 0; --dim) {
      const int64_t i = rest % loop.shape[dim];
      rest /= loop.shape[dim];
      d += i * ds[dim];
      s += i * ss[dim];
    }
    block(d, s);
  }
  return true;
}

// Note [Copies for another core]
// Virtual CPU devices run on different cores, and a copy onto a device other
// than the calling thread's (replicate's broadcast of the parameters,
// scatter's chunks of the batch) is read next by that device's core. The
// destination is memory that core used last step, so its lines sit in that
// core's cache: ordinary stores must first take each line from there, one
// cross-core round trip per 64 bytes, and on a loaded host that made the
// 344 KB a LeNet step sends to the second device take 110-170 us of the
// caller's time. Streaming (non-temporal) stores write whole lines without
// taking them: there replicate, copy and bookkeeping, then takes 40 us
// (and as long as before on an idle host), and the other core reads the
// lines from memory as it needs them. Small copies (a replica's logits, gather's pieces) and copies
// onto the caller's own device keep ordinary stores: their data is read
// next by the core that wrote it.
constexpr int64_t kStreamingCopyBytes = 16 * 1024;

bool streams_to(const Tensor& dst, int64_t bytes) {
#if defined(__x86_64__)
  return bytes >= kStreamingCopyBytes && dst.device().is_cpu() && dst.device() != current_device();
#else
  (void)dst;
  (void)bytes;
  return false;
#endif
}

/// memcpy with non-temporal stores for the whole cache lines of `d`.
void streaming_copy(char* d, const char* s, int64_t bytes) {
#if defined(__x86_64__)
  const auto misaligned = static_cast<int64_t>(reinterpret_cast<uintptr_t>(d) & 63);
  const int64_t head = std::min(bytes, (64 - misaligned) & 63);
  std::memcpy(d, s, static_cast<size_t>(head));
  d += head;
  s += head;
  bytes -= head;
  const int64_t lines = bytes & ~int64_t{63};
  for (int64_t i = 0; i < lines; i += 64) {
    const auto* in = reinterpret_cast<const __m128i*>(s + i);
    auto* out = reinterpret_cast<__m128i*>(d + i);
    const __m128i a = _mm_loadu_si128(in), b = _mm_loadu_si128(in + 1);
    const __m128i c = _mm_loadu_si128(in + 2), e = _mm_loadu_si128(in + 3);
    _mm_stream_si128(out, a);
    _mm_stream_si128(out + 1, b);
    _mm_stream_si128(out + 2, c);
    _mm_stream_si128(out + 3, e);
  }
  std::memcpy(d + lines, s + lines, static_cast<size_t>(bytes - lines));
  // Streaming stores are weakly ordered: make them visible before whatever
  // hands the destination to its core.
  _mm_sfence();
#else
  std::memcpy(d, s, static_cast<size_t>(bytes));
#endif
}

// Note [4K aliasing]
// A forward memcpy whose destination sits a few bytes past its source, both
// taken modulo 4 KiB (roll's shifted rows, cat's second piece), has every
// load wait on the store just issued before it: the core matches loads to
// pending stores by the low 12 address bits, so the pair looks like a true
// dependency. glibc's memmove took 13x as long for such a row as for one
// offset the other way. Those runs are copied from the end instead, where
// each load's address is below every store still pending.
constexpr int64_t kAliasWindow = 64;
constexpr int64_t kMinBackwardCopyBytes = 256;

void copy_backward(char* d, const char* s, int64_t bytes) {
#if defined(__x86_64__)
  while (bytes >= 64) {
    bytes -= 64;
    const auto* in = reinterpret_cast<const __m128i*>(s + bytes);
    auto* out = reinterpret_cast<__m128i*>(d + bytes);
    const __m128i x3 = _mm_loadu_si128(in + 3), x2 = _mm_loadu_si128(in + 2);
    const __m128i x1 = _mm_loadu_si128(in + 1), x0 = _mm_loadu_si128(in);
    _mm_storeu_si128(out + 3, x3);
    _mm_storeu_si128(out + 2, x2);
    _mm_storeu_si128(out + 1, x1);
    _mm_storeu_si128(out, x0);
  }
#endif
  std::memcpy(d, s, static_cast<size_t>(bytes));
}

/// memcpy of non-overlapping ranges, minding Note [4K aliasing].
void copy_run(char* d, const char* s, int64_t bytes) {
  const auto gap = static_cast<int64_t>(
      (reinterpret_cast<uintptr_t>(d) - reinterpret_cast<uintptr_t>(s)) & 4095);
  if (bytes >= kMinBackwardCopyBytes && gap != 0 && gap < kAliasWindow) {
    return copy_backward(d, s, bytes);
  }
  std::memcpy(d, s, static_cast<size_t>(bytes));
}

}  // namespace

void copy(const Tensor& dst, const Tensor& src) {
  StridedLoop loop = make_loop({&dst, &src}, dst.sizes());
  if (dst.dtype() == src.dtype()) {
    const int64_t esize = static_cast<int64_t>(dst.element_size());
    if ((esize == 1 || esize == 2 || esize == 4 || esize == 8) && copy_transposed(loop, esize)) {
      return;
    }
    const bool stream = streams_to(dst, dst.numel() * esize);
    for_each_run(loop, [esize, stream](char** d, const int64_t* s, int64_t n) {
      if (s[0] == esize && s[1] == esize) {
        if (stream && n * esize >= kStreamingCopyBytes) return streaming_copy(d[0], d[1], n * esize);
        copy_run(d[0], d[1], n * esize);
        return;
      }
      for (int64_t i = 0; i < n; ++i) std::memcpy(d[0] + i * s[0], d[1] + i * s[1], esize);
    });
    return;
  }
  if (is_reduced_floating_point(dst.dtype()) || is_reduced_floating_point(src.dtype())) {
    if (dst.dtype() == kFloat32 || src.dtype() == kFloat32) {
      return convert_reduced(loop, dst.dtype(), src.dtype());
    }
    // Half and BFloat16 convert to and from other types through float (as
    // c10's do), so a float32 hop gives the same values; it keeps the
    // instantiated conversions to four.
    const Tensor hop = empty(dst.sizes(), dst.options().dtype(kFloat32));
    copy(hop, src);
    return copy(dst, hop);
  }
  dispatch_all(dst.dtype(), [&](auto out_tag) {
    dispatch_all(src.dtype(), [&](auto in_tag) {
      convert<decltype(out_tag), decltype(in_tag)>(loop);
    });
  });
}

void copy_rows(const Tensor& dst, const Tensor& row) {
  const size_t bytes = static_cast<size_t>(row.numel()) * dst.element_size();
  char* d = static_cast<char*>(dst.data_ptr());
  const char* r = static_cast<const char*>(row.data_ptr());
  for (int64_t i = 0; i < dst.size(0); ++i) std::memcpy(d + i * bytes, r, bytes);
}

void fill(const Tensor& dst, Scalar value) {
  StridedLoop loop = make_loop({&dst}, dst.sizes());
  dispatch_all_and_reduced(dst.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T v = value.to<T>();
    for_each_run(loop, [v](char** d, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(T)) {
        T* p = reinterpret_cast<T*>(d[0]);
        for (int64_t i = 0; i < n; ++i) p[i] = v;
        return;
      }
      for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(d[0] + i * s[0]) = v;
    });
  });
}

}  // namespace torchlet::cpu
