#include "nn/serialize/pytorch_checkpoint.h"

#include <minizip/unzip.h>
#include <minizip/zip.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "nn/serialize/file_io.h"
#include "nn/serialize/pytorch_checkpoint_testing.h"
#include "tensor/tensor.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "checkpoint data is little-endian and is copied as stored in memory");

namespace torchlet {
namespace {

using detail::AtomicFile;
using detail::ByteSource;
using detail::in_quotes;

// Note [PyTorch's checkpoint format]
// Since PyTorch 1.6, torch.save writes a zip archive whose entries are stored
// uncompressed under one top-level directory (1.13 names it after the file,
// "lenet" for lenet.pt):
//   lenet/data.pkl    the object, pickled (protocol 2) with each tensor's
//                     storage replaced by a persistent id
//                     ('storage', torch.FloatStorage, key, location, numel)
//   lenet/data/<key>  each storage's bytes, little-endian, numel elements
//   lenet/version     the format version, "3\n"
//   lenet/byteorder   "little" or "big" (written by later versions only)
// A tensor is pickled as torch._utils._rebuild_tensor_v2(storage,
// storage_offset, size, stride, requires_grad, backward_hooks), a state_dict
// as collections.OrderedDict() filled by SETITEMS, its `_metadata` attribute
// set by BUILD. Pickles can call any Python function, so the reader below is
// no general unpickler: it knows only the opcodes and globals above and
// refuses the rest. Every length, index and size in the file is checked
// before it is used; memory grows at most linearly with the file's size.

/// Text from the file for an error message: printable ASCII as is, other
/// bytes as \xNN, cut short when long.
std::string printable(std::string_view text) {
  constexpr size_t kMax = 80;
  std::string out;
  for (size_t i = 0; i < text.size() && i < kMax; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (text.size() > kMax) out += "...";
  return out;
}

/// Whether `text` is UTF-8 as Python's pickle reads and writes it (its
/// "surrogatepass" codec: the encodings of lone surrogates are accepted).
bool is_utf8(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  while (p < end) {
    const unsigned char c = *p;
    int extra = 0;
    uint32_t code = 0;
    if (c < 0x80) {
      ++p;
      continue;
    } else if (c >= 0xc2 && c <= 0xdf) {
      extra = 1;
      code = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      extra = 2;
      code = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      extra = 3;
      code = c & 0x07;
    } else {
      return false;
    }
    if (end - p <= extra) return false;
    for (int i = 1; i <= extra; ++i) {
      if ((p[i] & 0xc0) != 0x80) return false;
      code = (code << 6) | (p[i] & 0x3f);
    }
    const uint32_t smallest[] = {0, 0x80, 0x800, 0x10000};
    if (code < smallest[extra] || code > 0x10ffff) return false;
    p += extra + 1;
  }
  return true;
}

// ---- The storage dtypes ------------------------------------------------------

struct StorageType {
  const char* name;  // torch.<name>
  std::optional<DType> dtype;
  const char* missing_dtype;  // the dtype torchlet lacks, when dtype is empty
};

constexpr StorageType kStorageTypes[] = {
    {"FloatStorage", kFloat32, nullptr},     {"DoubleStorage", kFloat64, nullptr},
    {"HalfStorage", kFloat16, nullptr},      {"BFloat16Storage", kBFloat16, nullptr},
    {"LongStorage", kInt64, nullptr},        {"IntStorage", kInt32, nullptr},
    {"ByteStorage", kUInt8, nullptr},        {"BoolStorage", kBool, nullptr},
    {"ShortStorage", std::nullopt, "int16"}, {"CharStorage", std::nullopt, "int8"},
};

const char* storage_name(DType dtype) {
  for (const StorageType& type : kStorageTypes) {
    if (type.dtype == dtype) return type.name;
  }
  TORCHLET_INTERNAL_ASSERT(false, "no PyTorch storage type for dtype ", dtype);
}

// ---- Reading bytes -----------------------------------------------------------

// ---- Reading the zip archive -------------------------------------------------

// Note [minizip over a ByteSource]
// minizip reads through callbacks; ours serve the ByteSource, so the same
// code reads files and buffers, and no read reaches past the source's end.
// An exception must not cross minizip's C frames: a failed read is recorded
// in the stream and reported once minizip returns.
struct ReadStream {
  const ByteSource* source;
  uint64_t pos = 0;
  std::string error;
};

voidpf read_open(voidpf opaque, const void*, int) { return opaque; }

uLong read_read(voidpf, voidpf stream, void* buf, uLong size) {
  auto* s = static_cast<ReadStream*>(stream);
  const uint64_t total = s->source->size();
  if (s->pos >= total) return 0;
  const uLong n = static_cast<uLong>(std::min<uint64_t>(size, total - s->pos));
  try {
    s->source->read(s->pos, buf, n);
  } catch (const Error& e) {
    if (s->error.empty()) s->error = e.what();
    return 0;
  }
  s->pos += n;
  return n;
}

uLong read_write(voidpf, voidpf, const void*, uLong) { return 0; }

ZPOS64_T read_tell(voidpf, voidpf stream) { return static_cast<ReadStream*>(stream)->pos; }

long read_seek(voidpf, voidpf stream, ZPOS64_T offset, int origin) {  // NOLINT: minizip's type
  auto* s = static_cast<ReadStream*>(stream);
  uint64_t base = 0;
  if (origin == ZLIB_FILEFUNC_SEEK_CUR) base = s->pos;
  if (origin == ZLIB_FILEFUNC_SEEK_END) base = s->source->size();
  // Wrapping around: minizip seeks backwards by adding a negative offset
  // cast to its unsigned type, as fseeko would take it.
  s->pos = base + offset;
  return 0;
}

int read_close(voidpf, voidpf) { return 0; }

int read_error(voidpf, voidpf stream) {
  return static_cast<ReadStream*>(stream)->error.empty() ? 0 : 1;
}

/// The pickle of torch.save's format before 1.6 begins with protocol 2 and
/// this magic number (a LONG1 of 10 bytes).
constexpr unsigned char kLegacyMagic[] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c,
                                          0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};

/// The named entries of a checkpoint.
class Records {
 public:
  virtual ~Records() = default;
  /// Entry names in the archive's order.
  virtual const std::vector<std::string>& names() const = 0;
  virtual bool contains(const std::string& name) const = 0;
  /// Bytes of the entry `name`, which must exist.
  virtual uint64_t size(const std::string& name) const = 0;
  /// Reads the entry `name` (size(name) bytes) into `dst`.
  virtual void read(const std::string& name, void* dst) = 0;

  std::string read_string(const std::string& name) {
    std::string bytes(size(name), '\0');
    read(name, bytes.data());
    return bytes;
  }
};

// Note [minizip and zip64]
// Debian's minizip (1.1) finds the central directory of any archive, zip64
// ones included, and walks its entries. But on 64-bit Linux it does not read
// the zip64 extra field of an entry (it compares the 32-bit marker 0xffffffff
// with `(unsigned long)-1`), so for an entry of 4 GiB or more, or one that
// begins past 4 GiB, the sizes and offset it reports are wrong, and
// unzOpenCurrentFile fails; torch.save writes such entries for any large
// model. So minizip locates and walks the directory, and we read each
// entry's central header ourselves (zip64 field included), then its local
// header and its stored bytes, checking the CRC with zlib.

uint64_t le_bytes(const unsigned char* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

/// The stored entries of a zip archive, by name.
class ZipArchive final : public Records {
 public:
  explicit ZipArchive(const ByteSource& source) : where_(source.where()), source_(source) {
    stream_.source = &source;
    zlib_filefunc64_def io{};
    io.zopen64_file = read_open;
    io.zread_file = read_read;
    io.zwrite_file = read_write;
    io.ztell64_file = read_tell;
    io.zseek64_file = read_seek;
    io.zclose_file = read_close;
    io.zerror_file = read_error;
    io.opaque = &stream_;
    handle_.reset(unzOpen2_64("", &io));
    zip_ = handle_.get();
    throw_read_error();
    if (zip_ == nullptr) fail_not_zip();
    unz_global_info64 info;
    TORCHLET_CHECK(unzGetGlobalInfo64(zip_, &info) == UNZ_OK, where_,
                   "cannot read the zip archive's directory");
    int err = unzGoToFirstFile(zip_);
    while (err == UNZ_OK) {
      add_current_entry();
      err = unzGoToNextFile(zip_);
    }
    throw_read_error();
    TORCHLET_CHECK(
        err == UNZ_END_OF_LIST_OF_FILE, where_, "the zip archive's directory is corrupt",
        names_.empty() ? std::string() : " after entry \"" + printable(names_.back()) + "\"");
  }
  ZipArchive(const ZipArchive&) = delete;
  ZipArchive& operator=(const ZipArchive&) = delete;

  const std::vector<std::string>& names() const override { return names_; }
  bool contains(const std::string& name) const override { return entries_.count(name) != 0; }

  uint64_t size(const std::string& name) const override {
    const Entry& entry = entries_.at(name);
    const std::string what = "the zip archive's entry \"" + printable(name) + "\"";
    TORCHLET_CHECK(entry.method == 0, where_, what, " is compressed (method ", entry.method,
                   "); torch.save stores entries uncompressed and torchlet reads only those");
    TORCHLET_CHECK(entry.size <= source_.size(), where_, what, " claims ", entry.size,
                   " bytes, more than the whole file (", source_.size(), " bytes)");
    return entry.size;
  }

  /// Reads the entry, checking its CRC.
  void read(const std::string& name, void* dst) override {
    const uint64_t size = this->size(name);
    const Entry& entry = entries_.at(name);
    const std::string what = "the zip archive's entry \"" + printable(name) + "\"";
    const uint64_t file_size = source_.size();
    // The local header: signature, ..., name length at 26, extra length at 28, name.
    unsigned char header[30];
    const bool fits =
        entry.local_offset <= file_size && file_size - entry.local_offset >= 30 + name.size();
    if (fits) source_.read(entry.local_offset, header, sizeof(header));
    std::string local_name(fits ? name.size() : 0, '\0');
    if (fits) source_.read(entry.local_offset + 30, local_name.data(), local_name.size());
    TORCHLET_CHECK(fits && le_bytes(header, 4) == 0x04034b50 &&
                       le_bytes(header + 26, 2) == name.size() && local_name == name,
                   where_, what, " has a corrupt local header (at byte ", entry.local_offset, ")");
    const uint64_t start = entry.local_offset + 30 + name.size() + le_bytes(header + 28, 2);
    TORCHLET_CHECK(start <= file_size && size <= file_size - start, where_, what, " (", size,
                   " bytes at byte ", start, ") reaches past the end of the file (", file_size,
                   " bytes): the file is truncated");
    char* out = static_cast<char*>(dst);
    uLong crc = crc32(0, nullptr, 0);
    for (uint64_t done = 0; done < size;) {
      const uInt chunk = static_cast<uInt>(std::min<uint64_t>(size - done, 1u << 30));
      source_.read(start + done, out + done, chunk);
      crc = crc32(crc, reinterpret_cast<const Bytef*>(out + done), chunk);
      done += chunk;
    }
    TORCHLET_CHECK(crc == entry.crc, where_, what, " fails its CRC check: the file is corrupt");
  }

 private:
  struct Entry {
    uint64_t local_offset;
    uint64_t size;  // uncompressed
    uint64_t method;
    uint32_t crc;
  };

  /// The entry minizip is on, read from its central header (Note [minizip and zip64]).
  void add_current_entry() {
    unz_file_info64 info;
    name_buffer_.resize(1 << 16);
    extra_buffer_.resize(1 << 16);
    TORCHLET_CHECK(
        unzGetCurrentFileInfo64(zip_, &info, name_buffer_.data(), name_buffer_.size(),
                                extra_buffer_.data(), extra_buffer_.size(), nullptr, 0) == UNZ_OK,
        where_, "the zip archive's directory is corrupt");
    throw_read_error();
    std::string name(name_buffer_.data(),
                     std::min<size_t>(info.size_filename, name_buffer_.size()));
    const std::string what = "the zip archive's entry \"" + printable(name) + "\"";
    // The central header: flags at 8, method at 10, CRC at 16, sizes at 20
    // and 24, the local header's offset at 42.
    const uint64_t at = unzGetOffset64(zip_);
    unsigned char central[46];
    const std::string corrupt =
        "the zip archive's directory is corrupt at the header of \"" + printable(name) + "\"";
    TORCHLET_CHECK(at <= source_.size() && source_.size() - at >= sizeof(central), where_,
                   corrupt);
    source_.read(at, central, sizeof(central));
    TORCHLET_CHECK(le_bytes(central, 4) == 0x02014b50, where_, corrupt);
    TORCHLET_CHECK((le_bytes(central + 8, 2) & 1) == 0, where_, what, " is encrypted");
    Entry entry{};
    entry.method = le_bytes(central + 10, 2);
    entry.crc = static_cast<uint32_t>(le_bytes(central + 16, 4));
    uint64_t compressed = le_bytes(central + 20, 4);
    entry.size = le_bytes(central + 24, 4);
    entry.local_offset = le_bytes(central + 42, 4);
    // Each field at its 32-bit maximum is in the zip64 extra field (id 1),
    // in this order.
    constexpr uint64_t kMax32 = 0xffffffff;
    std::vector<uint64_t*> wide;
    for (uint64_t* field : {&entry.size, &compressed, &entry.local_offset}) {
      if (*field == kMax32) wide.push_back(field);
    }
    const auto* extra = reinterpret_cast<const unsigned char*>(extra_buffer_.data());
    const size_t extra_size = std::min<size_t>(info.size_file_extra, extra_buffer_.size());
    for (size_t i = 0; !wide.empty() && i + 4 <= extra_size;) {
      const uint64_t id = le_bytes(extra + i, 2), n = le_bytes(extra + i + 2, 2);
      TORCHLET_CHECK(i + 4 + n <= extra_size, where_, what, " has a corrupt extra field");
      if (id == 1) {
        TORCHLET_CHECK(n >= 8 * wide.size(), where_, what, " has a zip64 field of ", n,
                       " bytes, too short for the ", wide.size(), " values it must hold");
        for (size_t k = 0; k < wide.size(); ++k) *wide[k] = le_bytes(extra + i + 4 + 8 * k, 8);
        wide.clear();
      }
      i += 4 + n;
    }
    TORCHLET_CHECK(wide.empty(), where_, what, " lacks the zip64 field its sizes refer to");
    TORCHLET_CHECK(entry.method != 0 || compressed == entry.size, where_, what, " is stored with ",
                   compressed, " bytes but claims ", entry.size);
    TORCHLET_CHECK(entries_.emplace(name, entry).second, where_, "the zip archive holds \"",
                   printable(name), "\" twice");
    names_.push_back(std::move(name));
  }

  [[noreturn]] void fail_not_zip() const {
    const uint64_t n = std::min<uint64_t>(source_.size(), sizeof(kLegacyMagic));
    unsigned char head[sizeof(kLegacyMagic)] = {};
    source_.read(0, head, n);
    TORCHLET_CHECK(n < sizeof(kLegacyMagic) || std::memcmp(head, kLegacyMagic, n) != 0, where_,
                   "the file was written in the format of torch.save before PyTorch 1.6 (or with "
                   "_use_new_zipfile_serialization=False), which torchlet does not read; re-save "
                   "it from Python with torch.save(torch.load(path), path)");
    detail::throw_error(where_ +
                        "the file is not a zip archive, as torch.save writes since "
                        "PyTorch 1.6 (is it truncated?)");
  }

  void throw_read_error() const {
    if (!stream_.error.empty()) detail::throw_error(stream_.error);
  }

  struct Closer {
    void operator()(void* zip) const { unzClose(zip); }
  };

  std::string where_;
  const ByteSource& source_;
  ReadStream stream_;
  // Closed however the constructor ends, before stream_ goes (minizip's
  // close calls back into it).
  std::unique_ptr<void, Closer> handle_;
  unzFile zip_ = nullptr;
  std::unordered_map<std::string, Entry> entries_;
  std::vector<std::string> names_;
  std::vector<char> name_buffer_;
  std::vector<char> extra_buffer_;
};

/// Entries given in memory (detail::load_pytorch_records).
class MapRecords final : public Records {
 public:
  explicit MapRecords(const std::vector<std::pair<std::string, std::string>>& records) {
    for (const auto& [name, bytes] : records) {
      TORCHLET_CHECK(entries_.emplace(name, bytes).second, "load_pytorch(<records>): \"", name,
                     "\" is given twice");
      names_.push_back(name);
    }
    TORCHLET_CHECK(!names_.empty(), "load_pytorch(<records>): no records");
  }
  const std::vector<std::string>& names() const override { return names_; }
  bool contains(const std::string& name) const override { return entries_.count(name) != 0; }
  uint64_t size(const std::string& name) const override { return entries_.at(name).size(); }
  void read(const std::string& name, void* dst) override {
    const std::string& bytes = entries_.at(name);
    if (!bytes.empty()) std::memcpy(dst, bytes.data(), bytes.size());
  }

 private:
  std::unordered_map<std::string, std::string> entries_;
  std::vector<std::string> names_;
};

// ---- The restricted unpickler --------------------------------------------------

enum class Kind : uint8_t {
  kNone,
  kBool,
  kInt,
  kFloat,
  kString,
  kTuple,
  kList,
  kDict,
  kGlobal,
  kStorage,
  kTensor
};

/// The globals a state_dict's pickle refers to.
enum class Callable : uint8_t { kOrderedDict, kRebuildTensor, kRebuildParameter, kStorageType };

/// A value on the unpickler's stack. Containers hold pointers into the
/// unpickler's arena, which owns every value: a pickle may make cycles
/// (APPEND a list to itself), and destruction is flat whatever the nesting.
struct Value {
  explicit Value(Kind k) : kind(k) {}
  Kind kind;
  bool boolean = false;       // kBool; kDict: made by collections.OrderedDict
  Callable callable{};        // kGlobal
  DType dtype = kFloat32;     // kGlobal kStorageType, kStorage
  int64_t integer = 0;        // kInt; kStorage: its numel
  double real = 0;            // kFloat
  std::string text;           // kString; kGlobal: "module.name"; kStorage: its key
  std::vector<Value*> items;  // kTuple, kList; kDict: key, value, key, value, ...
  Tensor tensor;              // kTensor; kStorage: its elements, 1-d
};

/// "an int", "a tuple", ... for error messages.
std::string describe(const Value* v) {
  switch (v->kind) {
    case Kind::kNone:
      return "None";
    case Kind::kBool:
      return "a bool";
    case Kind::kInt:
      return "an int";
    case Kind::kFloat:
      return "a float";
    case Kind::kString:
      return "a str";
    case Kind::kTuple:
      return "a tuple";
    case Kind::kList:
      return "a list";
    case Kind::kDict:
      return v->boolean ? "an OrderedDict" : "a dict";
    case Kind::kGlobal:
      return v->text;
    case Kind::kStorage:
      return "a storage";
    case Kind::kTensor:
      return "a tensor";
  }
  return "a value";
}

/// The opcodes a state_dict's pickle uses (Python's pickle.py names them).
namespace op {
constexpr uint8_t kMark = '(', kStop = '.', kBinInt = 'J', kBinInt1 = 'K', kBinInt2 = 'M',
                  kNone = 'N', kBinPersId = 'Q', kReduce = 'R', kBinUnicode = 'X', kAppend = 'a',
                  kBuild = 'b', kGlobal = 'c', kDict = 'd', kEmptyDict = '}', kAppends = 'e',
                  kBinGet = 'h', kLongBinGet = 'j', kList = 'l', kEmptyList = ']', kBinPut = 'q',
                  kLongBinPut = 'r', kSetItem = 's', kTuple = 't', kEmptyTuple = ')',
                  kSetItems = 'u', kBinFloat = 'G', kProto = 0x80, kTuple1 = 0x85, kTuple2 = 0x86,
                  kTuple3 = 0x87, kNewTrue = 0x88, kNewFalse = 0x89, kLong1 = 0x8a,
                  kShortBinUnicode = 0x8c, kBinUnicode8 = 0x8d, kStackGlobal = 0x93,
                  kMemoize = 0x94, kFrame = 0x95;
}  // namespace op

/// Values on the stack at most; a state_dict's pickle holds a few dozen.
constexpr size_t kMaxStack = 1 << 20;
/// MARKs open at once at most; a state_dict's pickle nests three deep.
constexpr size_t kMaxMarks = 1000;
/// Dimensions of a tensor at most.
constexpr size_t kMaxDims = 64;
/// The file format versions PyTorch 1.13 reads.
constexpr int64_t kMinVersion = 1, kMaxVersion = 10;

class CheckpointReader {
 public:
  CheckpointReader(std::string where, Records& records)
      : where_(std::move(where)), records_(records) {}

  StateDict read() {
    find_prefix();
    TORCHLET_CHECK(!records_.contains(prefix_ + "constants.pkl"), where_,
                   "the file is a TorchScript archive (torch.jit.save), not a state_dict saved "
                   "with torch.save; save model.state_dict() with torch.save instead");
    check_version();
    read_byteorder();
    const std::string pickle_name = prefix_ + "data.pkl";
    TORCHLET_CHECK(records_.contains(pickle_name), where_, "the archive has no entry \"",
                   printable(pickle_name), "\"; it is not a checkpoint written by torch.save");
    pickle_ = records_.read_string(pickle_name);
    pos_ = 0;
    return to_state_dict(unpickle());
  }

 private:
  // ---- The archive's layout ----

  /// Every entry lives under the directory of the first (PyTorch reads only there).
  void find_prefix() {
    const std::string& first = records_.names().front();
    const size_t slash = first.find('/');
    TORCHLET_CHECK(slash != std::string::npos, where_,
                   "file in archive is not in a subdirectory: ", printable(first));
    prefix_ = first.substr(0, slash + 1);
  }

  void check_version() {
    std::string name = prefix_ + "version";
    if (!records_.contains(name)) name = prefix_ + ".data/version";
    TORCHLET_CHECK(records_.contains(name), where_, "the archive has no entry \"",
                   printable(prefix_ + "version"),
                   "\"; it is not a checkpoint written by torch.save");
    TORCHLET_CHECK(records_.size(name) <= 32, where_, "the archive's \"", printable(name),
                   "\" holds ", records_.size(name), " bytes, not a version number");
    const std::string text = records_.read_string(name);
    int64_t version = 0;
    size_t i = 0;
    for (; i < text.size() && i < 18 && text[i] >= '0' && text[i] <= '9'; ++i) {
      version = version * 10 + (text[i] - '0');
    }
    size_t end = i;
    while (end < text.size() && (text[end] == '\n' || text[end] == '\r' || text[end] == ' ')) ++end;
    TORCHLET_CHECK(i > 0 && end == text.size(), where_, "Couldn't parse the version ",
                   printable(text), " as Long Long.");
    TORCHLET_CHECK(version >= kMinVersion, where_, "Attempted to read a PyTorch file with version ",
                   version, ", but the minimum supported version for reading is ", kMinVersion,
                   ".");
    TORCHLET_CHECK(version <= kMaxVersion, where_, "Attempted to read a PyTorch file with version ",
                   version, ", but the maximum supported version for reading is ", kMaxVersion,
                   ".");
  }

  void read_byteorder() {
    const std::string name = prefix_ + "byteorder";
    if (!records_.contains(name)) return;
    TORCHLET_CHECK(records_.size(name) <= 16, where_, "Unknown endianness type: (",
                   records_.size(name), " bytes)");
    const std::string order = records_.read_string(name);
    TORCHLET_CHECK(order == "little" || order == "big", where_,
                   "Unknown endianness type: ", printable(order));
    big_endian_ = order == "big";
  }

  // ---- Reading the pickle ----

  [[noreturn]] void fail(const std::string& what) const {
    detail::throw_error(detail::str_cat(where_, what));
  }

  /// Checks that `n` more bytes follow for the opcode at `op_pos_`.
  void need(uint64_t n) const {
    if (n > pickle_.size() - pos_) {
      fail(detail::str_cat("the pickle (", pickle_.size(),
                           " bytes) ends inside the opcode at byte ", op_pos_));
    }
  }

  uint64_t read_le(int bytes) {
    need(static_cast<uint64_t>(bytes));
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i)
      v = (v << 8) | static_cast<unsigned char>(pickle_[pos_ + i]);
    pos_ += static_cast<size_t>(bytes);
    return v;
  }

  std::string read_bytes(uint64_t n) {
    need(n);
    std::string out = pickle_.substr(pos_, n);
    pos_ += n;
    return out;
  }

  /// A line of a GLOBAL, without its newline.
  std::string read_line() {
    const size_t newline = pickle_.find('\n', pos_);
    if (newline == std::string::npos) need(pickle_.size() - pos_ + 1);
    std::string line = pickle_.substr(pos_, newline - pos_);
    pos_ = newline + 1;
    return line;
  }

  Value* make(Kind kind) { return &values_.emplace_back(kind); }

  Value* make_int(int64_t v) {
    Value* value = make(Kind::kInt);
    value->integer = v;
    return value;
  }

  size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }

  void push(Value* v) {
    if (stack_.size() >= kMaxStack) {
      fail(detail::str_cat("the pickle holds more than ", kMaxStack,
                           " values at once, which a state_dict's pickle never does"));
    }
    stack_.push_back(v);
  }

  Value* top() const {
    if (stack_.size() <= floor()) {
      fail(detail::str_cat("the pickle's opcode at byte ", op_pos_, " finds its stack empty"));
    }
    return stack_.back();
  }

  Value* pop() {
    Value* v = top();
    stack_.pop_back();
    return v;
  }

  /// The values pushed since the last MARK, which is removed.
  std::vector<Value*> pop_mark() {
    if (marks_.empty())
      fail(detail::str_cat("the pickle's opcode at byte ", op_pos_, " finds no MARK"));
    std::vector<Value*> items(stack_.begin() + static_cast<std::ptrdiff_t>(marks_.back()),
                              stack_.end());
    stack_.resize(marks_.back());
    marks_.pop_back();
    return items;
  }

  Value* expect(Value* v, Kind kind, const char* what) const {
    if (v->kind != kind) {
      fail(detail::str_cat("the pickle's opcode at byte ", op_pos_, " expects ", what,
                           " but finds ", describe(v)));
    }
    return v;
  }

  void add_pairs(Value* dict, const std::vector<Value*>& items) {
    if (items.size() % 2 != 0) {
      fail(detail::str_cat("the pickle's opcode at byte ", op_pos_, " pairs keys with values but ",
                           "finds an odd number of them (", items.size(), ")"));
    }
    dict->items.insert(dict->items.end(), items.begin(), items.end());
  }

  Value* memo_get(uint64_t index) const {
    const auto it = memo_.find(index);
    if (it == memo_.end()) {
      fail(detail::str_cat("the pickle reads memo entry ", index, " at byte ", op_pos_,
                           ", which it never stored"));
    }
    return it->second;
  }

  Value* unpickle() {
    for (;;) {
      op_pos_ = pos_;
      if (pos_ >= pickle_.size()) fail("the pickle ends without a STOP opcode: it is truncated");
      const auto code = static_cast<unsigned char>(pickle_[pos_++]);
      switch (code) {
        case op::kProto: {
          const uint64_t protocol = read_le(1);
          if (protocol < 2 || protocol > 5) {
            fail(detail::str_cat("the pickle uses protocol ", protocol,
                                 "; torch.save writes protocol 2 and torchlet reads 2 to 5"));
          }
          break;
        }
        case op::kFrame:
          need(read_le(8));
          break;  // a frame only announces bytes that follow
        case op::kMark:
          if (marks_.size() >= kMaxMarks) {
            fail(detail::str_cat("the pickle opens more than ", kMaxMarks,
                                 " MARKs at once, which a state_dict's pickle never does"));
          }
          marks_.push_back(stack_.size());
          break;
        case op::kStop:
          return pop();
        case op::kNone:
          push(&none_);
          break;
        case op::kNewTrue:
          push(&true_);
          break;
        case op::kNewFalse:
          push(&false_);
          break;
        case op::kBinInt:
          push(make_int(static_cast<int32_t>(read_le(4))));
          break;
        case op::kBinInt1:
          push(make_int(static_cast<int64_t>(read_le(1))));
          break;
        case op::kBinInt2:
          push(make_int(static_cast<int64_t>(read_le(2))));
          break;
        case op::kLong1:
          push(make_int(read_long1()));
          break;
        case op::kBinFloat: {
          need(8);
          uint64_t bits = 0;
          for (int i = 0; i < 8; ++i)
            bits = (bits << 8) | static_cast<unsigned char>(pickle_[pos_ + i]);
          pos_ += 8;
          Value* v = make(Kind::kFloat);
          std::memcpy(&v->real, &bits, sizeof(bits));
          push(v);
          break;
        }
        case op::kShortBinUnicode:
          push_string(read_le(1));
          break;
        case op::kBinUnicode:
          push_string(read_le(4));
          break;
        case op::kBinUnicode8:
          push_string(read_le(8));
          break;
        case op::kEmptyTuple:
          push(make(Kind::kTuple));
          break;
        case op::kTuple1:
        case op::kTuple2:
        case op::kTuple3: {
          const size_t n = code - op::kTuple1 + 1;
          Value* t = make(Kind::kTuple);
          t->items.resize(n);
          for (size_t i = n; i-- > 0;) t->items[i] = pop();
          push(t);
          break;
        }
        case op::kTuple: {
          Value* t = make(Kind::kTuple);
          t->items = pop_mark();
          push(t);
          break;
        }
        case op::kEmptyList:
          push(make(Kind::kList));
          break;
        case op::kList: {
          Value* l = make(Kind::kList);
          l->items = pop_mark();
          push(l);
          break;
        }
        case op::kAppend: {
          Value* v = pop();
          expect(top(), Kind::kList, "a list")->items.push_back(v);
          break;
        }
        case op::kAppends: {
          const std::vector<Value*> items = pop_mark();
          Value* l = expect(top(), Kind::kList, "a list");
          l->items.insert(l->items.end(), items.begin(), items.end());
          break;
        }
        case op::kEmptyDict:
          push(make(Kind::kDict));
          break;
        case op::kDict: {
          Value* d = make(Kind::kDict);
          add_pairs(d, pop_mark());
          push(d);
          break;
        }
        case op::kSetItem: {
          Value* value = pop();
          Value* key = pop();
          add_pairs(expect(top(), Kind::kDict, "a dict"), {key, value});
          break;
        }
        case op::kSetItems: {
          const std::vector<Value*> items = pop_mark();
          add_pairs(expect(top(), Kind::kDict, "a dict"), items);
          break;
        }
        case op::kBinPut:
          memo_[read_le(1)] = top();
          break;
        case op::kLongBinPut:
          memo_[read_le(4)] = top();
          break;
        case op::kMemoize: {
          const uint64_t index = memo_.size();
          memo_[index] = top();
          break;
        }
        case op::kBinGet:
          push(memo_get(read_le(1)));
          break;
        case op::kLongBinGet:
          push(memo_get(read_le(4)));
          break;
        case op::kGlobal: {
          std::string module = read_line();
          std::string name = read_line();
          push(resolve_global(module, name));
          break;
        }
        case op::kStackGlobal: {
          const std::string name = expect(pop(), Kind::kString, "a global's name")->text;
          const std::string module = expect(pop(), Kind::kString, "a global's module")->text;
          push(resolve_global(module, name));
          break;
        }
        case op::kReduce: {
          Value* args = pop();
          Value* callable = pop();
          push(reduce(callable, args));
          break;
        }
        case op::kBuild: {
          Value* state = pop();
          build(top(), state);
          break;
        }
        case op::kBinPersId:
          push(load_storage(pop()));
          break;
        default:
          fail(detail::str_cat("the pickle holds opcode 0x", printable_hex(code), " at byte ",
                               op_pos_, ", which a state_dict's pickle does not use; torchlet ",
                               "loads only tensors and containers of them"));
      }
    }
  }

  static std::string printable_hex(unsigned char c) {
    static constexpr char kHex[] = "0123456789abcdef";
    return {kHex[c >> 4], kHex[c & 15]};
  }

  int64_t read_long1() {
    const uint64_t n = read_le(1);
    if (n > 8) {
      fail(detail::str_cat("the pickle holds an integer of ", n, " bytes at byte ", op_pos_,
                           ", too large for int64"));
    }
    need(n);
    uint64_t v = 0;
    for (uint64_t i = n; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(pickle_[pos_ + i]);
    if (n > 0 && n < 8 && (static_cast<unsigned char>(pickle_[pos_ + n - 1]) & 0x80)) {
      v |= ~uint64_t{0} << (8 * n);  // sign-extend
    }
    pos_ += n;
    return static_cast<int64_t>(v);
  }

  void push_string(uint64_t n) {
    Value* v = make(Kind::kString);
    v->text = read_bytes(n);
    if (!is_utf8(v->text)) {
      fail(detail::str_cat("the pickle's string at byte ", op_pos_, " is not valid UTF-8: \"",
                           printable(v->text), "\""));
    }
    push(v);
  }

  Value* resolve_global(const std::string& module, const std::string& name) {
    Value* v = make(Kind::kGlobal);
    v->text = module + "." + name;
    if (module == "collections" && name == "OrderedDict") {
      v->callable = Callable::kOrderedDict;
      return v;
    }
    if (module == "torch._utils" && name == "_rebuild_tensor_v2") {
      v->callable = Callable::kRebuildTensor;
      return v;
    }
    if (module == "torch._utils" && name == "_rebuild_parameter") {
      v->callable = Callable::kRebuildParameter;
      return v;
    }
    const bool is_storage = name.size() > 7 && name.compare(name.size() - 7, 7, "Storage") == 0;
    if ((module == "torch" || module == "torch.cuda") && is_storage) {
      for (const StorageType& type : kStorageTypes) {
        if (name != type.name) continue;
        if (!type.dtype) {
          fail(detail::str_cat("the file holds a tensor of ", printable(v->text), " (",
                               type.missing_dtype, "), a dtype torchlet does not have"));
        }
        v->callable = Callable::kStorageType;
        v->dtype = *type.dtype;
        return v;
      }
      fail(detail::str_cat("the file holds a tensor of ", printable(v->text),
                           ", a storage type torchlet does not have"));
    }
    // Python 2's names, which pickles of protocol 2 use, as Python 3 reads them.
    const std::string shown = module == "__builtin__" ? "builtins." + name
                              : module == "copy_reg"  ? "copyreg." + name
                                                      : v->text;
    fail(detail::str_cat("the file refers to ", printable(shown),
                         ", which a state_dict does not use; torchlet loads only tensors and "
                         "containers of them"));
  }

  Value* reduce(Value* callable, Value* args) {
    expect(args, Kind::kTuple, "a tuple of arguments");
    if (callable->kind != Kind::kGlobal || callable->callable == Callable::kStorageType) {
      fail(detail::str_cat("the pickle calls ", describe(callable), " at byte ", op_pos_,
                           ", which a state_dict's pickle does not do"));
    }
    const std::vector<Value*>& a = args->items;
    switch (callable->callable) {
      case Callable::kOrderedDict: {
        if (!a.empty()) {
          fail(detail::str_cat("the pickle calls collections.OrderedDict with ", a.size(),
                               " arguments at byte ", op_pos_, "; torch.save passes none"));
        }
        Value* d = make(Kind::kDict);
        d->boolean = true;
        return d;
      }
      case Callable::kRebuildParameter: {
        if (a.size() != 3) {
          fail(detail::str_cat("the pickle calls torch._utils._rebuild_parameter with ", a.size(),
                               " arguments at byte ", op_pos_, " instead of 3"));
        }
        expect(a[1], Kind::kBool, "requires_grad, a bool,");
        expect(a[2], Kind::kDict, "backward hooks, a dict,");
        return expect(a[0], Kind::kTensor, "a tensor");
      }
      case Callable::kRebuildTensor:
        return rebuild_tensor(a);
      case Callable::kStorageType:
        break;
    }
    TORCHLET_INTERNAL_ASSERT(false, "unhandled callable");
  }

  void build(Value* object, Value* state) {
    // An OrderedDict's attributes (its `_metadata`) are of no use here.
    if (object->kind != Kind::kDict || state->kind != Kind::kDict) {
      fail(detail::str_cat("the pickle sets the state of ", describe(object), " to ",
                           describe(state), " at byte ", op_pos_,
                           ", which a state_dict's pickle does not do"));
    }
  }

  std::vector<int64_t> int_tuple(Value* v, const char* what) const {
    expect(v, Kind::kTuple, what);
    if (v->items.size() > kMaxDims) {
      fail(detail::str_cat("a tensor's ", what, " has ", v->items.size(),
                           " dimensions; torchlet allows ", kMaxDims));
    }
    std::vector<int64_t> out;
    for (Value* item : v->items) {
      if (item->kind != Kind::kInt || item->integer < 0) {
        fail(detail::str_cat(
            "a tensor's ", what, " holds ",
            item->kind == Kind::kInt ? std::to_string(item->integer) : describe(item),
            "; each must be a non-negative int"));
      }
      out.push_back(item->integer);
    }
    return out;
  }

  /// torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride,
  /// requires_grad, backward_hooks): a view of the storage.
  Value* rebuild_tensor(const std::vector<Value*>& a) {
    // PyTorch 2 appends a seventh argument, a dict of extra state, when there is any.
    const bool extra_state = a.size() == 7 && (a[6]->kind == Kind::kNone ||
                                               (a[6]->kind == Kind::kDict && a[6]->items.empty()));
    if (a.size() != 6 && !extra_state) {
      fail(detail::str_cat("the pickle calls torch._utils._rebuild_tensor_v2 with ", a.size(),
                           " arguments at byte ", op_pos_, " instead of 6"));
    }
    const Value* storage = expect(a[0], Kind::kStorage, "a storage");
    const int64_t offset = expect(a[1], Kind::kInt, "a storage offset")->integer;
    const std::vector<int64_t> sizes = int_tuple(a[2], "size");
    const std::vector<int64_t> strides = int_tuple(a[3], "stride");
    expect(a[4], Kind::kBool, "requires_grad, a bool,");
    expect(a[5], Kind::kDict, "backward hooks, a dict,");
    const std::string what = "the tensor on storage \"" + printable(storage->text) + "\"";
    if (sizes.size() != strides.size()) {
      fail(detail::str_cat(what, " has size ", shape_str(sizes), " but stride ",
                           shape_str(strides)));
    }
    // The last element the view reaches, computed without overflow.
    bool empty_view = false, overflow = offset < 0;
    int64_t last = offset, numel = 1;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] == 0) empty_view = true;
      int64_t reach = 0;
      overflow = overflow || __builtin_mul_overflow(sizes[d], numel, &numel) ||
                 (sizes[d] > 0 && (__builtin_mul_overflow(sizes[d] - 1, strides[d], &reach) ||
                                   __builtin_add_overflow(last, reach, &last)));
    }
    const int64_t capacity = storage->integer;
    if (overflow || (empty_view ? offset > capacity : last >= capacity)) {
      fail(detail::str_cat(what, " has size ", shape_str(sizes), ", stride ", shape_str(strides),
                           " and storage offset ", offset, ", which reach past the storage's ",
                           capacity, " elements"));
    }
    Value* v = make(Kind::kTensor);
    v->tensor = storage->tensor.as_strided(sizes, strides, offset);
    return v;
  }

  /// BINPERSID of ('storage', torch.<X>Storage, key, location, numel): the
  /// archive's entry data/<key>, read once however often it is referred to.
  Value* load_storage(Value* pid) {
    expect(pid, Kind::kTuple, "a persistent id tuple");
    const std::vector<Value*>& a = pid->items;
    if (a.size() != 5 || a[0]->kind != Kind::kString || a[0]->text != "storage") {
      fail(detail::str_cat("the pickle's persistent id at byte ", op_pos_,
                           " is not ('storage', "
                           "type, key, location, numel)"));
    }
    const Value* type = a[1];
    if (type->kind != Kind::kGlobal || type->callable != Callable::kStorageType) {
      fail(detail::str_cat("the pickle's persistent id at byte ", op_pos_, " gives ",
                           describe(type), " as the storage type"));
    }
    const std::string& key = expect(a[2], Kind::kString, "a storage key")->text;
    expect(a[3], Kind::kString, "a storage location");
    const int64_t numel = expect(a[4], Kind::kInt, "a storage size")->integer;
    const std::string what = "storage \"" + printable(key) + "\"";
    if (numel < 0) fail(detail::str_cat(what, " has ", numel, " elements"));
    const auto found = storages_.find(key);
    if (found != storages_.end()) {
      Value* seen = found->second;
      if (seen->dtype != type->dtype || seen->integer != numel) {
        fail(detail::str_cat(what, " is read as torch.", storage_name(seen->dtype), " of ",
                             seen->integer, " elements and as torch.", storage_name(type->dtype),
                             " of ", numel, " elements"));
      }
      return seen;
    }
    const std::string name = prefix_ + "data/" + key;
    if (!records_.contains(name)) {
      fail(detail::str_cat("the pickle refers to ", what, " but the archive has no entry \"",
                           printable(name), "\""));
    }
    const uint64_t held = records_.size(name);
    const size_t item = element_size(type->dtype);
    uint64_t needed = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(numel), item, &needed) || needed != held) {
      fail(detail::str_cat(what, " of ", numel, " elements of torch.", storage_name(type->dtype),
                           " needs ", numel, " * ", item, " bytes, but the archive's entry \"",
                           printable(name), "\" holds ", held));
    }
    const Device target = current_device();
    const Device host = target.is_cpu() ? target : Device(kCPU);
    Tensor data = empty({numel}, TensorOptions(type->dtype).device(host));
    if (held > 0) records_.read(name, data.data_ptr());
    if (big_endian_) swap_bytes(data);
    if (type->dtype == kBool) check_bools(data, what);
    Value* v = make(Kind::kStorage);
    v->dtype = type->dtype;
    v->integer = numel;
    v->text = key;
    v->tensor = host == target ? data : data.to(target);
    storages_.emplace(key, v);
    return v;
  }

  static void swap_bytes(const Tensor& t) {
    const size_t item = t.element_size();
    auto* bytes = static_cast<unsigned char*>(t.data_ptr());
    for (size_t i = 0; i < static_cast<size_t>(t.numel()) * item; i += item) {
      std::reverse(bytes + i, bytes + i + item);
    }
  }

  /// A bool is one byte holding 0 or 1; any other byte would be undefined
  /// behaviour the first time the tensor is read.
  void check_bools(const Tensor& t, const std::string& what) const {
    const auto* bytes = static_cast<const unsigned char*>(t.data_ptr());
    const auto* end = bytes + t.numel();
    const auto* bad = std::find_if(bytes, end, [](unsigned char b) { return b > 1; });
    if (bad != end) {
      fail(detail::str_cat(what, " of torch.BoolStorage holds byte ", static_cast<int>(*bad),
                           " at element ", bad - bytes, "; a bool is 0 or 1"));
    }
  }

  StateDict to_state_dict(const Value* root) const {
    constexpr const char* kWant = "torchlet loads only a state_dict (a dict of names to tensors)";
    if (root->kind != Kind::kDict) {
      fail(detail::str_cat("the file holds ", describe(root), ", not a dict; ", kWant));
    }
    StateDict out;
    for (size_t i = 0; i < root->items.size(); i += 2) {
      const Value* key = root->items[i];
      const Value* value = root->items[i + 1];
      if (key->kind != Kind::kString) {
        fail(detail::str_cat("the file's dict has ", describe(key), " as a key; ", kWant));
      }
      const std::string name = "\"" + printable(key->text) + "\"";
      if (value->kind == Kind::kDict) {
        fail(detail::str_cat("the file's entry ", name, " holds ", describe(value),
                             ", not a tensor; ", kWant,
                             ": load the checkpoint in Python and save that dict alone"));
      }
      if (value->kind != Kind::kTensor) {
        fail(detail::str_cat("the file's entry ", name, " holds ", describe(value),
                             ", not a tensor; ", kWant));
      }
      if (out.contains(key->text)) fail(detail::str_cat("the file's dict names ", name, " twice"));
      out.insert(key->text, value->tensor);
    }
    return out;
  }

  std::string where_;
  Records& records_;
  std::string prefix_;  // "<archive name>/"
  bool big_endian_ = false;

  std::string pickle_;
  size_t pos_ = 0;
  size_t op_pos_ = 0;  // where the opcode being run begins
  std::deque<Value> values_;
  Value none_{Kind::kNone};
  Value true_ = [] {
    Value v(Kind::kBool);
    v.boolean = true;
    return v;
  }();
  Value false_{Kind::kBool};
  std::vector<Value*> stack_;
  std::vector<size_t> marks_;  // the stack's size at each open MARK
  std::unordered_map<uint64_t, Value*> memo_;
  std::unordered_map<std::string, Value*> storages_;  // by key
};

// ---- Writing -----------------------------------------------------------------

/// minizip's output: positioned writes to a file descriptor (minizip seeks
/// back to fill in each entry's sizes and CRC).
struct WriteStream {
  int fd;
  uint64_t pos = 0;
  uint64_t end = 0;
  int error = 0;
};

voidpf write_open(voidpf opaque, const void*, int) { return opaque; }

uLong write_read(voidpf, voidpf, void*, uLong) { return 0; }

uLong write_write(voidpf, voidpf stream, const void* buf, uLong size) {
  auto* s = static_cast<WriteStream*>(stream);
  const char* in = static_cast<const char*>(buf);
  uLong done = 0;
  while (done < size) {
    const ssize_t put = ::pwrite(s->fd, in + done, std::min<uLong>(size - done, 1ul << 30),
                                 static_cast<off_t>(s->pos));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) {
      if (s->error == 0) s->error = put < 0 ? errno : EIO;
      break;
    }
    done += static_cast<uLong>(put);
    s->pos += static_cast<uint64_t>(put);
    s->end = std::max(s->end, s->pos);
  }
  return done;
}

ZPOS64_T write_tell(voidpf, voidpf stream) { return static_cast<WriteStream*>(stream)->pos; }

long write_seek(voidpf, voidpf stream, ZPOS64_T offset, int origin) {  // NOLINT: minizip's type
  auto* s = static_cast<WriteStream*>(stream);
  const uint64_t base = origin == ZLIB_FILEFUNC_SEEK_CUR   ? s->pos
                        : origin == ZLIB_FILEFUNC_SEEK_END ? s->end
                                                           : 0;
  s->pos = base + offset;
  return 0;
}

int write_close(voidpf, voidpf) { return 0; }

int write_error(voidpf, voidpf stream) { return static_cast<WriteStream*>(stream)->error; }

/// PyTorch aligns each entry's data to 64 bytes (with an "FB" extra field of
/// padding in the local header), so that it can be mapped in place.
constexpr uint64_t kAlignment = 64;

/// A zip archive of stored entries written through minizip.
class ZipWriter {
 public:
  ZipWriter(const AtomicFile& file, std::string where) : file_(file), where_(std::move(where)) {
    stream_.fd = file.fd();
    zlib_filefunc64_def io{};
    io.zopen64_file = write_open;
    io.zread_file = write_read;
    io.zwrite_file = write_write;
    io.ztell64_file = write_tell;
    io.zseek64_file = write_seek;
    io.zclose_file = write_close;
    io.zerror_file = write_error;
    io.opaque = &stream_;
    zip_ = zipOpen2_64("", APPEND_STATUS_CREATE, nullptr, &io);
    check(zip_ != nullptr ? ZIP_OK : ZIP_ERRNO);
  }
  ZipWriter(const ZipWriter&) = delete;
  ZipWriter& operator=(const ZipWriter&) = delete;
  ~ZipWriter() {
    if (zip_ != nullptr) zipClose(zip_, nullptr);  // after an error: the file is discarded
  }

  void add(const std::string& name, const void* data, uint64_t size) {
    const int zip64 = size >= 0xffffffffu ? 1 : 0;
    // The local header is 30 bytes, the name, our extra field (4 + padding)
    // and, for zip64, minizip's 20-byte extra field.
    const uint64_t header = 30 + name.size() + 4 + (zip64 ? 20 : 0);
    const uint64_t padding = (kAlignment - (stream_.pos + header) % kAlignment) % kAlignment;
    std::string extra = "FB";
    extra += static_cast<char>(padding & 0xff);
    extra += static_cast<char>(padding >> 8);
    extra.append(padding, 'Z');
    zip_fileinfo info{};
    info.tmz_date.tm_mday = 1;  // 1980-01-01, a fixed date: the same state_dict, the same bytes
    info.tmz_date.tm_year = 1980;
    check(zipOpenNewFileInZip64(zip_, name.c_str(), &info, extra.data(),
                                static_cast<uInt>(extra.size()), nullptr, 0, nullptr, 0, 0, zip64));
    const char* in = static_cast<const char*>(data);
    while (size > 0) {
      const unsigned chunk = static_cast<unsigned>(std::min<uint64_t>(size, 1u << 30));
      check(zipWriteInFileInZip(zip_, in, chunk));
      in += chunk;
      size -= chunk;
    }
    check(zipCloseFileInZip(zip_));
  }

  void close() {
    const int err = zipClose(zip_, nullptr);
    zip_ = nullptr;
    check(err);
  }

 private:
  void check(int err) const {
    if (stream_.error != 0) file_.fail("cannot write", stream_.error);
    TORCHLET_CHECK(err == ZIP_OK, where_, "cannot write the zip archive (minizip error ", err, ")");
  }

  const AtomicFile& file_;
  std::string where_;
  WriteStream stream_;
  zipFile zip_ = nullptr;
};

/// Writes a pickle as Python's pickler (protocol 2) writes torch.save's, memo
/// entries included, so that the same state_dict gives the same bytes.
class PickleWriter {
 public:
  std::string& bytes() { return out_; }

  void op(uint8_t code) { out_ += static_cast<char>(code); }

  /// BINPUT of the value just written; its memo index.
  uint32_t put() {
    const uint32_t index = memo_size_++;
    if (index < 256) {
      op(op::kBinPut);
      op(static_cast<uint8_t>(index));
    } else {
      op(op::kLongBinPut);
      le(index, 4);
    }
    return index;
  }

  void get(uint32_t index) {
    if (index < 256) {
      op(op::kBinGet);
      op(static_cast<uint8_t>(index));
    } else {
      op(op::kLongBinGet);
      le(index, 4);
    }
  }

  void global(const char* module, const char* name) {
    op(op::kGlobal);
    out_ += detail::str_cat(module, "\n", name, "\n");
  }

  /// A str Python memoizes: written once, then fetched from the memo.
  void memo_string(const std::string& text, std::optional<uint32_t>* slot) {
    if (*slot) return get(**slot);
    string(text);
    *slot = put();
  }

  void string(const std::string& text) {
    op(op::kBinUnicode);
    le(text.size(), 4);
    out_ += text;
  }

  void integer(int64_t v) {
    if (v >= 0 && v <= 0xff) {
      op(op::kBinInt1);
      le(static_cast<uint64_t>(v), 1);
    } else if (v >= 0 && v <= 0xffff) {
      op(op::kBinInt2);
      le(static_cast<uint64_t>(v), 2);
    } else if (v >= std::numeric_limits<int32_t>::min() &&
               v <= std::numeric_limits<int32_t>::max()) {
      op(op::kBinInt);
      le(static_cast<uint32_t>(v), 4);
    } else {
      // The fewest two's complement bytes that keep the sign (Python's encode_long).
      int n = 8;
      while (n > 1) {
        const int64_t shifted = v >> (8 * (n - 1) - 1);
        if (shifted != 0 && shifted != -1) break;
        --n;
      }
      op(op::kLong1);
      op(static_cast<uint8_t>(n));
      le(static_cast<uint64_t>(v), n);
    }
  }

  /// A tuple of ints, as Python's save_tuple writes it.
  void int_tuple(const std::vector<int64_t>& values) {
    if (values.empty()) return op(op::kEmptyTuple);
    if (values.size() > 3) op(op::kMark);
    for (int64_t v : values) integer(v);
    op(values.size() > 3 ? op::kTuple : static_cast<uint8_t>(op::kTuple1 + values.size() - 1));
    put();
  }

 private:
  void le(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out_ += static_cast<char>((v >> (8 * i)) & 0xff);
  }

  std::string out_;
  uint32_t memo_size_ = 0;
};

/// PyTorch's contiguous strides: a dimension of size 0 or 1 counts as 1.
std::vector<int64_t> contiguous_strides(IntArrayRef sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t stride = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= std::max<int64_t>(sizes[d], 1);
  }
  return strides;
}

/// One storage to write: a tensor's values, shared by every entry that is the
/// same view of the same data.
struct OutStorage {
  std::string key;
  Tensor tensor;
};

/// The archive's directory: PyTorch 1.13 names it after the file, without
/// its extension.
std::string archive_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = name.rfind('.');
  if (dot != std::string::npos) name.resize(dot);
  return name.empty() ? "archive" : name;
}

std::string make_pickle(const StateDict& tensors, std::vector<OutStorage>* storages) {
  PickleWriter p;
  p.op(op::kProto);
  p.op(2);
  p.global("collections", "OrderedDict");
  const uint32_t ordered_dict = p.put();
  p.op(op::kEmptyTuple);
  p.op(op::kReduce);
  p.put();

  std::optional<uint32_t> rebuild, storage_word, location;
  std::map<DType, uint32_t> storage_types;
  // Entries that view the same data the same way share one storage.
  using ViewKey =
      std::tuple<const void*, int64_t, DType, std::vector<int64_t>, std::vector<int64_t>>;
  std::map<ViewKey, size_t> by_view;
  std::vector<std::optional<uint32_t>> key_memo;

  constexpr size_t kBatch = 1000;  // Python's pickler writes SETITEMS in batches of 1000
  std::vector<const StateDict::Item*> items;
  for (const StateDict::Item& item : tensors) items.push_back(&item);
  for (size_t begin = 0; begin < items.size(); begin += kBatch) {
    const size_t end = std::min(items.size(), begin + kBatch);
    if (end - begin > 1) p.op(op::kMark);
    for (size_t i = begin; i < end; ++i) {
      const auto& [name, t] = *items[i];
      p.string(name);
      p.put();
      const std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
      const ViewKey view{t.impl()->storage().get(), t.storage_offset(), t.dtype(), sizes,
                         std::vector<int64_t>(t.strides().begin(), t.strides().end())};
      auto [it, added] = by_view.emplace(view, storages->size());
      if (added) {
        storages->push_back(OutStorage{std::to_string(storages->size()), t});
        key_memo.emplace_back();
      }
      const OutStorage& storage = (*storages)[it->second];

      if (rebuild) {
        p.get(*rebuild);
      } else {
        p.global("torch._utils", "_rebuild_tensor_v2");
        rebuild = p.put();
      }
      p.op(op::kMark);  // the arguments
      p.op(op::kMark);  // the persistent id
      p.memo_string("storage", &storage_word);
      if (const auto type = storage_types.find(t.dtype()); type != storage_types.end()) {
        p.get(type->second);
      } else {
        p.global("torch", storage_name(t.dtype()));
        storage_types.emplace(t.dtype(), p.put());
      }
      p.memo_string(storage.key, &key_memo[it->second]);
      p.memo_string("cpu", &location);
      p.integer(t.numel());
      p.op(op::kTuple);
      p.put();
      p.op(op::kBinPersId);
      p.integer(0);  // storage offset
      p.int_tuple(sizes);
      p.int_tuple(contiguous_strides(t.sizes()));
      p.op(op::kNewFalse);  // requires_grad
      p.get(ordered_dict);  // backward_hooks: OrderedDict()
      p.op(op::kEmptyTuple);
      p.op(op::kReduce);
      p.put();
      p.op(op::kTuple);
      p.put();
      p.op(op::kReduce);
      p.put();
    }
    p.op(end - begin > 1 ? op::kSetItems : op::kSetItem);
  }
  p.op(op::kStop);
  return std::move(p.bytes());
}

}  // namespace

namespace detail {

StateDict load_pytorch_records(const std::vector<std::pair<std::string, std::string>>& records) {
  MapRecords map(records);
  return CheckpointReader("load_pytorch(<records>): ", map).read();
}

}  // namespace detail

StateDict load_pytorch(const std::string& path) {
  const std::string where = "load_pytorch(" + in_quotes(path) + "): ";
  const detail::FileSource source(path, where, where);
  ZipArchive zip(source);
  return CheckpointReader(source.where(), zip).read();
}

StateDict load_pytorch_buffer(std::string_view bytes) {
  const detail::BufferSource source(bytes, "load_pytorch(<buffer>): ");
  ZipArchive zip(source);
  return CheckpointReader(source.where(), zip).read();
}

void save_pytorch(const StateDict& tensors, const std::string& path) {
  const std::string where = "save_pytorch(" + in_quotes(path) + "): ";
  for (const auto& [name, t] : tensors) {
    TORCHLET_CHECK(t.defined(), where, "tensor \"", name, "\" is undefined");
    TORCHLET_CHECK(is_utf8(name), where, "tensor name \"", name, "\" is not valid UTF-8");
  }
  std::vector<OutStorage> storages;
  const std::string pickle = make_pickle(tensors, &storages);
  const std::string prefix = archive_name(path) + "/";
  // PyTorch writes the storages in the order of their keys as strings.
  std::sort(storages.begin(), storages.end(),
            [](const OutStorage& a, const OutStorage& b) { return a.key < b.key; });

  // Written atomically (Note [Atomic save] in file_io.h).
  AtomicFile file(path, where);
  ZipWriter zip(file, where);
  zip.add(prefix + "data.pkl", pickle.data(), pickle.size());
  for (const OutStorage& storage : storages) {
    const Tensor& t = storage.tensor;
    Tensor host = t.device().is_cpu() ? t : t.to(Device(kCPU));
    host = host.contiguous();
    zip.add(prefix + "data/" + storage.key, host.data_ptr(),
            static_cast<uint64_t>(host.numel()) * host.element_size());
  }
  static constexpr char kVersion[] = "3\n";  // what PyTorch 1.13 writes
  zip.add(prefix + "version", kVersion, 2);
  zip.close();
  file.commit();
}

}  // namespace torchlet
