#pragma once

// The elementwise operations kernels implement, shared by the CPU kernels
// (tensor/cpu/kernels.h) and the CUDA ones (tensor/cuda/kernels.h). Plain
// C++ with no includes, so nvcc compiles it into the .cu files too.

namespace torchlet {

enum class BinaryOp {
  kAdd, kSub, kMul, kDiv, kPow, kMaximum, kMinimum,
  kFloorDivide, kRemainder, kFmod, kAtan2,
  kHypot, kLogAddExp, kLogAddExp2, kXlogy, kCopysign,  // floating only
  kLerp,  // a + alpha (b - a), floating only
  kGeluBackward, kGeluTanhBackward,  // a gelu'(b) (exact, tanh form), floating only
  kThresholdBackward,  // a where b > alpha, else 0
  kEq, kNe, kLt, kLe, kGt, kGe, kLogicalAnd, kLogicalOr,
};

enum class UnaryOp {
  kNeg, kAbs, kSign, kExp, kLog, kLog1p, kSqrt, kRsqrt, kSin, kCos,
  kRelu, kSigmoid, kTanh, kGelu, kGeluTanh, kErf, kLogicalNot,
  kSinh, kCosh, kAsin, kAcos, kAtan, kAsinh, kAcosh, kAtanh, kExpm1,
  kLog2, kLog10, kExp2, kErfc, kErfinv, kLgamma, kDigamma, kTrigamma,  // floating only
  kFloor, kCeil, kRound, kTrunc, kFrac,  // floating only
  kIsNan, kIsInf, kIsFinite,             // bool out, any dtype in
};

}  // namespace torchlet
