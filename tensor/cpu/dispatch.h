#pragma once

// Internal to kernels: calls `fn(T{})` with T the C++ type of `dtype`.
// Include only from kernel .cc files; it instantiates `fn` once per dtype.

#include <cstdint>

#include "tensor/dtype.h"
#include "tensor/error.h"

namespace torchlet::cpu {

template <typename F>
decltype(auto) dispatch_all(DType dtype, F&& fn) {
  switch (dtype) {
    case kFloat32: return fn(float{});
    case kFloat64: return fn(double{});
    case kInt64: return fn(int64_t{});
    case kInt32: return fn(int32_t{});
    case kUInt8: return fn(uint8_t{});
    case kBool: return fn(bool{});
  }
  TORCHLET_INTERNAL_ASSERT(false, "unknown dtype");
  return fn(float{});
}

template <typename F>
decltype(auto) dispatch_floating(DType dtype, const char* op, F&& fn) {
  switch (dtype) {
    case kFloat32: return fn(float{});
    case kFloat64: return fn(double{});
    default: break;
  }
  detail::throw_error(detail::str_cat(op, ": expected a floating-point dtype, got ", dtype));
}

}  // namespace torchlet::cpu
