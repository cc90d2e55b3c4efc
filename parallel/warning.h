#pragma once

#include <functional>
#include <string>

namespace torchlet::parallel {

/// Receives each warning the parallel package issues (Python's
/// warnings.showwarning). The default prints "UserWarning: <message>" on
/// stderr.
using WarningHandler = std::function<void(const std::string& message)>;

/// Installs `handler` (null restores the default); returns the previous one.
WarningHandler set_warning_handler(WarningHandler handler);

/// Issues `message` through the handler the first time it is issued in the
/// process, and never again (Python's default filter shows a warning once
/// per place).
void warn_once(const std::string& message);

/// Forgets which warnings were issued, so each is shown again once
/// (clearing Python's __warningregistry__).
void reset_warnings();

}  // namespace torchlet::parallel
