#include "nn/serialize/safetensors.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "nn/serialize/file_io.h"
#include "nn/serialize/safetensors_testing.h"
#include "tensor/tensor.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "safetensors data is little-endian and is copied as stored in memory");

namespace torchlet {
namespace {

using detail::AtomicFile;
using detail::ByteSource;
using detail::in_quotes;

// Note [Header objects and their order]
// nlohmann's ordered_json finds a key by a linear scan, so a header of n
// names would take O(n^2) to parse or build: a hostile header of a million
// metadata entries would hang the loader. Objects are std::map-backed
// nlohmann::json instead; the header parser records the order of the
// top-level names (load() returns tensors in the header's order), and save()
// joins the top-level members itself, each key and value dumped by the library.
using Json = nlohmann::json;
/// A tensor's description keeps Python's field order: dtype, shape, data_offsets.
using OrderedJson = nlohmann::ordered_json;

// Note [safetensors dtypes]
// One row per dtype name of Python's safetensors, in the order of its `Dtype`
// enum: its writer lays tensors out by descending position in that order
// (then by name), which keeps every tensor aligned to its element size, and
// ours does the same. A row without a torchlet DType is a name the format
// knows but torchlet cannot hold yet: loading it names the file, the tensor
// and the dtype.
struct DTypeInfo {
  const char* name;
  size_t size;
  std::optional<DType> dtype;
};

constexpr DTypeInfo kDTypes[] = {
    {"BOOL", 1, kBool},         {"U8", 1, kUInt8},          {"I8", 1, std::nullopt},
    {"F8_E5M2", 1, std::nullopt}, {"F8_E4M3", 1, std::nullopt}, {"I16", 2, std::nullopt},
    {"U16", 2, std::nullopt},   {"F16", 2, kFloat16},       {"BF16", 2, kBFloat16},
    {"I32", 4, kInt32},         {"U32", 4, std::nullopt},   {"F32", 4, kFloat32},
    {"F64", 8, kFloat64},       {"I64", 8, kInt64},         {"U64", 8, std::nullopt},
};
constexpr size_t kNumDTypes = sizeof(kDTypes) / sizeof(kDTypes[0]);

const DTypeInfo* find_dtype(const std::string& name) {
  for (const DTypeInfo& info : kDTypes) {
    if (name == info.name) return &info;
  }
  return nullptr;
}

/// Position of `dtype`'s row in kDTypes.
size_t dtype_rank(DType dtype) {
  for (size_t i = 0; i < kNumDTypes; ++i) {
    if (kDTypes[i].dtype == dtype) return i;
  }
  TORCHLET_INTERNAL_ASSERT(false, "no safetensors name for dtype ", dtype);
}

/// The largest header Python's safetensors accepts (its MAX_HEADER_SIZE).
constexpr uint64_t kMaxHeaderSize = 100'000'000;
/// A header is an object of objects of arrays: no value opens deeper.
constexpr size_t kMaxHeaderDepth = 2;
/// The most values a list in a header holds: a shape of the most dimensions
/// PyTorch allows.
constexpr size_t kMaxListLength = 64;
constexpr const char* kMetadataKey = "__metadata__";

/// A JSON value for an error message, cut short when long.
std::string excerpt(const Json& value) {
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  constexpr size_t kMax = 60;
  return text.size() <= kMax ? text : text.substr(0, kMax) + "...";
}

// ---- Reading ---------------------------------------------------------------

/// One tensor of a validated header.
struct Entry {
  std::string name;
  DType dtype;
  SizeVec shape;
  uint64_t begin;
  uint64_t end;
};

struct Header {
  std::vector<Entry> entries;  // in the header's order
  SafetensorsMetadata metadata;
  uint64_t data_start = 0;
};

// Note [Parsing a hostile safetensors header]
// nlohmann's DOM keeps the last of two equal keys silently, so a file naming a
// tensor twice would load one of them; and its callback parser rescans the
// enclosing object after every nested object, O(n^2) in the number of
// tensors. So the header goes through a SAX handler that checks each event and
// forwards it to nlohmann's plain DOM builder: one set of keys per open object
// catches a repeat, and what no safetensors header holds is refused before the
// tree grows: nesting deeper than objects of objects of lists, and lists
// longer than a shape can be. The tree then stays within a small multiple of
// the header's length (itself at most kMaxHeaderSize and the file's size).
class HeaderParser {
 public:
  using Dom = nlohmann::detail::json_sax_dom_parser<Json>;

  HeaderParser(const std::string& where, Json* root) : where_(where), dom_(*root) {}

  /// The top-level names, in the header's order.
  const std::vector<std::string>& names() const { return names_; }

  bool null() { return count_list_item() && dom_.null(); }
  bool boolean(bool v) { return count_list_item() && dom_.boolean(v); }
  bool number_integer(Json::number_integer_t v) { return count_list_item() && dom_.number_integer(v); }
  bool number_unsigned(Json::number_unsigned_t v) {
    return count_list_item() && dom_.number_unsigned(v);
  }
  bool number_float(Json::number_float_t v, const Json::string_t& text) {
    return count_list_item() && dom_.number_float(v, text);
  }
  bool string(Json::string_t& v) { return count_list_item() && dom_.string(v); }
  bool binary(Json::binary_t& v) { return count_list_item() && dom_.binary(v); }
  bool start_object(std::size_t n) { return open(false) && dom_.start_object(n); }
  bool start_array(std::size_t n) { return open(true) && dom_.start_array(n); }
  bool end_object() {
    open_.pop_back();
    return dom_.end_object();
  }
  bool end_array() {
    open_.pop_back();
    return dom_.end_array();
  }
  bool key(Json::string_t& key) {
    TORCHLET_CHECK(open_.back().keys.insert(key).second, "load(", where_, "): the header names \"",
                   key, "\" twice");
    if (open_.size() == 1) names_.push_back(key);
    return dom_.key(key);
  }
  bool parse_error(std::size_t position, const std::string& token,
                   const nlohmann::detail::exception& e) {
    return dom_.parse_error(position, token, e);
  }

 private:
  struct Open {
    bool is_list;
    size_t items;
    std::unordered_set<std::string> keys;
  };

  bool open(bool is_list) {
    TORCHLET_CHECK(open_.size() <= kMaxHeaderDepth, "load(", where_,
                   "): the header nests values deeper than a safetensors header does");
    count_list_item();
    open_.push_back(Open{is_list, 0, {}});
    return true;
  }

  bool count_list_item() {
    if (open_.empty() || !open_.back().is_list) return true;
    TORCHLET_CHECK(++open_.back().items <= kMaxListLength, "load(", where_,
                   "): the header holds a list longer than a shape can be (", kMaxListLength,
                   " values)");
    return true;
  }

  const std::string& where_;
  Dom dom_;
  std::vector<std::string> names_;
  std::vector<Open> open_;
};

/// The parsed header; its top-level names, in order, go to `names`.
Json parse_json(const std::string& text, const std::string& where,
                std::vector<std::string>* names) {
  Json root;
  HeaderParser parser(where, &root);
  try {
    Json::sax_parse(text, &parser);
  } catch (const Json::exception& e) {
    detail::throw_error(detail::str_cat("load(", where, "): the header is not valid JSON: ",
                                        e.what()));
  }
  *names = parser.names();
  return root;
}

SafetensorsMetadata parse_metadata(const Json& value, const std::string& where) {
  TORCHLET_CHECK(value.is_object(), "load(", where, "): __metadata__ must be an object, not ",
                 excerpt(value));
  SafetensorsMetadata metadata;
  for (const auto& [key, text] : value.items()) {
    TORCHLET_CHECK(text.is_string(), "load(", where, "): __metadata__ must map strings to strings; \"",
                   key, "\" holds ", excerpt(text));
    metadata.emplace(key, text.get<std::string>());
  }
  return metadata;
}

/// `value` as a non-negative int64, or nullopt.
std::optional<int64_t> as_index(const Json& value) {
  if (!value.is_number_unsigned()) return std::nullopt;
  const uint64_t n = value.get<uint64_t>();
  if (n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
  return static_cast<int64_t>(n);
}

const Json& field(const Json& entry, const char* key, const std::string& name,
                  const std::string& where) {
  auto it = entry.find(key);
  TORCHLET_CHECK(it != entry.end(), "load(", where, "): tensor \"", name, "\" has no \"", key,
                 "\"");
  return *it;
}

const DTypeInfo& parse_dtype(const Json& value, const std::string& name, const std::string& where) {
  TORCHLET_CHECK(value.is_string(), "load(", where, "): tensor \"", name,
                 "\": dtype must be a string, not ", excerpt(value));
  const DTypeInfo* info = find_dtype(value.get<std::string>());
  TORCHLET_CHECK(info != nullptr, "load(", where, "): tensor \"", name, "\" has unknown dtype ",
                 excerpt(value));
  TORCHLET_CHECK(info->dtype.has_value(), "load(", where, "): tensor \"", name, "\" has dtype ",
                 info->name, ", which torchlet does not support");
  return *info;
}

SizeVec parse_shape(const Json& value, const std::string& name, const std::string& where) {
  const bool is_list = value.is_array();
  SizeVec shape;
  for (size_t i = 0; is_list && i < value.size(); ++i) {
    const std::optional<int64_t> dim = as_index(value[i]);
    if (!dim) break;
    shape.push_back(*dim);
  }
  TORCHLET_CHECK(is_list && shape.size() == value.size(), "load(", where, "): tensor \"", name,
                 "\": shape must be a list of non-negative integers, not ", excerpt(value));
  return shape;
}

/// Bytes of a tensor of `shape` and `element_size`, or nullopt on overflow.
std::optional<uint64_t> byte_size(const SizeVec& shape, size_t element_size) {
  uint64_t numel = 1;
  for (int64_t dim : shape) {
    if (__builtin_mul_overflow(numel, static_cast<uint64_t>(dim), &numel)) return std::nullopt;
  }
  uint64_t bytes = 0;
  if (numel > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
      __builtin_mul_overflow(numel, static_cast<uint64_t>(element_size), &bytes)) {
    return std::nullopt;
  }
  return bytes;
}

Entry parse_entry(const std::string& name, const Json& value, const std::string& where) {
  TORCHLET_CHECK(value.is_object(), "load(", where, "): tensor \"", name,
                 "\" must be described by an object, not ", excerpt(value));
  for (const auto& item : value.items()) {
    const std::string& key = item.key();
    TORCHLET_CHECK(key == "dtype" || key == "shape" || key == "data_offsets", "load(", where,
                   "): tensor \"", name, "\" has unknown field \"", key, "\"");
  }
  const DTypeInfo& info = parse_dtype(field(value, "dtype", name, where), name, where);
  SizeVec shape = parse_shape(field(value, "shape", name, where), name, where);
  const Json& offsets = field(value, "data_offsets", name, where);
  const bool pair = offsets.is_array() && offsets.size() == 2;
  const std::optional<int64_t> begin = pair ? as_index(offsets[0]) : std::nullopt;
  const std::optional<int64_t> end = pair ? as_index(offsets[1]) : std::nullopt;
  TORCHLET_CHECK(begin && end, "load(", where, "): tensor \"", name,
                 "\": data_offsets must be two non-negative integers, not ", excerpt(offsets));
  TORCHLET_CHECK(*begin <= *end, "load(", where, "): tensor \"", name, "\": data_offsets [",
                 *begin, ", ", *end, "] are not in increasing order");
  const std::optional<uint64_t> bytes = byte_size(shape, info.size);
  TORCHLET_CHECK(bytes.has_value(), "load(", where, "): tensor \"", name, "\": shape ",
                 shape_str(shape), " of dtype ", info.name, " overflows int64");
  const uint64_t held = static_cast<uint64_t>(*end - *begin);
  TORCHLET_CHECK(*bytes == held, "load(", where, "): tensor \"", name, "\": shape ",
                 shape_str(shape), " of dtype ", info.name, " needs ", *bytes,
                 " bytes but data_offsets [", *begin, ", ", *end, "] hold ", held);
  return Entry{name, *info.dtype, std::move(shape), static_cast<uint64_t>(*begin),
               static_cast<uint64_t>(*end)};
}

std::string offsets_str(const Entry& e) { return detail::str_cat("[", e.begin, ", ", e.end, "]"); }

/// Every byte of the data belongs to exactly one tensor.
void check_layout(const std::vector<Entry>& entries, uint64_t data_size, const std::string& where) {
  for (const Entry& e : entries) {
    TORCHLET_CHECK(e.end <= data_size, "load(", where, "): tensor \"", e.name, "\": data_offsets ",
                   offsets_str(e), " reach past the end of the data (", data_size,
                   " bytes): the file is truncated or the offsets are out of range");
  }
  std::vector<const Entry*> by_offset;
  for (const Entry& e : entries) by_offset.push_back(&e);
  std::sort(by_offset.begin(), by_offset.end(), [](const Entry* a, const Entry* b) {
    return std::make_pair(a->begin, a->end) < std::make_pair(b->begin, b->end);
  });
  uint64_t covered = 0;
  const Entry* previous = nullptr;
  for (const Entry* e : by_offset) {
    TORCHLET_CHECK(e->begin >= covered, "load(", where, "): tensors \"", previous->name, "\" ",
                   offsets_str(*previous), " and \"", e->name, "\" ", offsets_str(*e),
                   " overlap");
    TORCHLET_CHECK(e->begin == covered, "load(", where, "): bytes [", covered, ", ", e->begin,
                   ") of the data, before tensor \"", e->name, "\", belong to no tensor");
    covered = e->end;
    previous = e;
  }
  TORCHLET_CHECK(covered == data_size, "load(", where, "): bytes [", covered, ", ", data_size,
                 ") of the data, after the last tensor, belong to no tensor");
}

Header read_header(const ByteSource& source) {
  const std::string& where = source.where();
  const uint64_t size = source.size();
  TORCHLET_CHECK(size >= 8, "load(", where, "): the file is ", size,
                 " bytes long, too short for the 8-byte header length");
  unsigned char length_bytes[8];
  source.read(0, length_bytes, 8);
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | length_bytes[i];
  TORCHLET_CHECK(length <= kMaxHeaderSize, "load(", where, "): header length ", length,
                 " exceeds safetensors' limit of ", kMaxHeaderSize, " bytes");
  TORCHLET_CHECK(length <= size - 8, "load(", where, "): header length ", length,
                 " reaches past the end of the file (", size - 8, " bytes follow the length)");
  std::string text(length, '\0');
  source.read(8, text.data(), length);
  std::vector<std::string> names;
  const Json json = parse_json(text, where, &names);
  TORCHLET_CHECK(json.is_object(), "load(", where, "): the header must be a JSON object, not ",
                 excerpt(json));
  Header header;
  header.data_start = 8 + length;
  for (const std::string& name : names) {
    const Json& value = json.at(name);
    if (name == kMetadataKey) {
      header.metadata = parse_metadata(value, where);
    } else {
      header.entries.push_back(parse_entry(name, value, where));
    }
  }
  check_layout(header.entries, size - header.data_start, where);
  return header;
}

/// A bool is one byte holding 0 or 1; any other byte would be undefined
/// behaviour the first time the tensor is read.
void check_bools(const Tensor& t, const std::string& name, const std::string& where) {
  const auto* bytes = static_cast<const unsigned char*>(t.data_ptr());
  const auto* end = bytes + t.numel();
  const auto* bad = std::find_if(bytes, end, [](unsigned char b) { return b > 1; });
  TORCHLET_CHECK(bad == end, "load(", where, "): tensor \"", name, "\" of dtype BOOL holds byte ",
                 static_cast<int>(*bad), " at element ", bad - bytes, "; a bool is 0 or 1");
}

StateDict read_tensors(const ByteSource& source, const Header& header) {
  const Device target = current_device();
  const Device host = target.is_cpu() ? target : Device(kCPU);
  StateDict tensors;
  for (const Entry& e : header.entries) {
    Tensor t = empty(e.shape, TensorOptions(e.dtype).device(host));
    if (e.end > e.begin) source.read(header.data_start + e.begin, t.data_ptr(), e.end - e.begin);
    if (e.dtype == kBool) check_bools(t, e.name, source.where());
    tensors.insert(e.name, host == target ? t : t.to(target));
  }
  return tensors;
}

// ---- Writing ---------------------------------------------------------------

std::atomic<detail::SaveHook> save_hook{nullptr};

void run_save_hook(const std::string& temp_path, size_t tensors_written) {
  if (detail::SaveHook hook = save_hook.load()) hook(temp_path, tensors_written);
}

void check_utf8(const std::string& text, const char* what, const std::string& path) {
  try {
    Json(text).dump();
  } catch (const Json::exception&) {
    detail::throw_error(detail::str_cat("save(", in_quotes(path), "): ", what, " \"", text,
                                        "\" is not valid UTF-8"));
  }
}

void check_savable(const StateDict& tensors, const SafetensorsMetadata& metadata,
                   const std::string& path) {
  for (const auto& [name, t] : tensors) {
    TORCHLET_CHECK(t.defined(), "save(", in_quotes(path), "): tensor \"", name, "\" is undefined");
    TORCHLET_CHECK(name != kMetadataKey, "save(", in_quotes(path), "): \"", kMetadataKey,
                   "\" is reserved for the metadata and cannot name a tensor");
    check_utf8(name, "tensor name", path);
  }
  for (const auto& [key, value] : metadata) {
    check_utf8(key, "metadata key", path);
    check_utf8(value, "metadata value", path);
  }
}

/// The tensors in the order their data is written (see Note [safetensors dtypes]).
std::vector<const StateDict::Item*> data_order(const StateDict& tensors) {
  std::vector<const StateDict::Item*> order;
  for (const StateDict::Item& item : tensors) order.push_back(&item);
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    const size_t ra = dtype_rank(a->second.dtype()), rb = dtype_rank(b->second.dtype());
    return ra != rb ? ra > rb : a->first < b->first;
  });
  return order;
}

/// The header: `__metadata__` first, then the tensors in the StateDict's
/// order (which load() returns; see Note [Header objects and their order]),
/// padded with spaces to a multiple of 8 bytes
/// as Python's safetensors pads it.
std::string make_header(const StateDict& tensors, const std::vector<const StateDict::Item*>& order,
                        const SafetensorsMetadata& metadata) {
  std::unordered_map<const StateDict::Item*, std::pair<uint64_t, uint64_t>> offsets;
  uint64_t offset = 0;
  for (const StateDict::Item* item : order) {
    const Tensor& t = item->second;
    const uint64_t bytes = static_cast<uint64_t>(t.numel()) * t.element_size();
    offsets[item] = {offset, offset + bytes};
    offset += bytes;
  }
  std::string text = "{";
  auto append = [&text](const std::string& key, const std::string& value) {
    if (text.size() > 1) text += ',';
    text += Json(key).dump() + ':' + value;
  };
  if (!metadata.empty()) append(kMetadataKey, Json(metadata).dump());
  for (const StateDict::Item& item : tensors) {
    OrderedJson entry = OrderedJson::object();
    entry["dtype"] = kDTypes[dtype_rank(item.second.dtype())].name;
    entry["shape"] = OrderedJson::array();
    for (int64_t dim : item.second.sizes()) entry["shape"].push_back(dim);
    const auto [begin, end] = offsets.at(&item);
    entry["data_offsets"] = OrderedJson::array({begin, end});
    append(item.first, entry.dump());
  }
  text += '}';
  text.append((8 - text.size() % 8) % 8, ' ');
  return text;
}

void write_le64(AtomicFile& file, uint64_t value) {
  unsigned char bytes[8];
  for (unsigned char& b : bytes) {
    b = static_cast<unsigned char>(value & 0xff);
    value >>= 8;
  }
  file.write(bytes, sizeof(bytes));
}

}  // namespace

namespace detail {
void set_save_hook(SaveHook hook) { save_hook.store(hook); }
}  // namespace detail

void save(const StateDict& tensors, const std::string& path, const SafetensorsMetadata& metadata) {
  check_savable(tensors, metadata, path);
  const std::vector<const StateDict::Item*> order = data_order(tensors);
  const std::string header = make_header(tensors, order, metadata);
  AtomicFile file(path, "save(" + in_quotes(path) + "): ");
  write_le64(file, header.size());
  file.write(header.data(), header.size());
  run_save_hook(file.temp_path(), 0);
  size_t written = 0;
  for (const StateDict::Item* item : order) {
    Tensor host = item->second.device().is_cpu() ? item->second : item->second.to(Device(kCPU));
    host = host.contiguous();
    file.write(host.data_ptr(), static_cast<size_t>(host.numel()) * host.element_size());
    run_save_hook(file.temp_path(), ++written);
  }
  file.commit();
}

namespace {

detail::FileSource open_file(const std::string& path) {
  return detail::FileSource(path, in_quotes(path), "load(" + in_quotes(path) + "): ");
}

}  // namespace

StateDict load(const std::string& path) {
  const detail::FileSource source = open_file(path);
  return read_tensors(source, read_header(source));
}

SafetensorsMetadata load_metadata(const std::string& path) {
  return read_header(open_file(path)).metadata;
}

StateDict load_buffer(std::string_view bytes) {
  const detail::BufferSource source(bytes, "<buffer>");
  return read_tensors(source, read_header(source));
}

}  // namespace torchlet
