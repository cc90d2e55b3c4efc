#include "nn/expanding_array.h"

#include <vector>

#include "gtest/gtest.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

std::vector<int64_t> values(const ExpandingArray<3>& array) {
  return std::vector<int64_t>(array.ref().begin(), array.ref().end());
}

TEST(ExpandingArray, OneIntIsRepeatedForEveryDimension) {
  const ExpandingArray<3> array(3);
  EXPECT_EQ(values(array), (std::vector<int64_t>{3, 3, 3}));
  EXPECT_TRUE(array.single());
}

TEST(ExpandingArray, AListOfDValuesIsKeptAsGiven) {
  const ExpandingArray<3> array({1, 2, 3});
  EXPECT_EQ(values(array), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(array[2], 3);
  EXPECT_FALSE(array.single());
}

TEST(ExpandingArray, AListOfTheWrongLengthIsAnErrorNamingBothLengths) {
  EXPECT_THROW_MSG(ExpandingArray<3>({1, 2}), "ExpandingArray<3>: expected 3 values, got 2");
  EXPECT_THROW_MSG(ExpandingArray<2>({1, 2, 3}), "ExpandingArray<2>: expected 2 values, got 3");
}

}  // namespace
}  // namespace torchlet::nn
