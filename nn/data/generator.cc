#include "nn/data/generator.h"

#include <limits>
#include <numeric>
#include <utility>

#include "tensor/error.h"
#include "tensor/random.h"
#include "tensor/tensor_body.h"

namespace torchlet::data {

Generator::Generator()
    : Generator(static_cast<uint64_t>(
          randint(std::numeric_limits<int64_t>::max(), {1}).item<int64_t>())) {}

Generator::Generator(uint64_t seed) : engine_(seed) {}

void Generator::manual_seed(uint64_t seed) { engine_.seed(seed); }

uint64_t Generator::below(uint64_t bound) {
  // Rejects the top partial block of the engine's range.
  const uint64_t limit =
      std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % bound;
  uint64_t x = engine_();
  while (x >= limit) x = engine_();
  return x % bound;
}

std::vector<int64_t> Generator::randperm(int64_t n) {
  TORCHLET_CHECK(n >= 0, "randperm: n must be non-negative, got ", n);
  std::vector<int64_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), int64_t{0});
  for (int64_t i = n - 1; i > 0; --i) {  // Fisher-Yates
    std::swap(perm[i], perm[below(static_cast<uint64_t>(i) + 1)]);
  }
  return perm;
}

}  // namespace torchlet::data
