#pragma once

// Warnings (PyTorch's UserWarning, c10's TORCH_WARN): an op that accepts an
// input it will reject in a later release, or reinterprets it, says so
// through the current thread's warning handler and carries on. The one
// warning facility of every package (tensor, nn, data, parallel).

#include <functional>
#include <memory>
#include <string>

namespace torchlet {

namespace detail {
struct InstalledWarningHandler;
}  // namespace detail

/// Receives each warning's message.
using WarningHandler = std::function<void(const std::string& message)>;

/// Emits `message` through this thread's handler: by default it is written
/// to stderr as `UserWarning: <message>`, each distinct message once per
/// process (Python's default warning filter); a handler installed by
/// WarningHandlerGuard sees every warning.
void warn(const std::string& message);

/// Forgets which messages the default handler has printed, so each is
/// printed again once (clearing Python's __warningregistry__). For tests.
void reset_warning_registry();

// Note [Warnings from worker threads]
// The handler is part of the thread's ThreadLocalState, which every hand-off
// carries (Note [Threading model] in tensor/parallel.h): work an executor,
// the intra-op pool, the autograd engine or parallel_apply runs for a thread
// warns through that thread's handler. Those warnings can come from several
// threads at once, so one handler is called by one thread at a time; a
// handler must therefore not wait for a thread that may itself warn.

/// Installs `handler` for warnings emitted on this thread, and in work it
/// hands to other threads (Note [Warnings from worker threads]), while the
/// guard lives (tests capture warnings with it), then restores the previous
/// one. An empty `handler` installs the default.
class WarningHandlerGuard {
 public:
  explicit WarningHandlerGuard(WarningHandler handler);
  ~WarningHandlerGuard();
  WarningHandlerGuard(const WarningHandlerGuard&) = delete;
  WarningHandlerGuard& operator=(const WarningHandlerGuard&) = delete;

 private:
  std::shared_ptr<detail::InstalledWarningHandler> previous_;
};

}  // namespace torchlet
