#include "tensor/dtype.h"

#include <ostream>

namespace torchlet {

size_t element_size(DType dtype) {
  switch (dtype) {
    case kFloat32: return 4;
    case kFloat64: return 8;
    case kInt64: return 8;
    case kInt32: return 4;
    case kUInt8: return 1;
    case kBool: return 1;
  }
  return 0;
}

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case kFloat32: return "float32";
    case kFloat64: return "float64";
    case kInt64: return "int64";
    case kInt32: return "int32";
    case kUInt8: return "uint8";
    case kBool: return "bool";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& out, DType dtype) { return out << dtype_name(dtype); }

DType promote_types(DType a, DType b) {
  // Rows and columns in enum order: f32 f64 i64 i32 u8 b1 (PyTorch's table).
  static constexpr DType kTable[6][6] = {
      {kFloat32, kFloat64, kFloat32, kFloat32, kFloat32, kFloat32},
      {kFloat64, kFloat64, kFloat64, kFloat64, kFloat64, kFloat64},
      {kFloat32, kFloat64, kInt64, kInt64, kInt64, kInt64},
      {kFloat32, kFloat64, kInt64, kInt32, kInt32, kInt32},
      {kFloat32, kFloat64, kInt64, kInt32, kUInt8, kUInt8},
      {kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBool},
  };
  return kTable[static_cast<int>(a)][static_cast<int>(b)];
}

}  // namespace torchlet
