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
/// operands (out, in), floating dtypes: NaN to `nan`, +-inf to the bounds
/// (null: the dtype's finite extremes).
cudaError_t launch_nan_to_num(DType dtype, const LoopArgs& loop, double nan, const double* posinf,
                              const double* neginf);
/// operands (out, in), floating dtypes: in rounded to `decimals` places.
cudaError_t launch_round_decimals(DType dtype, const LoopArgs& loop, int64_t decimals);
/// out[i] = start + i * step for i < n (in int64 when `integral`, else in
/// double), converted to dtype; out is dense.
cudaError_t launch_arange(DType dtype, void* out, int64_t n, ScalarArg start, ScalarArg step,
                          bool integral);
/// `steps` evenly spaced values from start to end, exact at both ends.
cudaError_t launch_linspace(DType dtype, void* out, int64_t steps, double start, double end);
/// Sorting `rows` lanes of `n` keys each, contiguous (tensor/cuda/
/// sort_kernels.cu): keys are float32, float64, int64, int32 or uint8, the
/// floating ones canonical (launch_canonical_keys); positions_in holds each
/// key's position in its lane (launch_lane_positions), offsets[r] = r * n.
/// The sort is stable; rows * n < 2^31.
struct SortArgs {
  const void* keys_in = nullptr;
  void* keys_out = nullptr;
  const int64_t* positions_in = nullptr;
  int64_t* positions_out = nullptr;
  const int* offsets = nullptr;
  int64_t rows = 0;
  int64_t n = 0;
  bool descending = false;
  void* temp = nullptr;
  size_t temp_bytes = 0;
};
/// out = in with every NaN the positive quiet NaN and -0.0 as +0.0.
cudaError_t launch_canonical_keys(DType dtype, void* out, const void* in, int64_t n);
/// positions[r * n + j] = j; offsets[r] = r * n for r <= rows.
cudaError_t launch_lane_positions(int64_t* positions, int* offsets, int64_t rows, int64_t n);
/// The scratch bytes launch_sort_pairs needs for `args` (temp ignored).
cudaError_t sort_temp_bytes(DType dtype, SortArgs args, size_t* bytes);
cudaError_t launch_sort_pairs(DType dtype, const SortArgs& args);

/// operands (out, in): out = clamp(in, lo, hi) for the bounds given.
cudaError_t launch_clamp(DType dtype, const LoopArgs& loop, const ScalarArg* lo,
                         const ScalarArg* hi);

}  // namespace torchlet::cuda

namespace torchlet::cuda {

enum class ReduceKind { kSum, kProd, kMax, kMin, kArgMax, kArgMin, kVar, kNorm };

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
  int64_t correction = 1;   // kVar: subtracted from the count
  bool take_sqrt = false;   // kVar: the standard deviation
  double p = 2;             // kNorm: the order (0 and +-inf included)
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
  return splits > 1 ? static_cast<size_t>(outputs) * splits * 32 : 0;
}

/// `dtype` is the input's; sums and products of integers write int64.
cudaError_t launch_reduce(ReduceKind kind, DType dtype, const ReduceArgs& args, int splits,
                          void* workspace);

/// Running sums (or products) of each contiguous row of `n` elements, a
/// thread per row, accumulated as the CPU's (double or int64); `out` is the
/// input's dtype for floats, int64 otherwise.
cudaError_t launch_cumulative(DType dtype, void* out, const void* in, int64_t rows, int64_t n,
                              bool prod);

/// Softmax (or log-softmax) of each contiguous row of `n` elements.
cudaError_t launch_softmax(DType dtype, void* out, const void* in, int64_t rows, int64_t n,
                           bool log);
/// Their gradient, rows contiguous: out = y * (g - sum(g * y)) or, for
/// log-softmax, g - exp(y) * sum(g).
cudaError_t launch_softmax_backward(DType dtype, void* out, const void* grad,
                                    const void* output, int64_t rows, int64_t n, bool log);

}  // namespace torchlet::cuda

namespace torchlet::cuda {

/// Cross-entropy over rows [rows, classes] (tensor/cpu/nn_kernels.h's
/// cross_entropy_rows): probs = softmax of each row, loss = its loss for
/// target[r] (0 where ignored). `weight` is [classes] or null.
cudaError_t launch_cross_entropy(DType dtype, void* loss, void* probs, const void* input,
                                 const int64_t* target, const void* weight, int64_t rows,
                                 int64_t classes, int64_t ignore_index, double smoothing);
/// Its gradient (cross_entropy_backward_rows); grad_loss has `rows` entries
/// or one (broadcast); `weight_sum` is the weights' sum (classes without).
cudaError_t launch_cross_entropy_backward(DType dtype, void* grad_input, const void* grad_loss,
                                          bool broadcast, double scale, const void* probs,
                                          const int64_t* target, const void* weight,
                                          double weight_sum, int64_t rows, int64_t classes,
                                          int64_t ignore_index, double smoothing);

enum class OptimizerKind { kSgd, kAdam, kRmsprop, kAdagrad };

/// One fused update of `n` contiguous elements: `state` are the
/// optimizer's buffers in its element function's order (tensor/cuda/
/// optim_ops.h; null where unused), `step` its ops::*Step<T> for the
/// parameter's dtype.
cudaError_t launch_optimizer(OptimizerKind kind, DType dtype, int64_t n, void* param,
                             const void* grad, void* state0, void* state1, void* state2,
                             const void* step);

}  // namespace torchlet::cuda

namespace torchlet::cuda {

/// A convolution's shapes (cpu::ConvGeometry's fields): 3 spatial dims,
/// leading ones of size 1 for 1-d and 2-d convolutions.
struct ConvShape {
  int64_t batch = 0, in_channels = 0, out_channels = 0, groups = 1;
  int64_t input[3] = {1, 1, 1}, output[3] = {1, 1, 1}, kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, padding[3] = {0, 0, 0}, dilation[3] = {1, 1, 1};
};

/// columns [batch, in_channels * prod(kernel), prod(output)] = input's
/// patches (zeros in the padding); input contiguous.
cudaError_t launch_im2col(DType dtype, void* columns, const void* input, const ConvShape& g);
/// input [batch, in_channels, *input] = the sum of columns' patches at their
/// places (the adjoint of im2col); overwrites input.
cudaError_t launch_col2im(DType dtype, void* input, const void* columns, const ConvShape& g);

/// A pooling's geometry (cpu::PoolWindow and cpu::AvgDivisor's fields).
struct PoolShape {
  int64_t planes = 0;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dilation[3] = {1, 1, 1};
  bool count_include_pad = true;
  int64_t divisor_override = 0;
};

/// out = each window's maximum (NaN wins, ties keep the first); indices
/// (may be null) its flat position in the input plane.
cudaError_t launch_max_pool(DType dtype, void* out, int64_t* indices, const void* input,
                            const PoolShape& w);
/// grad_input (zeroed by the caller) += grad_out at indices.
cudaError_t launch_max_pool_backward(DType dtype, void* grad_input, const void* grad_out,
                                     const int64_t* indices, const PoolShape& w);
/// Adaptive pooling (the window of output i along a dim spans
/// [floor(i * in / out), ceil((i + 1) * in / out))): out = each window's
/// mean, or its maximum with indices (may be null) as launch_max_pool's.
cudaError_t launch_adaptive_avg_pool(DType dtype, void* out, const void* input,
                                     const PoolShape& w);
cudaError_t launch_adaptive_max_pool(DType dtype, void* out, int64_t* indices, const void* input,
                                     const PoolShape& w);
/// grad_input (zeroed by the caller) += the transpose of adaptive average
/// pooling on grad_out.
cudaError_t launch_adaptive_avg_pool_backward(DType dtype, void* grad_input, const void* grad_out,
                                              const PoolShape& w);
/// out = each window's average (no dilation).
cudaError_t launch_avg_pool(DType dtype, void* out, const void* input, const PoolShape& w);
/// grad_input (zeroed by the caller) += the transpose of avg_pool on grad_out.
cudaError_t launch_avg_pool_backward(DType dtype, void* grad_input, const void* grad_out,
                                     const PoolShape& w);

}  // namespace torchlet::cuda

namespace torchlet::cuda {

/// out [outer, n_index, inner] = src [outer, src_size, inner] at index[j]
/// (int64, in range) along the middle dim; elements of `element_size` bytes
/// (1, 2, 4 or 8), all contiguous.
cudaError_t launch_index_select(size_t element_size, void* out, const void* src,
                                const int64_t* index, int64_t outer, int64_t src_size,
                                int64_t n_index, int64_t inner);
/// Advanced indexing by element offsets (cpu::OffsetIndex): element i of
/// the contiguous `values`, in row-major order over (outer, positions,
/// inner), is the view's element at outer[o] + positions[p] + inner[k]
/// (offsets in elements from `view`). gather reads the view into values;
/// scatter writes values into it, or adds them (atomically; float32,
/// float64, int32, int64, and bool as "or") when accumulating.
struct OffsetArgs {
  const int64_t* outer = nullptr;
  const int64_t* positions = nullptr;
  const int64_t* inner = nullptr;
  int64_t n_outer = 0, n_positions = 0, n_inner = 0;
};
cudaError_t launch_offset_gather(size_t element_size, void* values, const void* view,
                                 const OffsetArgs& ix);
cudaError_t launch_offset_scatter(DType dtype, bool accumulate, void* view, const void* values,
                                  const OffsetArgs& ix);

/// operands (out, index, self with its stride along dim set to 0) over
/// index's shape: out = self's element at index along dim, which is
/// `dim_stride` bytes per step.
cudaError_t launch_gather(size_t element_size, const LoopArgs& loop, int64_t dim_stride);
/// operands (self with its stride along dim set to 0, index, src) over
/// index's shape: self's element at index along dim = src (or += src, with
/// atomics, for float32, float64, int32 and int64). Repeated indices copy
/// in no set order, as on PyTorch's GPUs.
cudaError_t launch_scatter(DType dtype, bool add, const LoopArgs& loop, int64_t dim_stride);

}  // namespace torchlet::cuda

namespace torchlet::cuda {

/// How many Philox blocks a random fill of `n` elements of `dtype` uses
/// (the generator's offset advances by as many).
inline uint64_t philox_blocks(int64_t n, DType dtype, bool integral) {
  const int64_t per_block = integral || dtype == DType::kFloat64 ? 2 : 4;
  return static_cast<uint64_t>((n + per_block - 1) / per_block);
}

enum class RandomKind { kUniform, kNormal, kInteger };

/// Fills `n` contiguous elements of `dtype` from Philox blocks `offset`,
/// `offset + 1`, ... of `seed`: kUniform a + (b - a) * u (u on [0, 1) at
/// the dtype's precision, float32 for float16 and bfloat16); kNormal a + b *
/// z with z standard normal by Box-Muller; kInteger the integers
/// [low, low + range) (a 64-bit draw modulo range).
struct RandomArgs {
  RandomKind kind = RandomKind::kUniform;
  double a = 0, b = 1;
  int64_t low = 0;
  uint64_t range = 1;
};
cudaError_t launch_random(DType dtype, void* out, int64_t n, uint64_t seed, uint64_t offset,
                          const RandomArgs& args);

/// A kernel that spins for about `cycles` clock cycles (cuda::sleep_cycles).
cudaError_t launch_sleep(int64_t cycles);

}  // namespace torchlet::cuda
