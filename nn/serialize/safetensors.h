#pragma once

#include <map>
#include <string>
#include <string_view>

#include "nn/serialize/state_dict.h"

namespace torchlet {

/// Free-form string pairs stored in a safetensors header under `__metadata__`.
using SafetensorsMetadata = std::map<std::string, std::string>;

/// Writes `tensors` to `path` in the safetensors format (what Python's
/// `safetensors.torch.save_file` writes and `load_file` reads), with
/// `metadata` under `__metadata__`. Tensors may be non-contiguous and on any
/// device; their values are written. The write is atomic: a crash never
/// leaves a partial file under `path` nor damages the file already there.
/// Throws `torchlet::Error` naming the file and the OS error when it cannot
/// write, or naming the tensor when it is undefined or its name is invalid.
void save(const StateDict& tensors, const std::string& path,
          const SafetensorsMetadata& metadata = {});

/// Reads the safetensors file at `path` into tensors on the current device,
/// in the order of the file's header. Every field is validated before
/// anything is allocated: a malformed, truncated or hostile file throws
/// `torchlet::Error` naming the file and the problem.
StateDict load(const std::string& path);

/// The `__metadata__` of the safetensors file at `path` (empty if it has
/// none), validated as `load` does without reading the tensors.
SafetensorsMetadata load_metadata(const std::string& path);

/// `load` for a safetensors file already in memory (Python's
/// `safetensors.torch.load(bytes)`); errors name the file "<buffer>".
StateDict load_buffer(std::string_view bytes);

}  // namespace torchlet
