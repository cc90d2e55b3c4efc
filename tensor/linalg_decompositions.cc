// Matrix decompositions and solvers: validation, batching and dispatch here;
// the factorizations are the Eigen kernels of cpu/linalg_kernels.cc. A CUDA
// tensor is factored on the CPU and the results copied back (a round trip,
// as Tensor::nonzero makes; cuSOLVER kernels would remove it). pinv,
// matrix_rank, matrix_power and matrix_exp compose other ops and run on
// any device.
#include "tensor/linalg_decompositions.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "tensor/cpu/linalg_kernels.h"
#include "tensor/elementwise.h"
#include "tensor/factories.h"
#include "tensor/linalg.h"
#include "tensor/op_utils.h"
#include "tensor/reduction.h"
#include "tensor/warning.h"

namespace torchlet {
namespace {

const Device kHost(kCPU, 0);

constexpr const char* kCholeskyDeprecated =
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
    "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
    "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\n"
    "should be replaced with\nU = torch.linalg.cholesky(A).mH().\nThis transform will produce "
    "equivalent results for all valid (symmetric positive definite) inputs.";

// PyTorch's checks of a linear-algebra input (linalg.inv and most others):
// at least 2 dims, then (for `square` ops) square matrices, then float32
// or float64.
void check_input(const char* op, const Tensor& a, bool square) {
  check_defined(op, a);
  TORCHLET_CHECK(a.dim() >= 2, op, ": The input tensor A must have at least 2 dimensions.");
  if (square) {
    TORCHLET_CHECK(a.size(-1) == a.size(-2), op,
                   ": A must be batches of square matrices, but they are ", a.size(-2), " by ",
                   a.size(-1), " matrices");
  }
  TORCHLET_CHECK(!is_reduced_floating_point(a.dtype()), op,
                 ": Low precision dtypes not supported. Got ", scalar_type_name(a.dtype()));
  TORCHLET_CHECK(a.is_floating_point(), op,
                 ": Expected a floating point or complex tensor as input. Got ",
                 scalar_type_name(a.dtype()));
}

bool is_float_or_double(DType d) { return d == kFloat32 || d == kFloat64; }

SizeVec batch_shape(const Tensor& a) {
  return SizeVec(a.sizes().begin(), a.sizes().end() - 2);
}

int64_t product(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

SizeVec with_matrix(IntArrayRef batch, int64_t rows, int64_t cols) {
  SizeVec s(batch.begin(), batch.end());
  s.push_back(rows);
  s.push_back(cols);
  return s;
}

SizeVec with_vector(IntArrayRef batch, int64_t n) {
  SizeVec s(batch.begin(), batch.end());
  s.push_back(n);
  return s;
}

// `a` (a CPU tensor) as the kernels read it: contiguous [batch, rows, cols].
Tensor as_batch(const Tensor& a) {
  const int64_t rows = a.size(-2), cols = a.size(-1);
  return a.contiguous().view({product(batch_shape(a)), rows, cols});
}

// A fresh [batch..., rows, cols] tensor and its [batch, rows, cols] view.
Tensor new_matrices(IntArrayRef batch, int64_t rows, int64_t cols, const Tensor& like) {
  return empty(with_matrix(batch, rows, cols), like.options());
}
Tensor flat(const Tensor& t) {
  return t.view({product(batch_shape(t)), t.size(-2), t.size(-1)});
}

// Throws `op`'s error for the first batch element whose info is nonzero;
// `describe` words the failure from the info value.
template <typename Describe>
void check_infos(const char* op, const std::vector<int64_t>& info, bool batched,
                 Describe describe) {
  for (size_t i = 0; i < info.size(); ++i) {
    if (info[i] == 0) continue;
    TORCHLET_CHECK(!batched, op, ": (Batch element ", i, "): ", describe(info[i]));
    TORCHLET_CHECK(false, op, ": ", describe(info[i]));
  }
}

std::string singular_inverse(int64_t info) {
  return detail::str_cat("The diagonal element ", info,
                 " is zero, the inversion could not be completed because the input matrix is "
                 "singular.");
}

std::string not_positive_definite(int64_t info) {
  return detail::str_cat("The factorization could not be completed because the input is not "
                 "positive-definite (the leading minor of order ", info,
                 " is not positive-definite).");
}

// gesdd's failures: a NaN in the input (info -4), or no convergence.
std::string svd_failure(int64_t info) {
  if (info < 0) {
    return "The algorithm failed to converge because the input matrix contained non-finite "
           "values.";
  }
  return detail::str_cat("The algorithm failed to converge because the input matrix is "
                         "ill-conditioned or has too many repeated singular values (error code: ",
                         info, ").");
}

// The inverse of each matrix of the CPU tensor `a`; `op` names errors.
Tensor inverse_cpu(const char* op, const Tensor& a) {
  Tensor out = new_matrices(batch_shape(a), a.size(-1), a.size(-1), a);
  if (out.numel() == 0) return out;
  std::vector<int64_t> info(product(batch_shape(a)));
  cpu::lu_inverse(as_batch(a), flat(out), info);
  check_infos(op, info, a.dim() > 2, singular_inverse);
  return out;
}

// (det, sign, logabsdet) as asked for; the others stay undefined.
std::tuple<Tensor, Tensor, Tensor> lu_det(const Tensor& a, bool det, bool slog) {
  if (a.is_cuda()) {
    auto [d, s, l] = lu_det(a.to(kHost), det, slog);
    return {det ? d.to(a.device()) : d, slog ? s.to(a.device()) : s,
            slog ? l.to(a.device()) : l};
  }
  const SizeVec batch = batch_shape(a);
  Tensor d = det ? empty(batch, a.options()) : Tensor();
  Tensor s = slog ? empty(batch, a.options()) : Tensor();
  Tensor l = slog ? empty(batch, a.options()) : Tensor();
  if (product(batch) > 0) {
    const int64_t n = product(batch);
    cpu::lu_det(as_batch(a), det ? d.view({n}) : d, slog ? s.view({n}) : s,
                slog ? l.view({n}) : l);
  }
  return {d, s, l};
}

// Whether B holds vectors for A X = B (linalg.solve's rule).
bool is_vector_rhs(const Tensor& a, const Tensor& b) {
  if (b.dim() == 1) return true;
  if (b.dim() != a.dim() - 1) return false;
  return b.sizes() == a.sizes().subspan(0, a.dim() - 1);
}

// A and B with their batch dims broadcast, each contiguous [batch, r, c];
// `batch` gets the broadcast batch shape.
std::pair<Tensor, Tensor> broadcast_batches(const Tensor& a, const Tensor& b, const char* op,
                                            SizeVec& batch) {
  batch = broadcast_shapes(batch_shape(a), batch_shape(b), op);
  const Tensor ea = a.expand(with_matrix(batch, a.size(-2), a.size(-1)));
  const Tensor eb = b.expand(with_matrix(batch, b.size(-2), b.size(-1)));
  return {as_batch(ea), as_batch(eb)};
}

Tensor cholesky_cpu(const char* op, const Tensor& a, bool upper) {
  Tensor out = new_matrices(batch_shape(a), a.size(-1), a.size(-1), a);
  if (out.numel() == 0) return out;
  std::vector<int64_t> info(product(batch_shape(a)));
  cpu::cholesky(as_batch(a), flat(out), upper, info);
  check_infos(op, info, a.dim() > 2, not_positive_definite);
  return out;
}

// X = (L L^T)^-1 B on the CPU, batch dims broadcast.
Tensor cholesky_solve_cpu(const Tensor& b, const Tensor& l, bool upper) {
  SizeVec batch;
  auto [fl, fb] = broadcast_batches(l, b, "cholesky_solve", batch);
  Tensor x = new_matrices(batch, b.size(-2), b.size(-1), b);
  if (x.numel() == 0) return x;
  cpu::cholesky_solve(fb, fl, flat(x), upper);
  return x;
}

void check_uplo(const std::string& uplo) {
  TORCHLET_CHECK(uplo == "L" || uplo == "U",
                 "Expected UPLO argument to be 'L' or 'U', but got ", uplo);
}

void check_eigh_input(const Tensor& a) {
  check_defined("linalg.eigh", a);
  TORCHLET_CHECK(a.dim() >= 2, "linalg.eigh: The input tensor A must have at least 2 dimensions.");
  TORCHLET_CHECK(a.size(-1) == a.size(-2),
                 "linalg.eigh: A must be batches of square matrices, but they are ", a.size(-2),
                 " by ", a.size(-1), " matrices");
  TORCHLET_CHECK(is_float_or_double(a.dtype()), "\"linalg_eigh_cpu\" not implemented for '",
                 scalar_type_name(a.dtype()), "'");
}

std::tuple<Tensor, Tensor> eigh_impl(const Tensor& a, const std::string& uplo, bool vectors) {
  check_eigh_input(a);
  check_uplo(uplo);
  if (a.is_cuda()) {
    auto [w, v] = eigh_impl(a.to(kHost), uplo, vectors);
    return {w.to(a.device()), vectors ? v.to(a.device()) : v};
  }
  const SizeVec batch = batch_shape(a);
  const int64_t n = a.size(-1);
  Tensor w = empty(with_vector(batch, n), a.options());
  Tensor v = vectors ? new_matrices(batch, n, n, a) : Tensor();
  if (w.numel() > 0) {
    cpu::eigh(as_batch(a), w.view({product(batch), n}), vectors ? flat(v) : v, uplo == "U");
  }
  return {w, v};
}

// (U, S, Vh); U and Vh only with `vectors`.
std::tuple<Tensor, Tensor, Tensor> svd_impl(const Tensor& a, bool full_matrices, bool vectors) {
  check_input("linalg.svd", a, false);
  if (a.is_cuda()) {
    auto [u, s, vh] = svd_impl(a.to(kHost), full_matrices, vectors);
    return {vectors ? u.to(a.device()) : u, s.to(a.device()),
            vectors ? vh.to(a.device()) : vh};
  }
  const SizeVec batch = batch_shape(a);
  const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n);
  Tensor s = empty(with_vector(batch, k), a.options());
  Tensor u, vh;
  if (vectors) {
    u = new_matrices(batch, m, full_matrices ? m : k, a);
    vh = new_matrices(batch, full_matrices ? n : k, n, a);
  }
  if (product(batch) > 0 && (s.numel() > 0 || (vectors && full_matrices))) {
    std::vector<int64_t> info(product(batch));
    cpu::svd(as_batch(a), vectors ? flat(u) : u, s.view({product(batch), k}),
             vectors ? flat(vh) : vh, info);
    check_infos("linalg.svd", info, a.dim() > 2, svd_failure);
  }
  return {u, s, vh};
}

// The tolerance pinv and matrix_rank compare singular values with, per
// matrix: max(atol, rtol * largest) with `largest` [batch...].
Tensor tolerance(const Tensor& largest, int64_t m, int64_t n, std::optional<double> atol,
                 std::optional<double> rtol) {
  const double eps = largest.dtype() == kFloat64 ? std::numeric_limits<double>::epsilon()
                                                 : std::numeric_limits<float>::epsilon();
  const double r =
      rtol ? *rtol : ((atol && *atol > 0) ? 0.0 : eps * static_cast<double>(std::max(m, n)));
  return maximum(largest.mul(r), full_like(largest, atol.value_or(0.0)));
}

// Singular values (or eigenvalue magnitudes) largest first along the last
// dim, or eigenvalues of either sign: the largest magnitude, [batch..., 1].
Tensor largest_magnitude(const Tensor& values) {
  if (values.size(-1) == 0) return zeros(with_vector(batch_shape(values.unsqueeze(-1)), 1),
                                         values.options());
  return values.abs().amax({-1}, true);
}

void check_pinv_input(const char* op, const Tensor& a) {
  check_defined(op, a);
  TORCHLET_CHECK(a.dim() >= 2 && is_float_or_double(a.dtype()), op, "(",
                 scalar_type_name(a.dtype()), "{", shape_str(a.sizes()), "}): expected a tensor "
                 "with 2 or more dimensions of float, double, cfloat or cdouble types");
}

// A^s for s = 2^k by repeated squaring, or the Taylor polynomial of exp.
Tensor matrix_exp_impl(const Tensor& a) {
  const int64_t n = a.size(-1);
  const Tensor eye_n = eye(n, a.options());
  if (a.numel() == 0) return a.clone();
  // Scale so that the 1-norm is at most 1/2, sum the Taylor series, then
  // square back: the series' remainder is below the dtype's eps.
  const double norm = a.abs().sum({-2}).amax().item<double>();
  int64_t squarings = 0;
  if (std::isfinite(norm) && norm > 0.5) {
    squarings = static_cast<int64_t>(std::ceil(std::log2(norm / 0.5)));
  }
  const int degree = a.dtype() == kFloat64 ? 14 : 8;
  const Tensor x = squarings > 0 ? a.div(std::ldexp(1.0, static_cast<int>(squarings))) : a;
  // Horner: I + x (I + x/2 (I + x/3 (...))).
  Tensor e = eye_n.add(x.div(degree));
  for (int j = degree - 1; j >= 1; --j) e = eye_n.add(matmul(x, e).div(j));
  for (int64_t i = 0; i < squarings; ++i) e = matmul(e, e);
  return e;
}

}  // namespace

namespace linalg {

Tensor inv(const Tensor& a) {
  check_input("linalg.inv", a, true);
  if (a.is_cuda()) return inverse_cpu("linalg.inv", a.to(kHost)).to(a.device());
  return inverse_cpu("linalg.inv", a);
}

Tensor det(const Tensor& a) {
  check_input("linalg.det", a, true);
  return std::get<0>(lu_det(a, true, false));
}

std::tuple<Tensor, Tensor> slogdet(const Tensor& a) {
  check_input("linalg.slogdet", a, true);
  auto [d, s, l] = lu_det(a, false, true);
  return {s, l};
}

Tensor solve(const Tensor& a, const Tensor& b) {
  const char* op = "linalg.solve";
  check_defined(op, a);
  check_defined(op, b);
  TORCHLET_CHECK(a.dim() >= 2, op, ": The input tensor A must have at least 2 dimensions.");
  TORCHLET_CHECK(a.is_floating_point(), op,
                 ": Expected a floating point or complex tensor as input. Got ",
                 scalar_type_name(a.dtype()));
  TORCHLET_CHECK(a.dtype() == b.dtype(), op,
                 ": Expected A and B to have the same dtype, but found A of type ",
                 scalar_type_name(a.dtype()), " and B of type ", scalar_type_name(b.dtype()),
                 " instead");
  check_same_device(op, a, b);
  TORCHLET_CHECK(a.size(-1) == a.size(-2), op,
                 ": A must be batches of square matrices, but they are ", a.size(-2), " by ",
                 a.size(-1), " matrices");
  // PyTorch's words, though one dimension is enough.
  TORCHLET_CHECK(b.dim() >= 1, op, ": The input tensor B must have at least 2 dimensions.");
  const bool vector = is_vector_rhs(a, b);
  const Tensor bm = vector ? b.unsqueeze(-1) : b;
  TORCHLET_CHECK(bm.size(-2) == a.size(-1), op,
                 ": Incompatible shapes of A and B for the equation AX = B (", a.size(-2), "x",
                 a.size(-1), " and ", bm.size(-2), "x", bm.size(-1), ")");
  TORCHLET_CHECK(!is_reduced_floating_point(a.dtype()), "\"lu_cpu\" not implemented for '",
                 scalar_type_name(a.dtype()), "'");
  if (a.is_cuda()) return solve(a.to(kHost), b.to(kHost)).to(a.device());
  SizeVec batch;
  auto [fa, fb] = broadcast_batches(a, bm, op, batch);
  Tensor x = new_matrices(batch, bm.size(-2), bm.size(-1), b);
  if (x.numel() > 0) {
    std::vector<int64_t> info(product(batch));
    cpu::lu_solve(fa, fb, flat(x), info);
    check_infos("torch.linalg.solve", info, a.dim() > 2 || bm.dim() > 2, [](int64_t) {
      return std::string("The solver failed because the input matrix is singular.");
    });
  }
  return vector ? x.squeeze(-1) : x;
}

Tensor cholesky(const Tensor& a, bool upper) {
  check_input("linalg.cholesky", a, true);
  if (a.is_cuda()) return cholesky_cpu("linalg.cholesky", a.to(kHost), upper).to(a.device());
  return cholesky_cpu("linalg.cholesky", a, upper);
}

std::tuple<Tensor, Tensor> qr(const Tensor& a, const std::string& mode) {
  TORCHLET_CHECK(mode == "reduced" || mode == "complete" || mode == "r",
                 "qr received unrecognized mode '", mode,
                 "' but expected one of 'reduced' (default), 'r', or 'complete'");
  check_input("linalg.qr", a, false);
  if (a.is_cuda()) {
    auto [q, r] = qr(a.to(kHost), mode);
    return {q.to(a.device()), r.to(a.device())};
  }
  const SizeVec batch = batch_shape(a);
  const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n);
  const bool complete = mode == "complete";
  Tensor r = new_matrices(batch, complete ? m : k, n, a);
  Tensor q = mode == "r" ? empty({0}, a.options()) : new_matrices(batch, m, complete ? m : k, a);
  if (product(batch) > 0 && m > 0) {
    cpu::qr(as_batch(a), mode == "r" ? Tensor() : flat(q), flat(r));
  }
  return {q, r};
}

std::tuple<Tensor, Tensor> eigh(const Tensor& a, const std::string& uplo) {
  return eigh_impl(a, uplo, true);
}

Tensor eigvalsh(const Tensor& a, const std::string& uplo) {
  return std::get<0>(eigh_impl(a, uplo, false));
}

std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& a, bool full_matrices) {
  return svd_impl(a, full_matrices, true);
}

Tensor svdvals(const Tensor& a) { return std::get<1>(svd_impl(a, false, false)); }

Tensor pinv(const Tensor& a, std::optional<double> atol, std::optional<double> rtol,
            bool hermitian) {
  check_pinv_input("linalg.pinv", a);
  const int64_t m = a.size(-2), n = a.size(-1);
  if (a.numel() == 0) return empty(with_matrix(batch_shape(a), n, m), a.options());
  if (hermitian) {
    auto [w, v] = linalg::eigh(a, "L");
    const Tensor tol = tolerance(largest_magnitude(w), m, n, atol, rtol);
    const Tensor w_inv = where(w.abs().gt(tol), w.pow(-1), 0);
    return matmul(v.mul(w_inv.unsqueeze(-2)), v.transpose(-2, -1));
  }
  auto [u, s, vh] = linalg::svd(a, false);
  const Tensor tol = tolerance(largest_magnitude(s), m, n, atol, rtol);
  const Tensor s_inv = where(s.gt(tol), s.pow(-1), 0);
  return matmul(vh.transpose(-2, -1).mul(s_inv.unsqueeze(-2)), u.transpose(-2, -1));
}

Tensor matrix_rank(const Tensor& a, std::optional<double> atol, std::optional<double> rtol,
                   bool hermitian) {
  check_defined("torch.linalg.matrix_rank", a);
  TORCHLET_CHECK(a.dim() >= 2, "torch.linalg.matrix_rank: The input tensor input must have at "
                 "least 2 dimensions.");
  TORCHLET_CHECK(is_float_or_double(a.dtype()),
                 "This function doesn't handle types other than float and double");
  const Tensor values = hermitian ? eigvalsh(a, "L").abs() : svdvals(a);
  const Tensor tol = tolerance(largest_magnitude(values), a.size(-2), a.size(-1), atol, rtol);
  return values.gt(tol).sum({-1});
}

LstsqResult lstsq(const Tensor& a, const Tensor& b, std::optional<double> rcond,
                  std::optional<std::string> driver) {
  const char* op = "torch.linalg.lstsq";
  check_defined(op, a);
  check_defined(op, b);
  TORCHLET_CHECK(a.dim() >= 2, op, ": input must have at least 2 dimensions.");
  TORCHLET_CHECK(b.dim() >= 1, op, ": other must have at least 1 dimension.");
  TORCHLET_CHECK(is_float_or_double(a.dtype()),
                 "This function doesn't handle types other than float and double");
  TORCHLET_CHECK(a.dtype() == b.dtype(), op,
                 ": Expected input and other to have the same dtype, but got input's dtype ",
                 scalar_type_name(a.dtype()), " and other's dtype ", scalar_type_name(b.dtype()));
  check_same_device(op, a, b);
  const bool vector = b.dim() == a.dim() - 1;
  const Tensor bm = vector ? b.unsqueeze(-1) : b;
  TORCHLET_CHECK(a.size(-2) == bm.size(-2), op, ": input.size(-2) should match other.size(",
                 vector ? -1 : -2, ")");
  if (driver) {
    TORCHLET_CHECK(*driver == "gels" || *driver == "gelsy" || *driver == "gelsd" ||
                       *driver == "gelss",
                   op, ": parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
    TORCHLET_CHECK(*driver == "gelsy", op, ": only the driver gelsy is implemented, got ",
                   *driver);
  }
  if (a.is_cuda()) {
    LstsqResult r = lstsq(a.to(kHost), b.to(kHost), rcond, driver);
    return {r.solution.to(a.device()), r.residuals.to(a.device()), r.rank.to(a.device()),
            r.singular_values.to(a.device())};
  }
  const int64_t m = a.size(-2), n = a.size(-1);
  const double eps = a.dtype() == kFloat64 ? std::numeric_limits<double>::epsilon()
                                           : std::numeric_limits<float>::epsilon();
  const double threshold = rcond ? *rcond : eps * static_cast<double>(std::max(m, n));
  SizeVec batch;
  auto [fa, fb] = broadcast_batches(a, bm, op, batch);
  Tensor x = new_matrices(batch, n, bm.size(-1), a);
  Tensor rank = empty(batch, a.options().dtype(kInt64));
  if (product(batch) > 0) {
    cpu::lstsq(fa, fb, flat(x), rank.view({product(batch)}), threshold);
  }
  return {vector ? x.squeeze(-1) : x, empty({0}, a.options()), rank, empty({0}, a.options())};
}

Tensor matrix_power(const Tensor& a, int64_t n) {
  check_defined("linalg.matrix_power", a);
  TORCHLET_CHECK(a.dim() >= 2,
                 "linalg.matrix_power: The input tensor A must have at least 2 dimensions.");
  TORCHLET_CHECK(a.size(-1) == a.size(-2),
                 "linalg.matrix_power: A must be batches of square matrices, but they are ",
                 a.size(-2), " by ", a.size(-1), " matrices");
  if (n == 0) return eye(a.size(-1), a.options()).expand(a.sizes()).contiguous();
  if (n == 1) return a.clone();
  Tensor base = n < 0 ? inv(a) : a;
  uint64_t e = n < 0 ? static_cast<uint64_t>(-(n + 1)) + 1 : static_cast<uint64_t>(n);
  Tensor result;
  while (true) {
    if (e & 1) result = result.defined() ? matmul(result, base) : base;
    e >>= 1;
    if (e == 0) break;
    base = matmul(base, base);
  }
  return result.is_same(a) ? result.clone() : result;
}

Tensor matrix_exp(const Tensor& a) {
  check_defined("linalg.matrix_exp", a);
  TORCHLET_CHECK(a.dim() >= 2,
                 "linalg.matrix_exp: The input tensor A must have at least 2 dimensions.");
  TORCHLET_CHECK(a.size(-1) == a.size(-2),
                 "linalg.matrix_exp: A must be batches of square matrices, but they are ",
                 a.size(-2), " by ", a.size(-1), " matrices");
  TORCHLET_CHECK(is_float_or_double(a.dtype()),
                 "matrix_exp: Expected a floating point or complex tensor as input. Got ",
                 scalar_type_name(a.dtype()));
  return matrix_exp_impl(a);
}

}  // namespace linalg

Tensor det(const Tensor& a) { return linalg::det(a); }

Tensor logdet(const Tensor& a) {
  check_input("logdet", a, true);
  auto [d, s, l] = lu_det(a, false, true);
  // log(sign) is 0 for 1, nan for -1 and -inf for 0: PyTorch's logdet.
  return s.log().add(l);
}

std::tuple<Tensor, Tensor> slogdet(const Tensor& a) { return linalg::slogdet(a); }

Tensor inverse(const Tensor& a) { return linalg::inv(a); }

Tensor cholesky(const Tensor& a, bool upper) {
  warn(kCholeskyDeprecated);
  check_input("cholesky", a, true);
  if (a.is_cuda()) return cholesky_cpu("cholesky", a.to(kHost), upper).to(a.device());
  return cholesky_cpu("cholesky", a, upper);
}

Tensor cholesky_solve(const Tensor& b, const Tensor& l, bool upper) {
  check_defined("cholesky_solve", b);
  check_defined("cholesky_solve", l);
  TORCHLET_CHECK(b.dim() >= 2, "b should have at least 2 dimensions, but has ", b.dim(),
                 " dimensions instead");
  TORCHLET_CHECK(l.dim() >= 2, "u should have at least 2 dimensions, but has ", l.dim(),
                 " dimensions instead");
  TORCHLET_CHECK(b.dtype() == l.dtype(), "Expected b and A to have the same dtype, but found b "
                 "of type ", scalar_type_name(b.dtype()), " and A of type ",
                 scalar_type_name(l.dtype()), " instead.");
  TORCHLET_CHECK(is_float_or_double(b.dtype()), "\"cholesky_solve_cpu\" not implemented for '",
                 scalar_type_name(b.dtype()), "'");
  check_same_device("cholesky_solve", b, l);
  TORCHLET_CHECK(l.size(-1) == l.size(-2) && l.size(-1) == b.size(-2),
                 "Incompatible matrix sizes for cholesky_solve: each A matrix is ", l.size(-2),
                 " by ", l.size(-1), " but each b matrix is ", b.size(-2), " by ", b.size(-1));
  if (b.is_cuda()) return cholesky_solve_cpu(b.to(kHost), l.to(kHost), upper).to(b.device());
  return cholesky_solve_cpu(b, l, upper);
}

Tensor cholesky_inverse(const Tensor& l, bool upper) {
  check_defined("cholesky_inverse", l);
  TORCHLET_CHECK(l.dim() >= 2,
                 "cholesky_inverse: The input tensor A must have at least 2 dimensions.");
  TORCHLET_CHECK(l.size(-1) == l.size(-2),
                 "cholesky_inverse: A must be batches of square matrices, but they are ",
                 l.size(-2), " by ", l.size(-1), " matrices");
  TORCHLET_CHECK(is_float_or_double(l.dtype()), "\"cholesky_inverse_out_cpu\" not implemented "
                 "for '", scalar_type_name(l.dtype()), "'");
  const Tensor identity = eye(l.size(-1), l.options()).expand(l.sizes());
  return cholesky_solve(identity, l, upper);
}

std::tuple<Tensor, Tensor> qr(const Tensor& a, bool some) {
  return linalg::qr(a, some ? "reduced" : "complete");
}

std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& a, bool some, bool compute_uv) {
  if (!compute_uv) {
    const Tensor s = linalg::svdvals(a);
    const SizeVec batch = batch_shape(a);
    return {zeros(with_matrix(batch, a.size(-2), a.size(-2)), a.options()), s,
            zeros(with_matrix(batch, a.size(-1), a.size(-1)), a.options())};
  }
  auto [u, s, vh] = linalg::svd(a, !some);
  return {u, s, vh.transpose(-2, -1)};
}

Tensor pinverse(const Tensor& a, double rcond) {
  check_pinv_input("pinverse", a);
  return linalg::pinv(a, 0.0, rcond);
}

Tensor matrix_power(const Tensor& a, int64_t n) { return linalg::matrix_power(a, n); }
Tensor matrix_exp(const Tensor& a) { return linalg::matrix_exp(a); }

Tensor Tensor::det() const { return torchlet::det(*this); }
Tensor Tensor::logdet() const { return torchlet::logdet(*this); }
std::tuple<Tensor, Tensor> Tensor::slogdet() const { return torchlet::slogdet(*this); }
Tensor Tensor::inverse() const { return torchlet::inverse(*this); }
Tensor Tensor::cholesky(bool upper) const { return torchlet::cholesky(*this, upper); }
Tensor Tensor::cholesky_solve(const Tensor& input2, bool upper) const {
  return torchlet::cholesky_solve(*this, input2, upper);
}
Tensor Tensor::cholesky_inverse(bool upper) const {
  return torchlet::cholesky_inverse(*this, upper);
}
std::tuple<Tensor, Tensor> Tensor::qr(bool some) const { return torchlet::qr(*this, some); }
std::tuple<Tensor, Tensor, Tensor> Tensor::svd(bool some, bool compute_uv) const {
  return torchlet::svd(*this, some, compute_uv);
}
Tensor Tensor::pinverse(double rcond) const { return torchlet::pinverse(*this, rcond); }
Tensor Tensor::matrix_power(int64_t n) const { return torchlet::matrix_power(*this, n); }
Tensor Tensor::matrix_exp() const { return torchlet::matrix_exp(*this); }

}  // namespace torchlet
