#pragma once

// Internal to kernels: calls `fn(T{})` with T the C++ type of `dtype`.
// Include only from kernel .cc files; it instantiates `fn` once per dtype.
//
// dispatch_all and dispatch_floating cover the dtypes kernels compute in;
// float16 and bfloat16 reach a computing kernel as float32 (Note [Reduced
// floating point] in tensor/cpu/reduced_float.h) and are refused here with
// PyTorch's "not implemented for 'Half'" error. dispatch_all_and_reduced
// also instantiates Half and BFloat16, for kernels that only move, convert
// or compare elements.

#include <cstdint>

#include "tensor/dtype.h"
#include "tensor/error.h"

namespace torchlet::cpu {

/// Throws `"op" not implemented for 'Half'` (PyTorch's wording), or
/// without the quoted name when `op` is null.
[[noreturn]] inline void throw_not_implemented(const char* op, DType dtype) {
  detail::throw_error(detail::str_cat(op ? detail::str_cat("\"", op, "\" ") : std::string(),
                                      "not implemented for '", scalar_type_name(dtype), "'"));
}

template <typename F>
decltype(auto) dispatch_all(DType dtype, F&& fn) {
  switch (dtype) {
    case kFloat32: return fn(float{});
    case kFloat64: return fn(double{});
    case kInt64: return fn(int64_t{});
    case kInt32: return fn(int32_t{});
    case kUInt8: return fn(uint8_t{});
    case kBool: return fn(bool{});
    default: break;
  }
  throw_not_implemented(nullptr, dtype);
}

template <typename F>
decltype(auto) dispatch_all_and_reduced(DType dtype, F&& fn) {
  switch (dtype) {
    case kFloat16: return fn(Half{});
    case kBFloat16: return fn(BFloat16{});
    default: return dispatch_all(dtype, fn);
  }
}

template <typename F>
decltype(auto) dispatch_floating(DType dtype, const char* op, F&& fn) {
  switch (dtype) {
    case kFloat32: return fn(float{});
    case kFloat64: return fn(double{});
    case kFloat16: case kBFloat16: throw_not_implemented(op, dtype);
    default: break;
  }
  detail::throw_error(detail::str_cat(op, ": expected a floating-point dtype, got ", dtype));
}

}  // namespace torchlet::cpu
