#include "nn/data/idx.h"

#include <sys/stat.h>
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nn/data/mnist.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"

namespace torchlet::data {
namespace {

using Bytes = std::vector<uint8_t>;
using ::torchlet::testing::values;

std::string temp_path(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

// An IDX header: magic (0, 0, type, rank) then each size, big-endian.
Bytes header(uint8_t type, const std::vector<uint32_t>& sizes) {
  Bytes bytes = {0, 0, type, static_cast<uint8_t>(sizes.size())};
  for (uint32_t s : sizes) {
    for (int shift : {24, 16, 8, 0}) bytes.push_back(static_cast<uint8_t>(s >> shift));
  }
  return bytes;
}

Bytes concat(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// 0, 1, 2, ... as uint8.
Bytes counting(size_t n) {
  Bytes bytes(n);
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(i);
  return bytes;
}

std::string write_plain(const std::string& name, const Bytes& bytes) {
  const std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  return path;
}

Bytes gzip(const Bytes& bytes) {
  const std::string path = temp_path("gzip.tmp");
  gzFile file = gzopen(path.c_str(), "wb");
  gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(file);
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string write_gzip(const std::string& name, const Bytes& bytes) {
  return write_plain(name, gzip(bytes));
}

TEST(ReadIdxTest, ReadsAPlainUint8File) {
  const Tensor t =
      read_idx(write_plain("plain.idx", concat(header(0x08, {2, 3, 4}), counting(24))));
  EXPECT_EQ(t.dtype(), kUInt8);
  EXPECT_EQ(t.sizes(), (SizeVec{2, 3, 4}));
  EXPECT_EQ(t.to_vector<uint8_t>(), counting(24));
}

TEST(ReadIdxTest, ReadsAGzipFile) {
  const Tensor t = read_idx(write_gzip("gzipped.idx.gz", concat(header(0x08, {5}), counting(5))));
  EXPECT_EQ(t.sizes(), (SizeVec{5}));
  EXPECT_EQ(t.to_vector<uint8_t>(), counting(5));
}

TEST(ReadIdxTest, ConvertsBigEndianInt32) {
  const Tensor t = read_idx(
      write_plain("int32.idx", concat(header(0x0C, {2}), {0, 0, 1, 2, 0xFF, 0xFF, 0xFF, 0xFE})));
  EXPECT_EQ(t.dtype(), kInt32);
  EXPECT_EQ(t.to_vector<int32_t>(), (std::vector<int32_t>{258, -2}));
}

TEST(ReadIdxTest, ConvertsBigEndianFloat32) {
  // 1.5f is 0x3FC00000.
  const Tensor t =
      read_idx(write_plain("float.idx", concat(header(0x0D, {1}), {0x3F, 0xC0, 0, 0})));
  EXPECT_EQ(t.dtype(), kFloat32);
  EXPECT_EQ(values(t), (std::vector<double>{1.5}));
}

TEST(ReadIdxTest, ReadsAnEmptyTensor) {
  const Tensor t = read_idx(write_plain("empty.idx", header(0x08, {0, 28, 28})));
  EXPECT_EQ(t.sizes(), (SizeVec{0, 28, 28}));
}

TEST(ReadIdxTest, MissingFileIsAnErrorNamingIt) {
  const std::string path = temp_path("no-such-file.idx");
  EXPECT_THROW_MSG(read_idx(path),
                   "read_idx: cannot open '" + path + "': No such file or directory");
}

TEST(ReadIdxTest, TruncatedGzipStreamIsAnErrorNamingTheFile) {
  const Bytes whole = gzip(concat(header(0x08, {1000}), counting(1000)));
  const std::string path =
      write_plain("cut.idx.gz", Bytes(whole.begin(), whole.begin() + whole.size() / 2));
  EXPECT_THROW_MSG(read_idx(path), "read_idx: '" + path +
                                       "' is truncated or corrupt (gzip: unexpected end of file)");
}

TEST(ReadIdxTest, TruncatedPayloadIsAnErrorNamingTheFile) {
  const std::string path = write_plain("short.idx", concat(header(0x08, {3, 4}), counting(10)));
  EXPECT_THROW_MSG(read_idx(path), "read_idx: '" + path +
                                       "' is truncated: its header (shape [3, 4]) promises more "
                                       "data than the file's 10 bytes");
}

TEST(ReadIdxTest, TruncatedPayloadInAGzipFileIsAnErrorNamingTheFile) {
  const std::string path = write_gzip("short.idx.gz", concat(header(0x08, {3, 4}), counting(10)));
  EXPECT_THROW_MSG(read_idx(path), "read_idx: '" + path + "' is truncated: its header");
}

TEST(ReadIdxTest, HugeSizesInTheHeaderAreATruncationNotAnAllocation) {
  const std::string path = write_plain(
      "huge.idx", concat(header(0x0E, {0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}), counting(8)));
  EXPECT_THROW_MSG(read_idx(path), "read_idx: '" + path +
                                       "' is truncated: its header (shape "
                                       "[4294967295, 4294967295, 4294967295])");
}

TEST(ReadIdxTest, TruncatedHeaderIsAnErrorNamingTheFile) {
  const std::string path = write_plain("header.idx", Bytes{0, 0, 8, 3, 0, 0, 0, 2});
  EXPECT_THROW_MSG(read_idx(path), "read_idx: '" + path +
                                       "' is truncated: its header needs 16 bytes, the file has 8");
}

TEST(ReadIdxTest, FileShorterThanTheMagicNumberIsAnErrorNamingIt) {
  const std::string path = write_plain("tiny.idx", Bytes{0, 0});
  EXPECT_THROW_MSG(read_idx(path), "read_idx: '" + path +
                                       "' is truncated: 2 bytes, too short for the magic number");
}

TEST(ReadIdxTest, WrongMagicNumberIsAnErrorNamingTheFile) {
  const std::string path =
      write_plain("magic.idx", concat(Bytes{0x1F, 0x00, 0x08, 0x01}, counting(8)));
  EXPECT_THROW_MSG(read_idx(path),
                   "read_idx: '" + path + "' is not an IDX file: wrong magic number 0x1f000801");
}

TEST(ReadIdxTest, UnsupportedElementTypeIsAnErrorNamingTheFile) {
  const std::string path = write_plain("int16.idx", concat(header(0x0B, {2}), counting(4)));
  EXPECT_THROW_MSG(read_idx(path), "read_idx: '" + path +
                                       "' has element type code 0xb, which is "
                                       "not supported");
}

TEST(ReadIdxTest, MoreDataThanTheHeaderSaysIsAnErrorNamingTheFile) {
  const std::string path = write_plain("long.idx", concat(header(0x08, {3, 4}), counting(13)));
  EXPECT_THROW_MSG(read_idx(path), "read_idx: '" + path +
                                       "' has 13 bytes of data, but its header (shape [3, 4]) "
                                       "promises 12");
}

TEST(ReadIdxTest, EveryCutOfAGzipFileIsReadOrRefusedWithAnError) {
  const Bytes whole = gzip(concat(header(0x08, {4, 5}), counting(20)));
  for (size_t n = 0; n < whole.size(); ++n) {
    const std::string path = write_plain("prefix.idx.gz", Bytes(whole.begin(), whole.begin() + n));
    EXPECT_THROW(read_idx(path), Error) << "a cut after " << n << " bytes";
  }
}

TEST(ReadIdxTest, EveryFlippedByteIsReadOrRefusedWithAnError) {
  const Bytes whole = gzip(concat(header(0x0D, {2, 3}), counting(24)));
  for (size_t i = 0; i < whole.size(); ++i) {
    Bytes damaged = whole;
    damaged[i] ^= 0x5A;
    const std::string path = write_plain("flipped.idx.gz", damaged);
    try {
      read_idx(path);
    } catch (const Error&) {
      // refused: fine
    }
  }
}

// A root holding `n` images of 2x3 pixels and `labels` labels, gzip'd.
std::string mnist_root(const std::string& name, uint32_t n, uint32_t labels) {
  const std::string root = temp_path(name);
  ::mkdir(root.c_str(), 0755);
  write_gzip(name + "/train-images-idx3-ubyte.gz",
             concat(header(0x08, {n, 2, 3}), counting(6 * n)));
  write_gzip(name + "/train-labels-idx1-ubyte.gz",
             concat(header(0x08, {labels}), counting(labels)));
  return root;
}

TEST(MnistTest, ReadsImagesAsUint8AndLabelsAsInt64) {
  MNIST mnist(mnist_root("mnist", 4, 4), /*train=*/true);
  EXPECT_EQ(mnist.size(), 4);
  EXPECT_EQ(mnist.data().dtype(), kUInt8);
  EXPECT_EQ(mnist.data().sizes(), (SizeVec{4, 2, 3}));
  EXPECT_EQ(mnist.targets().dtype(), kInt64);
  EXPECT_EQ(mnist.targets().to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(MnistTest, PrefersThePlainFileWhenBothExist) {
  const std::string root = mnist_root("mnist_plain", 4, 4);
  write_plain("mnist_plain/train-labels-idx1-ubyte", concat(header(0x08, {4}), Bytes{9, 9, 9, 9}));
  EXPECT_EQ(MNIST(root).targets().to_vector<int64_t>(), (std::vector<int64_t>{9, 9, 9, 9}));
}

TEST(MnistTest, MissingTestFilesAreAnErrorNamingThem) {
  const std::string root = mnist_root("mnist_no_test", 4, 4);
  EXPECT_THROW_MSG(MNIST(root, /*train=*/false),
                   "read_idx: cannot open '" + root + "/t10k-images-idx3-ubyte.gz'");
}

TEST(MnistTest, LabelCountDifferentFromImageCountIsAnError) {
  const std::string root = mnist_root("mnist_mismatch", 4, 3);
  EXPECT_THROW_MSG(MNIST{root},
                   "MNIST: '" + root + "/train-labels-idx1-ubyte.gz' has 3 labels for 4 images");
}

TEST(MnistTest, ImagesFileHoldingLabelsIsAnError) {
  const std::string root = mnist_root("mnist_swapped", 4, 4);
  write_gzip("mnist_swapped/train-images-idx3-ubyte.gz", concat(header(0x08, {4}), counting(4)));
  EXPECT_THROW_MSG(MNIST{root}, "MNIST: '" + root +
                                    "/train-images-idx3-ubyte.gz' should hold uint8 images [N, "
                                    "rows, cols], but holds uint8 [4]");
}

TEST(MnistTest, LabelsFileHoldingImagesIsAnError) {
  const std::string root = mnist_root("mnist_labels_2d", 4, 4);
  write_gzip("mnist_labels_2d/train-labels-idx1-ubyte.gz",
             concat(header(0x08, {4, 2}), counting(8)));
  EXPECT_THROW_MSG(MNIST{root}, "MNIST: '" + root +
                                    "/train-labels-idx1-ubyte.gz' should hold uint8 labels [N], "
                                    "but holds uint8 [4, 2]");
}

// Debian's dataset-fashion-mnist (tools/install_deps.sh installs it).
TEST(MnistTest, ReadsDebiansFashionMnist) {
  struct stat info;
  if (::stat(kFashionMNISTRoot, &info) != 0) GTEST_SKIP() << kFashionMNISTRoot << " is missing";
  FashionMNIST test(kFashionMNISTRoot, /*train=*/false);
  EXPECT_EQ(test.data().sizes(), (SizeVec{10000, 28, 28}));
  EXPECT_EQ(test.targets().sizes(), (SizeVec{10000}));
  EXPECT_EQ(test.targets().min().item<int64_t>(), 0);
  EXPECT_EQ(test.targets().max().item<int64_t>(), 9);
  // torchvision's FashionMNIST: test example 0 is an ankle boot (9), 1 a pullover (2).
  EXPECT_EQ(test.targets()[0].item<int64_t>(), 9);
  EXPECT_EQ(test.targets()[1].item<int64_t>(), 2);
}

}  // namespace
}  // namespace torchlet::data
