#pragma once

// Warnings from the data utilities (PyTorch's UserWarning): by default
// written to stderr as Python prints them; a handler can take them instead.

#include <functional>
#include <string>

namespace torchlet::data {

/// Receives a warning's message.
using WarningHandler = std::function<void(const std::string& message)>;

/// Sends every later warning to `handler` (an empty handler restores the
/// default, stderr); returns the previous handler (empty for the default).
/// Not synchronized with warnings being issued on other threads.
WarningHandler set_warning_handler(WarningHandler handler);

/// Issues a warning: to the handler, else to stderr as `UserWarning: <message>`.
void warn(const std::string& message);

}  // namespace torchlet::data
