#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>

#include "tensor/half.h"

namespace torchlet {

/// Element types. Names and promotion rules follow PyTorch.
/// float16 and bfloat16 are stored in two bytes and computed in float32
/// (Note [Reduced floating point] in tensor/cpu/reduced_float.h).
enum class DType : int8_t { kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBool, kFloat16, kBFloat16 };
constexpr DType kFloat32 = DType::kFloat32;
constexpr DType kFloat64 = DType::kFloat64;
constexpr DType kInt64 = DType::kInt64;
constexpr DType kInt32 = DType::kInt32;
constexpr DType kUInt8 = DType::kUInt8;
constexpr DType kBool = DType::kBool;
constexpr DType kFloat16 = DType::kFloat16;
constexpr DType kBFloat16 = DType::kBFloat16;
constexpr DType kFloat = kFloat32;
constexpr DType kDouble = kFloat64;
constexpr DType kLong = kInt64;
constexpr DType kInt = kInt32;
constexpr DType kByte = kUInt8;
constexpr DType kHalf = kFloat16;

/// Bytes per element.
constexpr size_t element_size(DType dtype) {
  // Indexed by DType, in declaration order; inline because every tensor
  // made or viewed asks.
  constexpr size_t kSizes[] = {4, 8, 8, 4, 1, 1, 2, 2};
  return kSizes[static_cast<int>(dtype)];
}
/// "float32", "int64", "float16", "bfloat16", ...
const char* dtype_name(DType dtype);
/// PyTorch's ScalarType name, used in "not implemented for" messages:
/// "Float", "Long", "Half", "BFloat16", ...
const char* scalar_type_name(DType dtype);
/// PyTorch's legacy type name of a CPU tensor of `dtype`, as some of its
/// messages give it: "torch.FloatTensor", "torch.LongTensor", ...
const char* legacy_tensor_type_name(DType dtype);
std::ostream& operator<<(std::ostream& out, DType dtype);

inline bool is_reduced_floating_point(DType d) { return d == kFloat16 || d == kBFloat16; }
inline bool is_floating_point(DType d) {
  return d == kFloat32 || d == kFloat64 || is_reduced_floating_point(d);
}
inline bool is_integral(DType d, bool include_bool) {
  return d == kInt64 || d == kInt32 || d == kUInt8 || (include_bool && d == kBool);
}

/// The smallest dtype both `a` and `b` convert to (PyTorch's promote_types).
DType promote_types(DType a, DType b);

/// The dtype of a C++ element type: dtype_of<float>() == kFloat32.
template <typename T>
constexpr DType dtype_of();
template <> constexpr DType dtype_of<float>() { return kFloat32; }
template <> constexpr DType dtype_of<double>() { return kFloat64; }
template <> constexpr DType dtype_of<int64_t>() { return kInt64; }
template <> constexpr DType dtype_of<int32_t>() { return kInt32; }
template <> constexpr DType dtype_of<uint8_t>() { return kUInt8; }
template <> constexpr DType dtype_of<bool>() { return kBool; }
template <> constexpr DType dtype_of<Half>() { return kFloat16; }
template <> constexpr DType dtype_of<BFloat16>() { return kBFloat16; }

}  // namespace torchlet
