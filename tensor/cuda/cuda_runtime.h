#pragma once

#include <cstddef>
#include <cstdint>
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

/// Device memory on GPU `index`, from its caching allocator (Note [CUDA
/// caching allocator] in tensor/cuda/caching_allocator.h): throws
/// torchlet::Error "CUDA out of memory. Tried to allocate ..." when the
/// GPU has too little left even after its cache went back.
void* allocate(size_t nbytes, int index);
void deallocate(void* ptr, int index);
/// Marks the memory at `ptr`, from allocate() on GPU `index`, as used by
/// the stream `stream_handle` (a cudaStream_t; null for the default) of
/// GPU `stream_device` too (Tensor::record_stream).
void record_stream(void* ptr, int index, int stream_device, void* stream_handle);

/// Bytes held by tensors on GPU `index` (torch.cuda.memory_allocated).
size_t memory_allocated(int index);
/// The peak of memory_allocated since the start or the last reset.
size_t max_memory_allocated(int index);
/// Bytes the caching allocator holds on GPU `index`, in use or cached
/// (torch.cuda.memory_reserved).
size_t memory_reserved(int index);
/// The peak of memory_reserved since the start or the last reset.
size_t max_memory_reserved(int index);
/// Restarts both peaks of GPU `index` from the current figures.
void reset_peak_memory_stats(int index);
/// Gives every GPU's cached, unused memory back to the driver
/// (torch.cuda.empty_cache); tensors keep theirs.
void empty_cache();

/// Whether float32 products on GPUs may use TF32 tensor cores
/// (torch.backends.cuda.matmul.allow_tf32): off by default, as in PyTorch
/// 1.13, so float32 products are exact float32 products.
void set_matmul_allow_tf32(bool allow);
bool matmul_allow_tf32();

/// Whether float16 (bfloat16) products on GPUs may sum partial results in
/// float16 (bfloat16) when cuBLAS splits the inner dimension
/// (torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction, and
/// PyTorch 2's allow_bf16_reduced_precision_reduction): on by default, as
/// in PyTorch (1.13 has no bfloat16 switch and always allows them). Off,
/// every sum stays in float32 and the product is rounded once, as the
/// CPU's.
void set_matmul_allow_fp16_reduced_precision_reduction(bool allow);
bool matmul_allow_fp16_reduced_precision_reduction();
void set_matmul_allow_bf16_reduced_precision_reduction(bool allow);
bool matmul_allow_bf16_reduced_precision_reduction();

/// Whether convolutions on GPUs may go through cuDNN where its library
/// (libcudnn.so.9) can be loaded (torch.backends.cudnn.enabled): on by
/// default, as in PyTorch. Off, and for shapes no cuDNN algorithm takes,
/// they run as im2col + cuBLAS.
void set_cudnn_enabled(bool enabled);
bool cudnn_enabled();
/// torchlet's own switch, no PyTorch counterpart: a convolution pass with
/// fewer multiply-adds than this (batch x out_channels x output plane x
/// in_channels / groups x kernel) skips cuDNN even where it is enabled. A
/// cuDNN 9 call costs tens of microseconds of host time, more than im2col
/// + cuBLAS take for a small convolution: on an H200, LeNet-5's layers
/// (7.5M and 15M a pass) train faster without cuDNN, a 64-channel 3x3 layer
/// at 56x56 (116M a pass a sample) faster with it from batch 2 or so.
/// Default 2^27 (134M); 0 sends every convolution to cuDNN.
void set_cudnn_min_macs(int64_t macs);
int64_t cudnn_min_macs();
/// Whether cuDNN may use TF32 tensor cores for float32 convolutions
/// (torch.backends.cudnn.allow_tf32): on by default, as in PyTorch.
void set_cudnn_allow_tf32(bool allow);
bool cudnn_allow_tf32();
/// Whether cuDNN convolutions must be deterministic
/// (torch.backends.cudnn.deterministic): off by default.
void set_cudnn_deterministic(bool deterministic);
bool cudnn_deterministic();
/// Whether libcudnn of a usable version was found (always false without
/// --config=cuda), and its version (e.g. 91900 for 9.19.0), else 0.
bool cudnn_is_available();
int cudnn_version();

/// Waits until every kernel and copy queued on GPU `index` has finished
/// (torch.cuda.synchronize); reports an error a kernel raised meanwhile.
void synchronize(int index);

enum class CopyKind { kHostToDevice, kDeviceToHost, kDeviceToDevice };
/// Copies `nbytes` on the calling thread's current stream of GPU
/// `device_index` (the destination's, or the source's when copying to the
/// host) and waits for the copy to finish. Between two GPUs, `src_device`
/// names the source's, whose current stream's queued work the copy waits
/// for.
void copy(void* dst, const void* src, size_t nbytes, CopyKind kind, int device_index,
          int src_device = -1);
/// Queues the copy on the calling thread's current stream of GPU
/// `device_index` and returns at once
/// (non_blocking): its host side must be page-locked (host_allocate), and
/// stay untouched until the GPU is synchronized; kernels queued after it
/// on that GPU see its result.
void copy_async(void* dst, const void* src, size_t nbytes, CopyKind kind, int device_index,
                int src_device = -1);

/// Page-locked host memory (cudaHostAlloc, for pin_memory): GPUs copy to
/// and from it directly, and asynchronously. Freeing waits for the GPUs'
/// queued work, so no copy from it is still running.
void* host_allocate(size_t nbytes);
void host_deallocate(void* ptr);

/// Queues a fill of `count` elements of `element_size` bytes (1, 2, 4 or
/// 8) with the bit pattern at `value` on the calling thread's current
/// stream of GPU `index`.
void fill(void* dst, size_t count, size_t element_size, const void* value, int index);

}  // namespace torchlet::cuda
