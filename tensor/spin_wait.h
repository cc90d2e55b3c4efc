#pragma once

#include <algorithm>
#include <chrono>
#include <thread>

namespace torchlet {

// Note [Spin before sleeping]
// Waking a sleeping thread is a futex call and, on a virtual machine, an
// interrupt to an idle virtual CPU that the host must schedule: tens of
// microseconds, as long as a whole small op. Every hand-over between threads
// on a training step's hot path (intra-op chunks, a replica's forward on
// another device's executor, the engine's per-device backward, the caller
// waiting for all of them) would pay it several times a step. So a thread
// about to wait for something that usually comes soon polls for it for a
// bounded while first, and sleeps only after that: back-to-back work hands
// over without a system call, and an idle thread costs nothing once the
// poll ran out.
//
// Two budgets. A caller waiting for the intra-op chunks it handed out waits
// for work that started with its own: kSpinBeforeSleep. A thread waiting
// for the next piece of a training step (a device's executor, an intra-op
// worker, DataParallel's caller waiting for another device's replica or
// backward) waits through the step's serial part: the loss, the optimizer
// step, scatter and replicate take over 100 us for LeNet-5 at batch 64. With
// 100 us there, cpu:1's executor slept and was woken twice a DataParallel
// step; with kSpinBetweenTasks it sleeps once in about fifty steps, and the
// /2 step at batch 64 went from 1.95-2.09 to 1.86-1.90 ms. A thread idle for
// longer (between epochs, after training) still sleeps. OpenMP runtimes poll
// as long or longer by default (Intel's KMP_BLOCKTIME is 200 ms).
//
// Past kSpinBeforeSleep a polling thread yields its core between polls
// instead of pausing: with more busy threads than cores (tests run four
// CPU devices on two cores) a thread that kept its core for a millisecond
// would hold off the very thread it waits for, and data_parallel_test took
// 1.2 s instead of 0.16 s. On an idle core the yield returns at once.

/// How long a thread polls for work that started with its own before it
/// sleeps (Note [Spin before sleeping]).
inline constexpr std::chrono::microseconds kSpinBeforeSleep{100};

/// How long a thread polls for the next task of a training step before it
/// sleeps (Note [Spin before sleeping]).
inline constexpr std::chrono::microseconds kSpinBetweenTasks{1000};

/// PAUSEs between two polls of spin_until. A PAUSE takes 25 ns on AMD Zen 4
/// and about 45 on Intel since Skylake, so polling every 8 sees what it
/// waits for 0.1-0.2 us after the fact on average; every 64, it was 0.8-1.5
/// us, paid at every hand-over between threads: two an op on intra-op
/// threads, about ten a DataParallel step. The plain LeNet step at batch 64
/// on two intra-op threads went from 1.24-1.27 to 1.21 ms on a quiet host
/// and from 1.71-1.74 to 1.65-1.71 on a busy one; DataParallel's step was
/// unchanged within noise. The polled line stays in the waiting core's
/// cache until the writer changes it, so polling more often adds no
/// traffic between the cores.
inline constexpr int kPausesBetweenPolls = 8;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/// Polls `ready()` for at most `budget`, pausing between polls for the
/// first kSpinBeforeSleep and yielding the core after that; true as soon
/// as it holds, false when the budget ran out first (the caller then
/// sleeps on its own condition). `ready` must only read atomics.
template <typename Ready>
bool spin_until(const Ready& ready, std::chrono::microseconds budget = kSpinBeforeSleep) {
  if (ready()) return true;
  const auto start = std::chrono::steady_clock::now();
  const auto yield_after = start + std::min(budget, kSpinBeforeSleep);
  const auto deadline = start + budget;
  auto now = start;
  do {
    if (now < yield_after) {
      for (int i = 0; i < kPausesBetweenPolls; ++i) cpu_relax();
    } else {
      std::this_thread::yield();
    }
    if (ready()) return true;
    now = std::chrono::steady_clock::now();
  } while (now < deadline);
  return false;
}

}  // namespace torchlet
