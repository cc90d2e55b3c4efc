#include <cstring>

#include "tensor/cpu/dispatch.h"
#include "tensor/cpu/kernels.h"
#include "tensor/cpu/loops.h"

namespace torchlet::cpu {

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
  dispatch_all_and_reduced(dst.dtype(), [&](auto out_tag) {
    using out_t = decltype(out_tag);
    dispatch_all_and_reduced(src.dtype(), [&](auto in_tag) {
      using in_t = decltype(in_tag);
      for_each_run(loop, [](char** d, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          *reinterpret_cast<out_t*>(d[0] + i * s[0]) =
              static_cast<out_t>(*reinterpret_cast<const in_t*>(d[1] + i * s[1]));
        }
      });
    });
  });
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
