#pragma once

// CPU kernels behind the ops: validated arguments in, results out. Only the
// op layer (tensor/*.cc) calls these.

#include "tensor/scalar.h"
#include "tensor/tensor_body.h"

namespace torchlet::cpu {

/// dst[i] = cast(src[i]); src broadcasts to dst's shape.
void copy(const Tensor& dst, const Tensor& src);
/// dst[i] = value (converted to dst's dtype).
void fill(const Tensor& dst, Scalar value);

enum class BinaryOp {
  kAdd, kSub, kMul, kDiv, kPow, kMaximum, kMinimum,
  kFloorDivide, kRemainder, kFmod, kAtan2,
  kThresholdBackward,  // a where b > alpha, else 0
  kEq, kNe, kLt, kLe, kGt, kGe, kLogicalAnd, kLogicalOr,
};
/// out = a op b, with a, b of the compute dtype (equal to out's, except for
/// comparisons and logical ops, whose out is bool). `alpha` scales b for
/// add and sub.
void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha);

enum class UnaryOp {
  kNeg, kAbs, kSign, kExp, kLog, kLog1p, kSqrt, kRsqrt, kSin, kCos,
  kRelu, kSigmoid, kTanh, kGelu, kGeluTanh, kErf, kLogicalNot,
  kFloor, kCeil, kRound, kTrunc, kFrac,  // floating only
  kIsNan, kIsInf, kIsFinite,             // bool out, any dtype in
};
/// out = op(in); in has out's dtype (kLogicalNot and the kIs* tests write
/// bool from any dtype).
void unary(UnaryOp op, const Tensor& out, const Tensor& in);

/// out = round(in * 10^decimals) / 10^decimals, half to even (PyTorch's
/// formula, dividing first for negative `decimals`); floating dtypes.
void round_decimals(const Tensor& out, const Tensor& in, int64_t decimals);
/// out = in with NaN, +inf and -inf replaced; a null bound means the dtype's
/// largest (or lowest) finite value. Floating dtypes.
void nan_to_num(const Tensor& out, const Tensor& in, double nan, const double* posinf,
                const double* neginf);

/// out = clamp(in, lo, hi) where the bounds are given.
void clamp(const Tensor& out, const Tensor& in, const Scalar* lo, const Scalar* hi);

/// out = cond ? a : b, with a and b of out's dtype and cond bool.
void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);

// ---- Reductions (cpu/reduction_kernels.cc) ----------------------------------
// `in`'s last `reduced` dims are reduced; `out` is contiguous with `in`'s
// other dims as its shape.

/// Sum; out is in's dtype for floats, int64 otherwise.
void reduce_sum(const Tensor& out, const Tensor& in, int64_t reduced);
/// Product; dtypes as reduce_sum.
void reduce_prod(const Tensor& out, const Tensor& in, int64_t reduced);
/// amax (largest) or amin; NaN propagates.
void reduce_extreme(const Tensor& out, const Tensor& in, int64_t reduced, bool largest);
/// all or any: bool out (uint8 for uint8 in).
void reduce_logical(const Tensor& out, const Tensor& in, int64_t reduced, bool all);
/// Value (when `values` is defined) and int64 index of the first max or min.
void reduce_arg(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t reduced,
                bool largest);
/// Variance (or its square root) with `correction` subtracted from the count.
void reduce_var(const Tensor& out, const Tensor& in, int64_t reduced, int64_t correction,
                bool take_sqrt);
/// The p-norm (p may be 0 or +-inf).
void reduce_norm(const Tensor& out, const Tensor& in, int64_t reduced, double p);
/// log(sum(exp(x))), stabilized by the max.
void reduce_logsumexp(const Tensor& out, const Tensor& in, int64_t reduced);
/// Softmax (or log-softmax) along the last dim; out has in's shape.
void softmax_lastdim(const Tensor& out, const Tensor& in, bool log);
/// Their gradient along the last dim from `grad` and the op's `output`
/// (all three of one shape and dtype).
void softmax_backward_lastdim(const Tensor& out, const Tensor& grad, const Tensor& output,
                              bool log);
/// Running sum (or product) along the last dim; out has in's shape and
/// reduce_sum's dtype.
void cumulative_lastdim(const Tensor& out, const Tensor& in, bool prod);

}  // namespace torchlet::cpu
