#include "tensor/cuda/stream_state.h"

#include "tensor/cuda/launch.h"

namespace torchlet::cuda {
namespace detail {

thread_local cudaStream_t tls_current_streams[kMaxStreamDevices] = {};

}  // namespace detail

namespace {

__global__ void sleep_kernel(int64_t cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

}  // namespace

cudaError_t launch_sleep(int64_t cycles) {
  sleep_kernel<<<1, 1, 0, launch_stream()>>>(cycles);
  return cudaGetLastError();
}

}  // namespace torchlet::cuda
