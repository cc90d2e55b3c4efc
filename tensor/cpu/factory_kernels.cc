// CPU kernels of the sequence factories (tensor/factories.cc): arange and
// linspace fill a freshly allocated contiguous 1-D tensor.
#include "tensor/cpu/dispatch.h"
#include "tensor/cpu/kernels.h"

namespace torchlet::cpu {

void arange(const Tensor& out, Scalar start, Scalar step, bool integral) {
  const int64_t n = out.numel();
  const double s = start.to_double(), st = step.to_double();
  dispatch_all_and_reduced(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(out.data_ptr());
    for (int64_t i = 0; i < n; ++i) {
      p[i] = integral ? static_cast<T>(start.to<int64_t>() + i * step.to<int64_t>())
                      : static_cast<T>(s + static_cast<double>(i) * st);
    }
  });
}

void linspace(const Tensor& out, double start, double end) {
  const int64_t steps = out.numel();
  const double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0;
  dispatch_all_and_reduced(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(out.data_ptr());
    // Symmetric evaluation, as PyTorch does: exact at both ends.
    const int64_t half = steps / 2;
    for (int64_t i = 0; i < steps; ++i) {
      p[i] = static_cast<T>(steps == 1    ? start
                            : i < half ? start + step * static_cast<double>(i)
                                       : end - step * static_cast<double>(steps - 1 - i));
    }
  });
}

}  // namespace torchlet::cpu
