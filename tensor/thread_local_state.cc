#include "tensor/thread_local_state.h"

#if defined(__x86_64__)
#include <xmmintrin.h>
#define TORCHLET_HAS_MXCSR 1
#endif

#include "tensor/parallel.h"

namespace torchlet {
namespace detail {

thread_local ThreadLocalState tls_state;

#if defined(TORCHLET_HAS_MXCSR)
namespace {
// MXCSR's denormals-are-zero (subnormal inputs read as zero) and
// flush-to-zero (subnormal results written as zero) bits; every x86-64 CPU
// has both.
constexpr unsigned kDenormalsAreZero = 0x0040;
constexpr unsigned kFlushToZero = 0x8000;
}  // namespace
#endif

unsigned float_control() {
#if defined(TORCHLET_HAS_MXCSR)
  return _mm_getcsr();
#else
  return 0;
#endif
}

void set_float_control(unsigned control) {
#if defined(TORCHLET_HAS_MXCSR)
  _mm_setcsr(control);
#else
  (void)control;
#endif
}

unsigned with_flush_denormal(unsigned control, bool on) {
#if defined(TORCHLET_HAS_MXCSR)
  control &= ~(kDenormalsAreZero | kFlushToZero);
  return on ? control | kDenormalsAreZero | kFlushToZero : control;
#else
  (void)on;
  return control;
#endif
}

}  // namespace detail

bool set_flush_denormal(bool on) {
#if defined(TORCHLET_HAS_MXCSR)
  detail::set_float_control(detail::with_flush_denormal(detail::float_control(), on));
  detail::tls_state.flush_denormal = on;
  return true;
#else
  (void)on;
  return false;
#endif
}

}  // namespace torchlet
