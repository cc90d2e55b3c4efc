// The IDX format: a 4-byte magic number (two zero bytes, a type code, the
// number of dimensions), each dimension as a big-endian uint32, then the
// elements in row-major order, big-endian.
#include "nn/data/idx.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "tensor/error.h"
#include "tensor/factories.h"
#include "tensor/shape.h"

namespace torchlet::data {
namespace {

struct GzCloser {
  void operator()(gzFile_s* file) const { gzclose_r(file); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

// The whole decompressed content (gzread passes plain files through), read
// in chunks so that a header promising more than the file holds allocates
// nothing; throws on a damaged or truncated gzip stream.
std::vector<uint8_t> read_all(const std::string& path) {
  GzFile file(gzopen(path.c_str(), "rb"));
  TORCHLET_CHECK(file != nullptr, "read_idx: cannot open '", path, "': ", std::strerror(errno));
  constexpr int kChunk = 1 << 20;
  std::vector<uint8_t> bytes;
  for (;;) {
    const size_t done = bytes.size();
    bytes.resize(done + kChunk);
    const int got = gzread(file.get(), bytes.data() + done, kChunk);
    // A stream cut short reads to its end and leaves Z_BUF_ERROR behind.
    int code = Z_OK;
    std::string message = gzerror(file.get(), &code);
    if (message.rfind(path + ": ", 0) == 0) message.erase(0, path.size() + 2);  // zlib names it
    TORCHLET_CHECK(got >= 0 && code == Z_OK, "read_idx: '", path,
                   "' is truncated or corrupt (gzip: ", message, ")");
    bytes.resize(done + got);
    if (got == 0) return bytes;
  }
}

uint32_t big_endian_u32(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
}

DType idx_dtype(uint8_t code, const std::string& path) {
  switch (code) {
    case 0x08:
      return kUInt8;
    case 0x0C:
      return kInt32;
    case 0x0D:
      return kFloat32;
    case 0x0E:
      return kFloat64;
    default:
      TORCHLET_CHECK(false, "read_idx: '", path, "' has element type code 0x",
                     absl::Hex(static_cast<int>(code)),
                     ", which is not supported (0x08 uint8, 0x0C int32, 0x0D float32, "
                     "0x0E float64)");
  }
  return kUInt8;
}

void to_host_order(Tensor& t) {
  const size_t width = t.element_size();
  if (width == 1) return;
  auto* bytes = static_cast<uint8_t*>(t.data_ptr());
  for (int64_t i = 0; i < t.numel(); ++i) std::reverse(bytes + i * width, bytes + (i + 1) * width);
}

}  // namespace

Tensor read_idx(const std::string& path) {
  const std::vector<uint8_t> bytes = read_all(path);
  TORCHLET_CHECK(bytes.size() >= 4, "read_idx: '", path, "' is truncated: ", bytes.size(),
                 " bytes, too short for the magic number");
  const uint32_t magic = big_endian_u32(bytes.data());
  TORCHLET_CHECK(bytes[0] == 0 && bytes[1] == 0 && bytes[3] > 0, "read_idx: '", path,
                 "' is not an IDX file: wrong magic number 0x", absl::Hex(magic));
  const DType dtype = idx_dtype(bytes[2], path);
  const size_t header = 4 + 4 * size_t{bytes[3]};
  TORCHLET_CHECK(bytes.size() >= header, "read_idx: '", path, "' is truncated: its header needs ",
                 header, " bytes, the file has ", bytes.size());
  SizeVec sizes(bytes[3]);
  for (size_t d = 0; d < sizes.size(); ++d) sizes[d] = big_endian_u32(bytes.data() + 4 + 4 * d);
  const uint64_t available = bytes.size() - header;
  const bool no_elements = std::find(sizes.begin(), sizes.end(), 0) != sizes.end();
  uint64_t payload = no_elements ? 0 : element_size(dtype);
  for (int64_t size : sizes) {  // stops before the product could overflow
    TORCHLET_CHECK(size == 0 || payload <= available / static_cast<uint64_t>(size), "read_idx: '",
                   path, "' is truncated: its header (shape ", shape_str(sizes),
                   ") promises more data than the file's ", available, " bytes");
    payload *= static_cast<uint64_t>(size);
  }
  TORCHLET_CHECK(payload == available, "read_idx: '", path, "' has ", available,
                 " bytes of data, but its header (shape ", shape_str(sizes), ") promises ",
                 payload);
  Tensor t = empty(sizes, TensorOptions().dtype(dtype).device(Device(DeviceType::kCPU, 0)));
  std::memcpy(t.data_ptr(), bytes.data() + header, payload);
  to_host_order(t);
  return t;
}

}  // namespace torchlet::data
