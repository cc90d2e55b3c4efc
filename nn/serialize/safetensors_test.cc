#include "nn/serialize/safetensors.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "nn/serialize/every_dtype.h"
#include "nn/serialize/safetensors_testing.h"
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

std::string le64(uint64_t n) {
  std::string bytes(8, '\0');
  for (char& b : bytes) {
    b = static_cast<char>(n & 0xff);
    n >>= 8;
  }
  return bytes;
}

using testing::every_dtype;

class SafetensorsTest : public testing::TempDirTest {
 protected:
  SafetensorsTest() : TempDirTest("safetensors") {}
  void TearDown() override {
    TempDirTest::TearDown();
    set_cpu_device_count(1);
  }

  /// A file made of the header length, `header` and `data`.
  std::string write_raw(const std::string& header, const std::string& data = "") {
    const std::string p = path("raw.safetensors");
    write_file(p, le64(header.size()) + header + data);
    return p;
  }

  /// How load() errors on `p` begin.
  static std::string where(const std::string& p) { return "load(\"" + p + "\"): "; }
};

// ---- Round trips -----------------------------------------------------------

TEST_F(SafetensorsTest, RoundTripsEveryDType) {
  const StateDict sd = every_dtype();
  save(sd, path("m.safetensors"));
  expect_identical(load(path("m.safetensors")), sd);
}

TEST_F(SafetensorsTest, RoundTripsZeroDimAndEmptyTensors) {
  const StateDict sd{{"scalar", scalar_tensor(2.5, kFloat64)},
                     {"empty", zeros({0}, kInt64)},
                     {"empty_rows", zeros({0, 3})},
                     {"bool_scalar", scalar_tensor(true)}};
  save(sd, path("m.safetensors"));
  const StateDict loaded = load(path("m.safetensors"));
  expect_identical(loaded, sd);
  EXPECT_EQ(loaded.at("scalar").dim(), 0);
}

TEST_F(SafetensorsTest, RoundTripsEmptyStateDict) {
  save(StateDict(), path("m.safetensors"));
  EXPECT_TRUE(load(path("m.safetensors")).empty());
}

TEST_F(SafetensorsTest, SavesNonContiguousTensorsByValue) {
  const Tensor base = arange(12, kFloat32).view({3, 4});
  const StateDict sd{{"transposed", base.t()},
                     {"strided", testing::strided_copy(base)},
                     {"expanded", arange(3, kInt64).unsqueeze(0).expand({4, 3})},
                     {"offset", base.select(0, 1)}};
  save(sd, path("m.safetensors"));
  const StateDict loaded = load(path("m.safetensors"));
  for (const auto& [name, t] : sd) {
    EXPECT_TRUE(identical(loaded.at(name), t.contiguous())) << name;
    EXPECT_TRUE(loaded.at(name).is_contiguous()) << name;
  }
}

TEST_F(SafetensorsTest, SavesTensorsOfAnotherCpuDevice) {
  set_cpu_device_count(2);
  const Tensor t = arange(6, kFloat64).to(Device("cpu:1"));
  save({{"t", t}}, path("m.safetensors"));
  const Tensor loaded = load(path("m.safetensors")).at("t");
  EXPECT_EQ(loaded.device(), Device("cpu:0"));
  EXPECT_TRUE(identical(loaded, t.to(Device("cpu:0"))));
}

TEST_F(SafetensorsTest, LoadsOntoTheCurrentDevice) {
  set_cpu_device_count(2);
  save(every_dtype(), path("m.safetensors"));
  DeviceGuard guard(Device("cpu:1"));
  for (const auto& [name, t] : load(path("m.safetensors"))) {
    EXPECT_EQ(t.device(), Device("cpu:1")) << name;
  }
}

TEST_F(SafetensorsTest, KeepsInsertionOrderOfNames) {
  const StateDict sd{{"z.weight", ones({2}, kUInt8)},
                     {"a.bias", ones({1}, kFloat64)},
                     {"m", ones({3}, kBool)},
                     {"b", ones({1}, kFloat32)}};
  save(sd, path("m.safetensors"));
  EXPECT_EQ(load(path("m.safetensors")).keys(), sd.keys());
}

TEST_F(SafetensorsTest, RoundTripsMetadata) {
  const SafetensorsMetadata metadata{{"format", "pt"}, {"epoch", "12"}, {"note", "é\n\"quoted\""}};
  save({{"w", ones({2})}}, path("m.safetensors"), metadata);
  EXPECT_EQ(load_metadata(path("m.safetensors")), metadata);
  EXPECT_EQ(load(path("m.safetensors")).keys(), std::vector<std::string>{"w"});
}

TEST_F(SafetensorsTest, MetadataOfFileWithoutMetadataIsEmpty) {
  save({{"w", ones({2})}}, path("m.safetensors"));
  EXPECT_TRUE(load_metadata(path("m.safetensors")).empty());
}

TEST_F(SafetensorsTest, WritesHeaderAsPythonSafetensorsDoes) {
  // Data ordered by dtype (I64, F64, F32, ..., BOOL) then name, metadata
  // first, compact JSON padded with spaces to a multiple of 8 bytes.
  save({{"b", ones({3}, kBool)}, {"a", ones({3})}, {"c", ones({1}, kInt64)}},
       path("m.safetensors"), {{"format", "pt"}});
  const std::string header =
      R"({"__metadata__":{"format":"pt"},)"
      R"("b":{"dtype":"BOOL","shape":[3],"data_offsets":[20,23]},)"
      R"("a":{"dtype":"F32","shape":[3],"data_offsets":[8,20]},)"
      R"("c":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}})";
  const std::string padded = header + std::string((8 - header.size() % 8) % 8, ' ');
  const std::string bytes = read_file(path("m.safetensors"));
  EXPECT_EQ(bytes.substr(0, 8), le64(padded.size()));
  EXPECT_EQ(bytes.substr(8, padded.size()), padded);
  EXPECT_EQ(bytes.size(), 8 + padded.size() + 23);
}

TEST_F(SafetensorsTest, ManyNamesSaveAndLoadWithoutQuadraticCost) {
  // With an ordered map found by linear scan, these would take minutes.
  StateDict sd;
  SafetensorsMetadata metadata;
  for (int i = 0; i < 100000; ++i) {
    const std::string name = "t" + std::to_string(99999 - i);
    sd.insert(name, zeros({0}));
    metadata.emplace(name, "");
  }
  save(sd, path("m.safetensors"), metadata);
  EXPECT_EQ(load(path("m.safetensors")).keys(), sd.keys());
  EXPECT_EQ(load_metadata(path("m.safetensors")).size(), 100000u);
}

TEST_F(SafetensorsTest, LoadBufferReadsWhatSaveWrote) {
  const StateDict sd = every_dtype();
  save(sd, path("m.safetensors"));
  expect_identical(load_buffer(read_file(path("m.safetensors"))), sd);
}

TEST_F(SafetensorsTest, LoadBufferErrorsNameTheBuffer) {
  EXPECT_THROW_MSG(load_buffer("abc"), "load(<buffer>): the file is 3 bytes long");
}

/// What tools/gen_safetensors_fixtures.py writes to
/// testdata/python_all_dtypes.safetensors, in the order of its header.
StateDict python_fixture() {
  const float inf = std::numeric_limits<float>::infinity();
  StateDict sd;
  sd.insert("i64", from_vector<int64_t>({std::numeric_limits<int64_t>::min(),
                                          std::numeric_limits<int64_t>::max(), -1},
                                         {3, 1}));
  sd.insert("f64", from_vector<double>({1e300, -1e-300, 0.1}, {3}));
  sd.insert("empty", zeros({0, 3}));
  sd.insert("f32", from_vector<float>({1.5f, -0.0f, std::numeric_limits<float>::infinity(), -2.f},
                                      {2, 2}));
  sd.insert("i32", from_vector<int32_t>({std::numeric_limits<int32_t>::min(), 7}, {2}));
  sd.insert("bf16", from_vector<BFloat16>({BFloat16(1.5f), BFloat16(-inf), BFloat16(3e38f),
                                           BFloat16(-std::ldexp(1.0f, -133))},
                                          {2, 2}));
  sd.insert("f16", from_vector<Half>({Half(1.5f), Half(-0.0f), Half(inf), Half(65504.f),
                                      Half(std::ldexp(1.0f, -24))},
                                     {5}));
  sd.insert("u8", from_vector<uint8_t>({0, 128, 255}, {1, 3}));
  sd.insert("bool", tensor({true, false, true, true}));
  sd.insert("scalar", scalar_tensor(true));
  return sd;
}

TEST_F(SafetensorsTest, LoadsFileWrittenByPythonSafetensors) {
  const std::string p = "nn/serialize/testdata/python_all_dtypes.safetensors";
  expect_identical(load(p), python_fixture());
  EXPECT_EQ(load_metadata(p), (SafetensorsMetadata{{"format", "pt"}, {"writer", "safetensors.torch"}}));
}

TEST_F(SafetensorsTest, SaveReplacesExistingFile) {
  save({{"old", ones({4})}}, path("m.safetensors"));
  save({{"new", zeros({2}, kInt32)}}, path("m.safetensors"));
  expect_identical(load(path("m.safetensors")), {{"new", zeros({2}, kInt32)}});
  EXPECT_EQ(files(), std::vector<std::string>{"m.safetensors"});
}

// ---- Save errors -----------------------------------------------------------

TEST_F(SafetensorsTest, SaveRefusesUndefinedTensor) {
  const std::string p = path("m.safetensors");
  EXPECT_THROW_MSG(save({{"w", Tensor()}}, p), "save(\"" + p + "\"): tensor \"w\" is undefined");
  EXPECT_TRUE(files().empty());
}

TEST_F(SafetensorsTest, SaveRefusesMetadataKeyAsTensorName) {
  const std::string p = path("m.safetensors");
  EXPECT_THROW_MSG(save({{"__metadata__", ones({1})}}, p),
                   "save(\"" + p + "\"): \"__metadata__\" is reserved for the metadata and "
                   "cannot name a tensor");
}

TEST_F(SafetensorsTest, SaveRefusesNameThatIsNotUtf8) {
  const std::string p = path("m.safetensors");
  EXPECT_THROW_MSG(save({{"w\xff", ones({1})}}, p),
                   "save(\"" + p + "\"): tensor name \"w\xff\" is not valid UTF-8");
}

TEST_F(SafetensorsTest, SaveRefusesMetadataThatIsNotUtf8) {
  const std::string p = path("m.safetensors");
  EXPECT_THROW_MSG(save({{"w", ones({1})}}, p, {{"k", "\xc3"}}),
                   "save(\"" + p + "\"): metadata value \"\xc3\" is not valid UTF-8");
}

TEST_F(SafetensorsTest, SaveIntoMissingDirectoryNamesFileAndOsError) {
  const std::string p = path("no_such_dir/m.safetensors");
  EXPECT_THROW_MSG(save({{"w", ones({1})}}, p),
                   "save(\"" + p + "\"): cannot create a temporary file beside it: "
                   "No such file or directory");
}

TEST_F(SafetensorsTest, SaveOverDirectoryFailsAndLeavesNoTemporaryFile) {
  ASSERT_EQ(::mkdir(path("m.safetensors").c_str(), 0755), 0);
  const std::string p = path("m.safetensors");
  EXPECT_THROW_MSG(save({{"w", ones({1})}}, p),
                   "save(\"" + p + "\"): cannot rename the temporary file over it: Is a directory");
  EXPECT_EQ(files(), std::vector<std::string>{"m.safetensors"});
  ::rmdir(p.c_str());
}

TEST_F(SafetensorsTest, WriteErrorKeepsOldFileAndLeavesNoTemporaryFile) {
  const std::string p = path("m.safetensors");
  const StateDict old_sd{{"w", arange(4, kFloat32)}};
  save(old_sd, p);
  {
    FileSizeLimit limit(4096);
    EXPECT_THROW_MSG(save({{"w", zeros({1 << 16})}}, p),
                     "save(\"" + p + "\"): cannot write: File too large");
  }
  expect_identical(load(p), old_sd);
  EXPECT_EQ(files(), std::vector<std::string>{"m.safetensors"});
}

// ---- Atomic save under a killed writer ----------------------------------------

/// Tensors all filled with `version`, large enough that writing them takes a while.
StateDict versioned(int version) {
  StateDict sd;
  for (const char* name : {"a", "b", "c", "d"}) {
    sd.insert(name, full({1 << 20}, version, kFloat32));
  }
  return sd;
}

/// The version every tensor of `sd` holds, or -1 if they disagree.
int version_of(const StateDict& sd) {
  const int version = static_cast<int>(sd.at("a")[0].item<float>());
  for (const auto& [name, t] : sd) {
    if (t.ne(version).any().item<bool>()) return -1;
  }
  return version;
}

int hook_pipe = -1;

/// In the child: tells the parent it is in the middle of a save, then waits
/// to be killed.
void signal_and_block(const std::string&, size_t tensors_written) {
  if (tensors_written != 2) return;
  const char byte = 1;
  if (::write(hook_pipe, &byte, 1) != 1) ::_exit(3);
  for (;;) ::pause();
}

/// Forks a child that runs `body` and then exits; returns its pid and the
/// read end of a pipe it may write to (`hook_pipe` in the child).
pid_t fork_writer(int* read_end, void (*body)(const std::string&), const std::string& path) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    hook_pipe = fds[1];
    body(path);
    ::_exit(0);
  }
  ::close(fds[1]);
  *read_end = fds[0];
  return pid;
}

bool wait_byte(int fd) {
  char byte;
  return ::read(fd, &byte, 1) == 1;
}

void kill_and_reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
}

TEST_F(SafetensorsTest, WriterKilledMidSaveLeavesOldFileAndRecognisableTemporaryFile) {
  const std::string p = path("m.safetensors");
  save(versioned(1), p);
  static StateDict next;
  next = versioned(2);
  int read_end = -1;
  const pid_t pid = fork_writer(
      &read_end,
      [](const std::string& target) {
        detail::set_save_hook(signal_and_block);
        save(next, target);
      },
      p);
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(wait_byte(read_end)) << "the writer did not reach the middle of its save";
  EXPECT_EQ(version_of(load(p)), 1) << "the target changed before the rename";
  kill_and_reap(pid);
  ::close(read_end);
  EXPECT_EQ(version_of(load(p)), 1);
  const std::vector<std::string> names = files();
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0], "m.safetensors");
  EXPECT_EQ(names[1].rfind("m.safetensors.tmp." + std::to_string(pid) + ".", 0), 0u) << names[1];
}

TEST_F(SafetensorsTest, WriterKilledAtAnyMomentLeavesACompleteFile) {
  const std::string p = path("m.safetensors");
  static StateDict versions[2];
  versions[0] = versioned(1);
  versions[1] = versioned(2);
  save(versions[0], p);
  for (int delay_us : {0, 1000, 3000, 7000, 15000, 30000}) {
    int read_end = -1;
    const pid_t pid = fork_writer(
        &read_end,
        [](const std::string& target) {
          for (int i = 0;; ++i) {
            save(versions[i % 2], target);
            const char byte = 1;
            if (i == 0 && ::write(hook_pipe, &byte, 1) != 1) ::_exit(3);
          }
        },
        p);
    ASSERT_GT(pid, 0);
    ASSERT_TRUE(wait_byte(read_end));
    ::usleep(delay_us);
    kill_and_reap(pid);
    ::close(read_end);
    const int version = version_of(load(p));
    EXPECT_TRUE(version == 1 || version == 2) << "after " << delay_us << " us: " << version;
    for (const std::string& name : files()) {
      if (name == "m.safetensors") continue;
      EXPECT_EQ(name.rfind("m.safetensors.tmp.", 0), 0u) << name;
      ::unlink(path(name).c_str());
    }
  }
}

// ---- Malformed files ---------------------------------------------------------

const char kF32Pair[] = R"({"dtype":"F32","shape":[2],"data_offsets":[0,8]})";

TEST_F(SafetensorsTest, LoadOfMissingFileNamesItAndOsError) {
  const std::string p = path("absent.safetensors");
  EXPECT_THROW_MSG(load(p), where(p) + "cannot open the file: No such file or directory");
}

TEST_F(SafetensorsTest, LoadOfDirectoryFails) {
  EXPECT_THROW_MSG(load(dir_), where(dir_) + "not a regular file");
}

// A sysfs attribute is a regular file whose stat size is a page, whatever it
// holds: a real file that ends before the size load() takes from fstat, as
// one truncated while being read would.
TEST_F(SafetensorsTest, FileEndingBeforeItsStatSizeFails) {
  const std::string p = "/sys/class/net/lo/mtu";
  struct stat st;
  const std::string content = read_file(p);
  if (::stat(p.c_str(), &st) != 0 || st.st_size < 8 || content.empty() || content.size() >= 8) {
    GTEST_SKIP() << p << " is missing or not a short sysfs attribute";
  }
  EXPECT_THROW_MSG(load(p), where(p) + "the file ended at byte " + std::to_string(content.size()) +
                                " while being read (was it changed meanwhile?)");
}

// Reading lo's link speed fails (EINVAL): loopback has none.
TEST_F(SafetensorsTest, ReadErrorNamesTheFileAndOsError) {
  const std::string p = "/sys/class/net/lo/speed";
  const int fd = ::open(p.c_str(), O_RDONLY);
  if (fd < 0) GTEST_SKIP() << p << " is missing";
  char byte;
  const ssize_t got = ::read(fd, &byte, 1);
  const int error = errno;
  ::close(fd);
  if (got >= 0) GTEST_SKIP() << p << " is readable here";
  EXPECT_THROW_MSG(load(p), where(p) + "cannot read the file: " + std::strerror(error));
}

TEST_F(SafetensorsTest, FileShorterThanHeaderLengthFails) {
  const std::string p = path("short.safetensors");
  write_file(p, std::string("\x08\x00\x00", 3));
  EXPECT_THROW_MSG(load(p),
                   where(p) + "the file is 3 bytes long, too short for the 8-byte header length");
}

TEST_F(SafetensorsTest, HeaderLengthBeyondFileFails) {
  const std::string p = path("long.safetensors");
  write_file(p, le64(1000) + "{}");
  EXPECT_THROW_MSG(load(p), where(p) + "header length 1000 reaches past the end of the file "
                                       "(2 bytes follow the length)");
}

TEST_F(SafetensorsTest, HeaderLengthOverSafetensorsLimitFails) {
  const std::string p = path("huge.safetensors");
  write_file(p, le64(uint64_t{1} << 40) + "{}");
  EXPECT_THROW_MSG(load(p), where(p) + "header length 1099511627776 exceeds safetensors' limit "
                                       "of 100000000 bytes");
}

TEST_F(SafetensorsTest, MalformedJsonFails) {
  const std::string p = write_raw(R"({"w": {"dtype": "F32",)");
  EXPECT_THROW_MSG(load(p), where(p) + "the header is not valid JSON: [json.exception.parse_error");
}

TEST_F(SafetensorsTest, HeaderThatIsNotAnObjectFails) {
  const std::string p = write_raw("[1, 2]");
  EXPECT_THROW_MSG(load(p), where(p) + "the header must be a JSON object, not [1,2]");
}

TEST_F(SafetensorsTest, DeeplyNestedHeaderFailsBeforeBuildingIt) {
  const std::string p = write_raw(std::string(100000, '[') + std::string(100000, ']'));
  EXPECT_THROW_MSG(load(p), where(p) + "the header nests values deeper than a safetensors header does");
}

TEST_F(SafetensorsTest, LongListInHeaderFailsBeforeBuildingIt) {
  std::string shape = "[1";
  for (int i = 0; i < 64; ++i) shape += ",1";
  const std::string p =
      write_raw(R"({"w":{"dtype":"U8","shape":)" + shape + R"(],"data_offsets":[0,1]}})", "x");
  EXPECT_THROW_MSG(load(p), where(p) + "the header holds a list longer than a shape can be (64 values)");
}

TEST_F(SafetensorsTest, ShapeOfSixtyFourDimensionsLoads) {
  std::string shape = "[1";
  for (int i = 1; i < 64; ++i) shape += ",1";
  const std::string p =
      write_raw(R"({"w":{"dtype":"U8","shape":)" + shape + R"(],"data_offsets":[0,1]}})", "x");
  EXPECT_EQ(load(p).at("w").dim(), 64);
}

TEST_F(SafetensorsTest, DuplicateTensorNameFails) {
  const std::string p = write_raw(std::string(R"({"w":)") + kF32Pair + R"(,"w":)" + kF32Pair + "}",
                                  std::string(8, '\0'));
  EXPECT_THROW_MSG(load(p), where(p) + "the header names \"w\" twice");
}

TEST_F(SafetensorsTest, DuplicateFieldOfTensorFails) {
  const std::string p =
      write_raw(R"({"w":{"dtype":"F32","dtype":"F64","shape":[],"data_offsets":[0,4]}})",
                std::string(4, '\0'));
  EXPECT_THROW_MSG(load(p), where(p) + "the header names \"dtype\" twice");
}

TEST_F(SafetensorsTest, TensorDescribedByNonObjectFails) {
  const std::string p = write_raw(R"({"w":3})");
  EXPECT_THROW_MSG(load(p), where(p) + "tensor \"w\" must be described by an object, not 3");
}

TEST_F(SafetensorsTest, UnknownFieldFails) {
  const std::string p =
      write_raw(R"({"w":{"dtype":"F32","shape":[],"data_offsets":[0,4],"extra":1}})",
                std::string(4, '\0'));
  EXPECT_THROW_MSG(load(p), where(p) + "tensor \"w\" has unknown field \"extra\"");
}

TEST_F(SafetensorsTest, MissingFieldFails) {
  const std::string p = write_raw(R"({"w":{"shape":[],"data_offsets":[0,4]}})", std::string(4, '\0'));
  EXPECT_THROW_MSG(load(p), where(p) + "tensor \"w\" has no \"dtype\"");
}

TEST_F(SafetensorsTest, DTypeThatIsNotAStringFails) {
  const std::string p = write_raw(R"({"w":{"dtype":4,"shape":[],"data_offsets":[0,4]}})",
                                  std::string(4, '\0'));
  EXPECT_THROW_MSG(load(p), where(p) + "tensor \"w\": dtype must be a string, not 4");
}

TEST_F(SafetensorsTest, UnknownDTypeFails) {
  const std::string p = write_raw(R"({"w":{"dtype":"F17","shape":[],"data_offsets":[0,4]}})",
                                  std::string(4, '\0'));
  EXPECT_THROW_MSG(load(p), where(p) + "tensor \"w\" has unknown dtype \"F17\"");
}

TEST_F(SafetensorsTest, Int8FailsNamingFileTensorAndDType) {
  const std::string p = write_raw(R"({"h":{"dtype":"I8","shape":[2],"data_offsets":[0,2]}})",
                                  std::string(2, '\0'));
  EXPECT_THROW_MSG(load(p), where(p) + "tensor \"h\" has dtype I8, which torchlet does not support");
}

TEST_F(SafetensorsTest, Float16LoadsItsBitsUnchanged) {
  const std::string p = write_raw(R"({"h":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}})",
                                  std::string("\x00\x3c\x01\x7e", 4));
  const Tensor h = load(p).at("h");
  EXPECT_EQ(h.dtype(), kFloat16);
  EXPECT_EQ(h.data<Half>()[0].x, 0x3c00);  // 1.0
  EXPECT_EQ(h.data<Half>()[1].x, 0x7e01);  // a NaN, payload kept
}

TEST_F(SafetensorsTest, BFloat16LoadsItsBitsUnchanged) {
  const std::string p = write_raw(R"({"b":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}})",
                                  std::string("\x80\x3f\x80\xff", 4));
  const Tensor b = load(p).at("b");
  EXPECT_EQ(b.dtype(), kBFloat16);
  EXPECT_EQ(b.to_vector<float>(), (std::vector<float>{1.0f, -std::numeric_limits<float>::infinity()}));
}

TEST_F(SafetensorsTest, NegativeDimensionFails) {
  const std::string p = write_raw(R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}})");
  EXPECT_THROW_MSG(load(p),
                   where(p) + "tensor \"w\": shape must be a list of non-negative integers, not [-1]");
}

TEST_F(SafetensorsTest, FractionalDimensionFails) {
  const std::string p = write_raw(R"({"w":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})");
  EXPECT_THROW_MSG(load(p),
                   where(p) + "tensor \"w\": shape must be a list of non-negative integers, not [2.0]");
}

TEST_F(SafetensorsTest, ShapeThatIsNotAListFails) {
  const std::string p = write_raw(R"({"w":{"dtype":"F32","shape":2,"data_offsets":[0,8]}})");
  EXPECT_THROW_MSG(load(p),
                   where(p) + "tensor \"w\": shape must be a list of non-negative integers, not 2");
}

TEST_F(SafetensorsTest, NumelOverflowFails) {
  const std::string p = write_raw(
      R"({"w":{"dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,0]}})");
  EXPECT_THROW_MSG(load(p), where(p) + "tensor \"w\": shape [4294967296, 4294967296] of dtype U8 "
                                       "overflows int64");
}

TEST_F(SafetensorsTest, ByteSizeOverflowFails) {
  const std::string p = write_raw(
      R"({"w":{"dtype":"F64","shape":[4611686018427387904],"data_offsets":[0,0]}})");
  EXPECT_THROW_MSG(load(p), where(p) + "tensor \"w\": shape [4611686018427387904] of dtype F64 "
                                       "overflows int64");
}

TEST_F(SafetensorsTest, MalformedDataOffsetsFail) {
  const std::string p = write_raw(R"({"w":{"dtype":"F32","shape":[],"data_offsets":[4]}})");
  EXPECT_THROW_MSG(load(p), where(p) + "tensor \"w\": data_offsets must be two non-negative "
                                       "integers, not [4]");
}

TEST_F(SafetensorsTest, DecreasingDataOffsetsFail) {
  const std::string p = write_raw(R"({"w":{"dtype":"F32","shape":[],"data_offsets":[8,4]}})",
                                  std::string(8, '\0'));
  EXPECT_THROW_MSG(load(p), where(p) + "tensor \"w\": data_offsets [8, 4] are not in increasing order");
}

TEST_F(SafetensorsTest, ShapeAndOffsetsThatDisagreeFail) {
  const std::string p = write_raw(R"({"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})",
                                  std::string(20, '\0'));
  EXPECT_THROW_MSG(load(p), where(p) + "tensor \"w\": shape [2, 3] of dtype F32 needs 24 bytes but "
                                       "data_offsets [0, 20] hold 20");
}

TEST_F(SafetensorsTest, OffsetsBeyondTheDataFail) {
  const std::string p = write_raw(
      R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[1000000000000,1000000000008]}})",
      std::string(8, '\0'));
  EXPECT_THROW_MSG(load(p), where(p) + "tensor \"w\": data_offsets [1000000000000, 1000000000008] "
                                       "reach past the end of the data (8 bytes)");
}

TEST_F(SafetensorsTest, TruncatedDataFails) {
  const std::string p = path("m.safetensors");
  save({{"w", ones({4})}}, p);
  const std::string bytes = read_file(p);
  write_file(p, bytes.substr(0, bytes.size() - 3));
  EXPECT_THROW_MSG(load(p), where(p) + "tensor \"w\": data_offsets [0, 16] reach past the end of "
                                       "the data (13 bytes): the file is truncated");
}

TEST_F(SafetensorsTest, OverlappingOffsetsFail) {
  const std::string p = write_raw(
      std::string(R"({"a":)") + kF32Pair +
          R"(,"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
      std::string(12, '\0'));
  EXPECT_THROW_MSG(load(p), where(p) + "tensors \"a\" [0, 8] and \"b\" [4, 12] overlap");
}

TEST_F(SafetensorsTest, HoleBetweenTensorsFails) {
  const std::string p = write_raw(
      std::string(R"({"a":)") + kF32Pair +
          R"(,"b":{"dtype":"F32","shape":[1],"data_offsets":[12,16]}})",
      std::string(16, '\0'));
  EXPECT_THROW_MSG(load(p), where(p) + "bytes [8, 12) of the data, before tensor \"b\", belong to "
                                       "no tensor");
}

TEST_F(SafetensorsTest, TrailingBytesAfterLastTensorFail) {
  const std::string p = write_raw(std::string(R"({"a":)") + kF32Pair + "}", std::string(10, '\0'));
  EXPECT_THROW_MSG(load(p), where(p) + "bytes [8, 10) of the data, after the last tensor, belong to "
                                       "no tensor");
}

TEST_F(SafetensorsTest, OffsetsOutOfHeaderOrderLoadInHeaderOrder) {
  // Python's safetensors accepts any header order; only the data must tile.
  const std::string p = write_raw(
      R"({"b":{"dtype":"U8","shape":[1],"data_offsets":[4,5]},)"
      R"("a":{"dtype":"I32","shape":[1],"data_offsets":[0,4]}})",
      std::string("\x07\x00\x00\x00\x09", 5));
  const StateDict sd = load(p);
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(sd.at("a").item<int64_t>(), 7);
  EXPECT_EQ(sd.at("b").item<int64_t>(), 9);
}

TEST_F(SafetensorsTest, MetadataThatIsNotAnObjectFails) {
  const std::string p = write_raw(R"({"__metadata__":"pt"})");
  EXPECT_THROW_MSG(load_metadata(p), where(p) + "__metadata__ must be an object, not \"pt\"");
}

TEST_F(SafetensorsTest, MetadataValueThatIsNotAStringFails) {
  const std::string p = write_raw(R"({"__metadata__":{"epoch":3}})");
  EXPECT_THROW_MSG(load(p), where(p) + "__metadata__ must map strings to strings; \"epoch\" holds 3");
}

TEST_F(SafetensorsTest, BoolByteOtherThanZeroOrOneFails) {
  const std::string p = write_raw(R"({"m":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]}})",
                                  std::string("\x01\x02\x00", 3));
  EXPECT_THROW_MSG(load(p), where(p) + "tensor \"m\" of dtype BOOL holds byte 2 at element 1");
}

}  // namespace
}  // namespace torchlet
