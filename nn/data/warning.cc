#include "nn/data/warning.h"

#include <iostream>
#include <utility>

namespace torchlet::data {
namespace {

WarningHandler& current_handler() {
  static auto* handler = new WarningHandler();
  return *handler;
}

}  // namespace

WarningHandler set_warning_handler(WarningHandler handler) {
  return std::exchange(current_handler(), std::move(handler));
}

void warn(const std::string& message) {
  if (current_handler()) {
    current_handler()(message);
    return;
  }
  std::cerr << "UserWarning: " << message << std::endl;
}

}  // namespace torchlet::data
