// The GPU products' and convolutions' switches (tensor/cuda/cuda_runtime.h),
// the same with or without --config=cuda.
#include <atomic>
#include <cstdint>

#include "tensor/cuda/cuda_runtime.h"

namespace torchlet::cuda {
namespace {
std::atomic<bool> allow_tf32{false};
std::atomic<bool> allow_fp16_reduction{true};
std::atomic<bool> allow_bf16_reduction{true};
std::atomic<bool> cudnn_on{true};
// Below this, convolutions skip cuDNN (see cuda_runtime.h).
std::atomic<int64_t> cudnn_min{int64_t{1} << 27};
std::atomic<bool> cudnn_tf32{true};
std::atomic<bool> cudnn_deterministic_only{false};
}  // namespace

void set_matmul_allow_tf32(bool allow) { allow_tf32.store(allow, std::memory_order_relaxed); }
bool matmul_allow_tf32() { return allow_tf32.load(std::memory_order_relaxed); }
void set_matmul_allow_fp16_reduced_precision_reduction(bool allow) {
  allow_fp16_reduction.store(allow, std::memory_order_relaxed);
}
bool matmul_allow_fp16_reduced_precision_reduction() {
  return allow_fp16_reduction.load(std::memory_order_relaxed);
}
void set_matmul_allow_bf16_reduced_precision_reduction(bool allow) {
  allow_bf16_reduction.store(allow, std::memory_order_relaxed);
}
bool matmul_allow_bf16_reduced_precision_reduction() {
  return allow_bf16_reduction.load(std::memory_order_relaxed);
}

void set_cudnn_enabled(bool enabled) { cudnn_on.store(enabled, std::memory_order_relaxed); }
bool cudnn_enabled() { return cudnn_on.load(std::memory_order_relaxed); }
void set_cudnn_min_macs(int64_t macs) { cudnn_min.store(macs, std::memory_order_relaxed); }
int64_t cudnn_min_macs() { return cudnn_min.load(std::memory_order_relaxed); }
void set_cudnn_allow_tf32(bool allow) { cudnn_tf32.store(allow, std::memory_order_relaxed); }
bool cudnn_allow_tf32() { return cudnn_tf32.load(std::memory_order_relaxed); }
void set_cudnn_deterministic(bool deterministic) {
  cudnn_deterministic_only.store(deterministic, std::memory_order_relaxed);
}
bool cudnn_deterministic() { return cudnn_deterministic_only.load(std::memory_order_relaxed); }

}  // namespace torchlet::cuda
