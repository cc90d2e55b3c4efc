#include "tensor/dtype.h"

#include <ostream>

namespace torchlet {

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case kFloat32: return "float32";
    case kFloat64: return "float64";
    case kInt64: return "int64";
    case kInt32: return "int32";
    case kUInt8: return "uint8";
    case kBool: return "bool";
    case kFloat16: return "float16";
    case kBFloat16: return "bfloat16";
  }
  return "unknown";
}

const char* legacy_tensor_type_name(DType dtype) {
  switch (dtype) {
    case kFloat32: return "torch.FloatTensor";
    case kFloat64: return "torch.DoubleTensor";
    case kInt64: return "torch.LongTensor";
    case kInt32: return "torch.IntTensor";
    case kUInt8: return "torch.ByteTensor";
    case kBool: return "torch.BoolTensor";
    case kFloat16: return "torch.HalfTensor";
    case kBFloat16: return "torch.BFloat16Tensor";
  }
  return "?";
}

const char* scalar_type_name(DType dtype) {
  switch (dtype) {
    case kFloat32: return "Float";
    case kFloat64: return "Double";
    case kInt64: return "Long";
    case kInt32: return "Int";
    case kUInt8: return "Byte";
    case kBool: return "Bool";
    case kFloat16: return "Half";
    case kBFloat16: return "BFloat16";
  }
  return "Unknown";
}

std::ostream& operator<<(std::ostream& out, DType dtype) { return out << dtype_name(dtype); }

DType promote_types(DType a, DType b) {
  // Rows and columns in enum order: f32 f64 i64 i32 u8 b1 f16 bf16
  // (PyTorch's table: float16 with bfloat16 meet in float32).
  constexpr DType f4 = kFloat32, f8 = kFloat64, i8 = kInt64, i4 = kInt32, u1 = kUInt8,
                  b1 = kBool, f2 = kFloat16, bf = kBFloat16;
  static constexpr DType kTable[8][8] = {
      /* f4 */ {f4, f8, f4, f4, f4, f4, f4, f4},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8},
      /* i8 */ {f4, f8, i8, i8, i8, i8, f2, bf},
      /* i4 */ {f4, f8, i8, i4, i4, i4, f2, bf},
      /* u1 */ {f4, f8, i8, i4, u1, u1, f2, bf},
      /* b1 */ {f4, f8, i8, i4, u1, b1, f2, bf},
      /* f2 */ {f4, f8, f2, f2, f2, f2, f2, f4},
      /* bf */ {f4, f8, bf, bf, bf, bf, f4, bf},
  };
  return kTable[static_cast<int>(a)][static_cast<int>(b)];
}

}  // namespace torchlet
