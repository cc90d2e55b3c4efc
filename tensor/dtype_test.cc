#include "tensor/dtype.h"

#include "gtest/gtest.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

TEST(DTypeTest, ElementSizesAndNames) {
  EXPECT_EQ(element_size(kFloat32), 4u);
  EXPECT_EQ(element_size(kFloat64), 8u);
  EXPECT_EQ(element_size(kBool), 1u);
  EXPECT_STREQ(dtype_name(kInt32), "int32");
}

TEST(DTypeTest, PromoteTypesFollowsPyTorch) {
  EXPECT_EQ(promote_types(kInt32, kInt64), kInt64);
  EXPECT_EQ(promote_types(kUInt8, kInt32), kInt32);
  EXPECT_EQ(promote_types(kInt64, kFloat32), kFloat32);
  EXPECT_EQ(promote_types(kFloat32, kFloat64), kFloat64);
  EXPECT_EQ(promote_types(kBool, kUInt8), kUInt8);
  EXPECT_EQ(promote_types(kBool, kBool), kBool);
}

TEST(DTypeTest, TensorTensorPromotion) {
  EXPECT_EQ((ones({2}, kInt32) + ones({2}, kInt64)).dtype(), kInt64);
  EXPECT_EQ((ones({2}, kInt64) + ones({2}, kFloat32)).dtype(), kFloat32);
  EXPECT_EQ((ones({2}, kFloat32) + ones({2}, kFloat64)).dtype(), kFloat64);
}

TEST(DTypeTest, ScalarsDoNotWidenTensorsOfTheirCategory) {
  EXPECT_EQ((ones({2}, kInt32) + 5).dtype(), kInt32);
  EXPECT_EQ((ones({2}, kFloat32) + 2.5).dtype(), kFloat32);
  EXPECT_EQ((ones({2}, kUInt8) * true).dtype(), kUInt8);
}

TEST(DTypeTest, ScalarsOfAHigherCategoryUseTheDefaultDtype) {
  EXPECT_EQ((ones({2}, kInt64) + 2.5).dtype(), kFloat32);
  EXPECT_EQ((ones({2}, kBool) + 3).dtype(), kInt64);
}

TEST(DTypeTest, ZeroDimTensorsPromoteOnlyAcrossCategories) {
  EXPECT_EQ((ones({2}, kInt32) + scalar_tensor(1, kInt64)).dtype(), kInt32);
  EXPECT_EQ((ones({2}, kInt32) + scalar_tensor(1.5, kFloat64)).dtype(), kFloat64);
  EXPECT_EQ((ones({2}, kFloat32) + scalar_tensor(1.5, kFloat64)).dtype(), kFloat32);
}

TEST(DTypeTest, FloatScalarKeepsDoublePrecisionForFloat64Tensors) {
  Tensor t = zeros({1}, kFloat64) + 0.1;
  EXPECT_EQ(t.item<double>(), 0.1);
}

TEST(DTypeTest, ToConvertsDtype) {
  Tensor t = tensor({1.7, -2.2}).to(kInt64);
  EXPECT_EQ(t.dtype(), kInt64);
  EXPECT_EQ(t.to_vector<int64_t>(), (std::vector<int64_t>{1, -2}));
  EXPECT_EQ(tensor({0.0, 2.0}).to(kBool).to_vector<bool>(), (std::vector<bool>{false, true}));
}

}  // namespace
}  // namespace torchlet
