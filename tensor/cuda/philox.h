#pragma once

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11), the counter-based generator CUDA random kernels draw from:
// thread i of a launch computes block `offset + i` of the stream keyed by
// the seed, so a seed gives the same numbers whatever the launch geometry,
// and the generator's whole state is (seed, offset). Host tests check it
// against the published known-answer vectors.
//
// Plain C++17, so nvcc compiles it too.

#include <cstdint>

#include "tensor/cuda/host_device.h"

namespace torchlet::cuda::philox {

struct Block {
  uint32_t x[4];
};

TORCHLET_HOST_DEVICE void mulhilo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
  const uint64_t product = static_cast<uint64_t>(a) * b;
  hi = static_cast<uint32_t>(product >> 32);
  lo = static_cast<uint32_t>(product);
}

/// Ten rounds of Philox4x32 on `counter` under `key`.
TORCHLET_HOST_DEVICE Block philox4x32_10(Block counter, uint32_t key0, uint32_t key1) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    uint32_t hi0, lo0, hi1, lo1;
    mulhilo(kMul0, counter.x[0], hi0, lo0);
    mulhilo(kMul1, counter.x[2], hi1, lo1);
    counter = Block{{hi1 ^ counter.x[1] ^ key0, lo1, hi0 ^ counter.x[3] ^ key1, lo0}};
    key0 += kWeyl0;
    key1 += kWeyl1;
  }
  return counter;
}

/// The four 32-bit words of block `index` of the stream of `seed`.
TORCHLET_HOST_DEVICE Block draw(uint64_t seed, uint64_t index) {
  const Block counter{{static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32), 0u, 0u}};
  return philox4x32_10(counter, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

/// Uniform on [0, 1) with float's 24 bits, or double's 53 from two words.
TORCHLET_HOST_DEVICE float uniform_float(uint32_t x) {
  return static_cast<float>(x >> 8) * (1.0f / 16777216.0f);
}
TORCHLET_HOST_DEVICE double uniform_double(uint32_t hi, uint32_t lo) {
  const uint64_t bits = (static_cast<uint64_t>(hi) << 32 | lo) >> 11;
  return static_cast<double>(bits) * (1.0 / 9007199254740992.0);
}

}  // namespace torchlet::cuda::philox
