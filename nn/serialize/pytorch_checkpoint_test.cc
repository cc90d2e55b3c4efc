#include "nn/serialize/pytorch_checkpoint.h"

#include <gtest/gtest.h>
#include <minizip/unzip.h>
#include <minizip/zip.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "nn/serialize/every_dtype.h"
#include "nn/serialize/pytorch_checkpoint_testing.h"
#include "nn/serialize/safetensors.h"
#include "nn/serialize/serialize_test_util.h"
#include "tensor/file_size_limit.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using ::torchlet::testing::expect_identical;
using ::torchlet::testing::FileSizeLimit;
using ::torchlet::testing::identical;
using ::torchlet::testing::read_file;
using ::torchlet::testing::write_file;
using Records = std::vector<std::pair<std::string, std::string>>;

constexpr char kTestdata[] = "nn/serialize/testdata/pytorch/";

std::string fixture(const std::string& name) { return kTestdata + name; }

/// Every entry of the zip archive at `path` (name, bytes), in its order.
Records zip_entries(const std::string& path) {
  Records out;
  unzFile zip = unzOpen64(path.c_str());
  if (zip == nullptr) return out;
  for (int err = unzGoToFirstFile(zip); err == UNZ_OK; err = unzGoToNextFile(zip)) {
    unz_file_info64 info;
    char name[1024];
    unzGetCurrentFileInfo64(zip, &info, name, sizeof(name), nullptr, 0, nullptr, 0);
    std::string bytes(info.uncompressed_size, '\0');
    unzOpenCurrentFile(zip);
    if (!bytes.empty()) unzReadCurrentFile(zip, bytes.data(), static_cast<unsigned>(bytes.size()));
    unzCloseCurrentFile(zip);
    out.emplace_back(name, bytes);
  }
  unzClose(zip);
  return out;
}

std::vector<std::string> names_of(const Records& records) {
  std::vector<std::string> names;
  for (const auto& [name, bytes] : records) names.push_back(name);
  return names;
}

/// Writes `records` as a zip archive, compressed with `method` (0: stored).
void write_zip(const std::string& path, const Records& records, int method = 0) {
  zipFile zip = zipOpen64(path.c_str(), APPEND_STATUS_CREATE);
  ASSERT_NE(zip, nullptr);
  for (const auto& [name, bytes] : records) {
    zip_fileinfo info{};
    ASSERT_EQ(zipOpenNewFileInZip64(zip, name.c_str(), &info, nullptr, 0, nullptr, 0, nullptr,
                                    method, method == 0 ? 0 : 6, 0),
              ZIP_OK);
    ASSERT_EQ(zipWriteInFileInZip(zip, bytes.data(), static_cast<unsigned>(bytes.size())), ZIP_OK);
    ASSERT_EQ(zipCloseFileInZip(zip), ZIP_OK);
  }
  ASSERT_EQ(zipClose(zip, nullptr), ZIP_OK);
}

// ---- Hand-made pickles ---------------------------------------------------------

std::string le(uint64_t v, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}

std::string str(const std::string& s) { return "X" + le(s.size(), 4) + s; }
std::string global(const std::string& module, const std::string& name) {
  return "c" + module + "\n" + name + "\n";
}
std::string short_str(const std::string& s) { return "\x8c" + le(s.size(), 1) + s; }
std::string int1(int v) { return "K" + le(static_cast<uint64_t>(v), 1); }
std::string ints(const std::vector<int>& values) {
  std::string out = "(";
  for (int v : values) out += int1(v);
  return out + "t";
}

constexpr char kProto2[] = "\x80\x02";
const std::string kOrderedDict = global("collections", "OrderedDict") + ")R";

/// _rebuild_tensor_v2 of storage `key` (a torch.<type>) of `numel` elements.
std::string tensor_pickle(const std::string& type, const std::string& key, const std::string& numel,
                          int offset, const std::vector<int>& sizes,
                          const std::vector<int>& strides) {
  return global("torch._utils", "_rebuild_tensor_v2") + "((" + str("storage") +
         global("torch", type) + str(key) + str("cpu") + numel + "tQ" + int1(offset) + ints(sizes) +
         ints(strides) + "\x89}tR";
}

std::string float_tensor(const std::string& key = "0") {
  return tensor_pickle("FloatStorage", key, int1(16), 0, {4, 4}, {4, 1});
}

/// An OrderedDict of `entries` (key and value pickles, concatenated).
std::string state_dict_pickle(const std::string& entries) {
  return kProto2 + kOrderedDict + "(" + entries + "u.";
}

/// A checkpoint of `pickle` whose storages "0" and "1" are 64 bytes of 1s.
StateDict load_pickle(const std::string& pickle) {
  return detail::load_pytorch_records({{"archive/data.pkl", pickle},
                                       {"archive/version", "3\n"},
                                       {"archive/data/0", std::string(64, '\x01')},
                                       {"archive/data/1", std::string(64, '\x01')}});
}

constexpr char kRecords[] = "load_pytorch(<records>): ";

class PytorchCheckpointTest : public testing::TempDirTest {
 protected:
  PytorchCheckpointTest() : TempDirTest("pytorch_checkpoint") {}
  void TearDown() override {
    TempDirTest::TearDown();
    set_cpu_device_count(1);
  }

  /// How load_pytorch() errors on `p` begin.
  static std::string where(const std::string& p) { return "load_pytorch(\"" + p + "\"): "; }

  /// A checkpoint of `records` (stored), and its path.
  std::string write_checkpoint(const Records& records) {
    const std::string p = path("m.pt");
    write_zip(p, records);
    return p;
  }

  /// `records` of a valid checkpoint of one float tensor, with `name`
  /// replaced by `bytes` (or added).
  static Records replacing(const std::string& name, const std::string& bytes) {
    Records records = {{"archive/data.pkl", state_dict_pickle(str("w") + float_tensor())},
                       {"archive/data/0", std::string(64, '\0')},
                       {"archive/version", "3\n"}};
    bool found = false;
    for (auto& [n, b] : records) {
      if (n == name) b = bytes, found = true;
    }
    if (!found) records.emplace_back(name, bytes);
    return records;
  }
};

// ---- Loading what PyTorch wrote ----------------------------------------------------

TEST_F(PytorchCheckpointTest, LoadsEveryDTypeWrittenByPyTorch) {
  expect_identical(load_pytorch(fixture("all_dtypes.pt")), load(fixture("all_dtypes.safetensors")));
}

TEST_F(PytorchCheckpointTest, LoadsViewsWithTheirValues) {
  expect_identical(load_pytorch(fixture("views.pt")), load(fixture("views.safetensors")));
}

TEST_F(PytorchCheckpointTest, KeepsSizesStridesAndStorageOffsets) {
  const StateDict sd = load_pytorch(fixture("views.pt"));
  EXPECT_EQ(sd.at("transposed").strides(), IntArrayRef({1, 3}));
  EXPECT_EQ(sd.at("tail").storage_offset(), 6);
  EXPECT_EQ(sd.at("every_third").strides(), IntArrayRef({3}));
  EXPECT_EQ(sd.at("element").dim(), 0);
  EXPECT_EQ(sd.at("element").storage_offset(), 5);
  EXPECT_EQ(sd.at("element").item<double>(), 5.0);
  EXPECT_EQ(sd.at("expanded").strides(), IntArrayRef({0, 1}));
  EXPECT_EQ(sd.at("column").strides(), IntArrayRef({4}));
  EXPECT_EQ(sd.at("column").storage_offset(), 1);
}

TEST_F(PytorchCheckpointTest, ViewsOfOneStorageShareItAfterLoading) {
  const StateDict sd = load_pytorch(fixture("views.pt"));
  EXPECT_TRUE(sd.at("head").shares_storage(sd.at("tail")));
  EXPECT_TRUE(sd.at("head").shares_storage(sd.at("element")));
  EXPECT_TRUE(sd.at("tied_a").shares_storage(sd.at("tied_b")));
  EXPECT_FALSE(sd.at("head").shares_storage(sd.at("transposed")));
  Tensor head = sd.at("head");
  head.fill_(-1.0);
  EXPECT_EQ(sd.at("every_third")[1].item<double>(), -1.0);  // element 3 of the storage
  EXPECT_EQ(sd.at("tail")[0].item<double>(), 6.0);
}

TEST_F(PytorchCheckpointTest, LoadsZeroDimAndEmptyTensors) {
  const StateDict sd = load_pytorch(fixture("views.pt"));
  EXPECT_EQ(sd.at("scalar").dim(), 0);
  EXPECT_EQ(sd.at("scalar").item<int64_t>(), 7);
  EXPECT_EQ(sd.at("empty").sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(sd.at("past_the_end").sizes(), IntArrayRef({0}));
  EXPECT_EQ(sd.at("past_the_end").storage_offset(), 10);
}

TEST_F(PytorchCheckpointTest, LoadsPickleOfProtocol4) {
  expect_identical(load_pytorch(fixture("protocol4.pt")), load(fixture("protocol4.safetensors")));
}

TEST_F(PytorchCheckpointTest, LoadsPlainDictHoldingAParameter) {
  expect_identical(load_pytorch(fixture("parameter.pt")), load(fixture("parameter.safetensors")));
}

TEST_F(PytorchCheckpointTest, LoadsBigEndianCheckpoint) {
  expect_identical(load_pytorch(fixture("big_endian.pt")), load(fixture("all_dtypes.safetensors")));
}

TEST_F(PytorchCheckpointTest, ReadsSizesAndOffsetsFromZip64ExtraFields) {
  // As torch.save writes them for entries of 4 GiB or more, or past 4 GiB.
  expect_identical(load_pytorch(fixture("zip64.pt")), load(fixture("all_dtypes.safetensors")));
}

TEST_F(PytorchCheckpointTest, LoadsModuleStateDictWithBatchNormCounter) {
  const StateDict sd = load_pytorch(fixture("small_net.pt"));
  expect_identical(sd, load(fixture("small_net.safetensors")));
  EXPECT_EQ(sd.at("1.num_batches_tracked").dtype(), kInt64);
  EXPECT_EQ(sd.at("1.num_batches_tracked").item<int64_t>(), 3);
}

TEST_F(PytorchCheckpointTest, LoadsOntoTheCurrentDevice) {
  set_cpu_device_count(2);
  DeviceGuard guard(Device("cpu:1"));
  const StateDict sd = load_pytorch(fixture("views.pt"));
  for (const auto& [name, t] : sd) EXPECT_EQ(t.device(), Device("cpu:1")) << name;
  EXPECT_TRUE(sd.at("head").shares_storage(sd.at("tail")));
}

TEST_F(PytorchCheckpointTest, LoadBufferReadsWhatLoadReads) {
  expect_identical(load_pytorch_buffer(read_file(fixture("all_dtypes.pt"))),
                   load_pytorch(fixture("all_dtypes.pt")));
}

// ---- Saving for PyTorch ------------------------------------------------------------

TEST_F(PytorchCheckpointTest, SaveWritesTheEntriesAndPickleTorchSaveWrites) {
  // every_dtype.pt is torch.save of the same OrderedDict, by PyTorch 1.13.
  save_pytorch(testing::every_dtype(), path("every_dtype.pt"));
  const Records ours = zip_entries(path("every_dtype.pt"));
  const Records theirs = zip_entries(fixture("every_dtype.pt"));
  ASSERT_EQ(names_of(ours), names_of(theirs));
  for (size_t i = 0; i < ours.size(); ++i)
    EXPECT_EQ(ours[i].second, theirs[i].second) << ours[i].first;
}

TEST_F(PytorchCheckpointTest, RoundTripsEveryDType) {
  const StateDict sd = testing::every_dtype();
  save_pytorch(sd, path("m.pt"));
  expect_identical(load_pytorch(path("m.pt")), sd);
}

TEST_F(PytorchCheckpointTest, RoundTripsZeroDimEmptyTensorsAndEmptyStateDict) {
  const StateDict sd{{"scalar", scalar_tensor(2.5, kFloat64)},
                     {"empty", zeros({0}, kInt64)},
                     {"empty_rows", zeros({2, 0})},
                     {"bool_scalar", scalar_tensor(true)}};
  save_pytorch(sd, path("m.pt"));
  expect_identical(load_pytorch(path("m.pt")), sd);
  save_pytorch(StateDict(), path("e.pt"));
  EXPECT_TRUE(load_pytorch(path("e.pt")).empty());
}

TEST_F(PytorchCheckpointTest, SavesNonContiguousTensorsByValue) {
  const Tensor base = arange(12, kFloat32).view({3, 4});
  const StateDict sd{{"transposed", base.t()},
                     {"strided", testing::strided_copy(base)},
                     {"expanded", arange(3, kInt64).unsqueeze(0).expand({4, 3})},
                     {"offset", base.select(0, 1)}};
  save_pytorch(sd, path("m.pt"));
  const StateDict loaded = load_pytorch(path("m.pt"));
  for (const auto& [name, t] : sd) {
    EXPECT_TRUE(identical(loaded.at(name), t)) << name;
    EXPECT_TRUE(loaded.at(name).is_contiguous()) << name;
  }
  // One record per entry, each only as large as its tensor.
  EXPECT_EQ(zip_entries(path("m.pt"))[4].second.size(), 4u * 4);
}

TEST_F(PytorchCheckpointTest, TiedEntriesAreWrittenOnceAndLoadTied) {
  const Tensor w = arange(6, kFloat32).view({2, 3});
  save_pytorch({{"encoder.weight", w}, {"decoder.weight", w}, {"other", w.view({3, 2})}},
               path("m.pt"));
  EXPECT_EQ(names_of(zip_entries(path("m.pt"))),
            (std::vector<std::string>{"m/data.pkl", "m/data/0", "m/data/1", "m/version"}));
  const StateDict loaded = load_pytorch(path("m.pt"));
  EXPECT_TRUE(loaded.at("encoder.weight").shares_storage(loaded.at("decoder.weight")));
  EXPECT_FALSE(loaded.at("encoder.weight").shares_storage(loaded.at("other")));
  EXPECT_TRUE(identical(loaded.at("other"), w.view({3, 2})));
}

TEST_F(PytorchCheckpointTest, NamesTheArchiveAfterTheFileAsPyTorchDoes) {
  save_pytorch({{"w", ones({1})}}, path("lenet.v2.pth"));
  save_pytorch({{"w", ones({1})}}, path("noext"));
  EXPECT_EQ(names_of(zip_entries(path("lenet.v2.pth"))),
            (std::vector<std::string>{"lenet.v2/data.pkl", "lenet.v2/data/0", "lenet.v2/version"}));
  EXPECT_EQ(zip_entries(path("noext"))[0].first, "noext/data.pkl");
  EXPECT_EQ(zip_entries(path("noext"))[2].second, "3\n");
}

TEST_F(PytorchCheckpointTest, SaveAlignsEveryEntrysDataTo64Bytes) {
  save_pytorch(testing::every_dtype(), path("m.pt"));
  unzFile zip = unzOpen64(path("m.pt").c_str());
  ASSERT_NE(zip, nullptr);
  int entries = 0;
  for (int err = unzGoToFirstFile(zip); err == UNZ_OK; err = unzGoToNextFile(zip), ++entries) {
    ASSERT_EQ(unzOpenCurrentFile(zip), UNZ_OK);
    EXPECT_EQ(unzGetCurrentFileZStreamPos64(zip) % 64, 0u) << "entry " << entries;
    unzCloseCurrentFile(zip);
  }
  unzClose(zip);
  EXPECT_EQ(entries, 10);
}

TEST_F(PytorchCheckpointTest, ManyTensorsRoundTripAcrossPickleBatchesAndLongMemoIndices) {
  // Over 1000 entries: several SETITEMS batches; over 256 memo entries: LONG_BINPUT.
  StateDict sd;
  for (int i = 0; i < 2500; ++i) sd.insert("t" + std::to_string(2499 - i), full({2}, i, kInt32));
  save_pytorch(sd, path("m.pt"));
  expect_identical(load_pytorch(path("m.pt")), sd);
}

TEST_F(PytorchCheckpointTest, SavesTensorsOfAnotherCpuDevice) {
  set_cpu_device_count(2);
  const Tensor t = arange(6, kFloat64).to(Device("cpu:1"));
  save_pytorch({{"t", t}}, path("m.pt"));
  EXPECT_TRUE(identical(load_pytorch(path("m.pt")).at("t"), t.to(Device("cpu:0"))));
}

TEST_F(PytorchCheckpointTest, SaveReplacesExistingFileAndLeavesNoTemporaryFile) {
  save_pytorch({{"old", ones({4})}}, path("m.pt"));
  save_pytorch({{"new", zeros({2}, kInt32)}}, path("m.pt"));
  expect_identical(load_pytorch(path("m.pt")), {{"new", zeros({2}, kInt32)}});
  EXPECT_EQ(files(), std::vector<std::string>{"m.pt"});
}

// ---- Save errors -------------------------------------------------------------------

TEST_F(PytorchCheckpointTest, SaveRefusesUndefinedTensor) {
  const std::string p = path("m.pt");
  EXPECT_THROW_MSG(save_pytorch({{"w", Tensor()}}, p),
                   "save_pytorch(\"" + p + "\"): tensor \"w\" is undefined");
  EXPECT_TRUE(files().empty());
}

TEST_F(PytorchCheckpointTest, SaveRefusesNameThatIsNotUtf8) {
  const std::string p = path("m.pt");
  EXPECT_THROW_MSG(save_pytorch({{"w\xff", ones({1})}}, p),
                   "save_pytorch(\"" + p + "\"): tensor name \"w\xff\" is not valid UTF-8");
}

TEST_F(PytorchCheckpointTest, SaveIntoMissingDirectoryNamesFileAndOsError) {
  const std::string p = path("no_such_dir/m.pt");
  EXPECT_THROW_MSG(save_pytorch({{"w", ones({1})}}, p),
                   "save_pytorch(\"" + p +
                       "\"): cannot create a temporary file beside it: "
                       "No such file or directory");
}

TEST_F(PytorchCheckpointTest, SaveOverDirectoryFailsAndLeavesNoTemporaryFile) {
  const std::string p = path("m.pt");
  ASSERT_EQ(::mkdir(p.c_str(), 0755), 0);
  EXPECT_THROW_MSG(save_pytorch({{"w", ones({1})}}, p),
                   "save_pytorch(\"" + p +
                       "\"): cannot rename the temporary file over it: "
                       "Is a directory");
  EXPECT_EQ(files(), std::vector<std::string>{"m.pt"});
  ::rmdir(p.c_str());
}

TEST_F(PytorchCheckpointTest, WriteErrorKeepsOldFileAndLeavesNoTemporaryFile) {
  const std::string p = path("m.pt");
  const StateDict old_sd{{"w", arange(4, kFloat32)}};
  save_pytorch(old_sd, p);
  {
    FileSizeLimit limit(4096);
    EXPECT_THROW_MSG(save_pytorch({{"w", zeros({1 << 16})}}, p),
                     "save_pytorch(\"" + p + "\"): cannot write: File too large");
  }
  expect_identical(load_pytorch(p), old_sd);
  EXPECT_EQ(files(), std::vector<std::string>{"m.pt"});
}

// ---- Files that are not state_dicts -----------------------------------------------

TEST_F(PytorchCheckpointTest, RefusesGlobalOutsideTheAllowList) {
  const std::string p = fixture("eval.pt");
  EXPECT_THROW_MSG(
      load_pytorch(p),
      where(p) +
          "the file refers to builtins.eval, which a "
          "state_dict does not use; torchlet loads only tensors and containers of them");
}

TEST_F(PytorchCheckpointTest, RefusesDTypeTorchletLacks) {
  const std::string p = fixture("int16.pt");
  EXPECT_THROW_MSG(load_pytorch(p), where(p) +
                                        "the file holds a tensor of torch.ShortStorage "
                                        "(int16), a dtype torchlet does not have");
}

TEST_F(PytorchCheckpointTest, RefusesUnknownStorageType) {
  EXPECT_THROW_MSG(load_pickle(state_dict_pickle(
                       str("w") + tensor_pickle("ComplexFloatStorage", "0", int1(8), 0, {8}, {1}))),
                   std::string(kRecords) +
                       "the file holds a tensor of torch.ComplexFloatStorage, "
                       "a storage type torchlet does not have");
}

TEST_F(PytorchCheckpointTest, RefusesFormatBeforePyTorch16) {
  const std::string p = fixture("legacy.pt");
  EXPECT_THROW_MSG(load_pytorch(p), where(p) +
                                        "the file was written in the format of torch.save "
                                        "before PyTorch 1.6");
}

TEST_F(PytorchCheckpointTest, RefusesTorchScriptArchive) {
  const std::string p = fixture("torchscript.pt");
  EXPECT_THROW_MSG(load_pytorch(p),
                   where(p) + "the file is a TorchScript archive (torch.jit.save)");
}

TEST_F(PytorchCheckpointTest, RefusesCheckpointDictHoldingMoreThanTensors) {
  const std::string p = fixture("nested.pt");
  EXPECT_THROW_MSG(load_pytorch(p),
                   where(p) +
                       "the file's entry \"model\" holds an OrderedDict, not a "
                       "tensor; torchlet loads only a state_dict (a dict of names to tensors)");
  EXPECT_THROW_MSG(load_pickle(kProto2 + std::string("}(") + str("epoch") + int1(3) + "u."),
                   std::string(kRecords) + "the file's entry \"epoch\" holds an int, not a tensor");
}

TEST_F(PytorchCheckpointTest, RefusesTopLevelThatIsNotADict) {
  EXPECT_THROW_MSG(load_pickle(kProto2 + std::string("](") + float_tensor() + "e."),
                   std::string(kRecords) +
                       "the file holds a list, not a dict; torchlet loads "
                       "only a state_dict");
}

TEST_F(PytorchCheckpointTest, RefusesKeyThatIsNotAString) {
  EXPECT_THROW_MSG(load_pickle(state_dict_pickle(int1(1) + float_tensor())),
                   std::string(kRecords) + "the file's dict has an int as a key");
}

TEST_F(PytorchCheckpointTest, RefusesNameGivenTwice) {
  EXPECT_THROW_MSG(
      load_pickle(state_dict_pickle(str("w") + float_tensor() + str("w") + float_tensor())),
      std::string(kRecords) + "the file's dict names \"w\" twice");
}

// ---- Corrupt and hostile files ----------------------------------------------------

TEST_F(PytorchCheckpointTest, MissingFileNamesFileAndOsError) {
  const std::string p = path("none.pt");
  EXPECT_THROW_MSG(load_pytorch(p), where(p) + "cannot open the file: No such file or directory");
}

TEST_F(PytorchCheckpointTest, RefusesDirectory) {
  EXPECT_THROW_MSG(load_pytorch(dir_), where(dir_) + "not a regular file");
}

TEST_F(PytorchCheckpointTest, RefusesEmptyZipArchive) {
  // minizip opens no archive without entries.
  const std::string p = write_checkpoint({});
  EXPECT_THROW_MSG(load_pytorch(p), where(p) + "the file is not a zip archive");
}

TEST_F(PytorchCheckpointTest, RefusesFileThatIsNotAZipArchive) {
  const std::string p = path("m.pt");
  write_file(p, "not a checkpoint at all");
  EXPECT_THROW_MSG(load_pytorch(p), where(p) + "the file is not a zip archive");
  write_file(p, "");
  EXPECT_THROW_MSG(load_pytorch(p), where(p) + "the file is not a zip archive");
}

TEST_F(PytorchCheckpointTest, RefusesTruncatedFile) {
  const std::string bytes = read_file(fixture("all_dtypes.pt"));
  EXPECT_THROW_MSG(load_pytorch_buffer(bytes.substr(0, bytes.size() / 2)),
                   "load_pytorch(<buffer>): the file is not a zip archive");
}

TEST_F(PytorchCheckpointTest, RefusesDataFailingItsCrc) {
  save_pytorch({{"w", full({16}, 2.0, kFloat32)}}, path("m.pt"));
  std::string bytes = read_file(path("m.pt"));
  const std::string two = le(0x40000000, 4);  // 2.0f
  const size_t at = bytes.find(two + two);
  ASSERT_NE(at, std::string::npos);
  bytes[at + 3] = 0x41;
  EXPECT_THROW_MSG(load_pytorch_buffer(bytes),
                   "load_pytorch(<buffer>): the zip archive's entry "
                   "\"m/data/0\" fails its CRC check: the file is corrupt");
}

TEST_F(PytorchCheckpointTest, RefusesCompressedEntries) {
  const std::string p = path("m.pt");
  Records records = zip_entries(fixture("all_dtypes.pt"));
  write_zip(p, records, Z_DEFLATED);
  EXPECT_THROW_MSG(load_pytorch(p),
                   where(p) +
                       "the zip archive's entry \"all_dtypes/version\" is "
                       "compressed (method 8); torch.save stores entries uncompressed");
}

/// Where the central header of the entry `name` begins in the zip archive `bytes`.
size_t central_header(const std::string& bytes, const std::string& name) {
  for (size_t at = bytes.find("PK\x01\x02"); at != std::string::npos;
       at = bytes.find("PK\x01\x02", at + 1)) {
    if (bytes.compare(at + 46, name.size(), name) == 0) return at;
  }
  ADD_FAILURE() << "no central header for " << name;
  return 0;
}

void put_le(std::string* bytes, size_t at, uint64_t v, int n) { bytes->replace(at, n, le(v, n)); }

/// The `n`-byte little-endian number at `at` in `bytes`.
uint64_t le_value(const std::string& bytes, size_t at, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

/// A checkpoint of one tensor, "m/data.pkl" then "m/data/0" and "m/version".
std::string small_checkpoint(const std::string& path) {
  save_pytorch({{"w", ones({16})}}, path);
  return read_file(path);
}

TEST_F(PytorchCheckpointTest, RefusesCorruptLocalHeader) {
  std::string bytes = small_checkpoint(path("m.pt"));
  const size_t local = bytes.find("PK\x03\x04", 1);  // m/data/0's
  bytes[local + 3] = 0x05;
  EXPECT_THROW_MSG(load_pytorch_buffer(bytes),
                   "load_pytorch(<buffer>): the zip archive's entry \"m/data/0\" has a corrupt "
                   "local header (at byte " +
                       std::to_string(local) + ")");
}

TEST_F(PytorchCheckpointTest, RefusesEntryReachingPastTheEndOfTheFile) {
  std::string bytes = small_checkpoint(path("m.pt"));
  const size_t central = central_header(bytes, "m/data.pkl");
  put_le(&bytes, central + 20, bytes.size() - 10, 4);
  put_le(&bytes, central + 24, bytes.size() - 10, 4);
  EXPECT_THROW_MSG(load_pytorch_buffer(bytes),
                   "load_pytorch(<buffer>): the zip archive's entry \"m/data.pkl\" (" +
                       std::to_string(bytes.size() - 10) +
                       " bytes at byte 64) reaches past the end "
                       "of the file (" +
                       std::to_string(bytes.size()) + " bytes): the file is truncated");
  put_le(&bytes, central + 20, 0x7fffffff, 4);
  put_le(&bytes, central + 24, 0x7fffffff, 4);
  EXPECT_THROW_MSG(load_pytorch_buffer(bytes),
                   "load_pytorch(<buffer>): the zip archive's entry \"m/data.pkl\" claims "
                   "2147483647 bytes, more than the whole file (" +
                       std::to_string(bytes.size()) + " bytes)");
}

TEST_F(PytorchCheckpointTest, RefusesStoredEntryWhoseSizesDisagree) {
  std::string bytes = small_checkpoint(path("m.pt"));
  put_le(&bytes, central_header(bytes, "m/data/0") + 20, 63, 4);
  EXPECT_THROW_MSG(load_pytorch_buffer(bytes),
                   "load_pytorch(<buffer>): the zip archive's entry "
                   "\"m/data/0\" is stored with 63 bytes but claims 64");
}

TEST_F(PytorchCheckpointTest, RefusesEncryptedEntry) {
  std::string bytes = small_checkpoint(path("m.pt"));
  bytes[central_header(bytes, "m/version") + 8] |= 1;
  EXPECT_THROW_MSG(load_pytorch_buffer(bytes),
                   "load_pytorch(<buffer>): the zip archive's entry "
                   "\"m/version\" is encrypted");
}

TEST_F(PytorchCheckpointTest, RefusesZip64MarkersWithoutTheirField) {
  std::string bytes = small_checkpoint(path("m.pt"));
  const size_t central = central_header(bytes, "m/data/0");
  put_le(&bytes, central + 20, 0xffffffff, 4);
  put_le(&bytes, central + 24, 0xffffffff, 4);
  EXPECT_THROW_MSG(load_pytorch_buffer(bytes),
                   "load_pytorch(<buffer>): the zip archive's entry "
                   "\"m/data/0\" lacks the zip64 field its sizes refer to");
}

TEST_F(PytorchCheckpointTest, RefusesZip64FieldTooShortOrOverrunningItsExtraField) {
  // In zip64.pt every central header holds a 24-byte zip64 field.
  std::string bytes = read_file(fixture("zip64.pt"));
  const std::string name = "zip64/data.pkl";
  const size_t field = central_header(bytes, name) + 46 + name.size();
  put_le(&bytes, field + 2, 16, 2);
  EXPECT_THROW_MSG(load_pytorch_buffer(bytes),
                   "load_pytorch(<buffer>): the zip archive's entry "
                   "\"zip64/data.pkl\" has a zip64 field of 16 bytes, too short for the 3 values "
                   "it must hold");
  put_le(&bytes, field + 2, 100, 2);
  EXPECT_THROW_MSG(load_pytorch_buffer(bytes),
                   "load_pytorch(<buffer>): the zip archive's entry "
                   "\"zip64/data.pkl\" has a corrupt extra field");
}

/// The whole message of the error load_pytorch_buffer(bytes) throws ("" when
/// it throws none): where one message begins another, a substring would not tell
/// them apart.
std::string load_buffer_error(const std::string& bytes) {
  try {
    load_pytorch_buffer(bytes);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST_F(PytorchCheckpointTest, RefusesDirectoryWhoseFirstHeaderLacksItsSignature) {
  std::string bytes = small_checkpoint(path("m.pt"));
  bytes[central_header(bytes, "m/data.pkl") + 3] = 0x03;
  EXPECT_EQ(load_buffer_error(bytes),
            "load_pytorch(<buffer>): the zip archive's directory is corrupt");
}

TEST_F(PytorchCheckpointTest, RefusesDirectoryCorruptAfterAnEntryNamingThatEntry) {
  std::string bytes = small_checkpoint(path("m.pt"));
  bytes[central_header(bytes, "m/data/0") + 3] = 0x03;
  EXPECT_THROW_MSG(load_pytorch_buffer(bytes),
                   "load_pytorch(<buffer>): the zip archive's directory is corrupt after entry "
                   "\"m/data.pkl\"");
}

TEST_F(PytorchCheckpointTest, RefusesDirectoryEntryWhoseNameReachesPastTheEndOfTheFile) {
  // minizip steps over the name to reach the next header, and fails only
  // when it reads the name.
  std::string bytes = small_checkpoint(path("m.pt"));
  put_le(&bytes, central_header(bytes, "m/data/0") + 28, 0xffff, 2);
  EXPECT_EQ(load_buffer_error(bytes),
            "load_pytorch(<buffer>): the zip archive's directory is corrupt");
}

// The end of the directory records where it begins and its size; minizip
// takes any gap between the two and the end record for bytes before the
// archive, and reads the headers where they are.
TEST_F(PytorchCheckpointTest, RefusesDirectoryThatDoesNotBeginWhereItsEndSays) {
  std::string bytes = small_checkpoint(path("m.pt"));
  const size_t end = bytes.rfind("PK\x05\x06");
  ASSERT_NE(end, std::string::npos);
  put_le(&bytes, end + 16, central_header(bytes, "m/data.pkl") - 1, 4);
  EXPECT_THROW_MSG(load_pytorch_buffer(bytes),
                   "load_pytorch(<buffer>): the zip archive's directory is corrupt at the "
                   "header of \"m/data.pkl\"");
}

TEST_F(PytorchCheckpointTest, RefusesZip64DirectoryOffsetPastTheEndOfTheFile) {
  // An offset that wraps around 2^64 when the directory's size is added to
  // it: minizip still finds the headers, ending where the zip64 end record begins.
  std::string bytes = read_file(fixture("zip64.pt"));
  const size_t end = bytes.find("PK\x06\x06");
  ASSERT_NE(end, std::string::npos);
  const uint64_t size = le_value(bytes, end + 40, 8);
  put_le(&bytes, end + 48, 0 - size, 8);
  const std::string p = path("m.pt");
  write_file(p, bytes);
  EXPECT_THROW_MSG(load_pytorch(p), where(p) +
                                        "the zip archive's directory is corrupt at the "
                                        "header of \"zip64/data.pkl\"");
}

TEST_F(PytorchCheckpointTest, RefusesEntryNamedTwice) {
  const std::string p = path("m.pt");
  Records records = zip_entries(fixture("all_dtypes.pt"));
  records.push_back(records[1]);
  write_zip(p, records);
  EXPECT_THROW_MSG(load_pytorch(p), where(p) + "the zip archive holds \"all_dtypes/data/0\" twice");
}

TEST_F(PytorchCheckpointTest, RefusesArchiveOutsideADirectory) {
  const std::string p = write_checkpoint({{"data.pkl", "."}});
  EXPECT_THROW_MSG(load_pytorch(p),
                   where(p) + "file in archive is not in a subdirectory: data.pkl");
}

TEST_F(PytorchCheckpointTest, RefusesArchiveWithoutPickle) {
  const std::string p = write_checkpoint({{"archive/version", "3\n"}});
  EXPECT_THROW_MSG(load_pytorch(p), where(p) + "the archive has no entry \"archive/data.pkl\"");
}

TEST_F(PytorchCheckpointTest, RefusesArchiveWithoutVersion) {
  const std::string p = write_checkpoint({{"archive/data.pkl", "."}});
  EXPECT_THROW_MSG(load_pytorch(p), where(p) + "the archive has no entry \"archive/version\"");
}

TEST_F(PytorchCheckpointTest, RefusesVersionsPyTorchCannotRead) {
  std::string p = write_checkpoint(replacing("archive/version", "11\n"));
  EXPECT_THROW_MSG(load_pytorch(p), where(p) +
                                        "Attempted to read a PyTorch file with version 11, "
                                        "but the maximum supported version for reading is 10.");
  p = write_checkpoint(replacing("archive/version", "0\n"));
  EXPECT_THROW_MSG(load_pytorch(p), where(p) +
                                        "Attempted to read a PyTorch file with version 0, "
                                        "but the minimum supported version for reading is 1.");
  p = write_checkpoint(replacing("archive/version", "abc\n"));
  EXPECT_THROW_MSG(load_pytorch(p), where(p) + "Couldn't parse the version abc\\x0a as Long Long.");
  p = write_checkpoint(replacing("archive/version", "10\n"));
  EXPECT_EQ(load_pytorch(p).keys(), std::vector<std::string>{"w"});
}

TEST_F(PytorchCheckpointTest, RefusesVersionEntryLongerThanANumber) {
  const std::string p = write_checkpoint(replacing("archive/version", std::string(1000, '3')));
  EXPECT_THROW_MSG(load_pytorch(p), where(p) +
                                        "the archive's \"archive/version\" holds 1000 bytes, "
                                        "not a version number");
}

TEST_F(PytorchCheckpointTest, RefusesUnknownByteOrder) {
  std::string p = write_checkpoint(replacing("archive/byteorder", "middle"));
  EXPECT_THROW_MSG(load_pytorch(p), where(p) + "Unknown endianness type: middle");
  p = write_checkpoint(replacing("archive/byteorder", std::string(100, 'x')));
  EXPECT_THROW_MSG(load_pytorch(p), where(p) + "Unknown endianness type: (100 bytes)");
}

TEST_F(PytorchCheckpointTest, RefusesStorageWhoseRecordIsMissing) {
  EXPECT_THROW_MSG(load_pickle(state_dict_pickle(str("w") + float_tensor("7"))),
                   std::string(kRecords) +
                       "the pickle refers to storage \"7\" but the archive "
                       "has no entry \"archive/data/7\"");
}

TEST_F(PytorchCheckpointTest, RefusesStorageWhoseRecordHasTheWrongSize) {
  EXPECT_THROW_MSG(load_pickle(state_dict_pickle(
                       str("w") + tensor_pickle("FloatStorage", "0", int1(4), 0, {4}, {1}))),
                   std::string(kRecords) +
                       "storage \"0\" of 4 elements of torch.FloatStorage "
                       "needs 4 * 4 bytes, but the archive's entry \"archive/data/0\" holds 64");
  // A size whose byte count overflows is refused the same way, before allocating.
  EXPECT_THROW_MSG(load_pickle(state_dict_pickle(
                       str("w") + tensor_pickle("FloatStorage", "0", "\x8a\x08" + le(1ull << 62, 8),
                                                0, {4}, {1}))),
                   "needs 4611686018427387904 * 4 bytes");
}

TEST_F(PytorchCheckpointTest, RefusesStorageReadAsTwoTypes) {
  EXPECT_THROW_MSG(
      load_pickle(state_dict_pickle(str("a") + float_tensor() + str("b") +
                                    tensor_pickle("LongStorage", "0", int1(8), 0, {8}, {1}))),
      std::string(kRecords) +
          "storage \"0\" is read as torch.FloatStorage of 16 elements and as "
          "torch.LongStorage of 8 elements");
}

TEST_F(PytorchCheckpointTest, RefusesViewReachingPastItsStorage) {
  EXPECT_THROW_MSG(load_pickle(state_dict_pickle(
                       str("w") + tensor_pickle("FloatStorage", "0", int1(16), 1, {4, 4}, {4, 1}))),
                   std::string(kRecords) +
                       "the tensor on storage \"0\" has size [4, 4], stride [4, 1] and "
                       "storage offset 1, which reach past the storage's 16 elements");
  EXPECT_THROW_MSG(load_pickle(state_dict_pickle(
                       str("w") + tensor_pickle("FloatStorage", "0", int1(16), 17, {0}, {1}))),
                   "storage offset 17, which reach past the storage's 16 elements");
  // (2^62 - 1) * 4 overflows int64: refused, not wrapped around.
  EXPECT_THROW_MSG(
      load_pickle(state_dict_pickle(str("w") + global("torch._utils", "_rebuild_tensor_v2") + "((" +
                                    str("storage") + global("torch", "FloatStorage") + str("0") +
                                    str("cpu") + int1(16) + "tQ" + int1(0) + "(\x8a\x08" +
                                    le(1ull << 62, 8) + "t" + ints({4}) + "\x89}tR")),
      "which reach past the storage's 16 elements");
}

TEST_F(PytorchCheckpointTest, RefusesSizeAndStrideOfDifferentLengths) {
  EXPECT_THROW_MSG(load_pickle(state_dict_pickle(
                       str("w") + tensor_pickle("FloatStorage", "0", int1(16), 0, {4, 4}, {1}))),
                   std::string(kRecords) +
                       "the tensor on storage \"0\" has size [4, 4] but "
                       "stride [1]");
}

TEST_F(PytorchCheckpointTest, RefusesNegativeSize) {
  EXPECT_THROW_MSG(
      load_pickle(state_dict_pickle(str("w") + global("torch._utils", "_rebuild_tensor_v2") + "((" +
                                    str("storage") + global("torch", "FloatStorage") + str("0") +
                                    str("cpu") + int1(16) + "tQ" + int1(0) + "(J" +
                                    le(0xffffffff, 4) + "t" + ints({1}) + "\x89}tR")),
      std::string(kRecords) + "a tensor's size holds -1; each must be a non-negative int");
}

TEST_F(PytorchCheckpointTest, RefusesBoolStorageHoldingOtherBytes) {
  std::string pickle =
      state_dict_pickle(str("m") + tensor_pickle("BoolStorage", "0", int1(64), 0, {64}, {1}));
  EXPECT_THROW_MSG(
      detail::load_pytorch_records({{"archive/data.pkl", pickle},
                                    {"archive/version", "3\n"},
                                    {"archive/data/0", std::string(63, '\0') + "\x02"}}),
      std::string(kRecords) +
          "storage \"0\" of torch.BoolStorage holds byte 2 at "
          "element 63; a bool is 0 or 1");
}

TEST_F(PytorchCheckpointTest, RefusesOpcodeAStateDictDoesNotUse) {
  EXPECT_THROW_MSG(load_pickle(kProto2 + std::string("S'w'\n.")),
                   std::string(kRecords) +
                       "the pickle holds opcode 0x53 at byte 2, which a "
                       "state_dict's pickle does not use");
}

TEST_F(PytorchCheckpointTest, RefusesProtocolsAbove5) {
  EXPECT_THROW_MSG(load_pickle("\x80\x06}."), std::string(kRecords) + "the pickle uses protocol 6");
}

TEST_F(PytorchCheckpointTest, RefusesMemoEntryNeverStored) {
  EXPECT_THROW_MSG(load_pickle(kProto2 + std::string("h\x05.")),
                   std::string(kRecords) +
                       "the pickle reads memo entry 5 at byte 2, which it "
                       "never stored");
  EXPECT_THROW_MSG(load_pickle(kProto2 + std::string("}r") + le(1, 4) + "j" + le(2, 4) + "."),
                   "the pickle reads memo entry 2 at byte 8");
}

TEST_F(PytorchCheckpointTest, RefusesPopPastTheStackOrAMark) {
  EXPECT_THROW_MSG(load_pickle(kProto2 + std::string(".")),
                   std::string(kRecords) + "the pickle's opcode at byte 2 finds its stack empty");
  EXPECT_THROW_MSG(load_pickle(kProto2 + std::string("}(s.")),
                   "the pickle's opcode at byte 4 finds its stack empty");
  EXPECT_THROW_MSG(load_pickle(kProto2 + std::string("}u.")),
                   "the pickle's opcode at byte 3 finds no MARK");
}

TEST_F(PytorchCheckpointTest, RefusesMarksNestedTooDeep) {
  EXPECT_THROW_MSG(load_pickle(kProto2 + std::string(5000, '(')),
                   std::string(kRecords) + "the pickle opens more than 1000 MARKs at once");
}

TEST_F(PytorchCheckpointTest, RefusesStackGrowingWithoutBound) {
  std::string pickle = kProto2;
  for (int i = 0; i < (1 << 20) + 1; ++i) pickle += 'N';
  EXPECT_THROW_MSG(load_pickle(pickle), std::string(kRecords) +
                                            "the pickle holds more than "
                                            "1048576 values at once");
}

TEST_F(PytorchCheckpointTest, RefusesPickleWithoutStop) {
  EXPECT_THROW_MSG(
      load_pickle(kProto2 + std::string("}")),
      std::string(kRecords) + "the pickle ends without a STOP opcode: it is truncated");
}

TEST_F(PytorchCheckpointTest, RefusesLengthsReachingPastThePickle) {
  EXPECT_THROW_MSG(
      load_pickle(kProto2 + std::string("X\xff\xff\xff\x7f"
                                        "abc")),
      std::string(kRecords) + "the pickle (10 bytes) ends inside the opcode at byte 2");
  EXPECT_THROW_MSG(load_pickle(kProto2 + std::string("\x8d") + le(~0ull, 8)),
                   "ends inside the opcode at byte 2");
  EXPECT_THROW_MSG(load_pickle(kProto2 + std::string("ccollections\nOrderedDict")),
                   "ends inside the opcode at byte 2");
  EXPECT_THROW_MSG(load_pickle(kProto2 + std::string("\x95") + le(1000, 8) + "}."),
                   "ends inside the opcode at byte 2");
}

TEST_F(PytorchCheckpointTest, RefusesIntegerTooLargeForInt64) {
  EXPECT_THROW_MSG(load_pickle(kProto2 + std::string("\x8a\x09") + std::string(9, '\x01') + "."),
                   std::string(kRecords) +
                       "the pickle holds an integer of 9 bytes at byte 2, too "
                       "large for int64");
}

TEST_F(PytorchCheckpointTest, RefusesStringThatIsNotUtf8) {
  EXPECT_THROW_MSG(load_pickle(state_dict_pickle("\x8c\x02w\xff" + float_tensor())),
                   std::string(kRecords) +
                       "the pickle's string at byte 30 is not valid UTF-8: "
                       "\"w\\xff\"");
}

TEST_F(PytorchCheckpointTest, RefusesCallsOfWhatIsNotAFunctionOfAStateDict) {
  EXPECT_THROW_MSG(load_pickle(kProto2 + global("torch", "FloatStorage") + ")R."),
                   std::string(kRecords) + "the pickle calls torch.FloatStorage at byte ");
  EXPECT_THROW_MSG(load_pickle(kProto2 + global("collections", "OrderedDict") + "]\x85R."),
                   "the pickle calls collections.OrderedDict with 1 arguments");
  EXPECT_THROW_MSG(load_pickle(kProto2 + std::string("}}R.")),
                   "expects a tuple of arguments but finds a dict");
}

TEST_F(PytorchCheckpointTest, RefusesKeysWithoutValues) {
  EXPECT_THROW_MSG(load_pickle(kProto2 + std::string("}(") + int1(1) + "u."),
                   std::string(kRecords) +
                       "the pickle's opcode at byte 6 pairs keys with values "
                       "but finds an odd number of them (1)");
}

TEST_F(PytorchCheckpointTest, RefusesRebuildCallsWithOtherArguments) {
  EXPECT_THROW_MSG(load_pickle(kProto2 + global("torch._utils", "_rebuild_tensor_v2") + ")R."),
                   std::string(kRecords) +
                       "the pickle calls torch._utils._rebuild_tensor_v2 with "
                       "0 arguments at byte ");
  EXPECT_THROW_MSG(load_pickle(kProto2 + global("torch._utils", "_rebuild_parameter") + "(" +
                               float_tensor() + "\x89t" + "R."),
                   std::string(kRecords) +
                       "the pickle calls torch._utils._rebuild_parameter with "
                       "2 arguments at byte ");
}

TEST_F(PytorchCheckpointTest, RefusesTensorOfMoreThan64Dimensions) {
  std::vector<int> ones_65(65, 1);
  EXPECT_THROW_MSG(
      load_pickle(state_dict_pickle(
          str("w") + tensor_pickle("FloatStorage", "0", int1(16), 0, ones_65, ones_65))),
      std::string(kRecords) + "a tensor's size has 65 dimensions; torchlet allows 64");
}

TEST_F(PytorchCheckpointTest, RefusesPersistentIdWhoseTypeIsNotAStorage) {
  EXPECT_THROW_MSG(load_pickle(state_dict_pickle(str("w") + "(" + str("storage") +
                                                 global("collections", "OrderedDict") + str("0") +
                                                 str("cpu") + int1(16) + "tQ")),
                   std::string(kRecords) + "the pickle's persistent id at byte ");
  EXPECT_THROW_MSG(load_pickle(state_dict_pickle(str("w") + "(" + str("storage") +
                                                 global("collections", "OrderedDict") + str("0") +
                                                 str("cpu") + int1(16) + "tQ")),
                   "gives collections.OrderedDict as the storage type");
}

TEST_F(PytorchCheckpointTest, RecordsGivenTwiceOrNoneAreRefused) {
  EXPECT_THROW_MSG(detail::load_pytorch_records({}), "load_pytorch(<records>): no records");
  EXPECT_THROW_MSG(detail::load_pytorch_records({{"a/version", "3"}, {"a/version", "3"}}),
                   "load_pytorch(<records>): \"a/version\" is given twice");
}

TEST_F(PytorchCheckpointTest, RefusesStateSetOnWhatIsNotADict) {
  EXPECT_THROW_MSG(load_pickle(kProto2 + std::string("]}b.")),
                   std::string(kRecords) + "the pickle sets the state of a list to a dict");
}

TEST_F(PytorchCheckpointTest, RefusesMalformedPersistentId) {
  EXPECT_THROW_MSG(load_pickle(state_dict_pickle(str("w") + "(" + str("module") + "tQ")),
                   std::string(kRecords) + "the pickle's persistent id at byte ");
}

TEST_F(PytorchCheckpointTest, CyclicListIsRefusedWithoutHanging) {
  // l = []; l.append(l)
  EXPECT_THROW_MSG(load_pickle(kProto2 + std::string("]q") + le(0, 1) + "h" + le(0, 1) + "a."),
                   "the file holds a list, not a dict");
}

TEST_F(PytorchCheckpointTest, AcceptsMetadataOfEveryValueKindAndIgnoresIt) {
  // BUILD sets the OrderedDict's _metadata to a dict holding every kind of
  // value the unpickler knows, made with every opcode it accepts.
  const std::string metadata = "(" + short_str("ints") + "(" + int1(7) + "M" + le(256, 2) + "J" +
                               le(0xffffffff, 4) + "\x8a" + le(0, 1) + "\x8a\x01\xff" + "\x8a\x02" +
                               le(0x8000, 2) + "t" +                                  //
                               short_str("f") + "G\x3f\xf8" + std::string(6, '\0') +  //
                               "\x8d" + le(1, 8) + "l" + "N\x88\x89\x87" + "\x94" +   //
                               short_str("list") + "](N\x88" + "e" + int1(1) + "a" +  //
                               short_str("listop") + "(" + int1(1) + int1(2) + "l" +  //
                               short_str("pair") + int1(1) + int1(2) + "\x86" +       //
                               short_str("one") + int1(1) + "\x85" +                  //
                               short_str("self") + "j" + le(256, 4) + "d";
  const std::string pickle = kProto2 + kOrderedDict + "r" + le(256, 4) + "(" + str("w") +
                             float_tensor() + "u" + "(" + str("_metadata") + metadata + "d" + "b.";
  const StateDict sd = load_pickle(pickle);
  EXPECT_EQ(sd.keys(), std::vector<std::string>{"w"});
  EXPECT_EQ(sd.at("w").sizes(), IntArrayRef({4, 4}));
}

TEST_F(PytorchCheckpointTest, DecodesIntegersOfEveryWidth) {
  // The storage's size given as BININT2, BININT and LONG1.
  for (const std::string& numel :
       {std::string("M\x10\x00", 3), std::string("J\x10\x00\x00\x00", 5),
        std::string("\x8a\x01\x10"), std::string("\x8a\x02\x10\x00", 4)}) {
    const StateDict sd = load_pickle(
        state_dict_pickle(str("w") + tensor_pickle("FloatStorage", "0", numel, 0, {16}, {1})));
    EXPECT_EQ(sd.at("w").numel(), 16);
  }
  EXPECT_THROW_MSG(load_pickle(state_dict_pickle(
                       str("w") + tensor_pickle("FloatStorage", "0", "\x8a\x01\xff", 0, {1}, {1}))),
                   std::string(kRecords) + "storage \"0\" has -1 elements");
}

}  // namespace
}  // namespace torchlet
