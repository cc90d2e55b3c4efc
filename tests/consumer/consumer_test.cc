// Built in a separate Bazel workspace that depends on @torchlet: proves the
// library works as an external dependency.
#include "autograd/autograd.h"
#include "gtest/gtest.h"
#include "tensor/tensor.h"

TEST(ConsumerTest, UsesTheTensorPackage) {
  torchlet::Tensor a = torchlet::tensor({{1, 2}, {3, 4}});
  torchlet::Tensor b = a * 2 + 1;
  EXPECT_EQ(b.to_vector<int64_t>(), (std::vector<int64_t>{3, 5, 7, 9}));
  EXPECT_EQ(b.t().contiguous().to_vector<int64_t>(), (std::vector<int64_t>{3, 7, 5, 9}));
}

TEST(ConsumerTest, UsesTheAutogradPackage) {
  torchlet::Variable w(torchlet::tensor({1.0f, 2.0f}), /*requires_grad=*/true);
  (w * w).sum().backward();
  EXPECT_EQ(w.grad().data().to_vector<float>(), (std::vector<float>{2, 4}));
}
