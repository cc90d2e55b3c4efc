#pragma once

// Warnings (PyTorch's UserWarning, c10's TORCH_WARN): an op that accepts an
// input it will reject in a later release, or reinterprets it, says so
// through the current thread's warning handler and carries on.

#include <functional>
#include <string>

namespace torchlet {

/// Receives each warning's message.
using WarningHandler = std::function<void(const std::string& message)>;

/// Emits `message` through this thread's handler: by default it is written
/// to stderr as `UserWarning: <message>`, each distinct message once per
/// process (Python's default warning filter).
void warn(const std::string& message);

/// Installs `handler` for warnings emitted on this thread while the guard
/// lives (tests capture warnings with it), then restores the previous one.
class WarningHandlerGuard {
 public:
  explicit WarningHandlerGuard(WarningHandler handler);
  ~WarningHandlerGuard();
  WarningHandlerGuard(const WarningHandlerGuard&) = delete;
  WarningHandlerGuard& operator=(const WarningHandlerGuard&) = delete;

 private:
  WarningHandler previous_;
};

}  // namespace torchlet
