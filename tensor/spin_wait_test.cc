// spin_until: polls until its condition holds or its budget runs out,
// pausing first and yielding the core after kSpinBeforeSleep (Note [Spin
// before sleeping]).

#include "tensor/spin_wait.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "gtest/gtest.h"

namespace torchlet {
namespace {

using Clock = std::chrono::steady_clock;

TEST(SpinUntilTest, ReturnsTrueAtOnceWhenTheConditionHolds) {
  int polls = 0;
  EXPECT_TRUE(spin_until([&] { return ++polls > 0; }, kSpinBetweenTasks));
  EXPECT_EQ(polls, 1);
}

TEST(SpinUntilTest, ReturnsFalseOnlyOnceTheWholeBudgetRanOut) {
  const std::chrono::microseconds budget{2000};  // past the pausing phase
  const Clock::time_point start = Clock::now();
  EXPECT_FALSE(spin_until([] { return false; }, budget));
  EXPECT_GE(Clock::now() - start, budget);
}

TEST(SpinUntilTest, ABudgetShorterThanThePausingPhaseIsKept) {
  const std::chrono::microseconds budget{20};
  const Clock::time_point start = Clock::now();
  EXPECT_FALSE(spin_until([] { return false; }, budget));
  EXPECT_GE(Clock::now() - start, budget);
}

// The condition turns true while the poller is past kSpinBeforeSleep, where
// it yields between polls instead of pausing: it still sees it.
TEST(SpinUntilTest, SeesTheConditionTurnTrueWhileYielding) {
  std::atomic<bool> ready{false};
  std::thread setter([&] {
    std::this_thread::sleep_for(kSpinBeforeSleep * 3);
    ready.store(true, std::memory_order_release);
  });
  const Clock::time_point start = Clock::now();
  const bool seen = spin_until([&] { return ready.load(std::memory_order_acquire); },
                               std::chrono::seconds(10));
  const Clock::duration waited = Clock::now() - start;
  setter.join();
  EXPECT_TRUE(seen);
  EXPECT_GE(waited, kSpinBeforeSleep);
}

}  // namespace
}  // namespace torchlet
