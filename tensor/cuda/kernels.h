#pragma once

// CUDA kernels behind the ops, the counterparts of tensor/cpu/kernels.h
// with the same contracts: the op layer validates, promotes and allocates,
// then calls cpu::X or cuda::X by the output's device. Every tensor is on
// one GPU except operands that are wrapped numbers (`t + 1.5`), which stay
// on the host and reach the kernel as arguments, never copied per op.
//
// Under --config=cuda these are tensor/cuda/kernels.cc over the .cu
// launchers; otherwise (no_cuda_kernels.cc) they throw, though no CUDA
// tensor can exist there. float16 and bfloat16 are refused for now with an
// error naming the op.

#include <cstdint>

#include "tensor/kernel_ops.h"
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
void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);

/// out (row-major rows) = alpha * a @ b + beta * out through cuBLAS, for
/// float32 (TF32 off, as PyTorch 1.13's default) and float64; a and b are
/// [m, k] and [k, n] matrices with one unit stride each.
void gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta);

// Reductions: `in`'s last `reduced` dims are reduced into the contiguous
// `out` (cpu::reduce_sum's contract).
void reduce_sum(const Tensor& out, const Tensor& in, int64_t reduced);
void reduce_prod(const Tensor& out, const Tensor& in, int64_t reduced);
void reduce_extreme(const Tensor& out, const Tensor& in, int64_t reduced, bool largest);
void reduce_arg(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t reduced,
                bool largest);
void softmax_lastdim(const Tensor& out, const Tensor& in, bool log);
void softmax_backward_lastdim(const Tensor& out, const Tensor& grad, const Tensor& output,
                              bool log);

}  // namespace torchlet::cuda
