#include "tensor/warning.h"

#include <iostream>
#include <mutex>
#include <set>
#include <utility>

namespace torchlet {
namespace {

void print_once(const std::string& message) {
  static std::mutex mutex;
  static auto* printed = new std::set<std::string>();
  std::lock_guard<std::mutex> lock(mutex);
  if (printed->insert(message).second) std::cerr << "UserWarning: " << message << std::endl;
}

WarningHandler& current_handler() {
  thread_local WarningHandler handler;
  return handler;
}

}  // namespace

void warn(const std::string& message) {
  const WarningHandler& handler = current_handler();
  if (handler) {
    handler(message);
  } else {
    print_once(message);
  }
}

WarningHandlerGuard::WarningHandlerGuard(WarningHandler handler)
    : previous_(std::exchange(current_handler(), std::move(handler))) {}

WarningHandlerGuard::~WarningHandlerGuard() { current_handler() = std::move(previous_); }

}  // namespace torchlet
