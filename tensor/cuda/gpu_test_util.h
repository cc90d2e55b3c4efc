#pragma once

// Helpers of the GPU tests that hold an op on cuda:0 to the same op on the
// CPU (cuda_ops_test.cc, cuda_newer_ops_test.cc).

#include <cstdint>
#include <functional>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"

namespace torchlet::testing {

using GpuFn = std::function<Tensor(const std::vector<Tensor>&)>;

/// `fn` on the CPU inputs and on their copies on cuda:0 gives the same
/// result: on the GPU, of the same dtype, and close.
inline ::testing::AssertionResult same_on_gpu(const GpuFn& fn, const std::vector<Tensor>& inputs,
                                              double rtol = 1e-5, double atol = 1e-6) {
  const Device gpu("cuda:0");
  std::vector<Tensor> on_gpu;
  for (const Tensor& t : inputs) on_gpu.push_back(t.to(gpu));
  const Tensor expected = fn(inputs);
  const Tensor actual = fn(on_gpu);
  if (actual.device() != gpu) return ::testing::AssertionFailure() << "result on " << actual.device();
  if (actual.dtype() != expected.dtype()) {
    return ::testing::AssertionFailure()
           << "dtype " << actual.dtype() << " vs " << expected.dtype();
  }
  return all_close(actual.to(Device("cpu:0")), expected, rtol, atol);
}

/// Values of `dtype` drawn from `seed`: 4 * randn, rounded for integers,
/// its absolute value for uint8, its sign for bool.
inline Tensor sample(IntArrayRef shape, DType dtype, uint64_t seed = 1) {
  manual_seed(seed);
  Tensor t = randn(shape) * 4;
  if (dtype == kBool) return t.gt(0);
  if (dtype == kUInt8) return t.abs().to(kUInt8);
  return is_floating_point(dtype) ? t.to(dtype) : t.round().to(dtype);
}

}  // namespace torchlet::testing
