#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace torchlet::cuda {

/// Launches a kernel that writes the `element_size`-byte pattern at `value`
/// (1, 4 or 8 bytes) into `count` elements at `dst` on the current GPU.
cudaError_t launch_fill(void* dst, size_t count, size_t element_size, const void* value);

}  // namespace torchlet::cuda
