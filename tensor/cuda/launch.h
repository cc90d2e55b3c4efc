#pragma once

// The CUDA kernels' launchers (tensor/cuda/*.cu), called by the Tensor-level
// kernels in tensor/cuda/kernels.cc with the GPU already current. Each
// queues its kernel on the current GPU's stream and returns the launch's
// status; none synchronizes. Plain C++ types only, so nvcc compiles this.

#include <cstdint>

#include <cuda_runtime_api.h>

#include "tensor/cuda/loop_args.h"
#include "tensor/dtype.h"
#include "tensor/kernel_ops.h"

namespace torchlet::cuda {

/// A number beside the tensors (alpha, clamp's bounds), converted to the
/// kernel's type as Scalar::to<T> does.
struct ScalarArg {
  bool is_floating = false;
  double d = 0;
  int64_t i = 0;
};

/// operands (out, a, b): out = a op b in `dtype` (out is bool for the
/// comparisons and logical ops).
cudaError_t launch_binary(BinaryOp op, DType dtype, const LoopArgs& loop, ScalarArg alpha);
/// operands (out, in): out = op(in); `dtype` is in's.
cudaError_t launch_unary(UnaryOp op, DType dtype, const LoopArgs& loop);
/// operands (dst, src): dst = cast(src).
cudaError_t launch_copy(DType dst, DType src, const LoopArgs& loop);
/// operands (dst): dst = value.
cudaError_t launch_fill_loop(DType dtype, const LoopArgs& loop, ScalarArg value);
/// operands (out, cond, a, b): out = cond ? a : b; cond is bool.
cudaError_t launch_where(DType dtype, const LoopArgs& loop);
/// operands (out, in): out = clamp(in, lo, hi) for the bounds given.
cudaError_t launch_clamp(DType dtype, const LoopArgs& loop, const ScalarArg* lo,
                         const ScalarArg* hi);

}  // namespace torchlet::cuda

namespace torchlet::cuda {

enum class ReduceKind { kSum, kProd, kMax, kMin, kArgMax, kArgMin };

/// A reduction's geometry: output o (row-major over `kept`, written
/// contiguously) reduces the elements at kept offset(o) + reduced offset(r)
/// for every r < reduced.numel; both LoopArgs have one operand, the input,
/// with byte strides (reduced.data[0] unused).
struct ReduceArgs {
  LoopArgs kept;
  LoopArgs reduced;
  char* in = nullptr;
  char* out = nullptr;      // the result (values for kArgMax and kArgMin; may be null)
  int64_t* index = nullptr; // positions, for kArgMax and kArgMin
};

/// How many blocks share each output: more than one when there are too few
/// outputs to fill the GPU and each has many elements.
inline int reduce_splits(int64_t outputs, int64_t elements) {
  if (outputs >= 256 || elements < 8192) return 1;
  int64_t splits = elements / 4096;
  const int64_t cap = 512 / (outputs > 0 ? outputs : 1);
  if (splits > cap) splits = cap;
  return splits < 1 ? 1 : static_cast<int>(splits);
}
/// Bytes of scratch a reduction with `splits` > 1 needs.
inline size_t reduce_workspace_bytes(int64_t outputs, int splits) {
  return splits > 1 ? static_cast<size_t>(outputs) * splits * 16 : 0;
}

/// `dtype` is the input's; sums and products of integers write int64.
cudaError_t launch_reduce(ReduceKind kind, DType dtype, const ReduceArgs& args, int splits,
                          void* workspace);

/// Softmax (or log-softmax) of each contiguous row of `n` elements.
cudaError_t launch_softmax(DType dtype, void* out, const void* in, int64_t rows, int64_t n,
                           bool log);
/// Their gradient, rows contiguous: out = y * (g - sum(g * y)) or, for
/// log-softmax, g - exp(y) * sum(g).
cudaError_t launch_softmax_backward(DType dtype, void* out, const void* grad,
                                    const void* output, int64_t rows, int64_t n, bool log);

}  // namespace torchlet::cuda
