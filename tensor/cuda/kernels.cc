// The Tensor-level CUDA kernels (tensor/cuda/kernels.h) under --config=cuda:
// geometry from the CPU loop planner, then the .cu launchers on the
// tensors' GPU; matrix products through cuBLAS.
#include "tensor/cuda/kernels.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "tensor/cpu/loops.h"
#include "tensor/cuda/cuda_runtime.h"
#include "tensor/cuda/device_scope.h"
#include "tensor/cuda/cudnn_conv.h"
#include "tensor/cuda/launch.h"
#include "tensor/cuda/optim_ops.h"
#include "tensor/cuda/stream_state.h"
#include "tensor/error.h"
#include "tensor/factories.h"
#include "tensor/half.h"

namespace torchlet::cuda {
namespace {

void check_launch(cudaError_t status, const char* op) {
  TORCHLET_CHECK(status == cudaSuccess, op, ": CUDA kernel launch failed: ",
                 cudaGetErrorString(status));
}

// The kernels that have no float16 or bfloat16 form refuse them as the CPU
// ones do.
void check_dtype(const char* op, DType dtype) {
  TORCHLET_CHECK(dtype != kFloat16 && dtype != kBFloat16, "\"", op, "\" not implemented for '",
                 scalar_type_name(dtype), "'");
}

bool is_host_number(const Tensor& t) { return t.device().is_cpu(); }

// The launch geometry of `operands` (operand 0 the output) over `shape`.
// An operand on the host (a wrapped number) is read here and travels in the
// kernel's arguments: its pointer is to LoopArgs' own copy.
LoopArgs loop_args(std::initializer_list<const Tensor*> operands, IntArrayRef shape,
                   const char* op) {
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

bool is_reduced(const Tensor& t) { return t.defined() && is_reduced_floating_point(t.dtype()); }

}  // namespace

void copy(const Tensor& dst, const Tensor& src) {
  DeviceScope scope(device_of(dst));
  if (dst.dtype() == src.dtype() && dst.sizes() == src.sizes() && dst.is_contiguous() &&
      src.is_contiguous()) {
    // Bytes, for every dtype (float16 and bfloat16 included).
    check_launch(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), dst.numel() * dst.element_size(),
                                 cudaMemcpyDeviceToDevice, launch_stream()),
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

// ---- float16 and bfloat16 ------------------------------------------------------------
// As on the CPU (Note [Reduced floating point] in tensor/cpu/reduced_float.h):
// an op given a float16 or bfloat16 operand computes in float32 scratch
// tensors and rounds its result once into the output.

namespace {

Tensor float32_operand(const Tensor& t) {
  if (!is_reduced(t)) return t;
  if (t.device().is_cpu()) return t.to(kFloat32);  // a wrapped number
  Tensor out = empty(t.sizes(), t.options().dtype(kFloat32));
  copy(out, t);
  return out;
}

Tensor float32_result(const Tensor& out) {
  return is_reduced(out) ? empty(out.sizes(), out.options().dtype(kFloat32)) : out;
}

void store_result(const Tensor& out, const Tensor& result) {
  if (out.defined() && out.dtype() != result.dtype()) copy(out, result);
}

template <typename Kernel, typename... Operands>
bool run_in_float32(const Tensor& out, Kernel&& kernel, const Operands&... operands) {
  if (!is_reduced(out) && !(is_reduced(operands) || ...)) return false;
  const Tensor result = float32_result(out);
  kernel(result, float32_operand(operands)...);
  store_result(out, result);
  return true;
}

}  // namespace

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha) {
  const bool scaled = (op == BinaryOp::kAdd || op == BinaryOp::kSub) && alpha.to_double() != 1.0;
  if (scaled && is_reduced(a)) {
    // As PyTorch 1.13's CPU add rounds it: alpha to the dtype first, and for
    // float16 (whose arithmetic rounds every step) the product too.
    const float rounded = a.dtype() == kFloat16 ? static_cast<float>(Half(alpha.to<float>()))
                                                : static_cast<float>(BFloat16(alpha.to<float>()));
    if (a.dtype() == kBFloat16) {
      const Tensor result = float32_result(out);
      binary(op, result, float32_operand(a), float32_operand(b), rounded);
      return store_result(out, result);
    }
    const Tensor product = empty(b.sizes(), b.options().device(out.device()).dtype(kFloat16));
    binary(BinaryOp::kMul, product, b, scalar_tensor(rounded, kFloat16), 1);
    return binary(op, out, a, product, 1);
  }
  if (run_in_float32(out, [&](const Tensor& o, const Tensor& x, const Tensor& y) {
        binary(op, o, x, y, alpha);
      }, a, b)) {
    return;
  }
  DeviceScope scope(device_of(out));
  const LoopArgs args = loop_args({&out, &a, &b}, out.sizes(), "binary op");
  check_launch(launch_binary(op, a.dtype(), args, scalar_arg(alpha)), "binary op");
}

void unary(UnaryOp op, const Tensor& out, const Tensor& in) {
  if (run_in_float32(out, [&](const Tensor& o, const Tensor& x) { unary(op, o, x); }, in)) return;
  DeviceScope scope(device_of(out));
  const LoopArgs args = loop_args({&out, &in}, out.sizes(), "unary op");
  check_launch(launch_unary(op, in.dtype(), args), "unary op");
}

void clamp(const Tensor& out, const Tensor& in, const Scalar* lo, const Scalar* hi) {
  if (run_in_float32(out, [&](const Tensor& o, const Tensor& x) { clamp(o, x, lo, hi); }, in)) {
    return;
  }
  DeviceScope scope(device_of(out));
  const LoopArgs args = loop_args({&out, &in}, out.sizes(), "clamp");
  ScalarArg l, h;
  if (lo) l = scalar_arg(*lo);
  if (hi) h = scalar_arg(*hi);
  check_launch(launch_clamp(in.dtype(), args, lo ? &l : nullptr, hi ? &h : nullptr), "clamp");
}

void round_decimals(const Tensor& out, const Tensor& in, int64_t decimals) {
  if (run_in_float32(out, [&](const Tensor& o, const Tensor& x) { round_decimals(o, x, decimals); },
                     in)) {
    return;
  }
  DeviceScope scope(device_of(out));
  const LoopArgs args = loop_args({&out, &in}, out.sizes(), "round");
  check_launch(launch_round_decimals(in.dtype(), args, decimals), "round");
}

void nan_to_num(const Tensor& out, const Tensor& in, double nan, const double* posinf,
                const double* neginf) {
  if (is_reduced(in)) {
    // The default bounds are the reduced dtype's own finite extremes.
    const double largest = in.dtype() == kFloat16 ? std::numeric_limits<Half>::max()
                                                  : std::numeric_limits<BFloat16>::max();
    const double lowest = -largest;
    run_in_float32(out, [&](const Tensor& o, const Tensor& x) {
      nan_to_num(o, x, nan, posinf ? posinf : &largest, neginf ? neginf : &lowest);
    }, in);
    return;
  }
  DeviceScope scope(device_of(out));
  const LoopArgs args = loop_args({&out, &in}, out.sizes(), "nan_to_num");
  check_launch(launch_nan_to_num(in.dtype(), args, nan, posinf, neginf), "nan_to_num");
}

void sort_rows(const Tensor& order, const Tensor& keys_in, bool descending) {
  const int64_t rows = keys_in.size(0), n = keys_in.size(1);
  if (rows * n == 0) return;
  TORCHLET_CHECK(rows * n < (int64_t{1} << 31), "sort: CUDA sorts take fewer than 2^31 "
                 "elements, got ", rows * n);
  DeviceScope scope(device_of(order));
  Tensor keys = keys_in.dtype() == kBool ? keys_in.to(kUInt8) : keys_in;
  if (keys.is_floating_point()) {
    Tensor canonical = empty_like(keys);
    check_launch(launch_canonical_keys(keys.dtype(), canonical.data_ptr(), keys.data_ptr(),
                                       keys.numel()),
                 "sort");
    keys = canonical;
  }
  const Tensor sorted_keys = empty_like(keys);
  const Tensor positions = empty({rows, n}, order.options());
  const Tensor offsets = empty({rows + 1}, order.options().dtype(kInt32));
  check_launch(launch_lane_positions(static_cast<int64_t*>(positions.data_ptr()),
                                     static_cast<int*>(offsets.data_ptr()), rows, n),
               "sort");
  SortArgs args;
  args.keys_in = keys.data_ptr();
  args.keys_out = sorted_keys.data_ptr();
  args.positions_in = static_cast<const int64_t*>(positions.data_ptr());
  args.positions_out = static_cast<int64_t*>(order.data_ptr());
  args.offsets = static_cast<const int*>(offsets.data_ptr());
  args.rows = rows;
  args.n = n;
  args.descending = descending;
  check_launch(sort_temp_bytes(keys.dtype(), args, &args.temp_bytes), "sort");
  const Tensor temp = empty({static_cast<int64_t>(args.temp_bytes) + 1},
                            order.options().dtype(kUInt8));
  args.temp = temp.data_ptr();
  check_launch(launch_sort_pairs(keys.dtype(), args), "sort");
}

void arange(const Tensor& out, Scalar start, Scalar step, bool integral) {
  DeviceScope scope(device_of(out));
  check_launch(launch_arange(out.dtype(), out.data_ptr(), out.numel(), scalar_arg(start),
                             scalar_arg(step), integral),
               "arange");
}

void linspace(const Tensor& out, double start, double end) {
  DeviceScope scope(device_of(out));
  check_launch(launch_linspace(out.dtype(), out.data_ptr(), out.numel(), start, end), "linspace");
}

void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  DeviceScope scope(device_of(out));
  const LoopArgs args = loop_args({&out, &cond, &a, &b}, out.sizes(), "where");
  check_launch(launch_where(out.dtype(), args), "where");
}

// ---- Index ops ---------------------------------------------------------------------

namespace {

Tensor at_least_1d(const Tensor& t) { return t.dim() == 0 ? t.view({1}) : t; }

// `t` over index's shape with its stride along `dim` zeroed: every element
// of the index's row along dim sees the row's first element of `t`.
Tensor along_index(const Tensor& t, int64_t dim, IntArrayRef index_shape, bool zero_dim) {
  SizeVec strides(t.strides().begin(), t.strides().end());
  if (zero_dim) strides[dim] = 0;
  return t.as_strided(index_shape, strides, t.storage_offset());
}

}  // namespace

void index_select(const Tensor& out, const Tensor& src, int64_t dim, const Tensor& index) {
  DeviceScope scope(device_of(out));
  const Tensor s = at_least_1d(src);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= s.size(d);
  for (int64_t d = dim + 1; d < s.dim(); ++d) inner *= s.size(d);
  check_launch(launch_index_select(s.element_size(), out.data_ptr(), s.data_ptr(),
                                   static_cast<const int64_t*>(index.data_ptr()), outer,
                                   s.size(dim), index.numel(), inner),
               "index_select");
}

void gather(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  DeviceScope scope(device_of(out));
  const Tensor s = at_least_1d(self), idx = at_least_1d(index), o = at_least_1d(out);
  const Tensor rows = along_index(s, dim, idx.sizes(), /*zero_dim=*/true);
  const LoopArgs args = loop_args({&o, &idx, &rows}, idx.sizes(), "gather");
  check_launch(launch_gather(s.element_size(), args,
                             s.stride(dim) * static_cast<int64_t>(s.element_size())),
               "gather");
}

void scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, bool add) {
  const char* op = add ? "scatter_add_" : "scatter_";
  if (add) {
    TORCHLET_CHECK(self.dtype() == kFloat32 || self.dtype() == kFloat64 ||
                       self.dtype() == kInt32 || self.dtype() == kInt64,
                   op, ": CUDA tensors of dtype ", self.dtype(), " are not supported yet");
  }
  DeviceScope scope(device_of(self));
  const Tensor s = at_least_1d(self), idx = at_least_1d(index), from = at_least_1d(src);
  const Tensor rows = along_index(s, dim, idx.sizes(), /*zero_dim=*/true);
  const Tensor values = along_index(from, dim, idx.sizes(), /*zero_dim=*/false);
  const LoopArgs args = loop_args({&rows, &idx, &values}, idx.sizes(), op);
  check_launch(launch_scatter(self.dtype(), add, args,
                              s.stride(dim) * static_cast<int64_t>(s.element_size())),
               op);
}

// ---- Advanced indexing -------------------------------------------------------------

namespace {

// The offsets on the GPU: three int64 tensors kept alive for the launch.
struct DeviceOffsets {
  Tensor outer, positions, inner;
  OffsetArgs args;
};

DeviceOffsets device_offsets(const cpu::OffsetIndex& ix, Device device) {
  DeviceOffsets d;
  d.outer = from_vector(ix.outer).to(device);
  d.positions = from_vector(ix.positions).to(device);
  d.inner = from_vector(ix.inner).to(device);
  d.args.outer = static_cast<const int64_t*>(d.outer.data_ptr());
  d.args.positions = static_cast<const int64_t*>(d.positions.data_ptr());
  d.args.inner = static_cast<const int64_t*>(d.inner.data_ptr());
  d.args.n_outer = static_cast<int64_t>(ix.outer.size());
  d.args.n_positions = static_cast<int64_t>(ix.positions.size());
  d.args.n_inner = static_cast<int64_t>(ix.inner.size());
  return d;
}

}  // namespace

void offset_gather(const Tensor& out, const Tensor& src, const cpu::OffsetIndex& ix) {
  DeviceScope scope(device_of(out));
  const DeviceOffsets d = device_offsets(ix, out.device());
  if (out.numel() == 0) return;
  check_launch(launch_offset_gather(src.element_size(), out.data_ptr(), src.data_ptr(), d.args),
               "index");
}

void offset_scatter(const Tensor& dst, const Tensor& src, const cpu::OffsetIndex& ix,
                    bool accumulate) {
  if (accumulate) {
    TORCHLET_CHECK(dst.dtype() == kFloat32 || dst.dtype() == kFloat64 || dst.dtype() == kInt32 ||
                       dst.dtype() == kInt64 || dst.dtype() == kBool,
                   "index_put_: accumulating into CUDA tensors of dtype ", dst.dtype(),
                   " is not supported yet");
  }
  DeviceScope scope(device_of(dst));
  const DeviceOffsets d = device_offsets(ix, dst.device());
  if (src.numel() == 0) return;
  check_launch(launch_offset_scatter(dst.dtype(), accumulate, dst.data_ptr(), src.data_ptr(),
                                     d.args),
               "index_put_");
}

// ---- Random --------------------------------------------------------------------------

uint64_t random_blocks(const Tensor& out, RandomFill kind) {
  return philox_blocks(out.numel(), out.dtype(), kind == RandomFill::kInteger);
}

void random_fill(const Tensor& out, RandomFill kind, double a, double b, int64_t low,
                 uint64_t range, uint64_t seed, uint64_t offset) {
  DeviceScope scope(device_of(out));
  RandomArgs args;
  args.kind = kind == RandomFill::kUniform  ? RandomKind::kUniform
              : kind == RandomFill::kNormal ? RandomKind::kNormal
                                            : RandomKind::kInteger;
  args.a = a;
  args.b = b;
  args.low = low;
  args.range = range;
  check_launch(launch_random(out.dtype(), out.data_ptr(), out.numel(), seed, offset, args),
               "random");
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

// One handle per thread, GPU and stream (a handle must not be used by two
// threads at once, and its workspace must not be used by two streams at
// once), created on first use and kept for the process: destroying it at
// thread exit could run after the driver has shut down. A thread uses one
// stream per GPU unless a StreamGuard picks others, so a thread has one or
// two. Each has its own workspace of kCublasWorkspace bytes (PyTorch gives
// Hopper's cuBLAS 32 MiB; without one, cuBLAS leaves out kernels that need
// it). The math mode is set for each product's dtype: full float32
// products unless TF32 is allowed, reduced-precision split-K sums only
// where allowed.
constexpr size_t kCublasWorkspace = size_t{32} << 20;

cublasHandle_t cublas_handle(int device, DType dtype) {
  struct Handle {
    int device = -1;
    cudaStream_t stream = nullptr;
    cublasHandle_t handle = nullptr;
    int mode = -1;
  };
  thread_local std::vector<Handle> handles;
  const cudaStream_t stream = current_stream_handle(device);
  Handle* found = nullptr;
  for (Handle& h : handles) {
    if (h.device == device && h.stream == stream) found = &h;
  }
  if (found == nullptr) {
    Handle made;
    made.device = device;
    made.stream = stream;
    check_cublas(cublasCreate(&made.handle), "cublasCreate");
    // cublasSetStream resets the workspace, so the workspace comes after.
    check_cublas(cublasSetStream(made.handle, stream), "cublasSetStream");
    void* workspace = nullptr;
    if (cudaMalloc(&workspace, kCublasWorkspace) == cudaSuccess) {
      check_cublas(cublasSetWorkspace(made.handle, workspace, kCublasWorkspace),
                   "cublasSetWorkspace");
    } else {
      (void)cudaGetLastError();  // no workspace: cuBLAS picks kernels without one
    }
    handles.push_back(made);
    found = &handles.back();
  }
  Handle& h = *found;
  int mode = CUBLAS_DEFAULT_MATH;
  if (dtype == kFloat32 && matmul_allow_tf32()) mode = CUBLAS_TF32_TENSOR_OP_MATH;
  const bool reduced_sums =
      (dtype == kFloat16 && matmul_allow_fp16_reduced_precision_reduction()) ||
      (dtype == kBFloat16 && matmul_allow_bf16_reduced_precision_reduction());
  if (!reduced_sums) mode |= CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
  if (h.mode != mode) {
    check_cublas(cublasSetMathMode(h.handle, static_cast<cublasMath_t>(mode)),
                 "cublasSetMathMode");
    h.mode = mode;
  }
  return h.handle;
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
  cublasHandle_t handle = cublas_handle(device_of(out), out.dtype());
  const auto in = [](int64_t v) { return static_cast<int>(v); };
  TORCHLET_CHECK(m < (int64_t{1} << 31) && n < (int64_t{1} << 31) && k < (int64_t{1} << 31),
                 "mm: a CUDA product's dims must each be below 2^31, got ", m, ", ", n, ", ", k);
  if (is_reduced(out)) {
    // float16 and bfloat16 operands with float32 products and sums, rounded
    // into the output (split-K partial sums in the operands' precision only
    // where allowed, see cublas_handle).
    const cudaDataType_t type = out.dtype() == kFloat16 ? CUDA_R_16F : CUDA_R_16BF;
    const float al = static_cast<float>(alpha), be = static_cast<float>(beta);
    check_cublas(cublasGemmEx(handle, op_b, op_a, in(n), in(m), in(k), &al, b.t.data_ptr(), type,
                              in(b.ld), a.t.data_ptr(), type, in(a.ld), &be, out.data_ptr(), type,
                              in(out.stride(0)), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
  } else if (out.dtype() == kFloat32) {
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
  if (run_in_float32(out, [&](const Tensor& o, const Tensor& x) { reduce_sum(o, x, reduced); },
                     in)) {
    return;
  }
  DeviceScope scope(device_of(out));
  ReduceArgs r = reduce_args(in, reduced, "sum");
  r.out = static_cast<char*>(out.data_ptr());
  run_reduce(ReduceKind::kSum, r, in.dtype(), device_of(out), "sum");
}

void reduce_prod(const Tensor& out, const Tensor& in, int64_t reduced) {
  if (run_in_float32(out, [&](const Tensor& o, const Tensor& x) { reduce_prod(o, x, reduced); },
                     in)) {
    return;
  }
  DeviceScope scope(device_of(out));
  ReduceArgs r = reduce_args(in, reduced, "prod");
  r.out = static_cast<char*>(out.data_ptr());
  run_reduce(ReduceKind::kProd, r, in.dtype(), device_of(out), "prod");
}

void reduce_extreme(const Tensor& out, const Tensor& in, int64_t reduced, bool largest) {
  if (run_in_float32(out, [&](const Tensor& o, const Tensor& x) {
        reduce_extreme(o, x, reduced, largest);
      }, in)) {
    return;
  }
  DeviceScope scope(device_of(out));
  ReduceArgs r = reduce_args(in, reduced, largest ? "amax" : "amin");
  r.out = static_cast<char*>(out.data_ptr());
  run_reduce(largest ? ReduceKind::kMax : ReduceKind::kMin, r, in.dtype(), device_of(out),
             largest ? "amax" : "amin");
}

void reduce_arg(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t reduced,
                bool largest) {
  if (is_reduced(in)) {
    const Tensor result = float32_result(values);
    reduce_arg(result, indices, float32_operand(in), reduced, largest);
    return store_result(values, result);
  }
  DeviceScope scope(device_of(indices));
  ReduceArgs r = reduce_args(in, reduced, largest ? "argmax" : "argmin");
  r.out = values.defined() ? static_cast<char*>(values.data_ptr()) : nullptr;
  r.index = static_cast<int64_t*>(indices.data_ptr());
  run_reduce(largest ? ReduceKind::kArgMax : ReduceKind::kArgMin, r, in.dtype(),
             device_of(indices), largest ? "argmax" : "argmin");
}

void reduce_var(const Tensor& out, const Tensor& in, int64_t reduced, int64_t correction,
                bool take_sqrt) {
  if (run_in_float32(out, [&](const Tensor& o, const Tensor& x) {
        reduce_var(o, x, reduced, correction, take_sqrt);
      }, in)) {
    return;
  }
  const char* op = take_sqrt ? "std" : "var";
  DeviceScope scope(device_of(out));
  ReduceArgs r = reduce_args(in, reduced, op);
  r.out = static_cast<char*>(out.data_ptr());
  r.correction = correction;
  r.take_sqrt = take_sqrt;
  run_reduce(ReduceKind::kVar, r, in.dtype(), device_of(out), op);
}

void reduce_norm(const Tensor& out, const Tensor& in, int64_t reduced, double p) {
  if (run_in_float32(out, [&](const Tensor& o, const Tensor& x) { reduce_norm(o, x, reduced, p); },
                     in)) {
    return;
  }
  DeviceScope scope(device_of(out));
  ReduceArgs r = reduce_args(in, reduced, "norm");
  r.out = static_cast<char*>(out.data_ptr());
  r.p = p;
  run_reduce(ReduceKind::kNorm, r, in.dtype(), device_of(out), "norm");
}

void reduce_logsumexp(const Tensor& out, const Tensor& in, int64_t reduced) {
  if (run_in_float32(out, [&](const Tensor& o, const Tensor& x) {
        reduce_logsumexp(o, x, reduced);
      }, in)) {
    return;
  }
  check_dtype("logsumexp", in.dtype());
  // The CPU's formula from the CUDA kernels: log(sum(exp(x - max))) + max,
  // with an infinite max taken as 0.
  Tensor max = empty(out.sizes(), out.options());
  reduce_extreme(max, in, reduced, /*largest=*/true);
  max.masked_fill_(max.isinf(), 0);
  SizeVec broadcast(out.sizes().begin(), out.sizes().end());
  broadcast.insert(broadcast.end(), static_cast<size_t>(reduced), 1);
  Tensor sum = empty(out.sizes(), out.options());
  reduce_sum(sum, in.sub(max.view(broadcast)).exp(), reduced);
  copy(out, sum.log().add(max));
}

void cumulative_lastdim(const Tensor& out, const Tensor& in, bool prod) {
  if (run_in_float32(out, [&](const Tensor& o, const Tensor& x) { cumulative_lastdim(o, x, prod); },
                     in)) {
    return;
  }
  if (out.numel() == 0) return;
  DeviceScope scope(device_of(out));
  const Tensor x = in.contiguous();
  const Tensor y = out.is_contiguous() ? out : empty(out.sizes(), out.options());
  const int64_t n = x.dim() == 0 ? 1 : x.size(-1);
  check_launch(launch_cumulative(x.dtype(), y.data_ptr(), x.data_ptr(), x.numel() / n, n, prod),
               prod ? "cumprod" : "cumsum");
  if (!y.is_same(out)) copy(out, y);
}

void softmax_lastdim(const Tensor& out, const Tensor& in, bool log) {
  const char* op = log ? "log_softmax" : "softmax";
  if (run_in_float32(out, [&](const Tensor& o, const Tensor& x) { softmax_lastdim(o, x, log); },
                     in)) {
    return;
  }
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
  if (run_in_float32(out, [&](const Tensor& o, const Tensor& g, const Tensor& y) {
        softmax_backward_lastdim(o, g, y, log);
      }, grad, output)) {
    return;
  }
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

// ---- Cross-entropy -------------------------------------------------------------------

namespace {

const void* data_or_null(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

}  // namespace

void cross_entropy_rows(const Tensor& loss, const Tensor& probs, const Tensor& input,
                        const Tensor& target, const Tensor& weight, int64_t ignore_index,
                        double label_smoothing) {
  check_dtype("cross_entropy", input.dtype());
  DeviceScope scope(device_of(input));
  check_launch(launch_cross_entropy(input.dtype(), loss.data_ptr(), probs.data_ptr(),
                                    input.data_ptr(),
                                    static_cast<const int64_t*>(target.data_ptr()),
                                    data_or_null(weight), input.size(0), input.size(1),
                                    ignore_index, label_smoothing),
               "cross_entropy");
}

void cross_entropy_backward_rows(const Tensor& grad_input, const Tensor& grad_loss, double scale,
                                 const Tensor& probs, const Tensor& target, const Tensor& weight,
                                 int64_t ignore_index, double label_smoothing) {
  check_dtype("cross_entropy_backward", probs.dtype());
  const int64_t classes = probs.size(1);
  // The weights' sum, only when label smoothing uses it.
  const double weight_sum = !weight.defined()     ? static_cast<double>(classes)
                            : label_smoothing > 0 ? weight.sum().to(kFloat64).item<double>()
                                                  : 0.0;
  DeviceScope scope(device_of(probs));
  check_launch(launch_cross_entropy_backward(
                   probs.dtype(), grad_input.data_ptr(), grad_loss.data_ptr(),
                   grad_loss.numel() == 1, scale, probs.data_ptr(),
                   static_cast<const int64_t*>(target.data_ptr()), data_or_null(weight),
                   weight_sum, probs.size(0), classes, ignore_index, label_smoothing),
               "cross_entropy_backward");
}

// ---- Optimizers ------------------------------------------------------------------------

namespace {

void* mutable_or_null(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

// Converts the hyperparameters to T on the host, as the CPU loops do, and
// queues the update.
template <template <typename> class Step, typename Make>
void run_optimizer(OptimizerKind kind, const char* op, const Tensor& param, const Tensor& grad,
                   const Tensor& s0, const Tensor& s1, const Tensor& s2, Make make) {
  check_dtype(op, param.dtype());
  DeviceScope scope(device_of(param));
  cudaError_t status;
  if (param.dtype() == kFloat64) {
    const Step<double> step = make(double{});
    status = launch_optimizer(kind, kFloat64, param.numel(), param.data_ptr(), grad.data_ptr(),
                              mutable_or_null(s0), mutable_or_null(s1), mutable_or_null(s2),
                              &step);
  } else {
    const Step<float> step = make(float{});
    status = launch_optimizer(kind, kFloat32, param.numel(), param.data_ptr(), grad.data_ptr(),
                              mutable_or_null(s0), mutable_or_null(s1), mutable_or_null(s2),
                              &step);
  }
  check_launch(status, op);
}

}  // namespace

void sgd_update(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                const SgdUpdate& o) {
  run_optimizer<ops::SgdStep>(
      OptimizerKind::kSgd, "sgd_update_", param, grad, momentum_buffer, Tensor(), Tensor(),
      [&](auto tag) {
        using T = decltype(tag);
        return ops::SgdStep<T>{static_cast<T>(o.lr), static_cast<T>(o.momentum),
                               static_cast<T>(1 - o.dampening), static_cast<T>(o.weight_decay),
                               o.maximize ? T(-1) : T(1), o.weight_decay != 0, o.momentum != 0,
                               o.first_step, o.nesterov};
      });
}

void adam_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                 const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, const AdamUpdate& o) {
  run_optimizer<ops::AdamStep>(
      OptimizerKind::kAdam, "adam_update_", param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq,
      [&](auto tag) {
        using T = decltype(tag);
        const double step = static_cast<double>(o.step);
        return ops::AdamStep<T>{static_cast<T>(-(o.lr / (1 - std::pow(o.beta1, step)))),
                                static_cast<T>(std::sqrt(1 - std::pow(o.beta2, step))),
                                static_cast<T>(o.beta1), static_cast<T>(1 - o.beta1),
                                static_cast<T>(o.beta2), static_cast<T>(1 - o.beta2),
                                static_cast<T>(o.eps), static_cast<T>(o.weight_decay),
                                static_cast<T>(1 - o.lr * o.weight_decay),
                                o.maximize ? T(-1) : T(1), o.decoupled_weight_decay,
                                o.weight_decay != 0 && !o.decoupled_weight_decay, o.amsgrad};
      });
}

void rmsprop_update(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                    const Tensor& grad_avg, const Tensor& momentum_buffer,
                    const RmspropUpdate& o) {
  run_optimizer<ops::RmspropStep>(
      OptimizerKind::kRmsprop, "rmsprop_update_", param, grad, square_avg, grad_avg,
      momentum_buffer, [&](auto tag) {
        using T = decltype(tag);
        return ops::RmspropStep<T>{static_cast<T>(o.alpha), static_cast<T>(1 - o.alpha),
                                   static_cast<T>(o.eps), static_cast<T>(o.weight_decay),
                                   static_cast<T>(o.momentum), static_cast<T>(-o.lr),
                                   o.maximize ? T(-1) : T(1), o.weight_decay != 0, o.centered,
                                   o.momentum > 0};
      });
}

void adagrad_update(const Tensor& param, const Tensor& grad, const Tensor& sum,
                    const AdagradUpdate& o) {
  run_optimizer<ops::AdagradStep>(
      OptimizerKind::kAdagrad, "adagrad_update_", param, grad, sum, Tensor(), Tensor(),
      [&](auto tag) {
        using T = decltype(tag);
        return ops::AdagradStep<T>{static_cast<T>(o.eps), static_cast<T>(o.weight_decay),
                                   static_cast<T>(-o.clr), o.maximize ? T(-1) : T(1),
                                   o.weight_decay != 0};
      });
}

// ---- Convolution and pooling ---------------------------------------------------------

namespace {

ConvShape conv_shape(const cpu::ConvGeometry& g) {
  ConvShape s;
  s.batch = g.batch;
  s.in_channels = g.in_channels;
  s.out_channels = g.out_channels;
  s.groups = g.groups;
  for (int d = 0; d < 3; ++d) {
    s.input[d] = g.input[d];
    s.output[d] = g.output[d];
    s.kernel[d] = g.kernel[d];
    s.stride[d] = g.stride[d];
    s.padding[d] = g.padding[d];
    s.dilation[d] = g.dilation[d];
  }
  return s;
}

PoolShape pool_shape(const cpu::PoolWindow& w, cpu::AvgDivisor divisor = {}) {
  PoolShape s;
  s.planes = w.planes;
  for (int d = 0; d < 3; ++d) {
    s.in[d] = w.in[d];
    s.out[d] = w.out[d];
    s.kernel[d] = w.kernel[d];
    s.stride[d] = w.stride[d];
    s.pad[d] = w.pad[d];
    s.dilation[d] = w.dilation[d];
  }
  s.count_include_pad = divisor.count_include_pad;
  s.divisor_override = divisor.divisor_override;
  return s;
}

// Row-major products of `batch` matrix pairs through cuBLAS:
// C_i (m x n, ldc) = alpha * op(A_i) (m x k) op(B_i) (k x n) + beta * C_i,
// where A_i is stored m x k (k x m when trans_a) with leading dim lda, B_i
// likewise, and a stride of 0 reuses one matrix for every pair.
struct BatchedGemm {
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  const void* a = nullptr;
  int64_t lda = 0, stride_a = 0;
  const void* b = nullptr;
  int64_t ldb = 0, stride_b = 0;
  void* c = nullptr;
  int64_t ldc = 0, stride_c = 0;
  int64_t batch = 1;
  double alpha = 1, beta = 0;
};

void gemm_batched(DType dtype, int device, const BatchedGemm& g) {
  if (g.m == 0 || g.n == 0 || g.batch == 0) return;
  const auto in = [](int64_t v) { return static_cast<int>(v); };
  TORCHLET_CHECK(g.m < (int64_t{1} << 31) && g.n < (int64_t{1} << 31) &&
                     g.k < (int64_t{1} << 31) && g.batch < (int64_t{1} << 31),
                 "convolution: a CUDA product's dims must each be below 2^31");
  cublasHandle_t handle = cublas_handle(device, dtype);
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: each
  // stored matrix read as is is already its transpose.
  const cublasOperation_t op_b = g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  if (dtype == kFloat32) {
    const float alpha = static_cast<float>(g.alpha), beta = static_cast<float>(g.beta);
    check_cublas(cublasSgemmStridedBatched(
                     handle, op_b, op_a, in(g.n), in(g.m), in(g.k), &alpha,
                     static_cast<const float*>(g.b), in(g.ldb), g.stride_b,
                     static_cast<const float*>(g.a), in(g.lda), g.stride_a, &beta,
                     static_cast<float*>(g.c), in(g.ldc), g.stride_c, in(g.batch)),
                 "cublasSgemmStridedBatched");
  } else {
    check_cublas(cublasDgemmStridedBatched(
                     handle, op_b, op_a, in(g.n), in(g.m), in(g.k), &g.alpha,
                     static_cast<const double*>(g.b), in(g.ldb), g.stride_b,
                     static_cast<const double*>(g.a), in(g.lda), g.stride_a, &g.beta,
                     static_cast<double*>(g.c), in(g.ldc), g.stride_c, in(g.batch)),
                 "cublasDgemmStridedBatched");
  }
}

int64_t prod3(const std::array<int64_t, 3>& v) { return v[0] * v[1] * v[2]; }

// The sizes of a convolution's per-group products.
struct ConvDims {
  int64_t groups, out_g, ck_g, ck, plane;  // plane: output positions
  size_t element_size;
};

ConvDims conv_dims(const cpu::ConvGeometry& g, const Tensor& like) {
  ConvDims d;
  d.groups = g.groups;
  d.out_g = g.out_channels / g.groups;
  d.ck = g.in_channels * prod3(g.kernel);
  d.ck_g = d.ck / g.groups;
  d.plane = prod3(g.output);
  d.element_size = like.element_size();
  return d;
}

const char* at(const Tensor& t, int64_t elements, size_t element_size) {
  return static_cast<const char*>(t.data_ptr()) + elements * static_cast<int64_t>(element_size);
}
char* at_mut(const Tensor& t, int64_t elements, size_t element_size) {
  return static_cast<char*>(t.data_ptr()) + elements * static_cast<int64_t>(element_size);
}

Tensor columns_for(const cpu::ConvGeometry& g, const Tensor& like) {
  return empty({g.batch, g.in_channels * prod3(g.kernel), prod3(g.output)}, like.options());
}

}  // namespace

void im2col(const Tensor& columns, const Tensor& input, const cpu::ConvGeometry& g) {
  check_dtype("im2col", input.dtype());
  DeviceScope scope(device_of(input));
  check_launch(launch_im2col(input.dtype(), columns.data_ptr(), input.data_ptr(), conv_shape(g)),
               "im2col");
}

void col2im(const Tensor& input, const Tensor& columns, const cpu::ConvGeometry& g) {
  check_dtype("col2im", columns.dtype());
  DeviceScope scope(device_of(columns));
  check_launch(launch_col2im(columns.dtype(), input.data_ptr(), columns.data_ptr(), conv_shape(g)),
               "col2im");
}

void conv_forward(const Tensor& out, const Tensor& input, const Tensor& weight,
                  const Tensor& bias, const cpu::ConvGeometry& g) {
  check_dtype("convolution", input.dtype());
  DeviceScope scope(device_of(out));
  if (cudnn_conv_forward(out, input, weight, g)) {
    if (bias.defined()) {
      out.view({g.batch, g.out_channels, prod3(g.output)}).add_(bias.view({1, g.out_channels, 1}));
    }
    return;
  }
  const Tensor columns = columns_for(g, input);
  cuda::im2col(columns, input, g);
  const ConvDims d = conv_dims(g, input);
  // out_n,g [out_g, plane] = W_g [out_g, ck_g] @ columns_n,g [ck_g, plane].
  for (int64_t grp = 0; grp < d.groups; ++grp) {
    BatchedGemm p;
    p.m = d.out_g;
    p.n = d.plane;
    p.k = d.ck_g;
    p.a = at(weight, grp * d.out_g * d.ck_g, d.element_size);
    p.lda = d.ck_g;
    p.stride_a = 0;
    p.b = at(columns, grp * d.ck_g * d.plane, d.element_size);
    p.ldb = d.plane;
    p.stride_b = d.ck * d.plane;
    p.c = at_mut(out, grp * d.out_g * d.plane, d.element_size);
    p.ldc = d.plane;
    p.stride_c = g.out_channels * d.plane;
    p.batch = g.batch;
    gemm_batched(input.dtype(), device_of(out), p);
  }
  if (bias.defined()) {
    Tensor o = out.view({g.batch, g.out_channels, d.plane});
    o.add_(bias.view({1, g.out_channels, 1}));
  }
}

void conv_backward_input(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                         const cpu::ConvGeometry& g) {
  check_dtype("convolution_backward", grad_out.dtype());
  DeviceScope scope(device_of(grad_input));
  if (cudnn_conv_backward_input(grad_input, grad_out, weight, g)) return;
  const Tensor columns = columns_for(g, grad_out);
  const ConvDims d = conv_dims(g, grad_out);
  // columns_n,g [ck_g, plane] = W_g^T [ck_g, out_g] @ grad_out_n,g [out_g, plane].
  for (int64_t grp = 0; grp < d.groups; ++grp) {
    BatchedGemm p;
    p.trans_a = true;
    p.m = d.ck_g;
    p.n = d.plane;
    p.k = d.out_g;
    p.a = at(weight, grp * d.out_g * d.ck_g, d.element_size);
    p.lda = d.ck_g;
    p.stride_a = 0;
    p.b = at(grad_out, grp * d.out_g * d.plane, d.element_size);
    p.ldb = d.plane;
    p.stride_b = g.out_channels * d.plane;
    p.c = at_mut(columns, grp * d.ck_g * d.plane, d.element_size);
    p.ldc = d.plane;
    p.stride_c = d.ck * d.plane;
    p.batch = g.batch;
    gemm_batched(grad_out.dtype(), device_of(grad_input), p);
  }
  cuda::col2im(grad_input, columns, g);
}

void conv_backward_weight(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                          const cpu::ConvGeometry& g) {
  check_dtype("convolution_backward", input.dtype());
  DeviceScope scope(device_of(grad_weight));
  if (cudnn_conv_backward_weight(grad_weight, grad_out, input, g)) return;
  const Tensor columns = columns_for(g, input);
  cuda::im2col(columns, input, g);
  const ConvDims d = conv_dims(g, input);
  // grad_W_g [out_g, ck_g] = sum over n of grad_out_n,g [out_g, plane] @
  // columns_n,g^T [plane, ck_g]: per-sample products into scratch, summed
  // over the samples, a bounded number of samples at a time.
  const int64_t per_sample = d.out_g * d.ck_g;
  const int64_t chunk =
      std::max<int64_t>(1, std::min<int64_t>(g.batch, (int64_t{1} << 24) / std::max<int64_t>(per_sample, 1)));
  Tensor scratch = empty({chunk, d.out_g, d.ck_g}, grad_weight.options());
  Tensor gw = grad_weight.view({d.groups, d.out_g, d.ck_g});
  gw.zero_();
  for (int64_t grp = 0; grp < d.groups; ++grp) {
    for (int64_t n0 = 0; n0 < g.batch; n0 += chunk) {
      const int64_t count = std::min(chunk, g.batch - n0);
      BatchedGemm p;
      p.trans_b = true;
      p.m = d.out_g;
      p.n = d.ck_g;
      p.k = d.plane;
      p.a = at(grad_out, (n0 * g.out_channels + grp * d.out_g) * d.plane, d.element_size);
      p.lda = d.plane;
      p.stride_a = g.out_channels * d.plane;
      p.b = at(columns, (n0 * d.ck + grp * d.ck_g) * d.plane, d.element_size);
      p.ldb = d.plane;
      p.stride_b = d.ck * d.plane;
      p.c = scratch.data_ptr();
      p.ldc = d.ck_g;
      p.stride_c = per_sample;
      p.batch = count;
      gemm_batched(input.dtype(), device_of(grad_weight), p);
      Tensor slot = gw[grp];
      slot.add_(scratch.slice(0, 0, count).sum({0}));
    }
  }
}

void max_pool(const Tensor& out, const Tensor& indices, const Tensor& input,
              const cpu::PoolWindow& window) {
  check_dtype("max_pool", input.dtype());
  DeviceScope scope(device_of(out));
  check_launch(launch_max_pool(input.dtype(), out.data_ptr(),
                               indices.defined() ? static_cast<int64_t*>(indices.data_ptr())
                                                 : nullptr,
                               input.data_ptr(), pool_shape(window)),
               "max_pool");
}

void max_pool_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices,
                       const cpu::PoolWindow& window) {
  check_dtype("max_pool_backward", grad_out.dtype());
  DeviceScope scope(device_of(grad_input));
  Tensor zeroed = grad_input;
  zeroed.zero_();
  check_launch(launch_max_pool_backward(grad_out.dtype(), grad_input.data_ptr(),
                                        grad_out.data_ptr(),
                                        static_cast<const int64_t*>(indices.data_ptr()),
                                        pool_shape(window)),
               "max_pool_backward");
}

void avg_pool(const Tensor& out, const Tensor& input, const cpu::PoolWindow& window,
              cpu::AvgDivisor divisor) {
  check_dtype("avg_pool", input.dtype());
  DeviceScope scope(device_of(out));
  check_launch(launch_avg_pool(input.dtype(), out.data_ptr(), input.data_ptr(),
                               pool_shape(window, divisor)),
               "avg_pool");
}

void adaptive_avg_pool(const Tensor& out, const Tensor& input, const cpu::PoolWindow& window) {
  check_dtype("adaptive_avg_pool", input.dtype());
  DeviceScope scope(device_of(out));
  check_launch(launch_adaptive_avg_pool(input.dtype(), out.data_ptr(), input.data_ptr(),
                                        pool_shape(window)),
               "adaptive_avg_pool");
}

void adaptive_avg_pool_backward(const Tensor& grad_input, const Tensor& grad_out,
                                const cpu::PoolWindow& window) {
  check_dtype("adaptive_avg_pool_backward", grad_out.dtype());
  DeviceScope scope(device_of(grad_input));
  Tensor zeroed = grad_input;
  zeroed.zero_();
  check_launch(launch_adaptive_avg_pool_backward(grad_out.dtype(), grad_input.data_ptr(),
                                                 grad_out.data_ptr(), pool_shape(window)),
               "adaptive_avg_pool_backward");
}

void adaptive_max_pool(const Tensor& out, const Tensor& indices, const Tensor& input,
                       const cpu::PoolWindow& window) {
  check_dtype("adaptive_max_pool", input.dtype());
  DeviceScope scope(device_of(out));
  check_launch(launch_adaptive_max_pool(input.dtype(), out.data_ptr(),
                                        indices.defined()
                                            ? static_cast<int64_t*>(indices.data_ptr())
                                            : nullptr,
                                        input.data_ptr(), pool_shape(window)),
               "adaptive_max_pool");
}

void avg_pool_backward(const Tensor& grad_input, const Tensor& grad_out,
                       const cpu::PoolWindow& window, cpu::AvgDivisor divisor) {
  check_dtype("avg_pool_backward", grad_out.dtype());
  DeviceScope scope(device_of(grad_input));
  Tensor zeroed = grad_input;
  zeroed.zero_();
  check_launch(launch_avg_pool_backward(grad_out.dtype(), grad_input.data_ptr(),
                                        grad_out.data_ptr(), pool_shape(window, divisor)),
               "avg_pool_backward");
}

}  // namespace torchlet::cuda
