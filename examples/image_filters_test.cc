#include "examples/image_filters.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "examples/image_io.h"
#include "tensor/factories.h"
#include "tensor/test_util.h"

namespace torchlet::examples {
namespace {

constexpr char kPhoto[] = "examples/testdata/photo.png";
constexpr char kGolden[] = "examples/testdata/image_filters_golden.txt";

Tensor golden(const std::string& name) {
  return testing::GoldenFile::get(kGolden).at(name).to(kFloat);
}

std::string temp_path(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

TEST(ImageIo, ReadPngMatchesToTensor) {
  const Tensor image = read_png(kPhoto);
  EXPECT_TRUE(testing::all_close(image, golden("image"), 0, 1e-7));
}

TEST(ImageIo, WritePngRoundTripsEightBitValues) {
  const Tensor image = read_png(kPhoto);
  const std::string path = temp_path("roundtrip.png");
  write_png(image, path);
  EXPECT_TRUE(testing::all_close(read_png(path), image, 0, 0));
}

TEST(ImageIo, WritePngClampsToTheUnitRange) {
  const std::string path = temp_path("clamped.png");
  write_png(from_vector(std::vector<float>{-0.5f, 0.25f, 1.5f, 1.0f}, {1, 1, 2, 2}), path);
  const Tensor read = read_png(path);
  EXPECT_TRUE(testing::all_close(
      read, from_vector(std::vector<float>{0.f, 64 / 255.f, 1.f, 1.f}, {1, 1, 2, 2}), 0, 0));
}

TEST(ImageIo, ReadPngOfAMissingFileNamesIt) {
  EXPECT_THROW_MSG(read_png("examples/testdata/missing.png"),
                   "read_png: cannot read examples/testdata/missing.png");
}

TEST(ImageIo, ReadPngOfANonPngFileNamesIt) {
  EXPECT_THROW_MSG(read_png(kGolden), "read_png: cannot read " + std::string(kGolden));
}

TEST(ImageIo, WritePngRejectsFiveChannels) {
  EXPECT_THROW_MSG(write_png(zeros({1, 5, 2, 2}), temp_path("five.png")),
                   "write_png: expected a [1, C, H, W] or [C, H, W] image with 1 to 4 channels, "
                   "got shape [1, 5, 2, 2]");
}

TEST(ImageIo, WritePngIntoAMissingDirectoryNamesTheFile) {
  EXPECT_THROW_MSG(write_png(zeros({1, 1, 2, 2}), "/nonexistent/dir/out.png"),
                   "write_png: cannot write /nonexistent/dir/out.png");
}

TEST(ImageFilters, SharpenMatchesPyTorchPerChannelConv2d) {
  const Tensor out = sharpen(read_png(kPhoto));
  EXPECT_TRUE(testing::all_close(out, golden("sharpened")));
}

TEST(ImageFilters, AveragePoolMatchesPyTorchAvgPool2d) {
  const Tensor out = average_pool(read_png(kPhoto));
  EXPECT_TRUE(testing::all_close(out, golden("avg_pooled")));
}

TEST(ImageFilters, MaxPoolMatchesPyTorchMaxPool2d) {
  const Tensor out = max_pool(read_png(kPhoto));
  EXPECT_TRUE(testing::all_close(out, golden("max_pooled"), 0, 0));
}

TEST(ImageFilters, RejectsAnUnbatchedImage) {
  EXPECT_THROW_MSG(sharpen(zeros({3, 8, 8})),
                   "sharpen: expected a [1, C, H, W] image, got shape [3, 8, 8]");
}

}  // namespace
}  // namespace torchlet::examples
