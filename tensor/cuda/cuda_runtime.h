#pragma once

#include <cstddef>
#include <string>

// The CUDA runtime as torchlet uses it. Under --config=cuda these call the
// CUDA runtime (cuda_runtime.cc); otherwise (no_cuda.cc) there are no CUDA
// devices and anything that needs one throws torchlet::Error.
namespace torchlet::cuda {

/// The number of visible GPUs; 0 without a driver or GPU, never throws.
int device_count();

struct DeviceProperties {
  std::string name;
  size_t total_memory = 0;
  int major = 0;
  int minor = 0;
  int multiprocessor_count = 0;
};
/// Properties of GPU `index`; throws torchlet::Error if it does not exist.
DeviceProperties device_properties(int index);

/// Device memory on GPU `index`.
void* allocate(size_t nbytes, int index);
void deallocate(void* ptr, int index);

enum class CopyKind { kHostToDevice, kDeviceToHost, kDeviceToDevice };
/// Copies `nbytes` and waits for the copy to finish.
void copy(void* dst, const void* src, size_t nbytes, CopyKind kind, int device_index);

/// Fills `count` elements of `element_size` bytes (1, 4 or 8) with the bit
/// pattern at `value`, on GPU `index`.
void fill(void* dst, size_t count, size_t element_size, const void* value, int index);

}  // namespace torchlet::cuda
