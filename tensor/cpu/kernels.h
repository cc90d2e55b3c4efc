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
  kEq, kNe, kLt, kLe, kGt, kGe, kLogicalAnd, kLogicalOr,
};
/// out = a op b, with a, b of the compute dtype (equal to out's, except for
/// comparisons and logical ops, whose out is bool). `alpha` scales b for
/// add and sub.
void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha);

enum class UnaryOp {
  kNeg, kAbs, kSign, kExp, kLog, kLog1p, kSqrt, kRsqrt, kSin, kCos,
  kRelu, kSigmoid, kTanh, kGelu, kGeluTanh, kLogicalNot,
};
/// out = op(in); in has out's dtype (bool out for kLogicalNot takes any).
void unary(UnaryOp op, const Tensor& out, const Tensor& in);

/// out = clamp(in, lo, hi) where the bounds are given.
void clamp(const Tensor& out, const Tensor& in, const Scalar* lo, const Scalar* hi);

/// out = cond ? a : b, with a and b of out's dtype and cond bool.
void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);

}  // namespace torchlet::cpu
