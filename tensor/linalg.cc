// Matrix products: validation and shape logic here; the arithmetic is the
// Eigen kernel in cpu/gemm.cc, split across the device's intra-op threads.
#include "tensor/linalg.h"

#include "tensor/cpu/gemm.h"
#include "tensor/cpu/kernels.h"
#include "tensor/cpu/reduced_float.h"
#include "tensor/cuda/kernels.h"
#include "tensor/elementwise.h"
#include "tensor/factories.h"
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
Tensor gemm_operand(const Tensor& m) {
  const int64_t s0 = m.stride(0), s1 = m.stride(1);
  const bool row_major = s1 == 1 && (s0 == 0 || s0 >= std::max<int64_t>(m.size(1), 1));
  const bool col_major = s0 == 1 && (s1 == 0 || s1 >= std::max<int64_t>(m.size(0), 1));
  if (row_major || col_major) return m;
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
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) gemm_into(out[i], a[i], b[i], alpha, beta);
  };
  // Many small products: one per thread; few large ones: each splits itself.
  // On a GPU each product is queued in turn.
  if (flops < (1 << 16) && out.device().is_cpu()) {
    parallel_for(0, batches, std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(flops, 1)), run);
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

}  // namespace torchlet
