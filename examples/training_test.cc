// The examples' data preparation: normalize_fashion_mnist gives exactly the
// values of the op chain it stands for (Note [Fashion-MNIST stays uint8]).

#include "examples/training.h"

#include <vector>

#include "gtest/gtest.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"

namespace torchlet::examples {
namespace {

Tensor op_chain(const Tensor& images) {
  return images.to(kFloat).div_(255).sub_(kFashionMNISTMean).div_(kFashionMNISTStd);
}

/// Same shape and exactly the same float values (float -> double is exact).
::testing::AssertionResult identical(const Tensor& actual, const Tensor& expected) {
  if (actual.sizes() != expected.sizes()) {
    return ::testing::AssertionFailure()
           << "shape " << shape_str(actual.sizes()) << " vs " << shape_str(expected.sizes());
  }
  const std::vector<double> a = testing::values(actual), e = testing::values(expected);
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != e[i]) {
      return ::testing::AssertionFailure() << "element " << i << ": " << a[i] << " vs " << e[i];
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(NormalizeFashionMnistTest, EveryPixelValueMatchesTheOpChainBitForBit) {
  const Tensor pixels = arange(0, 256).to(kUInt8).view({1, 1, 16, 16});
  const Tensor out = normalize_fashion_mnist(pixels);
  EXPECT_EQ(out.dtype(), kFloat);
  EXPECT_EQ(out.sizes(), pixels.sizes());
  EXPECT_TRUE(identical(out, op_chain(pixels)));
}

TEST(NormalizeFashionMnistTest, BatchMatchesTheOpChainBitForBit) {
  manual_seed(3);
  const Tensor batch = randint(0, 256, {64, 1, 28, 28}).to(kUInt8);
  EXPECT_TRUE(identical(normalize_fashion_mnist(batch), op_chain(batch)));
}

TEST(NormalizeFashionMnistTest, NonContiguousImagesAreReadInTheirLogicalOrder) {
  manual_seed(4);
  const Tensor images = randint(0, 256, {2, 28, 28}).to(kUInt8).transpose(1, 2);
  const Tensor out = normalize_fashion_mnist(images);
  EXPECT_TRUE(out.is_contiguous());
  EXPECT_TRUE(identical(out, op_chain(images)));
}

TEST(NormalizeFashionMnistTest, RefusesImagesThatAreNotUint8) {
  EXPECT_THROW_MSG(normalize_fashion_mnist(zeros({1, 28, 28})),
                   "normalize_fashion_mnist: expected uint8 images, got float");
}

}  // namespace
}  // namespace torchlet::examples
