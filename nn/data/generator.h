#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace torchlet::data {

/// A seeded source of random permutations for shuffling and splitting, kept
/// apart from the global generator (PyTorch's `torch.Generator` passed to
/// `DataLoader` and `random_split`): seeding it makes the order reproducible
/// whatever else draws random numbers.
class Generator {
 public:
  /// Seeded with a number drawn from the global generator, so that
  /// `manual_seed` makes it reproducible too.
  Generator();
  explicit Generator(uint64_t seed);

  void manual_seed(uint64_t seed);
  /// A uniformly random permutation of 0..n-1 (n >= 0); advances the state.
  std::vector<int64_t> randperm(int64_t n);

 private:
  // Uniform on [0, bound), without modulo bias.
  uint64_t below(uint64_t bound);

  std::mt19937_64 engine_;
};

}  // namespace torchlet::data
