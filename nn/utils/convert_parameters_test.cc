#include "nn/utils/convert_parameters.h"

#include <vector>

#include "gtest/gtest.h"
#include "tensor/test_util.h"

namespace torchlet::nn::utils {
namespace {

TEST(ParametersToVectorTest, FlattensAndConcatenatesInOrder) {
  const Variable a(ones({2, 2}), true), b(zeros({3}), true);
  const Variable vec = parameters_to_vector({a, b});
  EXPECT_EQ(testing::values(vec.data()), (std::vector<double>{1, 1, 1, 1, 0, 0, 0}));
}

TEST(ParametersToVectorTest, IsDifferentiableInEachParameter) {
  const Variable a(ones({2, 2}), true), b(zeros({3}), true);
  (parameters_to_vector({a, b}) * Variable(arange(0, 7).to(kFloat32))).sum().backward();
  EXPECT_EQ(testing::values(a.grad().data()), (std::vector<double>{0, 1, 2, 3}));
  EXPECT_EQ(testing::values(b.grad().data()), (std::vector<double>{4, 5, 6}));
}

TEST(VectorToParametersTest, ViewsConsecutiveSlicesAsEachParameter) {
  const Variable a(zeros({2, 2}), true), b(zeros({3}), true);
  const Variable vec(arange(0, 7).to(kFloat32));
  vector_to_parameters(vec, {a, b});
  EXPECT_EQ(a.sizes(), IntArrayRef({2, 2}));
  EXPECT_EQ(testing::values(a.data()), (std::vector<double>{0, 1, 2, 3}));
  EXPECT_EQ(testing::values(b.data()), (std::vector<double>{4, 5, 6}));
  EXPECT_TRUE(a.requires_grad());
}

TEST(VectorToParametersTest, RoundTripsParametersToVector) {
  const Variable a(randn({3, 2}), true), b(randn({4}), true);
  const Variable c(zeros({3, 2}), true), d(zeros({4}), true);
  vector_to_parameters(parameters_to_vector({a, b}).detach(), {c, d});
  EXPECT_EQ(testing::values(c.data()), testing::values(a.data()));
  EXPECT_EQ(testing::values(d.data()), testing::values(b.data()));
}

TEST(VectorToParametersTest, AVectorTooShortIsRefusedAsPyTorch) {
  const Variable a(zeros({2, 3}), true);
  EXPECT_THROW_MSG(vector_to_parameters(Variable(arange(0, 4).to(kFloat32)), {a}),
                   "shape '[2, 3]' is invalid for input of size 4");
}

TEST(VectorToParametersTest, AnUndefinedVectorIsRefusedAsPyTorch) {
  EXPECT_THROW_MSG(vector_to_parameters(Variable(), {Variable(zeros({1}), true)}),
                   "expected torch.Tensor, but got: None");
}

TEST(ConvertParametersTest, ParametersOnTwoDevicesAreRefusedAsPyTorch) {
  set_cpu_device_count(2);
  const Variable a(zeros({2}), true), b(zeros({2}).to(Device("cpu:1")), true);
  EXPECT_THROW_MSG(parameters_to_vector({a, b}),
                   "Found two parameters on different devices, this is currently not supported. "
                   "(cpu:0 and cpu:1)");
  EXPECT_THROW_MSG(vector_to_parameters(Variable(zeros({4})), {a, b}),
                   "Found two parameters on different devices");
}

}  // namespace
}  // namespace torchlet::nn::utils
