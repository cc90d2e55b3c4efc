// CPU kernels of the random fills: the engine's numbers turned into each
// distribution, drawn in row-major order of the output.
#include "tensor/cpu/random_kernels.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "tensor/cpu/dispatch.h"

namespace torchlet::cpu {
namespace {

// Uniform on [0, 1) with T's precision (so a float never rounds up to 1).
template <typename T>
T unit_uniform(RandomEngine& engine);
template <>
float unit_uniform<float>(RandomEngine& engine) {
  return static_cast<float>(engine() >> 40) * 0x1p-24f;
}
template <>
double unit_uniform<double>(RandomEngine& engine) {
  return static_cast<double>(engine() >> 11) * 0x1p-53;
}

// Two independent standard normals (Box–Muller).
std::pair<double, double> standard_normal_pair(RandomEngine& engine) {
  const double radius = std::sqrt(-2.0 * std::log(1.0 - unit_uniform<double>(engine)));
  const double angle = 2.0 * M_PI * unit_uniform<double>(engine);
  return {radius * std::cos(angle), radius * std::sin(angle)};
}

}  // namespace

void uniform_fill(const Tensor& out, double from, double to, RandomEngine& engine) {
  dispatch_floating(out.dtype(), "uniform_", [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(out.data_ptr());
    for (int64_t i = 0; i < out.numel(); ++i) {
      p[i] = static_cast<T>(from + (to - from) * unit_uniform<T>(engine));
    }
  });
}

void normal_fill(const Tensor& out, double mean, double std, RandomEngine& engine) {
  dispatch_floating(out.dtype(), "normal_", [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(out.data_ptr());
    const int64_t n = out.numel();
    for (int64_t i = 0; i < n; i += 2) {
      const auto [z0, z1] = standard_normal_pair(engine);
      p[i] = static_cast<T>(mean + std * z0);
      if (i + 1 < n) p[i + 1] = static_cast<T>(mean + std * z1);
    }
  });
}

void randint_fill(const Tensor& out, int64_t low, int64_t high, RandomEngine& engine) {
  std::uniform_int_distribution<int64_t> dist(low, high - 1);
  dispatch_all(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(out.data_ptr());
    for (int64_t i = 0; i < out.numel(); ++i) p[i] = static_cast<T>(dist(engine));
  });
}

std::optional<double> find_invalid_probability(const std::vector<double>& probs) {
  for (double prob : probs) {
    if (!(prob >= 0 && prob <= 1)) return prob;
  }
  return std::nullopt;
}

void bernoulli_fill(const Tensor& out, const std::vector<double>& probs, RandomEngine& engine) {
  dispatch_floating(out.dtype(), "bernoulli", [&](auto tag) {
    using T = decltype(tag);
    T* q = static_cast<T*>(out.data_ptr());
    for (size_t i = 0; i < probs.size(); ++i) {
      q[i] = static_cast<T>(unit_uniform<double>(engine) < probs[i]);
    }
  });
}

void randperm_fill(const Tensor& out, RandomEngine& engine) {
  std::vector<int64_t> perm(out.numel());
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), engine);
  dispatch_all(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::transform(perm.begin(), perm.end(), static_cast<T*>(out.data_ptr()),
                   [](int64_t v) { return static_cast<T>(v); });
  });
}

}  // namespace torchlet::cpu
