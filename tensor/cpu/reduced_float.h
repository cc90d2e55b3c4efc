#pragma once

// Internal to kernels: running float32 loops on float16 and bfloat16 data.
//
// Note [Reduced floating point]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// float16 and bfloat16 tensors store two bytes an element, but no kernel
// computes in them: as PyTorch's CPU kernels do (c10::Half arithmetic and
// the opmath type), every elementwise op and reduction computes in float32
// and rounds its result to the output's dtype once per element, and
// reductions accumulate in float32. Rather than instantiate every loop for
// two more types (slower builds, and integer code paths chosen by
// std::is_floating_point), a kernel entry point given a reduced operand
// converts it to a float32 scratch tensor (exact: every half and bfloat16
// is a float), calls its own float32 loop, and rounds the float32 result
// into the output. The cost is one extra pass and a float32 copy per
// operand. Kernels that only move, convert or compare elements (copy, fill,
// where, indexing, sorting, printing) instantiate Half and BFloat16
// directly through dispatch_all_and_reduced, and stay exact.

#include <initializer_list>

#include "tensor/tensor_body.h"

namespace torchlet::cpu {

/// `t` itself, or a float32 copy of it when it is float16 or bfloat16.
Tensor float32_operand(const Tensor& t);
/// A float32 tensor shaped like `out` to compute into when `out` is float16
/// or bfloat16; otherwise `out` itself.
Tensor float32_result(const Tensor& out);
/// Rounds `result` into `out` when float32_result made a scratch tensor.
void store_result(const Tensor& out, const Tensor& result);

/// True when any of `tensors` (undefined ones ignored) is float16 or bfloat16.
bool any_reduced(std::initializer_list<const Tensor*> tensors);

/// Runs `kernel(result, operands...)` in float32 (Note [Reduced floating
/// point]) and returns true when `out` or an operand is float16 or
/// bfloat16; otherwise runs nothing and returns false, and the caller runs
/// its own loop.
template <typename Kernel, typename... Operands>
bool run_in_float32(const Tensor& out, Kernel&& kernel, const Operands&... operands) {
  if (!any_reduced({&out, &operands...})) return false;
  const Tensor result = float32_result(out);
  kernel(result, float32_operand(operands)...);
  store_result(out, result);
  return true;
}

}  // namespace torchlet::cpu
