// A GEMM peer (tools/gemm_peer.h) with a plain triple loop, so that
// gemm_turns_test can run gemm_turns without another framework installed.
#include <cstdint>
#include <random>
#include <vector>

#include "tools/gemm_peer.h"

namespace {

struct Operands {
  int64_t n;
  std::vector<float> a, b;
};

}  // namespace

extern "C" {

const char* gemm_peer_name() { return "naive loops"; }

void* gemm_peer_prepare(int64_t n) {
  auto* operands = new Operands{n, std::vector<float>(n * n), std::vector<float>(n * n)};
  std::mt19937 generator(0);
  std::normal_distribution<float> normal;
  for (float& x : operands->a) x = normal(generator);
  for (float& x : operands->b) x = normal(generator);
  return operands;
}

void gemm_peer_run(void* handle) {
  const auto* o = static_cast<const Operands*>(handle);
  const int64_t n = o->n;
  std::vector<float> c(n * n);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t p = 0; p < n; ++p) {
      const float x = o->a[i * n + p];
      for (int64_t j = 0; j < n; ++j) c[i * n + j] += x * o->b[p * n + j];
    }
  }
  asm volatile("" : : "r"(c.data()) : "memory");
}

void gemm_peer_release(void* handle) { delete static_cast<Operands*>(handle); }
}
