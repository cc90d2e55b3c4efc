#include "parallel/warning.h"

#include <iostream>
#include <mutex>
#include <set>
#include <utility>

namespace torchlet::parallel {
namespace {

struct WarningState {
  std::mutex mutex;
  WarningHandler handler;
  std::set<std::string> issued;
};

WarningState& state() {
  static auto* s = new WarningState();
  return *s;
}

void print_warning(const std::string& message) {
  std::cerr << "UserWarning: " << message << std::endl;
}

}  // namespace

WarningHandler set_warning_handler(WarningHandler handler) {
  std::lock_guard<std::mutex> lock(state().mutex);
  std::swap(state().handler, handler);
  return handler;
}

void warn_once(const std::string& message) {
  WarningHandler handler;
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    if (!state().issued.insert(message).second) return;
    handler = state().handler;
  }
  if (handler) {
    handler(message);
  } else {
    print_warning(message);
  }
}

void reset_warnings() {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().issued.clear();
}

}  // namespace torchlet::parallel
