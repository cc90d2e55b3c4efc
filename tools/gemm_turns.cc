// torchlet's float32 GEMM against a peer's (another framework's, loaded
// from a library that implements tools/gemm_peer.h) in one process, taking
// turns: each turn runs one side's n x n products for a while, and each pair
// of turns gives a ratio of mean times per product (torchlet's over the
// peer's). On a shared machine the speed of both cores drifts by 10% and
// more within seconds, so benchmarks run a minute apart (tools/
// bench_rounds.sh) cannot resolve a few percent; turns a few tens of
// milliseconds long see the same drift, and the median of a hundred pairs
// does.
//
//   gemm_turns PEER.so [--seconds S] [N ...]
//
// Sizes default to BM_Gemm's (256 512 1024 2048); S (default 8) is each
// size's time, both sides together. Both use their default threads (all
// cores). The first quarter of every turn is not timed: it lets the other
// side's threads, which spin a while after their last product, go to sleep.
// tools/gemm_turns.sh builds a peer over PyTorch 2 (MKL) and runs this.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tensor/tensor.h"
#include "tools/gemm_peer.h"

namespace {

using Clock = std::chrono::steady_clock;

// A turn's length: at 2048 on two cores, one product takes about 55 ms.
constexpr double kTurnSeconds = 0.06;

struct Peer {
  const char* (*name)();
  void* (*prepare)(int64_t);
  void (*run)(void*);
  void (*release)(void*);
};

template <typename F>
F symbol(void* library, const char* name) {
  void* address = dlsym(library, name);
  if (address == nullptr) {
    std::fprintf(stderr, "gemm_turns: the peer library lacks %s\n", name);
    std::exit(2);
  }
  return reinterpret_cast<F>(address);
}

Peer load_peer(const char* path) {
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "gemm_turns: cannot load %s: %s\n", path, dlerror());
    std::exit(2);
  }
  return {symbol<const char* (*)()>(library, "gemm_peer_name"),
          symbol<void* (*)(int64_t)>(library, "gemm_peer_prepare"),
          symbol<void (*)(void*)>(library, "gemm_peer_run"),
          symbol<void (*)(void*)>(library, "gemm_peer_release")};
}

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// One turn of `product`: runs it for kTurnSeconds, and at least three
// times after the first quarter of that (or after the first product, if
// longer); returns the mean seconds of those timed products.
template <typename F>
double turn(const F& product) {
  const Clock::time_point start = Clock::now();
  Clock::time_point timed_from{};
  int timed = -1;  // products timed; -1 while still warming up
  while (true) {
    product();
    const Clock::time_point now = Clock::now();
    const double elapsed = seconds(now - start);
    if (timed < 0 && elapsed >= kTurnSeconds / 4) {
      timed_from = now;
      timed = 0;
      continue;
    }
    if (timed >= 0) ++timed;
    if (timed >= 3 && elapsed >= kTurnSeconds) return seconds(now - timed_from) / timed;
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

void compare(const Peer& peer, int64_t n, double budget) {
  using torchlet::Tensor;
  const Tensor a = torchlet::randn({n, n}), b = torchlet::randn({n, n});
  void* operands = peer.prepare(n);
  const auto ours = [&] {
    Tensor c = torchlet::mm(a, b);
    asm volatile("" : : "r"(c.data_ptr()) : "memory");
  };
  const auto theirs = [&] { peer.run(operands); };
  std::vector<double> ratios, our_times, their_times;
  const Clock::time_point start = Clock::now();
  // Pairs alternate which side goes first, so that neither always follows
  // the other's spinning threads.
  for (int pair = 0; pair < 4 || seconds(Clock::now() - start) < budget; ++pair) {
    double t_ours, t_theirs;
    if (pair % 2 == 0) {
      t_ours = turn(ours);
      t_theirs = turn(theirs);
    } else {
      t_theirs = turn(theirs);
      t_ours = turn(ours);
    }
    ratios.push_back(t_ours / t_theirs);
    our_times.push_back(t_ours);
    their_times.push_back(t_theirs);
  }
  peer.release(operands);
  const double flops = 2.0 * n * n * n;
  const auto [low, high] = std::minmax_element(ratios.begin(), ratios.end());
  std::printf("BM_Gemm/%ld: torchlet / %s, median of %zu pairs of turns %.3f (%.3f-%.3f); "
              "GFLOP/s medians %.1f and %.1f\n",
              static_cast<long>(n), peer.name(), ratios.size(), median(ratios), *low, *high,
              flops / median(our_times) * 1e-9, flops / median(their_times) * 1e-9);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gemm_turns PEER.so [--seconds S] [N ...]\n");
    return 2;
  }
  const Peer peer = load_peer(argv[1]);
  double budget = 8;
  std::vector<int64_t> sizes;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--seconds" && i + 1 < argc) {
      budget = std::atof(argv[++i]);
    } else {
      sizes.push_back(std::atoll(argv[i]));
      if (sizes.back() <= 0) {
        std::fprintf(stderr, "gemm_turns: a size must be positive, got %s\n", argv[i]);
        return 2;
      }
    }
  }
  if (sizes.empty()) sizes = {256, 512, 1024, 2048};
  for (int64_t n : sizes) compare(peer, n, budget);
  return 0;
}
