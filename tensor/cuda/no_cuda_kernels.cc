// tensor/cuda/kernels.h in a build without --config=cuda. No CUDA tensor can
// exist there (no device cuda:N does), so these are never reached; they
// throw rather than guess.
#include "tensor/cuda/cuda_runtime.h"
#include "tensor/cuda/cudnn_conv.h"
#include "tensor/cuda/kernels.h"
#include "tensor/error.h"

namespace torchlet::cuda {
namespace {

[[noreturn]] void not_built(const char* op) {
  detail::throw_error(detail::str_cat(
      op, ": torchlet was built without CUDA support; rebuild with --config=cuda"));
}

}  // namespace

bool cudnn_is_available() { return false; }
int64_t cudnn_passes_run() { return 0; }
int cudnn_version() { return 0; }
bool cudnn_conv_forward(const Tensor&, const Tensor&, const Tensor&, const cpu::ConvGeometry&) {
  return false;
}
bool cudnn_conv_backward_input(const Tensor&, const Tensor&, const Tensor&,
                               const cpu::ConvGeometry&) {
  return false;
}
bool cudnn_conv_backward_weight(const Tensor&, const Tensor&, const Tensor&,
                                const cpu::ConvGeometry&) {
  return false;
}
std::vector<int64_t> cudnn_output_shape(const cpu::ConvGeometry&, DType) { return {}; }

void copy(const Tensor&, const Tensor&) { not_built("copy_"); }
void fill(const Tensor&, Scalar) { not_built("fill_"); }
void binary(BinaryOp, const Tensor&, const Tensor&, const Tensor&, Scalar) {
  not_built("binary op");
}
void unary(UnaryOp, const Tensor&, const Tensor&) { not_built("unary op"); }
void clamp(const Tensor&, const Tensor&, const Scalar*, const Scalar*) { not_built("clamp"); }
void round_decimals(const Tensor&, const Tensor&, int64_t) { not_built("round"); }
void nan_to_num(const Tensor&, const Tensor&, double, const double*, const double*) {
  not_built("nan_to_num");
}
void sort_rows(const Tensor&, const Tensor&, bool) { not_built("sort"); }
void arange(const Tensor&, Scalar, Scalar, bool) { not_built("arange"); }
void linspace(const Tensor&, double, double) { not_built("linspace"); }
void where(const Tensor&, const Tensor&, const Tensor&, const Tensor&) { not_built("where"); }
void gemm(const Tensor&, const Tensor&, const Tensor&, double, double) { not_built("mm"); }
uint64_t random_blocks(const Tensor&, RandomFill) { not_built("random"); }
void offset_gather(const Tensor&, const Tensor&, const cpu::OffsetIndex&) { not_built("index"); }
void offset_scatter(const Tensor&, const Tensor&, const cpu::OffsetIndex&, bool) {
  not_built("index_put_");
}
void random_fill(const Tensor&, RandomFill, double, double, int64_t, uint64_t, uint64_t, uint64_t) {
  not_built("random");
}
void index_select(const Tensor&, const Tensor&, int64_t, const Tensor&) {
  not_built("index_select");
}
void gather(const Tensor&, const Tensor&, int64_t, const Tensor&) { not_built("gather"); }
void scatter(const Tensor&, int64_t, const Tensor&, const Tensor&, bool) { not_built("scatter"); }
void reduce_sum(const Tensor&, const Tensor&, int64_t) { not_built("sum"); }
void reduce_prod(const Tensor&, const Tensor&, int64_t) { not_built("prod"); }
void reduce_extreme(const Tensor&, const Tensor&, int64_t, bool) { not_built("amax"); }
void reduce_arg(const Tensor&, const Tensor&, const Tensor&, int64_t, bool) {
  not_built("argmax");
}
void reduce_var(const Tensor&, const Tensor&, int64_t, int64_t, bool) { not_built("var"); }
void reduce_norm(const Tensor&, const Tensor&, int64_t, double) { not_built("norm"); }
void reduce_logsumexp(const Tensor&, const Tensor&, int64_t) { not_built("logsumexp"); }
void cumulative_lastdim(const Tensor&, const Tensor&, bool) { not_built("cumsum"); }
void softmax_lastdim(const Tensor&, const Tensor&, bool) { not_built("softmax"); }
void softmax_backward_lastdim(const Tensor&, const Tensor&, const Tensor&, bool) {
  not_built("softmax_backward");
}

void cross_entropy_rows(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                        int64_t, double) {
  not_built("cross_entropy");
}
void cross_entropy_backward_rows(const Tensor&, const Tensor&, double, const Tensor&,
                                 const Tensor&, const Tensor&, int64_t, double) {
  not_built("cross_entropy_backward");
}
void sgd_update(const Tensor&, const Tensor&, const Tensor&, const SgdUpdate&) {
  not_built("sgd_update_");
}
void adam_update(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                 const AdamUpdate&) {
  not_built("adam_update_");
}
void rmsprop_update(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                    const RmspropUpdate&) {
  not_built("rmsprop_update_");
}
void adagrad_update(const Tensor&, const Tensor&, const Tensor&, const AdagradUpdate&) {
  not_built("adagrad_update_");
}

void conv_forward(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                  const cpu::ConvGeometry&) {
  not_built("convolution");
}
void conv_backward_input(const Tensor&, const Tensor&, const Tensor&, const cpu::ConvGeometry&) {
  not_built("convolution_backward");
}
void conv_backward_weight(const Tensor&, const Tensor&, const Tensor&, const cpu::ConvGeometry&) {
  not_built("convolution_backward");
}
void im2col(const Tensor&, const Tensor&, const cpu::ConvGeometry&) { not_built("im2col"); }
void col2im(const Tensor&, const Tensor&, const cpu::ConvGeometry&) { not_built("col2im"); }
void max_pool(const Tensor&, const Tensor&, const Tensor&, const cpu::PoolWindow&) {
  not_built("max_pool");
}
void max_pool_backward(const Tensor&, const Tensor&, const Tensor&, const cpu::PoolWindow&) {
  not_built("max_pool_backward");
}
void avg_pool(const Tensor&, const Tensor&, const cpu::PoolWindow&, cpu::AvgDivisor) {
  not_built("avg_pool");
}
void adaptive_avg_pool(const Tensor&, const Tensor&, const cpu::PoolWindow&) {
  not_built("adaptive_avg_pool");
}
void adaptive_avg_pool_backward(const Tensor&, const Tensor&, const cpu::PoolWindow&) {
  not_built("adaptive_avg_pool_backward");
}
void adaptive_max_pool(const Tensor&, const Tensor&, const Tensor&, const cpu::PoolWindow&) {
  not_built("adaptive_max_pool");
}
void avg_pool_backward(const Tensor&, const Tensor&, const cpu::PoolWindow&, cpu::AvgDivisor) {
  not_built("avg_pool_backward");
}

}  // namespace torchlet::cuda
