#include "tensor/warning.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace torchlet {
namespace {

TEST(WarningTest, GuardCapturesWarningsOnThisThread) {
  std::vector<std::string> seen;
  {
    WarningHandlerGuard guard([&](const std::string& m) { seen.push_back(m); });
    warn("first");
    warn("second");
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"first", "second"}));
}

TEST(WarningTest, GuardRestoresThePreviousHandler) {
  std::vector<std::string> outer, inner;
  WarningHandlerGuard outer_guard([&](const std::string& m) { outer.push_back(m); });
  {
    WarningHandlerGuard inner_guard([&](const std::string& m) { inner.push_back(m); });
    warn("inner");
  }
  warn("outer");
  EXPECT_EQ(inner, (std::vector<std::string>{"inner"}));
  EXPECT_EQ(outer, (std::vector<std::string>{"outer"}));
}

TEST(WarningTest, DefaultHandlerPrintsEachMessageOnce) {
  ::testing::internal::CaptureStderr();
  warn("printed once");
  warn("printed once");
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "UserWarning: printed once\n");
}

}  // namespace
}  // namespace torchlet
