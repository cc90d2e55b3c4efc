#include "nn/tensorboard/summary_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nn/tensorboard/crc32c.h"
#include "nn/tensorboard/event.h"
#include "nn/tensorboard/tfrecord.h"
#include "tensor/tensor.h"
#include "tensor/file_size_limit.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using ::torchlet::testing::FileSizeLimit;

namespace fs = std::filesystem;
using tensorboard::read_records;

std::string fresh_dir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp ? tmp : "/tmp") + "/" + name;
  fs::remove_all(dir);
  return dir;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// The only event file in `dir`.
std::string event_file_in(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  }
  EXPECT_EQ(files.size(), 1u) << dir;
  return files.empty() ? "" : files[0];
}

uint64_t little_endian(const std::string& bytes, size_t offset, int width) {
  uint64_t value = 0;
  for (int i = 0; i < width; ++i) {
    value |= uint64_t{static_cast<unsigned char>(bytes[offset + i])} << (8 * i);
  }
  return value;
}

// An event's wall_time (field 1, the first in every event this writer makes).
double wall_time_of(const std::string& event) {
  EXPECT_EQ(event[0], '\x09');
  double t;
  std::memcpy(&t, event.data() + 1, sizeof t);
  return t;
}

TEST(SummaryWriterTest, FileIsNamedLikePyTorchs) {
  const std::string dir = fresh_dir("name");
  SummaryWriter writer(dir);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const std::regex pattern(R"(events\.out\.tfevents\.\d{10}\.)" + std::string(host) + "\\." +
                           std::to_string(getpid()) + R"(\.\d+)");
  const std::string name = fs::path(writer.path()).filename().string();
  EXPECT_TRUE(std::regex_match(name, pattern)) << name;
  EXPECT_EQ(fs::path(writer.path()).parent_path(), fs::path(dir));
}

TEST(SummaryWriterTest, RecordsAreFramedWithMaskedCrcs) {
  const std::string dir = fresh_dir("framing");
  { SummaryWriter(dir).add_scalar("loss", 0.5, 1); }
  const std::string bytes = slurp(event_file_in(dir));
  size_t offset = 0;
  int records = 0;
  while (offset < bytes.size()) {
    ASSERT_GE(bytes.size() - offset, 16u);
    const uint64_t length = little_endian(bytes, offset, 8);
    EXPECT_EQ(little_endian(bytes, offset + 8, 4),
              tensorboard::masked_crc32c(std::string_view(bytes).substr(offset, 8)));
    ASSERT_LE(offset + 16 + length, bytes.size());
    EXPECT_EQ(little_endian(bytes, offset + 12 + length, 4),
              tensorboard::masked_crc32c(std::string_view(bytes).substr(offset + 12, length)));
    offset += 16 + length;
    ++records;
  }
  EXPECT_EQ(records, 2);
}

TEST(SummaryWriterTest, FirstRecordIsTheFileVersion) {
  const std::string dir = fresh_dir("version");
  { SummaryWriter writer(dir); }
  const std::vector<std::string> records = read_records(event_file_in(dir));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0], tensorboard::file_version_event(wall_time_of(records[0])));
}

TEST(SummaryWriterTest, ScalarsAreScalarEventsInOrder) {
  const std::string dir = fresh_dir("scalars");
  {
    SummaryWriter writer(dir);
    writer.add_scalar("loss", 2.5, 0);
    writer.add_scalar("loss", 1.25, 1);
    writer.add_scalar("lr", 0.01, 1);
  }
  const std::vector<std::string> r = read_records(event_file_in(dir));
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[1], tensorboard::scalar_event("loss", 2.5f, 0, wall_time_of(r[1])));
  EXPECT_EQ(r[2], tensorboard::scalar_event("loss", 1.25f, 1, wall_time_of(r[2])));
  EXPECT_EQ(r[3], tensorboard::scalar_event("lr", 0.01f, 1, wall_time_of(r[3])));
}

TEST(SummaryWriterTest, HistogramIsAHistogramEvent) {
  const std::string dir = fresh_dir("histogram");
  const Tensor values = tensor({{0.5, -1.0}, {2.0, 2.0}});
  {
    SummaryWriter writer(dir);
    writer.add_histogram("weights", values, 3);
  }
  const std::vector<std::string> r = read_records(event_file_in(dir));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1], tensorboard::histogram_event("weights",
                                               tensorboard::make_histogram({0.5, -1.0, 2.0, 2.0}),
                                               3, wall_time_of(r[1])));
}

TEST(SummaryWriterTest, AddScalarsWritesOneRunPerTagUnderTheMainTag) {
  const std::string dir = fresh_dir("add_scalars");
  {
    SummaryWriter writer(dir);
    writer.add_scalars("loss/all", {{"train", 1.5}, {"test", 2.5}}, 4);
    writer.add_scalars("loss/all", {{"train", 0.5}}, 5);
  }
  const std::vector<std::string> train = read_records(event_file_in(dir + "/loss_all_train"));
  const std::vector<std::string> test = read_records(event_file_in(dir + "/loss_all_test"));
  ASSERT_EQ(train.size(), 3u);
  ASSERT_EQ(test.size(), 2u);
  EXPECT_EQ(train[1], tensorboard::scalar_event("loss/all", 1.5f, 4, wall_time_of(train[1])));
  EXPECT_EQ(train[2], tensorboard::scalar_event("loss/all", 0.5f, 5, wall_time_of(train[2])));
  EXPECT_EQ(test[1], tensorboard::scalar_event("loss/all", 2.5f, 4, wall_time_of(test[1])));
  EXPECT_EQ(read_records(event_file_in(dir)).size(), 1u);  // the main file has no scalars
}

TEST(SummaryWriterTest, FlushMakesEventsReadableWhileOpen) {
  const std::string dir = fresh_dir("flush");
  SummaryWriter writer(dir);
  writer.add_scalar("loss", 1.0, 0);
  writer.add_scalars("m", {{"a", 1.0}}, 0);
  writer.flush();
  EXPECT_EQ(read_records(writer.path()).size(), 2u);
  EXPECT_EQ(read_records(event_file_in(dir + "/m_a")).size(), 2u);
}

TEST(SummaryWriterTest, TwoWritersInOneDirectoryWriteTwoFiles) {
  const std::string dir = fresh_dir("two");
  SummaryWriter a(dir), b(dir);
  EXPECT_NE(a.path(), b.path());
}

TEST(SummaryWriterTest, UncreatableLogdirIsAnError) {
  const std::string dir = fresh_dir("blocked");
  spit(dir, "a file, not a directory");
  EXPECT_THROW_MSG(SummaryWriter(dir + "/run"),
                   "SummaryWriter: cannot create the log directory '" + dir + "/run'");
}

TEST(SummaryWriterTest, EmptyHistogramIsAnError) {
  SummaryWriter writer(fresh_dir("empty_histogram"));
  EXPECT_THROW_MSG(writer.add_histogram("w", zeros({0}), 0),
                   "add_histogram: the input has no element.");
}

TEST(SummaryWriterTest, UndefinedHistogramIsAnError) {
  SummaryWriter writer(fresh_dir("undefined_histogram"));
  EXPECT_THROW_MSG(writer.add_histogram("w", Tensor(), 0),
                   "add_histogram: the values tensor is undefined");
}

TEST(SummaryWriterTest, UncreatableEventFileIsAnError) {
  // The log directory can be created, but its path leaves no room for the
  // event file's name within PATH_MAX.
  const std::string base = fresh_dir("long_logdir");
  std::string logdir = base;
  while (logdir.size() < 4060) {
    logdir += "/" + std::string(std::min<size_t>(200, 4070 - logdir.size()), 'd');
  }
  EXPECT_THROW_MSG(SummaryWriter writer(logdir),
                   "SummaryWriter: cannot create '" + logdir + "/events.out.tfevents.");
  EXPECT_THROW_MSG(SummaryWriter writer(logdir), "': File name too long");
  EXPECT_TRUE(fs::is_directory(logdir));
  fs::remove_all(base);
}

TEST(SummaryWriterTest, WriteErrorIsAnErrorNamingTheFile) {
  SummaryWriter writer(fresh_dir("write_error"));
  FileSizeLimit limit(0);
  // A record larger than stdio's buffer is written through at once.
  EXPECT_THROW_MSG(writer.add_scalar(std::string(1 << 16, 't'), 1.0, 0),
                   "SummaryWriter: cannot write to '" + writer.path() + "': File too large");
}

TEST(SummaryWriterTest, FlushErrorIsAnErrorNamingTheFile) {
  SummaryWriter writer(fresh_dir("flush_error"));
  writer.add_scalar("loss", 1.0, 0);
  FileSizeLimit limit(0);
  EXPECT_THROW_MSG(writer.flush(),
                   "SummaryWriter: cannot write to '" + writer.path() + "': File too large");
}

// The path of a file holding the file version and three scalar records.
std::string three_scalars(const std::string& dir) {
  {
    SummaryWriter writer(dir);
    for (int step = 0; step < 3; ++step) writer.add_scalar("loss", step, step);
  }
  return event_file_in(dir);
}

TEST(ReadRecordsTest, RecordCutInItsDataIsLeftOut) {
  const std::string path = three_scalars(fresh_dir("cut_data"));
  const std::string bytes = slurp(path);
  spit(path, bytes.substr(0, bytes.size() - 6));
  EXPECT_EQ(read_records(path).size(), 3u);
}

TEST(ReadRecordsTest, RecordCutInItsHeaderIsLeftOut) {
  const std::string path = three_scalars(fresh_dir("cut_header"));
  const std::string whole = slurp(path);
  const size_t last_record = 16 + read_records(path).back().size();
  spit(path, whole.substr(0, whole.size() - last_record + 5));  // 5 of its 12 header bytes
  EXPECT_EQ(read_records(path).size(), 3u);
}

TEST(ReadRecordsTest, CorruptDataIsAnErrorNamingTheFile) {
  const std::string path = three_scalars(fresh_dir("corrupt"));
  std::string bytes = slurp(path);
  bytes[bytes.size() - 6] ^= 0x40;
  spit(path, bytes);
  EXPECT_THROW_MSG(read_records(path),
                   "read_records: '" + path + "': the data of the record at byte");
}

TEST(ReadRecordsTest, CorruptLengthIsAnErrorNamingTheFile) {
  const std::string path = three_scalars(fresh_dir("corrupt_length"));
  std::string bytes = slurp(path);
  bytes[0] ^= 0x01;
  spit(path, bytes);
  EXPECT_THROW_MSG(read_records(path), "read_records: '" + path +
                                           "': the length of the record at byte 0 fails its CRC");
}

TEST(ReadRecordsTest, MissingFileIsAnError) {
  const std::string path = fresh_dir("missing") + "/events";
  EXPECT_THROW_MSG(read_records(path), "read_records: cannot open '" + path + "'");
}

}  // namespace
}  // namespace torchlet
