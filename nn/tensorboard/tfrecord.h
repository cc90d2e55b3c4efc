#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace torchlet::tensorboard {

/// One TFRecord: the payload's length (uint64, little-endian), the masked
/// CRC-32C of those 8 bytes, the payload, and the payload's masked CRC-32C.
std::string frame_record(std::string_view payload);

/// The payloads of every whole record in a TFRecord file, in order. A last
/// record cut short (a writer killed mid-write) is left out, as
/// TensorBoard's reader does; a complete record whose CRC does not match is
/// an error naming the file and the record's offset.
std::vector<std::string> read_records(const std::string& path);

}  // namespace torchlet::tensorboard
