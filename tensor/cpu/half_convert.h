#pragma once

// Internal to kernels: bulk conversion between float32 and float16 or
// bfloat16, bit-identical to Half(float) / BFloat16(float) and their
// operator float() element by element, but vectorized: F16C instructions
// where the CPU running it has them (chosen at run time, so the default
// build runs on any x86-64), and branch-free loops for bfloat16.

#include <cstdint>

#include "tensor/half.h"

namespace torchlet::cpu {

void float_to_half(const float* src, Half* dst, int64_t n);
void half_to_float(const Half* src, float* dst, int64_t n);
void float_to_bfloat16(const float* src, BFloat16* dst, int64_t n);
void bfloat16_to_float(const BFloat16* src, float* dst, int64_t n);

}  // namespace torchlet::cpu
