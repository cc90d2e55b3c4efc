#include "nn/serialize/every_dtype.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

#include "tensor/tensor.h"

namespace torchlet::testing {

StateDict every_dtype() {
  const float inf = std::numeric_limits<float>::infinity();
  StateDict sd;
  sd.insert("f32", from_vector<float>({1.5f, -0.0f, inf, std::nanf(""), 3e-40f, -2.f}, {2, 3}));
  sd.insert("f64", from_vector<double>({1e300, -1e-300, 0.1}, {3}));
  sd.insert("i64", from_vector<int64_t>({std::numeric_limits<int64_t>::min(),
                                          std::numeric_limits<int64_t>::max(), -1},
                                         {3, 1}));
  sd.insert("i32", from_vector<int32_t>({std::numeric_limits<int32_t>::min(), 7}, {2}));
  sd.insert("u8", from_vector<uint8_t>({0, 128, 255}, {1, 3}));
  sd.insert("bool", tensor({true, false, true, true}));
  sd.insert("f16", from_vector<Half>({Half(1.5f), Half(-0.0f), Half(inf), Half(65504.f),
                                      Half(0x0001, Half::FromBits())},
                                     {5}));
  sd.insert("bf16", from_vector<BFloat16>({BFloat16(1.5f), BFloat16(-inf), BFloat16(3e38f)}, {3}));
  return sd;
}

std::string tensor_line(const std::string& name, const Tensor& t) {
  std::string shape;
  for (int64_t d : t.sizes()) shape += (shape.empty() ? "" : ",") + std::to_string(d);
  const Tensor c = t.contiguous();
  const auto* bytes = static_cast<const unsigned char*>(c.data_ptr());
  std::string hex;
  char digits[3];
  for (size_t i = 0; i < static_cast<size_t>(c.numel()) * c.element_size(); ++i) {
    std::snprintf(digits, sizeof(digits), "%02x", bytes[i]);
    hex += digits;
  }
  return detail::str_cat(name, "\t", dtype_name(t.dtype()), "\t", shape, "\t", hex);
}

}  // namespace torchlet::testing
