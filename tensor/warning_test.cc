#include "tensor/warning.h"

#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/executor.h"
#include "tensor/parallel.h"
#include "tensor/tensor.h"

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

TEST(WarningTest, GuardSeesEveryRepeatOfAMessage) {
  std::vector<std::string> seen;
  WarningHandlerGuard guard([&](const std::string& m) { seen.push_back(m); });
  warn("again");
  warn("again");
  EXPECT_EQ(seen, (std::vector<std::string>{"again", "again"}));
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
  reset_warning_registry();
  ::testing::internal::CaptureStderr();
  warn("printed once");
  warn("printed once");
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "UserWarning: printed once\n");
}

TEST(WarningTest, ResettingTheRegistryPrintsAMessageAgain) {
  reset_warning_registry();
  ::testing::internal::CaptureStderr();
  warn("printed twice");
  reset_warning_registry();
  warn("printed twice");
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "UserWarning: printed twice\nUserWarning: printed twice\n");
}

TEST(WarningTest, AnEmptyHandlerMeansTheDefault) {
  reset_warning_registry();
  std::vector<std::string> outer;
  WarningHandlerGuard outer_guard([&](const std::string& m) { outer.push_back(m); });
  ::testing::internal::CaptureStderr();
  {
    WarningHandlerGuard default_guard(nullptr);
    warn("to stderr");
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "UserWarning: to stderr\n");
  EXPECT_TRUE(outer.empty());
}

class WarningFromWorkersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    set_cpu_device_count(2);
    set_num_threads(4);
  }
  void TearDown() override {
    set_num_threads(0);
    set_cpu_device_count(1);
  }
};

TEST_F(WarningFromWorkersTest, ExecutorTasksWarnThroughTheSubmittersHandler) {
  std::vector<std::string> seen;
  WarningHandlerGuard guard([&](const std::string& m) { seen.push_back(m); });
  std::thread::id worker;
  device_executor(Device("cpu:1"))
      .submit([&] {
        worker = std::this_thread::get_id();
        warn("from the executor");
      })
      .get();
  EXPECT_NE(worker, std::this_thread::get_id());
  EXPECT_EQ(seen, (std::vector<std::string>{"from the executor"}));
}

TEST_F(WarningFromWorkersTest, IntraOpWorkersWarnThroughTheCallersHandler) {
  std::vector<std::thread::id> threads;
  WarningHandlerGuard guard([&](const std::string&) { threads.push_back(std::this_thread::get_id()); });
  constexpr int64_t kGrain = 8;
  parallel_for(0, 4 * kGrain, kGrain, [](int64_t, int64_t) { warn("from a chunk"); });
  EXPECT_EQ(threads.size(), 4u);
  EXPECT_GT(std::set<std::thread::id>(threads.begin(), threads.end()).size(), 1u);
}

// Four chunks start together and warn at once; the handler, which takes a
// while, must never see a second call while one is running.
TEST_F(WarningFromWorkersTest, OneHandlerIsCalledOneThreadAtATime) {
  std::atomic<int> started{0}, inside{0}, calls{0};
  std::atomic<bool> overlapped{false};
  WarningHandlerGuard guard([&](const std::string&) {
    if (++inside > 1) overlapped = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    --inside;
    ++calls;
  });
  constexpr int64_t kGrain = 8;
  parallel_for(0, 4 * kGrain, kGrain, [&](int64_t, int64_t) {
    ++started;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started < 4 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    warn("at once");
  });
  EXPECT_EQ(calls, 4);
  EXPECT_FALSE(overlapped);
}

TEST_F(WarningFromWorkersTest, WorkersWarnToTheDefaultWithoutAGuard) {
  reset_warning_registry();
  ::testing::internal::CaptureStderr();
  device_executor(Device("cpu:1")).submit([] { warn("worker default"); }).get();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "UserWarning: worker default\n");
}

}  // namespace
}  // namespace torchlet
