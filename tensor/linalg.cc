// Matrix products: validation and shape logic here; the arithmetic is the
// Eigen kernel in cpu/gemm.cc, split across the device's intra-op threads.
#include "tensor/linalg.h"

#include <cmath>
#include <limits>

#include "tensor/cpu/distance_kernels.h"
#include "tensor/cpu/gemm.h"
#include "tensor/cpu/kernels.h"
#include "tensor/cpu/reduced_float.h"
#include "tensor/cuda/kernels.h"
#include "tensor/einsum.h"
#include "tensor/elementwise.h"
#include "tensor/factories.h"
#include "tensor/linalg_decompositions.h"
#include "tensor/op_utils.h"
#include "tensor/parallel.h"

namespace torchlet {
namespace {

void check_pair(const char* op, const Tensor& a, const Tensor& b) {
  check_defined(op, a);
  check_defined(op, b);
  check_same_device(op, a, b);
  TORCHLET_CHECK(a.dtype() == b.dtype(), op, ": expected both operands to have the same dtype, "
                 "but got ", a.dtype(), " and ", b.dtype());
  TORCHLET_CHECK(a.is_floating_point(), op, ": only float32 and float64 are supported, got ",
                 a.dtype());
}

void check_dim(const char* op, const char* what, const Tensor& t, int64_t dim) {
  TORCHLET_CHECK(t.dim() == dim, op, ": ", what, " must be a ", dim, "-D tensor, got a ",
                 t.dim(), "-D tensor of shape ", shape_str(t.sizes()));
}

// A matrix the kernel reads in place: one stride is 1 and the other steps
// over whole rows (or columns), or is 0. A stride of 0 is a broadcast
// operand, every row (or column) the same, such as the gradient of a sum; it
// is read in place rather than materialized, and when neither stride is 1
// only its one distinct row (or column) is copied.
bool reads_in_place(int64_t rows, int64_t cols, int64_t s0, int64_t s1) {
  const bool row_major = s1 == 1 && (s0 == 0 || s0 >= std::max<int64_t>(cols, 1));
  const bool col_major = s0 == 1 && (s1 == 0 || s1 >= std::max<int64_t>(rows, 1));
  return row_major || col_major;
}

Tensor gemm_operand(const Tensor& m) {
  const int64_t s0 = m.stride(0), s1 = m.stride(1);
  if (reads_in_place(m.size(0), m.size(1), s0, s1)) return m;
  if (s0 == 0 && m.size(0) > 1 && m.size(1) > 1) {
    return m.select(0, 0).contiguous().unsqueeze(0).expand(m.sizes());
  }
  if (s1 == 0 && m.size(1) > 1 && m.size(0) > 1) {
    return m.select(1, 0).contiguous().unsqueeze(1).expand(m.sizes());
  }
  return m.contiguous();
}

// out (row-major, contiguous rows) = alpha * a @ b + beta * out. float16 and
// bfloat16 products run the float32 GEMM and round the result once (Note
// [Reduced floating point] in tensor/cpu/reduced_float.h).
void gemm_into(const Tensor& out, const Tensor& a_in, const Tensor& b_in, double alpha,
               double beta) {
  if (out.is_cuda()) {
    if (a_in.size(1) > 0) return cuda::gemm(out, a_in, b_in, alpha, beta);
    Tensor c = out;  // an empty sum: C = beta * C
    if (beta == 0) c.zero_(); else c.mul_(beta);
    return;
  }
  if (is_reduced_floating_point(out.dtype())) {
    const Tensor result = beta == 0 ? cpu::float32_result(out) : cpu::float32_operand(out);
    gemm_into(result, cpu::float32_operand(a_in), cpu::float32_operand(b_in), alpha, beta);
    return cpu::store_result(out, result);
  }
  const Tensor a = gemm_operand(a_in);
  const Tensor b = gemm_operand(b_in);
  cpu::GemmArgs g{a.size(0), b.size(1), a.size(1),
                  a.data_ptr(), a.stride(0), a.stride(1),
                  b.data_ptr(), b.stride(0), b.stride(1),
                  out.data_ptr(), out.stride(0), alpha, beta};
  if (g.k == 0) {
    // An empty sum: C = beta * C.
    Tensor c = out;
    if (beta == 0) c.zero_(); else c.mul_(beta);
    return;
  }
  cpu::gemm(g, a.dtype() == kFloat64);
}

void check_mm_shapes(const char* op, const Tensor& a, const Tensor& b) {
  TORCHLET_CHECK(a.size(1) == b.size(0), op, ": mat1 and mat2 shapes cannot be multiplied (",
                 a.size(0), "x", a.size(1), " and ", b.size(0), "x", b.size(1), ")");
}

void check_bmm_shapes(const char* op, const Tensor& a, const Tensor& b) {
  check_dim(op, "batch1", a, 3);
  check_dim(op, "batch2", b, 3);
  TORCHLET_CHECK(a.size(0) == b.size(0), op, ": batch1 and batch2 must have same number of "
                 "batches, got ", a.size(0), " and ", b.size(0));
  TORCHLET_CHECK(a.size(2) == b.size(1), op, ": Expected size for first two dimensions of "
                 "batch2 tensor to be: [", a.size(0), ", ", a.size(2), "] but got: [", b.size(0),
                 ", ", b.size(1), "].");
}

// out[i] = alpha * a[i] @ b[i] + beta * out[i] for every batch i.
void bmm_into(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta) {
  const int64_t batches = a.size(0);
  const int64_t flops = a.size(1) * a.size(2) * b.size(2);
  // float32 and float64 CPU operands the kernel reads in place take one
  // GemmArgs, stepped along the batch strides, rather than three tensor views
  // and gemm_into's checks per product, which cost more than a product of
  // 8x8x8 itself. Other batches go product by product through gemm_into.
  const bool direct = out.device().is_cpu() && a.size(2) > 0 &&
                      (out.dtype() == kFloat32 || out.dtype() == kFloat64) &&
                      reads_in_place(a.size(1), a.size(2), a.stride(1), a.stride(2)) &&
                      reads_in_place(b.size(1), b.size(2), b.stride(1), b.stride(2));
  const int64_t esize = static_cast<int64_t>(element_size(out.dtype()));
  const cpu::GemmArgs first{a.size(1), b.size(2), a.size(2),
                            a.data_ptr(), a.stride(1), a.stride(2),
                            b.data_ptr(), b.stride(1), b.stride(2),
                            out.data_ptr(), out.stride(1), alpha, beta};
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      if (!direct) {
        gemm_into(out[i], a[i], b[i], alpha, beta);
        continue;
      }
      cpu::GemmArgs g = first;
      g.a = static_cast<const char*>(first.a) + i * a.stride(0) * esize;
      g.b = static_cast<const char*>(first.b) + i * b.stride(0) * esize;
      g.c = static_cast<char*>(first.c) + i * out.stride(0) * esize;
      cpu::gemm(g, out.dtype() == kFloat64);
    }
  };
  // On the CPU the batch splits across the threads, each product on one
  // thread, unless the split would leave threads idle (3 products on 2
  // threads) while the products are big enough to split themselves: that
  // keeps the products below cpu::gemm's own parallel threshold (an
  // attention's 64x64x32 scores) off a single thread, and spares larger
  // ones a fork and join each. On a GPU each product is queued in turn.
  // A batch of tiny products (under 2^16 multiply-adds in all) stays on the
  // calling thread.
  const int64_t threads = detail::split_threads();
  const bool splits_evenly = batches % threads == 0 || batches >= 4 * threads;
  if (out.device().is_cpu() && (flops < cpu::kGemmParallelFlops || splits_evenly)) {
    parallel_for(0, batches, batches * flops < (1 << 16) ? batches : 1, run);
  } else {
    run(0, batches);
  }
}

Tensor new_result(IntArrayRef shape, const Tensor& like) {
  return empty(shape, like.options());
}

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  check_pair("mm", a, b);
  check_dim("mm", "self", a, 2);
  check_dim("mm", "mat2", b, 2);
  check_mm_shapes("mm", a, b);
  Tensor out = new_result({a.size(0), b.size(1)}, a);
  gemm_into(out, a, b, 1, 0);
  return out;
}

namespace {
// Outputs up to this many elements take addmm's row-by-row bias copy.
constexpr int64_t kSerialRowsNumel = 1 << 15;
}  // namespace

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, Scalar beta,
             Scalar alpha) {
  check_pair("addmm", mat1, mat2);
  check_dim("addmm", "mat1", mat1, 2);
  check_dim("addmm", "mat2", mat2, 2);
  check_mm_shapes("addmm", mat1, mat2);
  check_defined("addmm", self);
  check_same_device("addmm", self, mat1);
  TORCHLET_CHECK(self.dtype() == mat1.dtype(), "addmm: self and mat2 must have the same dtype, "
                 "but got ", self.dtype(), " and ", mat2.dtype());
  Tensor out = new_result({mat1.size(0), mat2.size(1)}, mat1);
  const double b = beta.to_double();
  if (b != 0) {
    // A Linear layer's bias, row by row: the general broadcasting copy
    // costs more than the copying for a small batch. Large outputs keep it
    // for its threads.
    if (self.dim() == 1 && self.is_contiguous() && self.size(0) == out.size(1) &&
        out.device().is_cpu() && out.numel() <= kSerialRowsNumel) {
      cpu::copy_rows(out, self);
    } else {
      out.copy_(self.expand({mat1.size(0), mat2.size(1)}));
    }
  }
  gemm_into(out, mat1, mat2, alpha.to_double(), b);
  return out;
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  check_pair("bmm", a, b);
  check_bmm_shapes("bmm", a, b);
  Tensor out = new_result({a.size(0), a.size(1), b.size(2)}, a);
  bmm_into(out, a, b, 1, 0);
  return out;
}

Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, Scalar beta,
               Scalar alpha) {
  check_pair("baddbmm", batch1, batch2);
  check_bmm_shapes("baddbmm", batch1, batch2);
  check_defined("baddbmm", self);
  check_same_device("baddbmm", self, batch1);
  const SizeVec shape{batch1.size(0), batch1.size(1), batch2.size(2)};
  Tensor out = new_result(shape, batch1);
  const double b = beta.to_double();
  if (b != 0) out.copy_(self.expand(shape));
  bmm_into(out, batch1, batch2, alpha.to_double(), b);
  return out;
}

Tensor mv(const Tensor& mat, const Tensor& vec) {
  check_pair("mv", mat, vec);
  check_dim("mv", "self", mat, 2);
  check_dim("mv", "vec", vec, 1);
  TORCHLET_CHECK(mat.size(1) == vec.size(0), "mv: size mismatch, got input (", mat.size(0),
                 "), mat (", mat.size(0), "x", mat.size(1), "), vec (", vec.size(0), ")");
  Tensor out = new_result({mat.size(0), 1}, mat);
  gemm_into(out, mat, vec.unsqueeze(1), 1, 0);
  return out.squeeze(1);
}

Tensor dot(const Tensor& a, const Tensor& b) {
  check_pair("dot", a, b);
  TORCHLET_CHECK(a.dim() == 1 && b.dim() == 1, "dot: 1D tensors expected, but got ", a.dim(),
                 "D and ", b.dim(), "D tensors");
  TORCHLET_CHECK(a.size(0) == b.size(0), "dot: inconsistent tensor size, expected tensor [",
                 a.size(0), "] and src [", b.size(0), "] to have the same number of elements, "
                 "but got ", a.size(0), " and ", b.size(0), " elements respectively");
  Tensor out = new_result({1, 1}, a);
  gemm_into(out, a.unsqueeze(0), b.unsqueeze(1), 1, 0);
  return out.view({});
}

Tensor outer(const Tensor& a, const Tensor& b) {
  check_defined("outer", a);
  check_defined("outer", b);
  TORCHLET_CHECK(a.dim() == 1 && b.dim() == 1, "outer: expected 1D tensors, but got ", a.dim(),
                 "D and ", b.dim(), "D tensors");
  return a.unsqueeze(1) * b.unsqueeze(0);
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  check_defined("matmul", a);
  check_defined("matmul", b);
  const int64_t da = a.dim(), db = b.dim();
  TORCHLET_CHECK(da > 0 && db > 0, "matmul: both arguments to matmul need to be at least 1D, but "
                 "they are ", da, "D and ", db, "D");
  if (da == 1 && db == 1) return dot(a, b);
  if (da == 2 && db == 1) return mv(a, b);
  if (da == 1 && db == 2) return mm(a.unsqueeze(0), b).squeeze(0);
  if (da == 2 && db == 2) return mm(a, b);
  if (da >= 3 && db <= 2) {
    // Fold a's batch dims into its rows: one large mm.
    const Tensor b2 = db == 1 ? b.unsqueeze(1) : b;
    SizeVec shape(a.sizes().begin(), a.sizes().end() - 1);
    Tensor out = mm(a.reshape({-1, a.size(-1)}), b2);
    if (db == 2) shape.push_back(b.size(1));
    return out.view(shape);
  }
  // Batched: broadcast the batch dims, then bmm.
  const Tensor a2 = da == 1 ? a.unsqueeze(0) : a;
  const Tensor b2 = db == 1 ? b.unsqueeze(1) : b;
  const IntArrayRef a_batch = a2.sizes().subspan(0, a2.dim() - 2);
  const IntArrayRef b_batch = b2.sizes().subspan(0, b2.dim() - 2);
  const SizeVec batch = broadcast_shapes(a_batch, b_batch, "matmul");
  int64_t batch_numel = 1;
  for (int64_t s : batch) batch_numel *= s;
  const int64_t n = a2.size(-2), k = a2.size(-1), p = b2.size(-1);
  TORCHLET_CHECK(k == b2.size(-2), "matmul: mat1 and mat2 shapes cannot be multiplied (", n, "x",
                 k, " and ", b2.size(-2), "x", p, ")");
  SizeVec a_shape = batch, b_shape = batch;
  a_shape.insert(a_shape.end(), {n, k});
  b_shape.insert(b_shape.end(), {k, p});
  Tensor out = bmm(a2.expand(a_shape).reshape({batch_numel, n, k}),
                   b2.expand(b_shape).reshape({batch_numel, k, p}));
  SizeVec out_shape = batch;
  if (da > 1) out_shape.push_back(n);
  if (db > 1) out_shape.push_back(p);
  return out.view(out_shape);
}

Tensor Tensor::mm(const Tensor& other) const { return torchlet::mm(*this, other); }
Tensor Tensor::bmm(const Tensor& other) const { return torchlet::bmm(*this, other); }
Tensor Tensor::matmul(const Tensor& other) const { return torchlet::matmul(*this, other); }
Tensor Tensor::mv(const Tensor& vec) const { return torchlet::mv(*this, vec); }
Tensor Tensor::dot(const Tensor& other) const { return torchlet::dot(*this, other); }
Tensor Tensor::outer(const Tensor& other) const { return torchlet::outer(*this, other); }
Tensor Tensor::addmm(const Tensor& mat1, const Tensor& mat2, Scalar beta, Scalar alpha) const {
  return torchlet::addmm(*this, mat1, mat2, beta, alpha);
}
Tensor Tensor::baddbmm(const Tensor& batch1, const Tensor& batch2, Scalar beta,
                       Scalar alpha) const {
  return torchlet::baddbmm(*this, batch1, batch2, beta, alpha);
}

// ---- einsum and the other products ------------------------------------------

Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands) {
  std::vector<SizeVec> shapes;
  shapes.reserve(operands.size());
  for (const Tensor& t : operands) {
    check_defined("einsum", t);
    shapes.emplace_back(t.sizes().begin(), t.sizes().end());
  }
  EinsumPlan plan = plan_einsum(equation, shapes);
  return apply_einsum(plan, operands);
}

Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims) {
  const auto [dims_a, dims_b] = tensordot_dims(dims);
  return tensordot(a, b, dims_a, dims_b);
}

Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b) {
  check_defined("tensordot", a);
  check_defined("tensordot", b);
  const TensordotPlan plan = plan_tensordot(a.sizes(), b.sizes(), dims_a, dims_b);
  const Tensor sa = plan.a_sum.empty() ? a : a.sum(plan.a_sum, true);
  const Tensor sb = plan.b_sum.empty() ? b : b.sum(plan.b_sum, true);
  return mm(sa.permute(plan.a_permutation).reshape(plan.a_shape),
            sb.permute(plan.b_permutation).reshape(plan.b_shape))
      .view(plan.result_shape);
}

Tensor kron(const Tensor& a, const Tensor& b) {
  check_defined("kron", a);
  check_defined("kron", b);
  const KronPlan plan = plan_kron(a.sizes(), b.sizes());
  return (a.reshape(plan.a_shape) * b.reshape(plan.b_shape)).view(plan.result_shape);
}

namespace {

// The components along `dim` rotated by one ({1, 2, 0}) or two ({2, 0, 1}).
Tensor rotate3(const Tensor& t, int64_t dim, int64_t by) {
  const Tensor index = by == 1 ? tensor({int64_t{1}, int64_t{2}, int64_t{0}})
                               : tensor({int64_t{2}, int64_t{0}, int64_t{1}});
  return t.index_select(dim, index.to(t.device()));
}

}  // namespace

namespace linalg {

Tensor cross(const Tensor& a, const Tensor& b, int64_t dim) {
  const int64_t d = check_cross(a, b, dim);
  return rotate3(a, d, 1) * rotate3(b, d, 2) - rotate3(a, d, 2) * rotate3(b, d, 1);
}

Tensor vecdot(const Tensor& x, const Tensor& y, int64_t dim) {
  check_vecdot(x, y);
  return (x * y).sum({dim});
}

Tensor multi_dot(const std::vector<Tensor>& tensors) {
  std::vector<SizeVec> shapes;
  std::vector<DType> dtypes;
  std::vector<Device> devices;
  for (const Tensor& t : tensors) {
    check_defined("multi_dot", t);
    shapes.emplace_back(t.sizes().begin(), t.sizes().end());
    dtypes.push_back(t.dtype());
    devices.push_back(t.device());
  }
  const MultiDotPlan plan = plan_multi_dot(shapes, dtypes, devices);
  std::vector<Tensor> mats = tensors;
  if (mats.front().dim() == 1) mats.front() = mats.front().unsqueeze(0);
  if (mats.back().dim() == 1) mats.back() = mats.back().unsqueeze(1);
  return apply_multi_dot(plan, mats, 0, mats.size() - 1).view(plan.result_shape);
}

}  // namespace linalg

Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim) {
  check_defined("cross", a);
  return linalg::cross(a, b, default_cross_dim(dim, a.sizes()));
}

Tensor Tensor::cross(const Tensor& other, std::optional<int64_t> dim) const {
  return torchlet::cross(*this, other, dim);
}
Tensor Tensor::kron(const Tensor& other) const { return torchlet::kron(*this, other); }

// ---- Norms ---------------------------------------------------------------------

namespace linalg {

Tensor vector_norm(const Tensor& x, double ord, IntArrayRef dim, bool keepdim,
                   std::optional<DType> dtype) {
  check_vector_norm(x, ord, dim, dtype);
  const Tensor in = dtype && *dtype != x.dtype() ? x.to(*dtype) : x;
  return in.norm(ord, dim, keepdim);
}

Tensor matrix_norm(const Tensor& a, const std::string& ord, IntArrayRef dim, bool keepdim,
                   std::optional<DType> dtype) {
  check_matrix_norm_order(ord);
  const auto [d0, d1] = check_matrix_norm(a, dim, dtype);
  if (ord == "fro") return vector_norm(a, 2, {d0, d1}, keepdim, dtype);
  // The nuclear norm: the sum of the singular values of the matrices moved
  // to the last two dims.
  const Tensor in = dtype && *dtype != a.dtype() ? a.to(*dtype) : a;
  Tensor result = svdvals(in.permute(matrix_last_permutation(in.dim(), d0, d1))).sum({-1});
  return keepdim ? result.unsqueeze(std::min(d0, d1)).unsqueeze(std::max(d0, d1)) : result;
}

Tensor matrix_norm(const Tensor& a, double ord, IntArrayRef dim, bool keepdim,
                   std::optional<DType> dtype) {
  check_matrix_norm_order(ord);
  const double abs_ord = std::abs(ord);
  auto [d0, d1] = check_matrix_norm(a, dim, dtype);
  if (abs_ord == 2) {
    // The largest (smallest) singular value.
    const Tensor in = dtype && *dtype != a.dtype() ? a.to(*dtype) : a;
    const Tensor s = svdvals(in.permute(matrix_last_permutation(in.dim(), d0, d1)));
    Tensor result = ord > 0 ? s.amax({-1}) : s.amin({-1});
    return keepdim ? result.unsqueeze(std::min(d0, d1)).unsqueeze(std::max(d0, d1)) : result;
  }
  // The inf norm is the 1 norm of the transpose: the largest (smallest)
  // absolute row sum.
  if (std::isinf(abs_ord)) std::swap(d0, d1);
  if (!keepdim && d0 < d1) --d1;
  const Tensor sums = vector_norm(a, 1, {d0}, keepdim, dtype);
  return ord > 0 ? sums.amax({d1}, keepdim) : sums.amin({d1}, keepdim);
}

Tensor norm(const Tensor& a, std::optional<double> ord, std::optional<std::vector<int64_t>> dim,
            bool keepdim, std::optional<DType> dtype) {
  const LinalgNormPlan plan = plan_linalg_norm(a, ord.has_value(), false, dim);
  if (plan.matrix) return matrix_norm(a, *ord, plan.dim, keepdim, dtype);
  return vector_norm(a, ord.value_or(2), plan.dim, keepdim, dtype);
}

Tensor norm(const Tensor& a, const std::string& ord, std::optional<std::vector<int64_t>> dim,
            bool keepdim, std::optional<DType> dtype) {
  const LinalgNormPlan plan = plan_linalg_norm(a, true, true, dim);
  return matrix_norm(a, ord, plan.dim, keepdim, dtype);
}

}  // namespace linalg

// ---- cdist -------------------------------------------------------------------------

namespace {

// compute_mode as PyTorch numbers it: 0 (if necessary), 1 (always), 2 (never).
int cdist_mode(const std::string& compute_mode) {
  if (compute_mode == "use_mm_for_euclid_dist_if_necessary") return 0;
  if (compute_mode == "use_mm_for_euclid_dist") return 1;
  TORCHLET_CHECK(compute_mode == "donot_use_mm_for_euclid_dist", "cdist: ", compute_mode,
                 " is not a valid value for compute_mode");
  return 2;
}

void check_cdist(const Tensor& x1, const Tensor& x2, double p) {
  check_defined("cdist", x1);
  check_defined("cdist", x2);
  TORCHLET_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(),
                 "D");
  TORCHLET_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(),
                 "D");
  TORCHLET_CHECK(x1.size(-1) == x2.size(-1), "cdist: X1 and X2 must have the same number of "
                 "columns. X1: ", x1.size(-1), " X2: ", x2.size(-1));
  TORCHLET_CHECK(x1.is_floating_point(), "cdist only supports floating-point dtypes, X1 got: ",
                 scalar_type_name(x1.dtype()));
  TORCHLET_CHECK(x2.is_floating_point(), "cdist only supports floating-point dtypes, X2 got: ",
                 scalar_type_name(x2.dtype()));
  TORCHLET_CHECK(p >= 0, "cdist only supports non-negative p values");
  TORCHLET_CHECK(x1.dtype() == x2.dtype(), "cdist: expected scalar type ",
                 scalar_type_name(x1.dtype()), " but found ", scalar_type_name(x2.dtype()));
  check_same_device("cdist", x1, x2);
}

// x1 and x2 expanded to their common batch shape and flattened to 3-D, and
// the output's shape.
struct CdistOperands {
  Tensor x1, x2;
  SizeVec out_shape;
  SizeVec batch;
};
CdistOperands cdist_operands(const Tensor& x1, const Tensor& x2) {
  SizeVec batch = broadcast_shapes(x1.sizes().subspan(0, x1.dim() - 2),
                                   x2.sizes().subspan(0, x2.dim() - 2), "cdist");
  int64_t batch_numel = 1;
  for (int64_t s : batch) batch_numel *= s;
  const int64_t p1 = x1.size(-2), p2 = x2.size(-2), m = x1.size(-1);
  SizeVec s1 = batch, s2 = batch, out = batch;
  s1.insert(s1.end(), {p1, m});
  s2.insert(s2.end(), {p2, m});
  out.insert(out.end(), {p1, p2});
  return {x1.expand(s1).reshape({batch_numel, p1, m}), x2.expand(s2).reshape({batch_numel, p2, m}),
          out, batch};
}

// Whether cdist's own CPU loops take these operands (float32 and float64).
bool runs_cdist_kernel(const Tensor& x) {
  return x.device().is_cpu() && (x.dtype() == kFloat32 || x.dtype() == kFloat64);
}

// A gradient over the expanded, flattened batch summed back to `x`'s shape.
Tensor sum_to_input(const Tensor& g, const Tensor& x, IntArrayRef batch) {
  SizeVec full(batch.begin(), batch.end());
  full.insert(full.end(), {x.size(-2), x.size(-1)});
  const int64_t lead = static_cast<int64_t>(full.size()) - x.dim();
  SizeVec dims;
  for (int64_t d = 0; d < static_cast<int64_t>(full.size()); ++d) {
    if (d < lead || (x.size(d - lead) == 1 && full[d] != 1)) dims.push_back(d);
  }
  const Tensor expanded = g.reshape(full);
  return dims.empty() ? expanded : expanded.sum(dims, true).reshape(x.sizes());
}

}  // namespace

bool cdist_uses_mm(const Tensor& x1, const Tensor& x2, double p,
                   const std::string& compute_mode) {
  const int mode = cdist_mode(compute_mode);
  if (p != 2 || x1.numel() == 0 || x2.numel() == 0) return false;
  return mode == 1 || (mode == 0 && (x1.size(-2) > 25 || x2.size(-2) > 25));
}

Tensor cdist(const Tensor& x1, const Tensor& x2, double p, const std::string& compute_mode) {
  check_cdist(x1, x2, p);
  const bool use_mm = cdist_uses_mm(x1, x2, p, compute_mode);
  const CdistOperands ops = cdist_operands(x1, x2);
  if (ops.x1.numel() == 0 || ops.x2.numel() == 0) {
    // No rows, or no columns (every distance is then 0).
    return zeros(ops.out_shape, x1.options());
  }
  if (use_mm) {
    // |a - b|^2 = |a|^2 + |b|^2 - 2 a.b, one batched product; rounding can
    // make it slightly negative, so it is clamped before the square root.
    const Tensor n1 = ops.x1.pow(2).sum({-1}, true);
    const Tensor n2 = ops.x2.pow(2).sum({-1}, true).transpose(1, 2);
    Tensor sq = (n1 + n2).baddbmm(ops.x1, ops.x2.transpose(1, 2), 1, -2);
    return sq.clamp_(0).sqrt_().view(ops.out_shape);
  }
  if (runs_cdist_kernel(ops.x1)) {
    Tensor out = empty({ops.x1.size(0), ops.x1.size(1), ops.x2.size(1)}, x1.options());
    cpu::cdist(out, ops.x1.contiguous(), ops.x2.contiguous(), p);
    return out.view(ops.out_shape);
  }
  // On a GPU (and for 16-bit floats): every pair's difference, reduced along
  // the columns.
  const Tensor diff = ops.x1.unsqueeze(2) - ops.x2.unsqueeze(1);
  return diff.norm(p, {-1}).view(ops.out_shape);
}

std::vector<Tensor> cdist_backward(const Tensor& grad_in, const Tensor& x1, const Tensor& x2,
                                   double p, const Tensor& dist_in, bool used_mm) {
  const CdistOperands ops = cdist_operands(x1, x2);
  const int64_t batches = ops.x1.size(0);
  const Tensor grad = grad_in.reshape({batches, ops.x1.size(1), ops.x2.size(1)});
  const Tensor dist = dist_in.reshape(grad.sizes());
  Tensor g1, g2;
  if (used_mm) {
    // PyTorch's _euclidean_dist_backward.
    const Tensor ratio = (grad / dist).masked_fill(dist.eq(0), 0);
    g1 = ops.x1 * ratio.sum({-1}, true) - ratio.bmm(ops.x2);
    g2 = ops.x2 * ratio.sum({-2}).unsqueeze(-1) - ratio.transpose(1, 2).bmm(ops.x1);
  } else if (p == 0 || ops.x1.numel() == 0 || ops.x2.numel() == 0) {
    g1 = zeros(ops.x1.sizes(), ops.x1.options());
    g2 = zeros(ops.x2.sizes(), ops.x2.options());
  } else if (runs_cdist_kernel(ops.x1)) {
    g1 = empty(ops.x1.sizes(), ops.x1.options());
    g2 = empty(ops.x2.sizes(), ops.x2.options());
    cpu::cdist_backward(g1, g2, grad.contiguous(), ops.x1.contiguous(), ops.x2.contiguous(),
                        dist.contiguous(), p);
  } else {
    // PyTorch's _cdist_backward: each pair's term, summed over the other
    // operand's rows (the second operand's with the sign flipped).
    const Tensor diff = ops.x1.unsqueeze(2) - ops.x2.unsqueeze(1);
    const Tensor g = grad.unsqueeze(-1);
    const Tensor d = dist.unsqueeze(-1);
    const Tensor zero_dist = d.eq(0);
    Tensor term;
    if (p == 1) {
      term = g * diff.sign();
    } else if (p == 2) {
      term = (g * diff / d).masked_fill(zero_dist, 0);
    } else if (std::isinf(p)) {
      term = g * diff.sign() * diff.abs().eq(d);
    } else if (p < 2) {
      term = (diff.sign() * diff.abs().pow(p - 1) * g / d.pow(p - 1)).masked_fill(zero_dist, 0);
      if (p < 1) term = term.masked_fill(diff.eq(0), 0);
    } else {
      term = (diff * diff.abs().pow(p - 2) * g / d.pow(p - 1)).masked_fill(zero_dist, 0);
    }
    g1 = term.sum({2});
    g2 = term.sum({1}).neg();
  }
  return {sum_to_input(g1, x1, ops.batch), sum_to_input(g2, x2, ops.batch)};
}

}  // namespace torchlet
