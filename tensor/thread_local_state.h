#pragma once

#include <memory>

#include "tensor/device.h"

namespace torchlet {

namespace detail {
struct InstalledWarningHandler;  // tensor/warning.cc
}  // namespace detail

/// Everything a thread carries that work it hands to another thread must
/// see: the current device (DeviceGuard), autograd's grad mode
/// (NoGradGuard) and the warning handler (WarningHandlerGuard). It lives
/// here, below autograd, so that executors and the intra-op pool can carry
/// it without knowing what each field means; see
/// Note [Threading model] in tensor/parallel.h. A new per-thread setting is
/// a new field here, and every hand-off carries it.
struct ThreadLocalState {
  /// current_device().
  Device device{kCPU, 0};
  /// autograd's is_grad_enabled().
  bool grad_enabled = true;
  /// The handler WarningHandlerGuard installed (tensor/warning.h); null for
  /// the default. Shared, so work handed to another thread warns through
  /// the handler of the thread that handed it over; copying a null one is
  /// free, so the common case costs nothing.
  std::shared_ptr<detail::InstalledWarningHandler> warning_handler;
  /// Whether set_flush_denormal(true) is in force (tensor/parallel.h):
  /// floating-point subnormals read and computed as zero.
  bool flush_denormal = false;
};

namespace detail {
extern thread_local ThreadLocalState tls_state;

/// The calling thread's floating-point control word (MXCSR on x86), 0
/// where there is none.
unsigned float_control();
/// Sets it to `control` (a value float_control() returned).
void set_float_control(unsigned control);
/// `control` with flushing of subnormals to zero on or off; `control`
/// itself where the CPU cannot flush them.
unsigned with_flush_denormal(unsigned control, bool on);
}  // namespace detail

/// The calling thread's state (a reference: reads and writes act on it).
inline ThreadLocalState& thread_local_state() { return detail::tls_state; }

/// Installs `state` on the calling thread for its lifetime, then restores
/// what was there (RAII). Used where a worker runs submitted work.
class ThreadLocalStateGuard {
 public:
  explicit ThreadLocalStateGuard(const ThreadLocalState& state) : previous_(detail::tls_state) {
    // The control word is touched only when the setting differs, so a
    // thread that inherited flushing from the thread that created it keeps
    // it unless work handed over says otherwise.
    if (state.flush_denormal != previous_.flush_denormal) {
      control_ = detail::float_control();
      detail::set_float_control(detail::with_flush_denormal(control_, state.flush_denormal));
      restore_control_ = true;
    }
    detail::tls_state = state;
  }
  ~ThreadLocalStateGuard() {
    detail::tls_state = previous_;
    if (restore_control_) detail::set_float_control(control_);
  }
  ThreadLocalStateGuard(const ThreadLocalStateGuard&) = delete;
  ThreadLocalStateGuard& operator=(const ThreadLocalStateGuard&) = delete;

 private:
  ThreadLocalState previous_;
  unsigned control_ = 0;
  bool restore_control_ = false;
};

}  // namespace torchlet
