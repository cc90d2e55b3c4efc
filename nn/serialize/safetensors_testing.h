#pragma once

// Test-only hooks into the safetensors writer (nn/serialize/safetensors.cc).

#include <cstddef>
#include <string>

namespace torchlet::detail {

/// Called by `save()` on the temporary file after the header and after each
/// tensor's data are written (`tensors_written` counts the tensors done).
using SaveHook = void (*)(const std::string& temp_path, size_t tensors_written);

/// Installs `hook` for every later `save()` in this process (null removes it).
/// Tests use it to stop a writer in the middle of a save.
void set_save_hook(SaveHook hook);

}  // namespace torchlet::detail
