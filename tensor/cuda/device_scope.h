#pragma once

// Internal (--config=cuda only): makes a GPU current for a scope, for the
// host code that queues work on it.

#include <cuda_runtime_api.h>

namespace torchlet::cuda {

class DeviceScope {
 public:
  explicit DeviceScope(int index) {
    cudaGetDevice(&previous_);
    if (previous_ != index) cudaSetDevice(index);
  }
  ~DeviceScope() {
    int now = 0;
    cudaGetDevice(&now);
    if (now != previous_) cudaSetDevice(previous_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace torchlet::cuda
