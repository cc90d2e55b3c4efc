#pragma once

// Shared validation for the op layer (internal to //tensor).

#include <vector>

#include "tensor/tensor_body.h"

namespace torchlet {

/// Throws unless `t` is defined.
void check_defined(const char* op, const Tensor& t);
/// Throws PyTorch's "Expected all tensors to be on the same device" naming
/// `op` and both devices.
void check_same_device(const char* op, const Tensor& a, const Tensor& b);
/// Throws if writing to `t` would write one memory location twice (an
/// expanded tensor).
void check_no_internal_overlap(const char* op, const Tensor& t);
/// `in` itself, or a copy of it when it partially overlaps `out` (so an
/// in-place op never reads an element it already wrote).
Tensor unaliased_input(const Tensor& out, const Tensor& in);
/// Element offsets (in elements) of every position of a strided shape, in
/// row-major order.
std::vector<int64_t> element_offsets(IntArrayRef sizes, IntArrayRef strides);

}  // namespace torchlet
