#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace torchlet::tensorboard {

// Note [Hand-encoded protobuf]
// Event files hold Event and Summary protocol buffers. They are encoded here
// by hand rather than with protoc-generated code: Debian's protobuf compiler
// would need rules_proto (a download) or a protoc genrule plus libprotobuf at
// link time for every user of SummaryWriter, to write five message types
// with a handful of fields each. The wire format needed is small and stable:
// varints, 64-bit doubles, 32-bit floats and length-delimited fields
// (strings, nested messages, packed repeated doubles). The bytes are tested
// against the ones Python's protobuf (tensorboard's event_pb2) writes for the
// same messages, and the files are read back by tensorboard itself
// (tools/check_tensorboard.sh).

/// Appends protocol-buffer fields, in the order called, to a byte string.
class ProtoEncoder {
 public:
  /// int64/uint64/bool field (wire type 0). Negative values take ten bytes,
  /// as protobuf writes them.
  ProtoEncoder& varint(int field, uint64_t value);
  /// double field (wire type 1).
  ProtoEncoder& float64(int field, double value);
  /// float field (wire type 5).
  ProtoEncoder& float32(int field, float value);
  /// string, bytes or embedded message (wire type 2).
  ProtoEncoder& bytes(int field, std::string_view value);
  /// packed repeated double (wire type 2); nothing for an empty list.
  ProtoEncoder& packed_float64(int field, const std::vector<double>& values);

  const std::string& data() const { return data_; }

 private:
  void key(int field, int wire_type);
  void raw_varint(uint64_t value);
  void raw_fixed64(uint64_t value);

  std::string data_;
};

}  // namespace torchlet::tensorboard
