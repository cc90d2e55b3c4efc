#include "tensor/warning.h"

#include <iostream>
#include <mutex>
#include <set>
#include <utility>

#include "tensor/thread_local_state.h"

namespace torchlet {
namespace detail {

/// A handler and the lock that keeps its calls one at a time (Note
/// [Warnings from worker threads]).
struct InstalledWarningHandler {
  explicit InstalledWarningHandler(WarningHandler fn) : handler(std::move(fn)) {}
  WarningHandler handler;
  std::mutex mutex;
};

}  // namespace detail
namespace {

struct PrintedWarnings {
  std::mutex mutex;
  std::set<std::string> messages;
};

PrintedWarnings& printed() {
  static auto* registry = new PrintedWarnings();
  return *registry;
}

void print_once(const std::string& message) {
  PrintedWarnings& registry = printed();
  std::lock_guard<std::mutex> lock(registry.mutex);
  if (registry.messages.insert(message).second) {
    std::cerr << "UserWarning: " << message << std::endl;
  }
}

}  // namespace

void warn(const std::string& message) {
  const std::shared_ptr<detail::InstalledWarningHandler> installed =
      thread_local_state().warning_handler;
  if (installed == nullptr) {
    print_once(message);
    return;
  }
  std::lock_guard<std::mutex> lock(installed->mutex);
  installed->handler(message);
}

void reset_warning_registry() {
  PrintedWarnings& registry = printed();
  std::lock_guard<std::mutex> lock(registry.mutex);
  registry.messages.clear();
}

WarningHandlerGuard::WarningHandlerGuard(WarningHandler handler)
    : previous_(std::exchange(
          thread_local_state().warning_handler,
          handler ? std::make_shared<detail::InstalledWarningHandler>(std::move(handler))
                  : nullptr)) {}

WarningHandlerGuard::~WarningHandlerGuard() {
  thread_local_state().warning_handler = std::move(previous_);
}

}  // namespace torchlet
