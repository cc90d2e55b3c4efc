#pragma once

// CPU loops of the random fills (tensor/random.cc validates the arguments,
// owns the per-device generators and hands each kernel a contiguous host
// buffer to fill in row-major order while it holds the generator's lock).
// Each kernel draws from the engine in a fixed order, so a seed gives the
// same values on every run.

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "tensor/tensor_body.h"

namespace torchlet::cpu {

/// The generator every device owns.
using RandomEngine = std::mt19937_64;

/// out[i] = from + (to - from) * u, u uniform on [0, 1) at out's precision;
/// one draw per element. `out` is contiguous float32 or float64.
void uniform_fill(const Tensor& out, double from, double to, RandomEngine& engine);
/// out[i] = mean + std * z, z standard normal by Box-Muller: two draws per
/// pair of elements (the second normal of an odd tail is dropped). `out`
/// is contiguous float32 or float64.
void normal_fill(const Tensor& out, double mean, double std, RandomEngine& engine);
/// out[i] uniform on the integers [low, high), low < high; any dtype but
/// float16 and bfloat16, contiguous.
void randint_fill(const Tensor& out, int64_t low, int64_t high, RandomEngine& engine);
/// The first of `probs` outside [0, 1] (NaN included), if any.
std::optional<double> find_invalid_probability(const std::vector<double>& probs);
/// out[i] = 1 with probability probs[i] (valid, one per element of out),
/// else 0; one draw per element. `out` is contiguous float32 or float64.
void bernoulli_fill(const Tensor& out, const std::vector<double>& probs, RandomEngine& engine);
/// out = a random permutation of 0 .. out.numel() - 1 (std::shuffle);
/// out is 1-D contiguous of any dtype but float16 and bfloat16.
void randperm_fill(const Tensor& out, RandomEngine& engine);

}  // namespace torchlet::cpu
