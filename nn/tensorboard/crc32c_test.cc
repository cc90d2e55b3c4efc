#include "nn/tensorboard/crc32c.h"

#include <string>

#include "gtest/gtest.h"

namespace torchlet::tensorboard {
namespace {

// Check values from RFC 3720, appendix B.4, and the usual "123456789".
TEST(Crc32cTest, MatchesTheStandardCheckValue) { EXPECT_EQ(crc32c("123456789"), 0xE3069283u); }

TEST(Crc32cTest, EmptyInputIsZero) { EXPECT_EQ(crc32c(""), 0u); }

TEST(Crc32cTest, ThirtyTwoZeroBytes) { EXPECT_EQ(crc32c(std::string(32, '\0')), 0x8A9136AAu); }

TEST(Crc32cTest, ThirtyTwoOnes) { EXPECT_EQ(crc32c(std::string(32, '\xFF')), 0x62A8AB43u); }

TEST(Crc32cTest, IncreasingBytes) {
  std::string bytes;
  for (int i = 0; i < 32; ++i) bytes.push_back(static_cast<char>(i));
  EXPECT_EQ(crc32c(bytes), 0x46DD794Eu);
}

TEST(Crc32cTest, ContinuingEqualsOnePass) {
  EXPECT_EQ(crc32c("56789", crc32c("1234")), crc32c("123456789"));
}

TEST(Crc32cTest, MaskRotatesAndAddsTensorFlowsDelta) {
  const uint32_t crc = 0xE3069283u;
  EXPECT_EQ(masked_crc32c("123456789"), ((crc >> 15) | (crc << 17)) + 0xA282EAD8u);
}

}  // namespace
}  // namespace torchlet::tensorboard
