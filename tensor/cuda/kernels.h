#pragma once

// CUDA kernels behind the ops, the counterparts of tensor/cpu/kernels.h
// with the same contracts: the op layer validates, promotes and allocates,
// then calls cpu::X or cuda::X by the output's device. Every tensor is on
// one GPU except operands that are wrapped numbers (`t + 1.5`), which stay
// on the host and reach the kernel as arguments, never copied per op.
//
// Under --config=cuda these are tensor/cuda/kernels.cc over the .cu
// launchers; otherwise (no_cuda_kernels.cc) they throw, though no CUDA
// tensor can exist there. float16 and bfloat16 compute in float32 where
// the CPU kernels do (elementwise ops, reductions, softmax, products) and
// are refused, with the CPU's message, where the CPU refuses them.

#include <cstdint>

#include "tensor/cpu/conv_kernels.h"
#include "tensor/cpu/kernels.h"
#include "tensor/cpu/pool_kernels.h"
#include "tensor/kernel_ops.h"
#include "tensor/optim_kernels.h"
#include "tensor/scalar.h"
#include "tensor/tensor_body.h"

namespace torchlet::cuda {

/// dst = cast(src), src broadcast to dst's shape; both on one GPU.
void copy(const Tensor& dst, const Tensor& src);
/// dst[i] = value, any strides.
void fill(const Tensor& dst, Scalar value);
void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha);
void unary(UnaryOp op, const Tensor& out, const Tensor& in);
void clamp(const Tensor& out, const Tensor& in, const Scalar* lo, const Scalar* hi);
void round_decimals(const Tensor& out, const Tensor& in, int64_t decimals);
void nan_to_num(const Tensor& out, const Tensor& in, double nan, const double* posinf,
                const double* neginf);
/// Sorts each row of contiguous 2-D `keys` (float32, float64, int64, int32,
/// uint8 or bool) stably, NaN largest and -0.0 equal to +0.0 (the CPU's
/// order), and writes to int64 `order` (same shape, contiguous) each
/// sorted key's position in its row.
void sort_rows(const Tensor& order, const Tensor& keys, bool descending);
/// Factories with cpu::arange's and cpu::linspace's contracts.
void arange(const Tensor& out, Scalar start, Scalar step, bool integral);
void linspace(const Tensor& out, double start, double end);
void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);

// Index ops with cpu::index_select's, gather's and scatter's contracts
// (tensor/cpu/kernels.h); indices are on the GPU and already checked.
void index_select(const Tensor& out, const Tensor& src, int64_t dim, const Tensor& index);
void gather(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index);
void scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, bool add);

/// cpu::offset_gather and offset_scatter's contracts: the offsets are
/// copied to the GPU; a repeated offset without accumulate receives one of
/// its values, in no set order (as on PyTorch's GPUs).
void offset_gather(const Tensor& out, const Tensor& src, const cpu::OffsetIndex& ix);
void offset_scatter(const Tensor& dst, const Tensor& src, const cpu::OffsetIndex& ix,
                    bool accumulate);

/// Random fills of a contiguous CUDA tensor from Philox blocks `offset`,
/// `offset + 1`, ... of `seed` (tensor/cuda/philox.h): kUniform a + (b - a)
/// * u, kNormal a + b * z (Box-Muller), kInteger [low, low + range).
/// random_blocks says how many blocks a fill of `out` uses, by which the
/// device generator's offset advances.
enum class RandomFill { kUniform, kNormal, kInteger };
uint64_t random_blocks(const Tensor& out, RandomFill kind);
void random_fill(const Tensor& out, RandomFill kind, double a, double b, int64_t low,
                 uint64_t range, uint64_t seed, uint64_t offset);

/// out (row-major rows) = alpha * a @ b + beta * out through cuBLAS, for
/// float32 (TF32 only when cuda::set_matmul_allow_tf32), float64, and
/// float16 and bfloat16 with float32 sums rounded once; a and b are [m, k]
/// and [k, n] matrices (a layout cuBLAS cannot read is made dense).
void gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta);

// Reductions: `in`'s last `reduced` dims are reduced into the contiguous
// `out` (cpu::reduce_sum's contract).
void reduce_sum(const Tensor& out, const Tensor& in, int64_t reduced);
void reduce_prod(const Tensor& out, const Tensor& in, int64_t reduced);
void reduce_extreme(const Tensor& out, const Tensor& in, int64_t reduced, bool largest);
void reduce_arg(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t reduced,
                bool largest);
void reduce_var(const Tensor& out, const Tensor& in, int64_t reduced, int64_t correction,
                bool take_sqrt);
void reduce_norm(const Tensor& out, const Tensor& in, int64_t reduced, double p);
void reduce_logsumexp(const Tensor& out, const Tensor& in, int64_t reduced);
void cumulative_lastdim(const Tensor& out, const Tensor& in, bool prod);
void softmax_lastdim(const Tensor& out, const Tensor& in, bool log);
void softmax_backward_lastdim(const Tensor& out, const Tensor& grad, const Tensor& output,
                              bool log);

/// cpu::cross_entropy_rows and cross_entropy_backward_rows (tensor/cpu/
/// nn_kernels.h): rows [R, C], targets [R] int64 (on the GPU), weight [C]
/// or undefined.
void cross_entropy_rows(const Tensor& loss, const Tensor& probs, const Tensor& input,
                        const Tensor& target, const Tensor& weight, int64_t ignore_index,
                        double label_smoothing);
void cross_entropy_backward_rows(const Tensor& grad_input, const Tensor& grad_loss, double scale,
                                 const Tensor& probs, const Tensor& target, const Tensor& weight,
                                 int64_t ignore_index, double label_smoothing);

/// The fused optimizer updates over contiguous tensors of one float dtype
/// (tensor/optim_kernels.h validates and makes them so).
void sgd_update(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                const SgdUpdate& options);
void adam_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                 const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq,
                 const AdamUpdate& options);
void rmsprop_update(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                    const Tensor& grad_avg, const Tensor& momentum_buffer,
                    const RmspropUpdate& options);
void adagrad_update(const Tensor& param, const Tensor& grad, const Tensor& sum,
                    const AdagradUpdate& options);

// Convolution as im2col and cuBLAS products, and pooling, with the CPU
// kernels' contracts (tensor/cpu/conv_kernels.h, pool_kernels.h): every
// tensor contiguous, float32 or float64.
void conv_forward(const Tensor& out, const Tensor& input, const Tensor& weight,
                  const Tensor& bias, const cpu::ConvGeometry& g);
void conv_backward_input(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                         const cpu::ConvGeometry& g);
void conv_backward_weight(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                          const cpu::ConvGeometry& g);
void im2col(const Tensor& columns, const Tensor& input, const cpu::ConvGeometry& g);
void col2im(const Tensor& input, const Tensor& columns, const cpu::ConvGeometry& g);
void max_pool(const Tensor& out, const Tensor& indices, const Tensor& input,
              const cpu::PoolWindow& window);
void max_pool_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices,
                       const cpu::PoolWindow& window);
void avg_pool(const Tensor& out, const Tensor& input, const cpu::PoolWindow& window,
              cpu::AvgDivisor divisor);
void adaptive_avg_pool(const Tensor& out, const Tensor& input, const cpu::PoolWindow& window);
void adaptive_avg_pool_backward(const Tensor& grad_input, const Tensor& grad_out,
                                const cpu::PoolWindow& window);
void adaptive_max_pool(const Tensor& out, const Tensor& indices, const Tensor& input,
                       const cpu::PoolWindow& window);
void avg_pool_backward(const Tensor& grad_input, const Tensor& grad_out,
                       const cpu::PoolWindow& window, cpu::AvgDivisor divisor);

}  // namespace torchlet::cuda
