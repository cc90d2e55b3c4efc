#pragma once

// The geometry a CUDA kernel walks: up to kMaxLoopOperands strided operands
// of one (broadcast, coalesced) shape, operand 0 the output; byte strides.
// Passed to kernels by value. The host side fills it from the CPU loop's
// coalesced geometry (cpu::make_loop), so a contiguous tensor is one dim
// and a broadcast bias two.
//
// Plain C++17: nvcc compiles it into the kernels, the host compiler into
// the tests that check the offsets (tensor/cuda/elementwise_ops_test.cc).

#include <cstdint>

#include "tensor/cuda/host_device.h"

namespace torchlet::cuda {

constexpr int kMaxLoopDims = 16;
constexpr int kMaxLoopOperands = 4;

struct LoopArgs {
  int ndim = 0;      // innermost last
  int operands = 0;
  int64_t numel = 0;
  int64_t shape[kMaxLoopDims] = {};
  int64_t strides[kMaxLoopOperands][kMaxLoopDims] = {};  // bytes
  char* data[kMaxLoopOperands] = {};
  // Operands that are numbers from the host (bit i for operand i): their
  // value, in the operand's dtype, travels here and their strides are 0.
  unsigned constant_mask = 0;
  uint64_t constants[kMaxLoopOperands] = {};
};

/// Byte offsets from each operand's data of the element at row-major
/// position `index` (< numel).
TORCHLET_HOST_DEVICE void loop_offsets(const LoopArgs& loop, int64_t index,
                                       int64_t (&offsets)[kMaxLoopOperands]) {
  for (int op = 0; op < kMaxLoopOperands; ++op) offsets[op] = 0;
  for (int d = loop.ndim - 1; d >= 0; --d) {
    const int64_t size = loop.shape[d];
    const int64_t i = d == 0 ? index : index % size;
    index = d == 0 ? 0 : index / size;
    for (int op = 0; op < loop.operands; ++op) offsets[op] += i * loop.strides[op][d];
  }
}

/// True when every operand is one dense run (stride = its element size) or
/// one broadcast value (stride 0): a kernel may index it as a flat array.
inline bool is_flat(const LoopArgs& loop, const int64_t (&element_sizes)[kMaxLoopOperands]) {
  if (loop.ndim > 1) return false;
  if (loop.ndim == 0) return true;
  for (int op = 0; op < loop.operands; ++op) {
    const int64_t s = loop.strides[op][0];
    if (s != element_sizes[op] && !(op > 0 && s == 0)) return false;
  }
  return true;
}

}  // namespace torchlet::cuda
