// The Tensor-level CUDA kernels (tensor/cuda/kernels.h) under --config=cuda:
// geometry from the CPU loop planner, then the .cu launchers on the
// tensors' GPU; matrix products through cuBLAS.
#include "tensor/cuda/kernels.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstring>
#include <vector>

#include "tensor/cpu/loops.h"
#include "tensor/cuda/launch.h"
#include "tensor/error.h"
#include "tensor/factories.h"

namespace torchlet::cuda {
namespace {

// Makes GPU `index` current for a scope.
class DeviceScope {
 public:
  explicit DeviceScope(int index) {
    cudaGetDevice(&previous_);
    if (previous_ != index) cudaSetDevice(index);
  }
  ~DeviceScope() {
    int now = 0;
    cudaGetDevice(&now);
    if (now != previous_) cudaSetDevice(previous_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

void check_launch(cudaError_t status, const char* op) {
  TORCHLET_CHECK(status == cudaSuccess, op, ": CUDA kernel launch failed: ",
                 cudaGetErrorString(status));
}

void check_dtype(const char* op, DType dtype) {
  TORCHLET_CHECK(dtype != kFloat16 && dtype != kBFloat16, op, ": ", dtype,
                 " tensors on CUDA devices are not supported yet");
}

bool is_host_number(const Tensor& t) { return t.device().is_cpu(); }

// The launch geometry of `operands` (operand 0 the output) over `shape`.
// An operand on the host (a wrapped number) is read here and travels in the
// kernel's arguments: its pointer is to LoopArgs' own copy.
LoopArgs loop_args(std::initializer_list<const Tensor*> operands, IntArrayRef shape,
                   const char* op) {
  for (const Tensor* t : operands) check_dtype(op, t->dtype());
  const cpu::StridedLoop loop = cpu::make_loop(operands, shape);
  LoopArgs args;
  args.operands = loop.operands;
  args.numel = loop.numel;
  args.ndim = static_cast<int>(loop.shape.size());
  TORCHLET_CHECK(args.ndim <= kMaxLoopDims, op, ": CUDA kernels take at most ", kMaxLoopDims,
                 " non-contiguous dims, got ", args.ndim, " for shape ", shape_str(shape));
  for (int d = 0; d < args.ndim; ++d) args.shape[d] = loop.shape[d];
  int i = 0;
  for (const Tensor* t : operands) {
    for (int d = 0; d < args.ndim; ++d) args.strides[i][d] = loop.strides[i][d];
    args.data[i] = loop.data[i];
    if (i > 0 && is_host_number(*t)) {
      TORCHLET_INTERNAL_ASSERT(t->numel() == 1, "a host operand of a CUDA kernel is one number");
      std::memcpy(&args.constants[i], t->data_ptr(), t->element_size());
      args.constant_mask |= 1u << i;
      for (int d = 0; d < args.ndim; ++d) args.strides[i][d] = 0;
    }
    ++i;
  }
  return args;
}

ScalarArg scalar_arg(Scalar s) {
  ScalarArg a;
  a.is_floating = s.is_floating_point();
  if (a.is_floating) {
    a.d = s.to<double>();
  } else {
    a.i = s.to<int64_t>();
  }
  return a;
}

int device_of(const Tensor& t) { return t.device().index; }

}  // namespace

void copy(const Tensor& dst, const Tensor& src) {
  DeviceScope scope(device_of(dst));
  if (dst.dtype() == src.dtype() && dst.sizes() == src.sizes() && dst.is_contiguous() &&
      src.is_contiguous()) {
    // Bytes, for every dtype (float16 and bfloat16 included).
    check_launch(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), dst.numel() * dst.element_size(),
                                 cudaMemcpyDeviceToDevice, nullptr),
                 "copy_");
    return;
  }
  const LoopArgs args = loop_args({&dst, &src}, dst.sizes(), "copy_");
  check_launch(launch_copy(dst.dtype(), src.dtype(), args), "copy_");
}

void fill(const Tensor& dst, Scalar value) {
  DeviceScope scope(device_of(dst));
  const LoopArgs args = loop_args({&dst}, dst.sizes(), "fill_");
  check_launch(launch_fill_loop(dst.dtype(), args, scalar_arg(value)), "fill_");
}

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha) {
  DeviceScope scope(device_of(out));
  const LoopArgs args = loop_args({&out, &a, &b}, out.sizes(), "binary op");
  check_launch(launch_binary(op, a.dtype(), args, scalar_arg(alpha)), "binary op");
}

void unary(UnaryOp op, const Tensor& out, const Tensor& in) {
  DeviceScope scope(device_of(out));
  const LoopArgs args = loop_args({&out, &in}, out.sizes(), "unary op");
  check_launch(launch_unary(op, in.dtype(), args), "unary op");
}

void clamp(const Tensor& out, const Tensor& in, const Scalar* lo, const Scalar* hi) {
  DeviceScope scope(device_of(out));
  const LoopArgs args = loop_args({&out, &in}, out.sizes(), "clamp");
  ScalarArg l, h;
  if (lo) l = scalar_arg(*lo);
  if (hi) h = scalar_arg(*hi);
  check_launch(launch_clamp(in.dtype(), args, lo ? &l : nullptr, hi ? &h : nullptr), "clamp");
}

void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  DeviceScope scope(device_of(out));
  const LoopArgs args = loop_args({&out, &cond, &a, &b}, out.sizes(), "where");
  check_launch(launch_where(out.dtype(), args), "where");
}

// ---- cuBLAS ----------------------------------------------------------------------

namespace {

const char* cublas_status_name(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "CUBLAS_STATUS_INTERNAL_ERROR";
  }
}

void check_cublas(cublasStatus_t s, const char* what) {
  TORCHLET_CHECK(s == CUBLAS_STATUS_SUCCESS, what, ": CUDA error: ", cublas_status_name(s));
}

// One handle per thread and GPU (a handle must not be used by two threads
// at once), created on first use and kept for the process: destroying it
// at thread exit could run after the driver has shut down.
cublasHandle_t cublas_handle(int device) {
  thread_local std::vector<cublasHandle_t> handles;
  if (handles.size() <= static_cast<size_t>(device)) handles.resize(device + 1, nullptr);
  if (handles[device] == nullptr) {
    check_cublas(cublasCreate(&handles[device]), "cublasCreate");
    // Full float32 products, as PyTorch 1.13's default (no TF32).
    check_cublas(cublasSetMathMode(handles[device], CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  }
  return handles[device];
}

// A matrix cuBLAS can read: one unit stride and a leading dimension at least
// the other extent (a broadcast operand with stride 0 is made dense).
struct BlasOperand {
  Tensor t;
  bool row_major = true;
  int64_t ld = 1;
};

BlasOperand blas_operand(const Tensor& m) {
  const int64_t rows = m.size(0), cols = m.size(1);
  const int64_t s0 = m.stride(0), s1 = m.stride(1);
  if ((s1 == 1 || cols <= 1) && s0 >= std::max<int64_t>(cols, 1)) return {m, true, s0};
  if ((s0 == 1 || rows <= 1) && s1 >= std::max<int64_t>(rows, 1)) return {m, false, s1};
  Tensor dense = m.contiguous();
  return {dense, true, std::max<int64_t>(cols, 1)};
}

}  // namespace

void gemm(const Tensor& out, const Tensor& a_in, const Tensor& b_in, double alpha, double beta) {
  check_dtype("mm", out.dtype());
  const int64_t m = out.size(0), n = out.size(1), k = a_in.size(1);
  if (m == 0 || n == 0) return;
  DeviceScope scope(device_of(out));
  const BlasOperand a = blas_operand(a_in);
  const BlasOperand b = blas_operand(b_in);
  TORCHLET_CHECK(out.stride(1) == 1 && out.stride(0) >= std::max<int64_t>(n, 1), "mm: the "
                 "output of a CUDA product must have contiguous rows");
  // Row-major C = A B is column-major C^T = B^T A^T: B^T is B's storage read
  // as is when B is row-major, transposed otherwise; likewise A.
  const cublasOperation_t op_b = b.row_major ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t op_a = a.row_major ? CUBLAS_OP_N : CUBLAS_OP_T;
  cublasHandle_t handle = cublas_handle(device_of(out));
  const auto in = [](int64_t v) { return static_cast<int>(v); };
  TORCHLET_CHECK(m < (int64_t{1} << 31) && n < (int64_t{1} << 31) && k < (int64_t{1} << 31),
                 "mm: a CUDA product's dims must each be below 2^31, got ", m, ", ", n, ", ", k);
  if (out.dtype() == kFloat32) {
    const float al = static_cast<float>(alpha), be = static_cast<float>(beta);
    check_cublas(cublasSgemm(handle, op_b, op_a, in(n), in(m), in(k), &al,
                             static_cast<const float*>(b.t.data_ptr()), in(b.ld),
                             static_cast<const float*>(a.t.data_ptr()), in(a.ld), &be,
                             static_cast<float*>(out.data_ptr()), in(out.stride(0))),
                 "cublasSgemm");
  } else {
    TORCHLET_CHECK(out.dtype() == kFloat64, "mm: CUDA products take float32 or float64, got ",
                   out.dtype());
    check_cublas(cublasDgemm(handle, op_b, op_a, in(n), in(m), in(k), &alpha,
                             static_cast<const double*>(b.t.data_ptr()), in(b.ld),
                             static_cast<const double*>(a.t.data_ptr()), in(a.ld), &beta,
                             static_cast<double*>(out.data_ptr()), in(out.stride(0))),
                 "cublasDgemm");
  }
}

// ---- Reductions --------------------------------------------------------------------

namespace {

// kept dims (in's first dim() - reduced) and reduced dims as two one-operand
// loops over `in`.
ReduceArgs reduce_args(const Tensor& in, int64_t reduced, const char* op) {
  check_dtype(op, in.dtype());
  const int64_t split = in.dim() - reduced;
  const Tensor kept_view = in.as_strided(in.sizes().subspan(0, split),
                                         in.strides().subspan(0, split), in.storage_offset());
  const Tensor red_view = in.as_strided(in.sizes().subspan(split),
                                        in.strides().subspan(split), in.storage_offset());
  ReduceArgs r;
  r.kept = loop_args({&kept_view}, kept_view.sizes(), op);
  r.reduced = loop_args({&red_view}, red_view.sizes(), op);
  r.in = static_cast<char*>(in.data_ptr());
  return r;
}

void run_reduce(ReduceKind kind, ReduceArgs r, DType dtype, int device, const char* op) {
  const int splits = reduce_splits(r.kept.numel, r.reduced.numel);
  Tensor workspace;
  if (splits > 1) {
    workspace = empty({static_cast<int64_t>(reduce_workspace_bytes(r.kept.numel, splits))},
                      TensorOptions(kUInt8).device(Device(kCUDA, device)));
  }
  check_launch(launch_reduce(kind, dtype, r, splits,
                             workspace.defined() ? workspace.data_ptr() : nullptr),
               op);
  // The workspace goes back to the caching allocator now; a later kernel on
  // the same stream can only use it after this one is done.
}

}  // namespace

void reduce_sum(const Tensor& out, const Tensor& in, int64_t reduced) {
  DeviceScope scope(device_of(out));
  ReduceArgs r = reduce_args(in, reduced, "sum");
  r.out = static_cast<char*>(out.data_ptr());
  run_reduce(ReduceKind::kSum, r, in.dtype(), device_of(out), "sum");
}

void reduce_prod(const Tensor& out, const Tensor& in, int64_t reduced) {
  DeviceScope scope(device_of(out));
  ReduceArgs r = reduce_args(in, reduced, "prod");
  r.out = static_cast<char*>(out.data_ptr());
  run_reduce(ReduceKind::kProd, r, in.dtype(), device_of(out), "prod");
}

void reduce_extreme(const Tensor& out, const Tensor& in, int64_t reduced, bool largest) {
  DeviceScope scope(device_of(out));
  ReduceArgs r = reduce_args(in, reduced, largest ? "amax" : "amin");
  r.out = static_cast<char*>(out.data_ptr());
  run_reduce(largest ? ReduceKind::kMax : ReduceKind::kMin, r, in.dtype(), device_of(out),
             largest ? "amax" : "amin");
}

void reduce_arg(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t reduced,
                bool largest) {
  DeviceScope scope(device_of(indices));
  ReduceArgs r = reduce_args(in, reduced, largest ? "argmax" : "argmin");
  r.out = values.defined() ? static_cast<char*>(values.data_ptr()) : nullptr;
  r.index = static_cast<int64_t*>(indices.data_ptr());
  run_reduce(largest ? ReduceKind::kArgMax : ReduceKind::kArgMin, r, in.dtype(),
             device_of(indices), largest ? "argmax" : "argmin");
}

void softmax_lastdim(const Tensor& out, const Tensor& in, bool log) {
  const char* op = log ? "log_softmax" : "softmax";
  check_dtype(op, in.dtype());
  if (out.numel() == 0) return;
  DeviceScope scope(device_of(out));
  const Tensor x = in.contiguous();
  const Tensor y = out.is_contiguous() ? out : empty(out.sizes(), out.options());
  const int64_t n = x.dim() == 0 ? 1 : x.size(-1);
  check_launch(launch_softmax(in.dtype(), y.data_ptr(), x.data_ptr(), x.numel() / n, n, log), op);
  if (!y.is_same(out)) copy(out, y);
}

void softmax_backward_lastdim(const Tensor& out, const Tensor& grad, const Tensor& output,
                              bool log) {
  const char* op = log ? "log_softmax_backward" : "softmax_backward";
  check_dtype(op, out.dtype());
  if (out.numel() == 0) return;
  DeviceScope scope(device_of(out));
  const Tensor g = grad.contiguous();
  const Tensor y = output.contiguous();
  const Tensor o = out.is_contiguous() ? out : empty(out.sizes(), out.options());
  const int64_t n = out.dim() == 0 ? 1 : out.size(-1);
  check_launch(launch_softmax_backward(out.dtype(), o.data_ptr(), g.data_ptr(), y.data_ptr(),
                                       out.numel() / n, n, log),
               op);
  if (!o.is_same(out)) copy(out, o);
}

}  // namespace torchlet::cuda
