#pragma once

// Internal to kernels: iteration over several strided operands of one
// (broadcast) shape, TensorIterator-style. Operand 0 is the output.
// Dimensions are coalesced where every operand allows it, so contiguous
// tensors become one flat inner loop the compiler vectorizes.

#include <array>
#include <cstdint>

#include "tensor/parallel.h"
#include "tensor/tensor_body.h"

namespace torchlet::cpu {

constexpr int kMaxOperands = 4;

struct StridedLoop {
  int operands = 0;
  SizeVec shape;                                // innermost last, coalesced
  std::array<SizeVec, kMaxOperands> strides;    // bytes, per operand
  std::array<char*, kMaxOperands> data{};
  int64_t numel = 1;
};

/// Operands must broadcast to `shape` (operand 0 must have it exactly).
StridedLoop make_loop(std::initializer_list<const Tensor*> operands, IntArrayRef shape);

/// Calls `inner(char** data, const int64_t* strides, int64_t n)` over runs
/// of the innermost dimension, splitting the outer rows across the current
/// device's intra-op threads when the work is large and `parallel` allows
/// (a loop whose runs may write one location, or that throws, passes false).
template <typename Inner>
void for_each_run(const StridedLoop& loop, Inner&& inner, bool parallel = true) {
  const int k = loop.operands;
  if (loop.numel == 0) return;
  const int nd = static_cast<int>(loop.shape.size());
  if (nd == 0) {
    std::array<char*, kMaxOperands> ptrs = loop.data;
    std::array<int64_t, kMaxOperands> zero{};
    inner(ptrs.data(), zero.data(), 1);
    return;
  }
  const int64_t inner_n = loop.shape[nd - 1];
  std::array<int64_t, kMaxOperands> inner_strides{};
  for (int op = 0; op < k; ++op) inner_strides[op] = loop.strides[op][nd - 1];
  const int64_t rows = loop.numel / inner_n;
  auto run_rows = [&](int64_t begin, int64_t end) {
    // Position of row `begin` in the outer dims.
    SizeVec counter(nd - 1, 0);
    std::array<char*, kMaxOperands> ptrs = loop.data;
    int64_t r = begin;
    for (int d = nd - 2; d >= 0; --d) {
      counter[d] = r % loop.shape[d];
      r /= loop.shape[d];
      for (int op = 0; op < k; ++op) ptrs[op] += counter[d] * loop.strides[op][d];
    }
    for (int64_t row = begin; row < end; ++row) {
      inner(ptrs.data(), inner_strides.data(), inner_n);
      for (int d = nd - 2; d >= 0; --d) {
        if (++counter[d] < loop.shape[d]) {
          for (int op = 0; op < k; ++op) ptrs[op] += loop.strides[op][d];
          break;
        }
        for (int op = 0; op < k; ++op) ptrs[op] -= (loop.shape[d] - 1) * loop.strides[op][d];
        counter[d] = 0;
      }
    }
  };
  if (!parallel) {
    run_rows(0, rows);
    return;
  }
  const int64_t grain_rows = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(inner_n, 1));
  if (rows == 1 && inner_n >= 2 * kParallelGrain) {
    // One long run: split it instead of the rows.
    parallel_for(0, inner_n, kParallelGrain, [&](int64_t begin, int64_t end) {
      std::array<char*, kMaxOperands> ptrs = loop.data;
      for (int op = 0; op < k; ++op) ptrs[op] += begin * inner_strides[op];
      inner(ptrs.data(), inner_strides.data(), end - begin);
    });
    return;
  }
  parallel_for(0, rows, grain_rows, run_rows);
}

}  // namespace torchlet::cpu
