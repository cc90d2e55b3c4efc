// tensor/cuda/kernels.h in a build without --config=cuda. No CUDA tensor can
// exist there (no device cuda:N does), so these are never reached; they
// throw rather than guess.
#include "tensor/cuda/kernels.h"
#include "tensor/error.h"

namespace torchlet::cuda {
namespace {

[[noreturn]] void not_built(const char* op) {
  detail::throw_error(detail::str_cat(
      op, ": torchlet was built without CUDA support; rebuild with --config=cuda"));
}

}  // namespace

void copy(const Tensor&, const Tensor&) { not_built("copy_"); }
void fill(const Tensor&, Scalar) { not_built("fill_"); }
void binary(BinaryOp, const Tensor&, const Tensor&, const Tensor&, Scalar) {
  not_built("binary op");
}
void unary(UnaryOp, const Tensor&, const Tensor&) { not_built("unary op"); }
void clamp(const Tensor&, const Tensor&, const Scalar*, const Scalar*) { not_built("clamp"); }
void where(const Tensor&, const Tensor&, const Tensor&, const Tensor&) { not_built("where"); }
void gemm(const Tensor&, const Tensor&, const Tensor&, double, double) { not_built("mm"); }
void reduce_sum(const Tensor&, const Tensor&, int64_t) { not_built("sum"); }
void reduce_prod(const Tensor&, const Tensor&, int64_t) { not_built("prod"); }
void reduce_extreme(const Tensor&, const Tensor&, int64_t, bool) { not_built("amax"); }
void reduce_arg(const Tensor&, const Tensor&, const Tensor&, int64_t, bool) {
  not_built("argmax");
}
void softmax_lastdim(const Tensor&, const Tensor&, bool) { not_built("softmax"); }
void softmax_backward_lastdim(const Tensor&, const Tensor&, const Tensor&, bool) {
  not_built("softmax_backward");
}

}  // namespace torchlet::cuda
