// Reductions, softmax and scans: argument checks, output dtypes and shapes.
// Each reduction permutes its input so the reduced dims come last and hands
// it to a kernel in cpu/reduction_kernels.cc.
#include "tensor/reduction.h"

#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "tensor/cpu/kernels.h"
#include "tensor/cuda/kernels.h"
#include "tensor/factories.h"
#include "tensor/op_utils.h"
#include "tensor/parallel.h"

namespace torchlet {
namespace {

// A reduction of `t` over some of its dims, laid out for the kernels.
struct Plan {
  Tensor in;             // `t` permuted: kept dims first, reduced dims last
  int64_t reduced = 0;   // how many trailing dims of `in` are reduced
  int64_t n_red = 1;     // elements per output
  SizeVec kept_shape;    // the kernel's output shape
  SizeVec out_shape;     // the op's output shape (keepdim honoured)
  std::vector<int64_t> reduced_dims;  // wrapped, in the order given
  int64_t first_empty_dim = -1;       // the first reduced dim of size 0
};

void check_input(const char* op, const Tensor& t) { check_defined(op, t); }

// The kernels by the output's device.
void run_reduce_sum(const Tensor& out, const Tensor& in, int64_t reduced) {
  if (out.is_cuda()) return cuda::reduce_sum(out, in, reduced);
  cpu::reduce_sum(out, in, reduced);
}

// Plans reducing `dims` of `t` (all dims when empty). A 0-dim tensor reduces
// its one element whatever `dims` (0 or -1) says, and stays 0-dim.
Plan plan(const char* op, const Tensor& t, IntArrayRef dims, bool keepdim) {
  check_input(op, t);
  const int64_t ndim = t.dim();
  Plan p;
  if (dims.empty() && ndim > 0) {
    // Every dim, in order: `t` itself is the permuted view (a loss's mean).
    p.in = t;
    p.reduced = ndim;
    p.reduced_dims.reserve(ndim);
    for (int64_t d = 0; d < ndim; ++d) {
      p.reduced_dims.push_back(d);
      p.n_red *= t.size(d);
      if (t.size(d) == 0 && p.first_empty_dim < 0) p.first_empty_dim = d;
      if (keepdim) p.out_shape.push_back(1);
    }
    return p;
  }
  std::vector<bool> reduce(std::max<int64_t>(ndim, 1), dims.empty());
  for (int64_t dim : dims) {
    const int64_t d = wrap_dim(dim, ndim, op);
    TORCHLET_CHECK(!reduce[d] || dims.empty(), op, ": dim ", d,
                   " appears multiple times in the list of dims");
    reduce[d] = true;
    p.reduced_dims.push_back(d);
  }
  if (ndim == 0) {
    p.in = t.view({1});
    p.reduced = 1;
    return p;
  }
  if (dims.empty()) {
    for (int64_t d = 0; d < ndim; ++d) p.reduced_dims.push_back(d);
  }
  std::vector<int64_t> order;
  for (int64_t d = 0; d < ndim; ++d) {
    if (!reduce[d]) {
      order.push_back(d);
      p.kept_shape.push_back(t.size(d));
      p.out_shape.push_back(t.size(d));
    } else if (keepdim) {
      p.out_shape.push_back(1);
    }
  }
  for (int64_t d = 0; d < ndim; ++d) {
    if (reduce[d]) {
      order.push_back(d);
      p.n_red *= t.size(d);
      ++p.reduced;
      if (t.size(d) == 0 && p.first_empty_dim < 0) p.first_empty_dim = d;
    }
  }
  p.in = t.permute(order);
  return p;
}

// max/min/amax/amin/argmax/argmin have no identity: an empty reduction is an
// error, worded as PyTorch's.
void check_nonempty(const char* op, const Plan& p, bool dim_given) {
  if (p.n_red != 0) return;
  TORCHLET_CHECK(dim_given, op,
                 "(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                 "reduction dim with the 'dim' argument.");
  TORCHLET_CHECK(false, op, "(): Expected reduction dim ", p.first_empty_dim,
                 " to have non-zero size.");
}

Tensor new_output(const Plan& p, DType dtype, const Tensor& like) {
  return empty(p.kept_shape, like.options().dtype(dtype));
}

Tensor finish(const Plan& p, const Tensor& out) { return out.view(p.out_shape); }

DType sum_dtype(DType in) { return is_floating_point(in) ? in : kInt64; }

void check_floating(const char* op, const Tensor& t, const char* what) {
  TORCHLET_CHECK(t.is_floating_point(), op, ": ", what, ", got ", t.dtype());
}

// Where a sum over dim 0 can take the leading-dim kernel: the stride
// between rows (0 when every row is the same one) and between the elements
// of a row (1, or 0 when each row is one value expanded).
std::optional<std::pair<int64_t, int64_t>> leading_sum_strides(const Tensor& t) {
  int64_t contiguous = 1;
  bool dense = true, broadcast = true;
  for (int64_t d = t.dim() - 1; d >= 1; --d) {
    if (t.size(d) == 1) continue;
    dense = dense && t.stride(d) == contiguous;
    broadcast = broadcast && t.stride(d) == 0;
    contiguous *= t.size(d);
  }
  const int64_t row_stride = t.size(0) == 1 ? 0 : t.stride(0);
  if (broadcast) return std::make_pair(row_stride, int64_t{0});
  if (dense && (row_stride == 0 || row_stride == contiguous)) {
    return std::make_pair(row_stride, int64_t{1});
  }
  return std::nullopt;
}

// Sums over dim 0 of a float tensor whose rows are contiguous (a bias's
// gradient, every step of every Linear layer) skip the general reduction's
// plan. The rows may also all be the same one (stride 0: the gradient of a
// `sum()` expanded back over the output), summed in the same order.
bool is_leading_sum(const Tensor& t, IntArrayRef dims) {
  if (!(dims.size() == 1 && t.dim() >= 2 && t.device().is_cpu() &&
        (t.dtype() == kFloat32 || t.dtype() == kFloat64) && t.numel() > 0 &&
        (dims[0] == 0 || dims[0] == -t.dim()))) {
    return false;
  }
  return leading_sum_strides(t).has_value();
}

// Small enough for the general path to sum it in one run on one thread.
bool is_small_contiguous_float(const Tensor& t) {
  return t.device().is_cpu() && (t.dtype() == kFloat32 || t.dtype() == kFloat64) &&
         t.numel() > 0 && t.numel() < 2 * kParallelGrain && t.is_contiguous();
}

Tensor sum_impl(const char* op, const Tensor& t, IntArrayRef dims, bool keepdim,
                std::optional<DType> dtype, bool prod) {
  check_input(op, t);
  if (!prod && (!dtype || *dtype == t.dtype()) && dims.empty() && !keepdim &&
      is_small_contiguous_float(t)) {
    // The whole tensor: the general path's single run, without its plan.
    Tensor out = empty({}, t.options());
    cpu::sum_contiguous(out, t);
    return out;
  }
  if (!prod && (!dtype || *dtype == t.dtype()) && t.device().is_cpu() &&
      is_leading_sum(t, dims)) {
    SizeVec shape(t.sizes().begin(), t.sizes().end());
    if (keepdim) {
      shape[0] = 1;
    } else {
      shape.erase(shape.begin());
    }
    Tensor out = empty(shape, t.options());
    const auto [row_stride, col_stride] = *leading_sum_strides(t);
    cpu::sum_leading_dim(out, t, t.size(0), row_stride, col_stride);
    return out;
  }
  const Tensor src = dtype && *dtype != t.dtype() ? t.to(*dtype) : t;
  const Plan p = plan(op, src, dims, keepdim);
  Tensor out = new_output(p, sum_dtype(src.dtype()), src);
  if (prod) {
    if (out.is_cuda()) {
      cuda::reduce_prod(out, p.in, p.reduced);
    } else {
      cpu::reduce_prod(out, p.in, p.reduced);
    }
  } else {
    run_reduce_sum(out, p.in, p.reduced);
  }
  // An explicit dtype is also the result's (int32 sums to int32, as in PyTorch).
  return dtype ? finish(p, out).to(*dtype) : finish(p, out);
}

Tensor extreme_impl(const char* op, const Tensor& t, IntArrayRef dims, bool keepdim,
                    bool largest, bool dim_given) {
  const Plan p = plan(op, t, dims, keepdim);
  check_nonempty(op, p, dim_given);
  Tensor out = new_output(p, t.dtype(), t);
  if (out.is_cuda()) {
    cuda::reduce_extreme(out, p.in, p.reduced, largest);
  } else {
    cpu::reduce_extreme(out, p.in, p.reduced, largest);
  }
  return finish(p, out);
}

std::tuple<Tensor, Tensor> arg_impl(const char* op, const Tensor& t, std::optional<int64_t> dim,
                                    bool keepdim, bool largest, bool want_values) {
  check_input(op, t);
  // Without a dim the flattened tensor is reduced; keepdim then keeps every
  // dim as size 1.
  const Tensor src = dim ? t : t.reshape({t.numel()});
  Plan p = plan(op, src, dim ? IntArrayRef{*dim} : IntArrayRef{0}, keepdim);
  if (!dim) {
    p.reduced_dims = {0};
    p.out_shape = keepdim ? SizeVec(t.dim(), 1) : SizeVec{};
  }
  check_nonempty(op, p, dim.has_value());
  Tensor values = want_values ? new_output(p, t.dtype(), t) : Tensor();
  Tensor indices = new_output(p, kInt64, t);
  if (indices.is_cuda()) {
    cuda::reduce_arg(values, indices, p.in, p.reduced, largest);
  } else {
    cpu::reduce_arg(values, indices, p.in, p.reduced, largest);
  }
  return {want_values ? finish(p, values) : Tensor(), finish(p, indices)};
}

Tensor var_impl(const char* op, const Tensor& t, IntArrayRef dims, bool unbiased, bool keepdim,
                bool take_sqrt) {
  check_input(op, t);
  TORCHLET_CHECK(t.is_floating_point(), op,
                 ": std and var only support floating point dtypes, got ", t.dtype());
  const Plan p = plan(op, t, dims, keepdim);
  Tensor out = new_output(p, t.dtype(), t);
  const auto kernel = out.is_cuda() ? cuda::reduce_var : cpu::reduce_var;
  kernel(out, p.in, p.reduced, unbiased ? 1 : 0, take_sqrt);
  return finish(p, out);
}

Tensor norm_impl(const Tensor& t, Scalar p_value, IntArrayRef dims, bool keepdim) {
  check_input("norm", t);
  TORCHLET_CHECK(t.is_floating_point(),
                 "norm(): input dtype should be either floating point or complex. Got ",
                 scalar_type_name(t.dtype()), " instead.");
  const Plan p = plan("norm", t, dims, keepdim);
  Tensor out = new_output(p, t.dtype(), t);
  const auto kernel = out.is_cuda() ? cuda::reduce_norm : cpu::reduce_norm;
  kernel(out, p.in, p.reduced, p_value.to<double>());
  return finish(p, out);
}

Tensor logical_impl(const char* op, const Tensor& t, IntArrayRef dims, bool keepdim, bool all) {
  const Plan p = plan(op, t, dims, keepdim);
  Tensor out = new_output(p, t.dtype() == kUInt8 ? kUInt8 : kBool, t);
  if (out.is_cuda()) {
    // all is the smallest of the elements' truth values, any the largest.
    Tensor result = out.dtype() == kBool ? out : empty(out.sizes(), out.options().dtype(kBool));
    cuda::reduce_extreme(result, p.in.ne(0), p.reduced, /*largest=*/!all);
    if (!result.is_same(out)) out.copy_(result);
  } else {
    cpu::reduce_logical(out, p.in, p.reduced, all);
  }
  return finish(p, out);
}

// Applies a kernel that works along the last dim to `dim` of `t`.
Tensor along_dim(const char* op, const Tensor& t, int64_t dim, DType out_dtype,
                 void (*kernel)(const Tensor&, const Tensor&, bool), bool flag) {
  check_input(op, t);
  const int64_t d = wrap_dim(dim, t.dim(), op);
  Tensor out = empty(t.sizes(), t.options().dtype(out_dtype));
  if (t.dim() == 0) {
    kernel(out.view({1}), t.view({1}), flag);
  } else {
    kernel(out.transpose(d, -1), t.transpose(d, -1), flag);
  }
  return out;
}

// The running max (largest) or min along `dim`, with where each was reached.
std::tuple<Tensor, Tensor> cumulative_extreme(const char* op, const Tensor& t, int64_t dim,
                                              bool largest) {
  check_input(op, t);
  const int64_t d = wrap_dim(dim, t.dim(), op);
  // A GPU's tensor is scanned on the host: the scan is serial along each
  // lane, so it goes through the CPU as Tensor::nonzero does.
  if (t.is_cuda()) {
    auto [values, indices] = cumulative_extreme(op, t.to(Device(kCPU, 0)), d, largest);
    return {values.to(t.device()), indices.to(t.device())};
  }
  if (is_reduced_floating_point(t.dtype())) {  // exact in float32
    auto [values, indices] = cumulative_extreme(op, t.to(kFloat32), d, largest);
    return {values.to(t.dtype()), indices};
  }
  Tensor values = empty(t.sizes(), t.options());
  Tensor indices = empty(t.sizes(), t.options().dtype(kInt64));
  if (t.numel() == 0) return {values, indices};
  if (t.dim() == 0) {
    cpu::cumulative_extreme_lastdim(values.view({1}), indices.view({1}), t.view({1}), largest);
  } else {
    cpu::cumulative_extreme_lastdim(values.transpose(d, -1), indices.transpose(d, -1),
                                    t.transpose(d, -1), largest);
  }
  return {values, indices};
}

// PyTorch's error for a dtype its kernel lacks.
[[noreturn]] void not_implemented(const char* kernel, DType dtype) {
  detail::throw_error(
      detail::str_cat("\"", kernel, "\" not implemented for '", scalar_type_name(dtype), "'"));
}

void logcumsumexp_kernel(const Tensor& out, const Tensor& in, bool /*unused*/) {
  cpu::logcumsumexp_lastdim(out, in);
}

}  // namespace

// ---- Free functions ---------------------------------------------------------------

Tensor sum(const Tensor& t, IntArrayRef dims, bool keepdim, std::optional<DType> dtype) {
  return sum_impl("sum", t, dims, keepdim, dtype, /*prod=*/false);
}

Tensor mean(const Tensor& t, IntArrayRef dims, bool keepdim) {
  check_input("mean", t);
  TORCHLET_CHECK(t.is_floating_point(),
                 "mean(): could not infer output dtype. Input dtype must be either a floating "
                 "point or complex dtype. Got: ", scalar_type_name(t.dtype()));
  const Plan p = plan("mean", t, dims, keepdim);
  // The sum in t's dtype, then divided: float16 and bfloat16 round twice,
  // as in PyTorch 1.13's CPU mean (sum_out, then div_).
  Tensor out = new_output(p, t.dtype(), t);
  run_reduce_sum(out, p.in, p.reduced);
  out.div_(static_cast<double>(p.n_red));
  return finish(p, out);
}

Tensor softmax(const Tensor& t, int64_t dim) {
  check_input("softmax", t);
  check_floating("softmax", t, "expected a floating-point dtype");
  return along_dim("softmax", t, dim, t.dtype(),
                   t.is_cuda() ? cuda::softmax_lastdim : cpu::softmax_lastdim, /*log=*/false);
}

Tensor log_softmax(const Tensor& t, int64_t dim) {
  check_input("log_softmax", t);
  check_floating("log_softmax", t, "expected a floating-point dtype");
  return along_dim("log_softmax", t, dim, t.dtype(),
                   t.is_cuda() ? cuda::softmax_lastdim : cpu::softmax_lastdim, /*log=*/true);
}

namespace {
Tensor softmax_backward_impl(const char* op, const Tensor& grad, const Tensor& output,
                             int64_t dim, bool log) {
  check_input(op, grad);
  check_input(op, output);
  TORCHLET_CHECK(grad.sizes() == output.sizes() && grad.dtype() == output.dtype(), op,
                 ": grad (", grad.dtype(), " ", shape_str(grad.sizes()), ") and output (",
                 output.dtype(), " ", shape_str(output.sizes()), ") must match");
  check_same_device(op, grad, output);
  check_floating(op, grad, "expected a floating-point dtype");
  const int64_t d = wrap_dim(dim, grad.dim(), op);
  Tensor out = empty(grad.sizes(), grad.options());
  const auto kernel = out.is_cuda() ? cuda::softmax_backward_lastdim
                                    : cpu::softmax_backward_lastdim;
  if (grad.dim() == 0) {
    kernel(out.view({1}), grad.view({1}), output.view({1}), log);
  } else {
    kernel(out.transpose(d, -1), grad.transpose(d, -1), output.transpose(d, -1), log);
  }
  return out;
}
}  // namespace

Tensor softmax_backward(const Tensor& grad, const Tensor& output, int64_t dim) {
  return softmax_backward_impl("softmax_backward", grad, output, dim, /*log=*/false);
}

Tensor log_softmax_backward(const Tensor& grad, const Tensor& output, int64_t dim) {
  return softmax_backward_impl("log_softmax_backward", grad, output, dim, /*log=*/true);
}

Tensor logsumexp(const Tensor& t, IntArrayRef dims, bool keepdim) {
  check_input("logsumexp", t);
  // Integer inputs compute in float32, as in PyTorch.
  const Tensor src = t.is_floating_point() ? t : t.to(kFloat32);
  const Plan p = plan("logsumexp", src, dims, keepdim);
  Tensor out = new_output(p, src.dtype(), src);
  const auto kernel = out.is_cuda() ? cuda::reduce_logsumexp : cpu::reduce_logsumexp;
  kernel(out, p.in, p.reduced);
  return finish(p, out);
}

Tensor cumsum(const Tensor& t, int64_t dim) {
  check_input("cumsum", t);
  return along_dim("cumsum", t, dim, sum_dtype(t.dtype()),
                   t.is_cuda() ? cuda::cumulative_lastdim : cpu::cumulative_lastdim,
                   /*prod=*/false);
}

Tensor cumprod(const Tensor& t, int64_t dim) {
  check_input("cumprod", t);
  return along_dim("cumprod", t, dim, sum_dtype(t.dtype()),
                   t.is_cuda() ? cuda::cumulative_lastdim : cpu::cumulative_lastdim,
                   /*prod=*/true);
}

Tensor nansum(const Tensor& t, IntArrayRef dims, bool keepdim, std::optional<DType> dtype) {
  check_input("nansum", t);
  // Integers hold no NaN: their nansum is their sum (int64 unless `dtype`).
  if (!t.is_floating_point()) return torchlet::sum(t, dims, keepdim, dtype);
  if (dtype && !is_floating_point(*dtype)) not_implemented("nansum_cpu", *dtype);
  const Tensor src = dtype && *dtype != t.dtype() ? t.to(*dtype) : t;
  if (src.is_cuda()) return src.masked_fill(src.isnan(), 0).sum(dims, keepdim);
  const Plan p = plan("nansum", src, dims, keepdim);
  Tensor out = new_output(p, src.dtype(), src);
  cpu::reduce_nansum(out, p.in, p.reduced);
  return finish(p, out);
}

Tensor nanmean(const Tensor& t, IntArrayRef dims, bool keepdim, std::optional<DType> dtype) {
  check_input("nanmean", t);
  TORCHLET_CHECK(t.is_floating_point(),
                 "nanmean(): expected input to have floating point dtype but got ",
                 scalar_type_name(t.dtype()));
  // PyTorch's definition: the nansum over the count of non-NaN elements.
  const Tensor count = t.isnan().logical_not().sum(dims, keepdim);
  return nansum(t, dims, keepdim, dtype).div(count);
}

namespace {
std::tuple<Tensor, Tensor> moments_with_mean(const char* op, const Tensor& t, IntArrayRef dims,
                                             bool unbiased, bool keepdim, bool take_sqrt) {
  check_input(op, t);
  TORCHLET_CHECK(t.is_floating_point(), op, " only support floating point and complex dtypes");
  return {var_impl(op, t, dims, unbiased, keepdim, take_sqrt), mean(t, dims, keepdim)};
}
}  // namespace

std::tuple<Tensor, Tensor> std_mean(const Tensor& t, IntArrayRef dims, bool unbiased,
                                    bool keepdim) {
  return moments_with_mean("std_mean", t, dims, unbiased, keepdim, /*take_sqrt=*/true);
}

std::tuple<Tensor, Tensor> var_mean(const Tensor& t, IntArrayRef dims, bool unbiased,
                                    bool keepdim) {
  return moments_with_mean("var_mean", t, dims, unbiased, keepdim, /*take_sqrt=*/false);
}

std::tuple<Tensor, Tensor> aminmax(const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
  check_input("aminmax", t);
  if (!dim) {
    TORCHLET_CHECK(t.numel() > 0,
                   "aminmax(): cannot compute aminmax over an empty dimension as the operation "
                   "has no identity.");
    return {extreme_impl("aminmax", t, {}, keepdim, false, false),
            extreme_impl("aminmax", t, {}, keepdim, true, false)};
  }
  const int64_t d = wrap_dim(*dim, t.dim(), "aminmax");
  TORCHLET_CHECK(t.dim() == 0 || t.size(d) > 0, "aminmax: Expected reduction dim ", d,
                 " to have non-zero size.");
  return {extreme_impl("aminmax", t, {d}, keepdim, false, true),
          extreme_impl("aminmax", t, {d}, keepdim, true, true)};
}

Tensor count_nonzero(const Tensor& t, IntArrayRef dims) {
  check_input("count_nonzero", t);
  return t.ne(0).sum(dims);
}

std::tuple<Tensor, Tensor> cummax(const Tensor& t, int64_t dim) {
  return cumulative_extreme("cummax", t, dim, /*largest=*/true);
}

std::tuple<Tensor, Tensor> cummin(const Tensor& t, int64_t dim) {
  return cumulative_extreme("cummin", t, dim, /*largest=*/false);
}

Tensor logcumsumexp(const Tensor& t, int64_t dim) {
  check_input("logcumsumexp", t);
  if (!t.is_floating_point()) not_implemented("logcumsumexp_out_cpu", t.dtype());
  // A GPU's tensor is scanned on the host: the running log-add-exp is
  // serial along each lane, so it goes through the CPU as Tensor::nonzero.
  if (t.is_cuda()) return logcumsumexp(t.to(Device(kCPU, 0)), dim).to(t.device());
  if (is_reduced_floating_point(t.dtype())) {
    return logcumsumexp(t.to(kFloat32), dim).to(t.dtype());
  }
  return along_dim("logcumsumexp", t, dim, t.dtype(), logcumsumexp_kernel, false);
}

// ---- Methods -------------------------------------------------------------------------

Tensor Tensor::sum(std::optional<DType> dtype) const { return torchlet::sum(*this, {}, false, dtype); }
Tensor Tensor::sum(IntArrayRef dims, bool keepdim, std::optional<DType> dtype) const {
  return torchlet::sum(*this, dims, keepdim, dtype);
}
Tensor Tensor::mean() const { return torchlet::mean(*this); }
Tensor Tensor::mean(IntArrayRef dims, bool keepdim) const {
  return torchlet::mean(*this, dims, keepdim);
}
Tensor Tensor::prod() const { return sum_impl("prod", *this, {}, false, std::nullopt, true); }
Tensor Tensor::prod(int64_t dim, bool keepdim) const {
  return sum_impl("prod", *this, {dim}, keepdim, std::nullopt, true);
}

Tensor Tensor::max() const { return extreme_impl("max", *this, {}, false, true, false); }
Tensor Tensor::min() const { return extreme_impl("min", *this, {}, false, false, false); }
std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  return arg_impl("max", *this, dim, keepdim, /*largest=*/true, /*want_values=*/true);
}
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const {
  return arg_impl("min", *this, dim, keepdim, /*largest=*/false, /*want_values=*/true);
}
Tensor Tensor::amax(IntArrayRef dims, bool keepdim) const {
  return extreme_impl("amax", *this, dims, keepdim, true, !dims.empty());
}
Tensor Tensor::amin(IntArrayRef dims, bool keepdim) const {
  return extreme_impl("amin", *this, dims, keepdim, false, !dims.empty());
}
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  return std::get<1>(arg_impl("argmax", *this, dim, keepdim, true, false));
}
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const {
  return std::get<1>(arg_impl("argmin", *this, dim, keepdim, false, false));
}

Tensor Tensor::var(IntArrayRef dims, bool unbiased, bool keepdim) const {
  return var_impl("var", *this, dims, unbiased, keepdim, false);
}
Tensor Tensor::std(IntArrayRef dims, bool unbiased, bool keepdim) const {
  return var_impl("std", *this, dims, unbiased, keepdim, true);
}

Tensor Tensor::norm(Scalar p) const { return norm_impl(*this, p, {}, false); }
Tensor Tensor::norm(Scalar p, IntArrayRef dims, bool keepdim) const {
  return norm_impl(*this, p, dims, keepdim);
}
Tensor Tensor::logsumexp(IntArrayRef dims, bool keepdim) const {
  return torchlet::logsumexp(*this, dims, keepdim);
}

Tensor Tensor::all() const { return logical_impl("all", *this, {}, false, true); }
Tensor Tensor::all(int64_t dim, bool keepdim) const {
  return logical_impl("all", *this, {dim}, keepdim, true);
}
Tensor Tensor::any() const { return logical_impl("any", *this, {}, false, false); }
Tensor Tensor::any(int64_t dim, bool keepdim) const {
  return logical_impl("any", *this, {dim}, keepdim, false);
}

Tensor Tensor::softmax(int64_t dim) const { return torchlet::softmax(*this, dim); }
Tensor Tensor::log_softmax(int64_t dim) const { return torchlet::log_softmax(*this, dim); }
Tensor Tensor::cumsum(int64_t dim) const { return torchlet::cumsum(*this, dim); }
Tensor Tensor::cumprod(int64_t dim) const { return torchlet::cumprod(*this, dim); }

Tensor Tensor::nansum(IntArrayRef dims, bool keepdim, std::optional<DType> dtype) const {
  return torchlet::nansum(*this, dims, keepdim, dtype);
}
Tensor Tensor::nanmean(IntArrayRef dims, bool keepdim, std::optional<DType> dtype) const {
  return torchlet::nanmean(*this, dims, keepdim, dtype);
}
std::tuple<Tensor, Tensor> Tensor::aminmax(std::optional<int64_t> dim, bool keepdim) const {
  return torchlet::aminmax(*this, dim, keepdim);
}
Tensor Tensor::count_nonzero(IntArrayRef dims) const {
  return torchlet::count_nonzero(*this, dims);
}
std::tuple<Tensor, Tensor> Tensor::cummax(int64_t dim) const {
  return torchlet::cummax(*this, dim);
}
std::tuple<Tensor, Tensor> Tensor::cummin(int64_t dim) const {
  return torchlet::cummin(*this, dim);
}
Tensor Tensor::logcumsumexp(int64_t dim) const { return torchlet::logcumsumexp(*this, dim); }

}  // namespace torchlet
