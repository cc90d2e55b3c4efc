#include "nn/tensorboard/tfrecord.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>

#include "nn/tensorboard/crc32c.h"
#include "tensor/error.h"

namespace torchlet::tensorboard {
namespace {

void put_le(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>(value >> (8 * i)));
}

uint64_t get_le(std::string_view in, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= uint64_t{static_cast<unsigned char>(in[i])} << (8 * i);
  return value;
}

}  // namespace

std::string frame_record(std::string_view payload) {
  std::string length;
  put_le(length, payload.size(), 8);
  std::string record = length;
  put_le(record, masked_crc32c(length), 4);
  record.append(payload);
  put_le(record, masked_crc32c(payload), 4);
  return record;
}

std::vector<std::string> read_records(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  TORCHLET_CHECK(file, "read_records: cannot open '", path, "': ", std::strerror(errno));
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::string_view all(bytes);
  std::vector<std::string> records;
  size_t offset = 0;
  while (all.size() - offset >= 12) {
    const std::string_view head = all.substr(offset, 12);
    TORCHLET_CHECK(get_le(head.substr(8), 4) == masked_crc32c(head.substr(0, 8)), "read_records: '",
                   path, "': the length of the record at byte ", offset, " fails its CRC");
    const uint64_t length = get_le(head, 8);
    if (all.size() - offset - 12 < length + 4 || length > all.size()) break;  // cut short
    const std::string_view payload = all.substr(offset + 12, length);
    TORCHLET_CHECK(get_le(all.substr(offset + 12 + length, 4), 4) == masked_crc32c(payload),
                   "read_records: '", path, "': the data of the record at byte ", offset,
                   " fails its CRC");
    records.emplace_back(payload);
    offset += 12 + length + 4;
  }
  return records;
}

}  // namespace torchlet::tensorboard
