#include "nn/tensorboard/proto_encoder.h"

#include <cstring>

namespace torchlet::tensorboard {

void ProtoEncoder::key(int field, int wire_type) {
  raw_varint(static_cast<uint64_t>(field) << 3 | static_cast<uint64_t>(wire_type));
}

void ProtoEncoder::raw_varint(uint64_t value) {
  while (value >= 0x80) {
    data_.push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  data_.push_back(static_cast<char>(value));
}

void ProtoEncoder::raw_fixed64(uint64_t value) {
  for (int i = 0; i < 8; ++i) data_.push_back(static_cast<char>(value >> (8 * i)));
}

ProtoEncoder& ProtoEncoder::varint(int field, uint64_t value) {
  key(field, 0);
  raw_varint(value);
  return *this;
}

ProtoEncoder& ProtoEncoder::float64(int field, double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  key(field, 1);
  raw_fixed64(bits);
  return *this;
}

ProtoEncoder& ProtoEncoder::float32(int field, float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  key(field, 5);
  for (int i = 0; i < 4; ++i) data_.push_back(static_cast<char>(bits >> (8 * i)));
  return *this;
}

ProtoEncoder& ProtoEncoder::bytes(int field, std::string_view value) {
  key(field, 2);
  raw_varint(value.size());
  data_.append(value);
  return *this;
}

ProtoEncoder& ProtoEncoder::packed_float64(int field, const std::vector<double>& values) {
  if (values.empty()) return *this;
  key(field, 2);
  raw_varint(values.size() * sizeof(double));
  for (double v : values) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    raw_fixed64(bits);
  }
  return *this;
}

}  // namespace torchlet::tensorboard
