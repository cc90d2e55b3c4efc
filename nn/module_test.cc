#include "nn/nn.h"

#include "gtest/gtest.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

TEST(ModuleTest, LinearPrintsAsPyTorch) {
  Linear fc(3, 4);
  std::ostringstream out;
  out << fc;
  EXPECT_EQ(out.str(), "Linear(in_features=3, out_features=4, bias=True)");
}

}  // namespace
}  // namespace torchlet::nn
