#include "tensor/dtype.h"

#include <fstream>
#include <string>

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

TEST(DTypeTest, HalfAndBFloat16AreTwoByteFloatingTypes) {
  for (DType d : {kFloat16, kBFloat16}) {
    EXPECT_EQ(element_size(d), 2u);
    EXPECT_TRUE(is_floating_point(d));
    EXPECT_TRUE(is_reduced_floating_point(d));
    EXPECT_FALSE(is_integral(d, true));
  }
  EXPECT_FALSE(is_reduced_floating_point(kFloat32));
  EXPECT_EQ(kHalf, kFloat16);
  EXPECT_STREQ(dtype_name(kFloat16), "float16");
  EXPECT_STREQ(dtype_name(kBFloat16), "bfloat16");
  EXPECT_STREQ(scalar_type_name(kFloat16), "Half");
  EXPECT_STREQ(scalar_type_name(kBFloat16), "BFloat16");
  EXPECT_EQ(dtype_of<Half>(), kFloat16);
  EXPECT_EQ(dtype_of<BFloat16>(), kBFloat16);
}

DType dtype_named(const std::string& name) {
  for (DType d : {kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBool, kFloat16, kBFloat16}) {
    if (name == dtype_name(d)) return d;
  }
  ADD_FAILURE() << "unknown dtype " << name;
  return kFloat32;
}

// tensor/testdata/half_promotion.txt: torch.promote_types over every pair
// (tools/gen_half_golden.py).
TEST(DTypeTest, PromoteTypesMatchesPyTorchForEveryPair) {
  std::ifstream in("tensor/testdata/half_promotion.txt");
  ASSERT_TRUE(in.good());
  int pairs = 0;
  for (std::string a, b, result; in >> a >> b >> result; ++pairs) {
    EXPECT_EQ(promote_types(dtype_named(a), dtype_named(b)), dtype_named(result))
        << a << " with " << b;
  }
  EXPECT_EQ(pairs, 64);
}

TEST(DTypeTest, HalfPromotionWithTensorsAndNumbers) {
  const Tensor h = ones({2}, kFloat16), b = ones({2}, kBFloat16);
  EXPECT_EQ(result_type(h, b), kFloat32);
  EXPECT_EQ(result_type(h, ones({2}, kFloat32)), kFloat32);
  EXPECT_EQ(result_type(h, ones({2}, kInt64)), kFloat16);
  EXPECT_EQ(result_type(b, ones({2}, kUInt8)), kBFloat16);
  EXPECT_EQ(result_type(h, 2.5), kFloat16);
  EXPECT_EQ(result_type(b, 3), kBFloat16);
  EXPECT_EQ(result_type(h, scalar_tensor(1.5, kFloat64)), kFloat16);
  EXPECT_EQ(result_type(ones({2}, kInt64), scalar_tensor(1.5, kFloat16)), kFloat16);
  EXPECT_EQ(result_type(scalar_tensor(1.5, kFloat16), scalar_tensor(2, kBFloat16)), kFloat32);
  EXPECT_EQ((h + b).dtype(), kFloat32);
  EXPECT_EQ((h * 2).dtype(), kFloat16);
}

}  // namespace
}  // namespace torchlet
