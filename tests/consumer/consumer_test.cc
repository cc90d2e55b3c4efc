// Built in a separate Bazel workspace that depends on @torchlet: proves the
// library works as an external dependency.
#include "gtest/gtest.h"
#include "tensor/tensor.h"

TEST(ConsumerTest, UsesTheTensorPackage) {
  torchlet::Tensor a = torchlet::tensor({{1, 2}, {3, 4}});
  torchlet::Tensor b = a * 2 + 1;
  EXPECT_EQ(b.to_vector<int64_t>(), (std::vector<int64_t>{3, 5, 7, 9}));
  EXPECT_EQ(b.t().contiguous().to_vector<int64_t>(), (std::vector<int64_t>{3, 7, 5, 9}));
}
