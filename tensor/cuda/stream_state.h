#pragma once

// Internal (--config=cuda only): each thread's current stream per GPU
// (Note [Streams] in tensor/cuda/stream.h), read by every launcher. Plain
// C++ types, so nvcc compiles this.

#include <cuda_runtime_api.h>

namespace torchlet::cuda {
namespace detail {

/// GPUs with an index below this have a current stream per thread; work
/// for the others goes to their default streams.
constexpr int kMaxStreamDevices = 64;
/// Null: the default stream. Defined in stream_state.cu.
extern thread_local cudaStream_t tls_current_streams[kMaxStreamDevices];

}  // namespace detail

/// The calling thread's current stream of GPU `device`.
inline cudaStream_t current_stream_handle(int device) {
  return device >= 0 && device < detail::kMaxStreamDevices ? detail::tls_current_streams[device]
                                                           : nullptr;
}

/// The calling thread's current stream of the current GPU: where the
/// launchers queue their kernels.
inline cudaStream_t launch_stream() {
  int device = 0;
  cudaGetDevice(&device);
  return current_stream_handle(device);
}

}  // namespace torchlet::cuda
