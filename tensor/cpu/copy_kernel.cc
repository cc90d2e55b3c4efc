#include <cstring>

#include "tensor/cpu/dispatch.h"
#include "tensor/cpu/half_convert.h"
#include "tensor/cpu/kernels.h"
#include "tensor/cpu/loops.h"
#include "tensor/factories.h"

namespace torchlet::cpu {
namespace {

template <typename Out, typename In>
void convert(const StridedLoop& loop) {
  for_each_run(loop, [](char** d, const int64_t* s, int64_t n) {
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
    if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
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

}  // namespace

void copy(const Tensor& dst, const Tensor& src) {
  StridedLoop loop = make_loop({&dst, &src}, dst.sizes());
  if (dst.dtype() == src.dtype()) {
    const int64_t esize = static_cast<int64_t>(dst.element_size());
    for_each_run(loop, [esize](char** d, const int64_t* s, int64_t n) {
      if (s[0] == esize && s[1] == esize) {
        std::memcpy(d[0], d[1], n * esize);
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
