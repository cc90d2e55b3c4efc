// How fast data moves between two cores: the round trip of one cache line
// bounced between them, and the time for one core to read 256 KB the other
// has just written (what DataParallel moves each step: LeNet-5's parameters
// to the second device, its gradients back). On a shared virtual machine
// both change from minute to minute; a round trip several times the usual
// marks a window in which anything that hands data between cores (intra-op
// threads, DataParallel) slows down, so timings taken in it should not be
// compared with timings from a quiet one.
//
//   bazel run //tools:core_latency -- [FIRST_CPU SECOND_CPU [ROUNDS]]
//
// Linux only: the two threads are pinned with pthread_setaffinity_np.

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

bool pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

// Alternates `rounds` times: the first thread runs `first(i)` and hands
// over, the second runs `second(i)` and hands back. Returns the mean time
// of one round, in nanoseconds, or a negative value if a thread could not
// be pinned.
template <typename First, typename Second>
double rounds_between(int cpu_a, int cpu_b, int rounds, First first, Second second) {
  alignas(64) std::atomic<int> turn{0};
  std::atomic<bool> pinned{true};
  std::thread other([&] {
    if (!pin_to(cpu_b)) pinned = false;
    for (int i = 0; i < rounds; ++i) {
      while (turn.load(std::memory_order_acquire) != 2 * i + 1) {
      }
      second(i);
      turn.store(2 * i + 2, std::memory_order_release);
    }
  });
  if (!pin_to(cpu_a)) pinned = false;
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < rounds; ++i) {
    first(i);
    turn.store(2 * i + 1, std::memory_order_release);
    while (turn.load(std::memory_order_acquire) != 2 * i + 2) {
    }
  }
  const Clock::time_point end = Clock::now();
  other.join();
  if (!pinned) return -1;
  return std::chrono::duration<double, std::nano>(end - start).count() / rounds;
}

int parse(const char* text, const char* what) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 0 || value > 1 << 20) {
    std::fprintf(stderr, "core_latency: %s must be a non-negative integer, got '%s'\n", what, text);
    std::exit(2);
  }
  return static_cast<int>(value);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 1 && argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: core_latency [FIRST_CPU SECOND_CPU [ROUNDS]]\n");
    return 2;
  }
  const int cpu_a = argc > 1 ? parse(argv[1], "FIRST_CPU") : 0;
  const int cpu_b = argc > 2 ? parse(argv[2], "SECOND_CPU") : 1;
  const int rounds = argc > 3 ? parse(argv[3], "ROUNDS") : 200000;
  if (cpu_a == cpu_b || rounds == 0) {
    std::fprintf(stderr, "core_latency: needs two different CPUs and at least one round\n");
    return 2;
  }

  const double line = rounds_between(cpu_a, cpu_b, rounds, [](int) {}, [](int) {});
  if (line < 0) {
    std::fprintf(stderr, "core_latency: cannot run threads on CPUs %d and %d\n", cpu_a, cpu_b);
    return 1;
  }
  std::printf("cache line round trip between CPU %d and CPU %d: %.0f ns\n", cpu_a, cpu_b, line);

  // 256 KB written (one store per cache line) on the first CPU, then read
  // on the second: every line leaves the second's cache and comes back.
  constexpr size_t kFloats = 256 * 1024 / sizeof(float);
  std::vector<float> buffer(kFloats, 1.0f);
  volatile float sink = 0;  // keeps the reads
  const int transfers = std::max(1, rounds / 50);
  const double block = rounds_between(
      cpu_a, cpu_b, transfers,
      [&](int i) {
        for (size_t j = 0; j < kFloats; j += 16) buffer[j] = static_cast<float>(i);
      },
      [&](int) {
        float sum = 0;
        for (size_t j = 0; j < kFloats; j += 16) sum += buffer[j];
        sink = sink + sum;
      });
  std::printf("256 KB written on CPU %d, then read on CPU %d: %.1f us\n", cpu_a, cpu_b,
              block / 1000);
  return 0;
}
