#pragma once

#include <cstdint>

#include "tensor/tensor_body.h"

namespace torchlet {

/// Seeds the generator of every device, making every random factory and
/// in-place random fill reproducible.
void manual_seed(uint64_t seed);

/// Uniform on [0, 1).
Tensor rand(IntArrayRef sizes, TensorOptions options = {});
/// Standard normal.
Tensor randn(IntArrayRef sizes, TensorOptions options = {});
/// Integers uniform on [low, high); int64 by default.
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, TensorOptions options = {});
Tensor randint(int64_t high, IntArrayRef sizes, TensorOptions options = {});
/// 1 with probability `p` (elementwise, p in [0, 1]), else 0; same dtype as p.
Tensor bernoulli(const Tensor& p);
Tensor bernoulli(IntArrayRef sizes, double p, TensorOptions options = {});
/// A random permutation of 0..n-1 (int64 by default).
Tensor randperm(int64_t n, TensorOptions options = {});
Tensor rand_like(const Tensor& t);
Tensor randn_like(const Tensor& t);

}  // namespace torchlet
