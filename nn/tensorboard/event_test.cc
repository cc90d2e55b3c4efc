#include "nn/tensorboard/event.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nn/tensorboard/proto_encoder.h"
#include "tensor/test_util.h"

namespace torchlet::tensorboard {
namespace {

// Serialized by tensorboard's event_pb2 and PyTorch 1.13's histogram logic:
// ~/.cache/torchlet/venv/bin/python tools/gen_tensorboard_golden.py
const char kFileVersion[] = "09000000000000f83f1a0d627261696e2e4576656e743a32";
const char kScalar[] = "09000000000000f83f10032a0d0a0b0a046c6f7373150000803e";
const char kScalarZeros[] = "2a0a0a080a017a1500000000";
const char kScalarNegativeStep[] =
    "0900001040fc54d94110ffffffffffffffffff012a0c0a0a0a03612f6215000000c0";
const char kHistogram[] =
    "09000000000000004010072a9a010a97010a01772a910109000000000000e03f11000000000000e83f190000000000"
    "00104021000000000000054029000000000040fc3f3230fae55a25d31fde3fb03125ee8091e03f0f1d5c6ca739e23f"
    "2b53652a380ce43f16756ffb700de63f3267c747fc41e83f3a300000000000000000000000000000f03f0000000000"
    "000000000000000000f03f00000000000000000000000000000040";
const char kHistogramAtZero[] =
    "09000000000000004010012a370a350a047a65726f2a2d1900000000000000403210000000000000000011ea2d8199"
    "97713d3a1000000000000000000000000000000040";

std::string hex(const std::string& bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 15]);
  }
  return out;
}

TEST(ProtoEncoderTest, VarintUsesSevenBitGroups) {
  EXPECT_EQ(hex(ProtoEncoder().varint(2, 300).data()), "10ac02");
}

TEST(ProtoEncoderTest, NegativeVarintTakesTenBytes) {
  EXPECT_EQ(hex(ProtoEncoder().varint(2, static_cast<uint64_t>(int64_t{-1})).data()),
            "10ffffffffffffffffff01");
}

TEST(ProtoEncoderTest, DoubleIsLittleEndianFixed64) {
  EXPECT_EQ(hex(ProtoEncoder().float64(1, 1.5).data()), "09000000000000f83f");
}

TEST(ProtoEncoderTest, FloatIsLittleEndianFixed32) {
  EXPECT_EQ(hex(ProtoEncoder().float32(2, 0.25f).data()), "150000803e");
}

TEST(ProtoEncoderTest, BytesArePrefixedWithTheirLength) {
  EXPECT_EQ(hex(ProtoEncoder().bytes(1, "loss").data()), "0a046c6f7373");
}

TEST(ProtoEncoderTest, PackedDoublesShareOneKey) {
  EXPECT_EQ(hex(ProtoEncoder().packed_float64(7, {1.0, 2.0}).data()),
            "3a10000000000000f03f0000000000000040");
}

TEST(ProtoEncoderTest, EmptyPackedFieldIsLeftOut) {
  EXPECT_EQ(ProtoEncoder().packed_float64(7, {}).data(), "");
}

TEST(EventTest, FileVersionEventMatchesTensorboard) {
  EXPECT_EQ(hex(file_version_event(1.5)), kFileVersion);
}

TEST(EventTest, ScalarEventMatchesTensorboard) {
  EXPECT_EQ(hex(scalar_event("loss", 0.25f, 3, 1.5)), kScalar);
}

TEST(EventTest, ZeroStepAndWallTimeAreLeftOutButAZeroValueIsKept) {
  EXPECT_EQ(hex(scalar_event("z", 0.0f, 0, 0.0)), kScalarZeros);
}

TEST(EventTest, NegativeStepMatchesTensorboard) {
  EXPECT_EQ(hex(scalar_event("a/b", -2.0f, -1, 1700000000.25)), kScalarNegativeStep);
}

// Dyadic values, whose sums are exact: numpy's dot (BLAS) may round
// sum_squares differently in the last bit otherwise.
TEST(EventTest, HistogramEventMatchesPyTorch) {
  EXPECT_EQ(hex(histogram_event("w", make_histogram({0.5, 0.625, 0.75, 0.75}), 7, 2.0)),
            kHistogram);
}

TEST(EventTest, HistogramOfZerosMatchesPyTorch) {
  EXPECT_EQ(hex(histogram_event("zero", make_histogram({0.0, 0.0}), 1, 2.0)), kHistogramAtZero);
}

TEST(HistogramTest, StatisticsOfTheValues) {
  const Histogram h = make_histogram({1.0, -2.0, 4.0});
  EXPECT_EQ(h.min, -2.0);
  EXPECT_EQ(h.max, 4.0);
  EXPECT_EQ(h.num, 3.0);
  EXPECT_EQ(h.sum, 3.0);
  EXPECT_EQ(h.sum_squares, 21.0);
}

TEST(HistogramTest, BucketsCountEveryValueAndStartWithAnEmptyOne) {
  const Histogram h = make_histogram({1.0, -2.0, 4.0, 4.0});
  ASSERT_EQ(h.bucket.size(), h.bucket_limit.size());
  EXPECT_EQ(h.bucket.front(), 0.0);
  double total = 0;
  for (double c : h.bucket) total += c;
  EXPECT_EQ(total, 4.0);
}

TEST(HistogramTest, TensorflowBinsAreSymmetricAroundZero) {
  const std::vector<double>& bins = tensorflow_bins();
  ASSERT_EQ(bins.size() % 2, 1u);
  const size_t middle = bins.size() / 2;
  EXPECT_EQ(bins[middle], 0.0);
  EXPECT_EQ(bins[middle + 1], 1e-12);
  EXPECT_EQ(bins[middle - 1], -1e-12);
  EXPECT_EQ(bins.front(), -bins.back());
}

TEST(HistogramTest, NoValuesIsAnError) {
  EXPECT_THROW_MSG(make_histogram({}), "add_histogram: the input has no element.");
}

TEST(HistogramTest, NonFiniteValueIsAnError) {
  EXPECT_THROW_MSG(make_histogram({1.0, 1.0 / 0.0}),
                   "add_histogram: values must be finite, got inf");
}

TEST(HistogramTest, ValuesBeyondTheOutermostBinsAreAnError) {
  EXPECT_THROW_MSG(make_histogram({1e30, -1e25}), "add_histogram: every value is outside the bins");
}

}  // namespace
}  // namespace torchlet::tensorboard
