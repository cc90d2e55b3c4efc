#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>

namespace torchlet {

/// Element types. Names and promotion rules follow PyTorch.
enum class DType : int8_t { kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBool };
constexpr DType kFloat32 = DType::kFloat32;
constexpr DType kFloat64 = DType::kFloat64;
constexpr DType kInt64 = DType::kInt64;
constexpr DType kInt32 = DType::kInt32;
constexpr DType kUInt8 = DType::kUInt8;
constexpr DType kBool = DType::kBool;
constexpr DType kFloat = kFloat32;
constexpr DType kDouble = kFloat64;
constexpr DType kLong = kInt64;
constexpr DType kInt = kInt32;
constexpr DType kByte = kUInt8;

/// Bytes per element.
size_t element_size(DType dtype);
/// "float32", "int64", ...
const char* dtype_name(DType dtype);
std::ostream& operator<<(std::ostream& out, DType dtype);

inline bool is_floating_point(DType d) { return d == kFloat32 || d == kFloat64; }
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

}  // namespace torchlet
