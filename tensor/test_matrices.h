#pragma once

// Deterministic, well-conditioned test matrices.

#include <cstdint>
#include <vector>

#include "tensor/tensor.h"

namespace torchlet::testing {

/// Irregular, distinct values in [-1, 1] of `dtype`: sin of a quadratic in
/// the element's index (a linear one would make every three consecutive
/// values linearly dependent), plus `diagonal` times the identity on each
/// trailing square block.
inline Tensor wavy(std::vector<int64_t> shape, double diagonal = 0, double phase = 0.3,
                   DType dtype = kFloat64) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  const Tensor i = arange(n, kFloat64);
  Tensor t = i.mul(1.7).add(i.mul(i).mul(0.13)).add(phase).sin().view(shape);
  if (diagonal != 0 && shape.size() >= 2 && shape[shape.size() - 2] == shape.back()) {
    t = t.add(eye(shape.back(), kFloat64).mul(diagonal));
  }
  return t.to(dtype);
}

}  // namespace torchlet::testing
