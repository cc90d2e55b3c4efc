#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "tensor/tensor.h"

namespace torchlet {

namespace autograd {
class Node;
}  // namespace autograd
struct VariableImpl;

/// A Tensor with autograd state: whether it requires grad, its accumulated
/// gradient, and the node that produced it. Variable is a shared handle:
/// copies refer to one Variable, so set_data(), a new gradient or a rebased
/// history is seen through every handle (module replication relies on it).
///
/// Ops on Variables record the graph when grad mode is on and an input
/// requires grad; backward() replays it. Tensors never record anything:
/// data() gives the raw Tensor, and there is no implicit conversion between
/// the two types.
class Variable {
 public:
  /// An undefined Variable.
  Variable() = default;
  /// A leaf holding `data` (not copied).
  explicit Variable(Tensor data, bool requires_grad = false);
  /// A handle to existing state (used by the graph machinery).
  explicit Variable(std::shared_ptr<VariableImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return static_cast<bool>(impl_); }
  VariableImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<VariableImpl>& shared_impl() const { return impl_; }
  /// True when both handles refer to one Variable.
  bool is_same(const Variable& other) const { return impl_ == other.impl_; }

  // ---- Autograd state ------------------------------------------------------
  /// The data, without autograd state (shares storage).
  const Tensor& data() const;
  /// Replaces the data (any shape); history and gradient are kept.
  void set_data(const Tensor& data) const;
  /// Re-binds this Variable in place: every handle of it sees `src`'s data,
  /// requires_grad, grad_fn, output_nr and view relation. Its gradient
  /// accumulator and retained gradient are dropped; its hooks keep running
  /// for gradients that flow through the new history; graphs recorded
  /// before keep what they saved. Cheap (no allocation without hooks); must
  /// not race with other uses of this Variable. Note [Re-binding a Variable].
  void rebind(const Variable& src) const;
  bool requires_grad() const;
  /// Sets requires_grad on a leaf (non-leaves throw, as in PyTorch).
  const Variable& requires_grad_(bool requires_grad = true) const;
  /// The accumulated gradient (undefined until a backward reaches this leaf).
  Variable grad() const;
  void set_grad(const Variable& grad) const;
  /// The node that produced this Variable (null for leaves).
  std::shared_ptr<autograd::Node> grad_fn() const;
  /// Which output of grad_fn() this is.
  uint32_t output_nr() const;
  bool is_leaf() const;
  /// A new leaf sharing the data, detached from the graph.
  Variable detach() const;
  /// Detaches this Variable itself from the graph (it becomes a leaf).
  const Variable& detach_() const;
  /// Keep grad() for a non-leaf after backward.
  void retain_grad() const;
  bool retains_grad() const;

  /// Backward from this Variable. `gradient` defaults to 1 for one-element
  /// outputs.
  void backward(const Variable& gradient = Variable(), bool retain_graph = false,
                bool create_graph = false) const;

  /// Runs `hook` on this Variable's gradient before it is used; a defined
  /// result replaces the gradient. The returned handle's remove()
  /// unregisters it.
  using Hook = std::function<Variable(const Variable&)>;
  class HookHandle {
   public:
    HookHandle() = default;
    HookHandle(std::weak_ptr<VariableImpl> impl, int id) : impl_(std::move(impl)), id_(id) {}
    /// Removes the hook (a no-op if already removed or the Variable is gone).
    void remove();

   private:
    std::weak_ptr<VariableImpl> impl_;
    int id_ = -1;
  };
  HookHandle register_hook(Hook hook) const;

  // ---- Metadata (of the data) ------------------------------------------------
  int64_t dim() const { return data().dim(); }
  IntArrayRef sizes() const { return data().sizes(); }
  IntArrayRef shape() const { return data().sizes(); }
  int64_t size(int64_t dim) const { return data().size(dim); }
  int64_t numel() const { return data().numel(); }
  DType dtype() const { return data().dtype(); }
  Device device() const { return data().device(); }
  /// The data's dtype and device, as Tensor::options().
  TensorOptions options() const { return data().options(); }
  bool is_floating_point() const { return data().is_floating_point(); }
  template <typename T>
  T item() const {
    return data().item<T>();
  }
  std::string str() const;

  // ---- Conversions -------------------------------------------------------------
  Variable to(Device device) const;
  Variable to(DType dtype) const;
  Variable clone() const;
  Variable contiguous() const;

  // ---- Views -------------------------------------------------------------------
  Variable view(IntArrayRef shape) const;
  Variable reshape(IntArrayRef shape) const;
  Variable view_as(const Variable& other) const;
  Variable reshape_as(const Variable& other) const;
  Variable permute(IntArrayRef dims) const;
  Variable transpose(int64_t dim0, int64_t dim1) const;
  Variable t() const;
  Variable narrow(int64_t dim, int64_t start, int64_t length) const;
  Variable select(int64_t dim, int64_t index) const;
  Variable slice(int64_t dim, std::optional<int64_t> start = std::nullopt,
                 std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Variable unsqueeze(int64_t dim) const;
  Variable squeeze() const;
  Variable squeeze(int64_t dim) const;
  Variable expand(IntArrayRef sizes) const;
  Variable expand_as(const Variable& other) const;
  Variable flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Variable unflatten(int64_t dim, IntArrayRef sizes) const;
  std::vector<Variable> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Variable> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Variable> split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const;
  /// A view with explicit geometry over this Variable's storage; the
  /// gradient is summed back into this Variable's elements.
  Variable as_strided(IntArrayRef sizes, IntArrayRef strides,
                      std::optional<int64_t> storage_offset = std::nullopt) const;
  std::vector<Variable> unbind(int64_t dim = 0) const;

  // ---- Elementwise -------------------------------------------------------------
  Variable add(const Variable& other, Scalar alpha = 1) const;
  Variable add(Scalar other, Scalar alpha = 1) const;
  Variable sub(const Variable& other, Scalar alpha = 1) const;
  Variable sub(Scalar other, Scalar alpha = 1) const;
  Variable mul(const Variable& other) const;
  Variable mul(Scalar other) const;
  Variable div(const Variable& other) const;
  Variable div(Scalar other) const;
  Variable pow(const Variable& exponent) const;
  Variable pow(Scalar exponent) const;
  Variable maximum(const Variable& other) const;
  Variable minimum(const Variable& other) const;
  /// Division rounded toward -inf; not differentiable (its backward throws,
  /// as PyTorch's).
  Variable floor_divide(const Variable& other) const;
  Variable floor_divide(Scalar other) const;
  /// Remainder with the divisor's sign; d/dother = -floor(self / other).
  Variable remainder(const Variable& other) const;
  Variable remainder(Scalar other) const;
  /// Remainder with the dividend's sign; d/dother = -trunc(self / other).
  Variable fmod(const Variable& other) const;
  Variable fmod(Scalar other) const;
  Variable atan2(const Variable& other) const;
  Variable hypot(const Variable& other) const;
  Variable logaddexp(const Variable& other) const;
  Variable logaddexp2(const Variable& other) const;
  /// self * log(other), 0 where self == 0 (unless other is NaN).
  Variable xlogy(const Variable& other) const;
  Variable xlogy(Scalar other) const;
  /// |self| with other's sign; d/dother = 0.
  Variable copysign(const Variable& other) const;
  Variable copysign(Scalar other) const;
  Variable lerp(const Variable& end, Scalar weight) const;
  Variable lerp(const Variable& end, const Variable& weight) const;
  Variable addcmul(const Variable& tensor1, const Variable& tensor2, Scalar value = 1) const;
  Variable addcdiv(const Variable& tensor1, const Variable& tensor2, Scalar value = 1) const;
  Variable sinh() const;
  Variable cosh() const;
  Variable asin() const;
  Variable acos() const;
  Variable atan() const;
  Variable asinh() const;
  Variable acosh() const;
  Variable atanh() const;
  Variable expm1() const;
  Variable log2() const;
  Variable log10() const;
  Variable exp2() const;
  Variable erfc() const;
  Variable erfinv() const;
  Variable lgamma() const;
  /// Its gradient, polygamma(1, x), is not itself differentiable.
  Variable digamma() const;
  /// Rounding: zero gradient (frac's is 1).
  Variable floor() const;
  Variable ceil() const;
  Variable trunc() const;
  Variable round(int64_t decimals = 0) const;
  Variable frac() const;
  /// The gradient passes where the input is finite.
  Variable nan_to_num(double nan = 0.0, std::optional<double> posinf = std::nullopt,
                      std::optional<double> neginf = std::nullopt) const;
  Variable neg() const;
  Variable abs() const;
  Variable exp() const;
  Variable log() const;
  Variable sqrt() const;
  Variable sin() const;
  Variable cos() const;
  Variable relu() const;
  Variable sigmoid() const;
  Variable tanh() const;
  Variable erf() const;
  Variable log1p() const;
  Variable rsqrt() const;
  /// -1, 0 or 1; its gradient is zero.
  Variable sign() const;
  Variable gelu(const std::string& approximate = "none") const;
  Variable clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Variable clamp_min(Scalar min) const { return clamp(min, std::nullopt); }
  Variable clamp_max(Scalar max) const { return clamp(std::nullopt, max); }
  /// Elements of this where `condition` holds, else of `other`.
  Variable where(const Tensor& condition, const Variable& other) const;
  Variable masked_fill(const Tensor& mask, Scalar value) const;

  // In place: on a leaf that requires grad they throw (PyTorch's error);
  // otherwise the Variable's history is rebased onto the op.
  Variable& add_(const Variable& other, Scalar alpha = 1);
  Variable& add_(Scalar other, Scalar alpha = 1);
  Variable& sub_(const Variable& other, Scalar alpha = 1);
  Variable& sub_(Scalar other, Scalar alpha = 1);
  Variable& mul_(const Variable& other);
  Variable& mul_(Scalar other);
  Variable& div_(const Variable& other);
  Variable& div_(Scalar other);
  Variable& zero_();
  Variable& fill_(Scalar value);
  Variable& masked_fill_(const Tensor& mask, Scalar value);
  Variable& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
  Variable& relu_();
  Variable& neg_();
  Variable& abs_();
  Variable& exp_();
  Variable& log_();
  Variable& log1p_();
  Variable& sqrt_();
  Variable& rsqrt_();
  Variable& sin_();
  Variable& cos_();
  Variable& sigmoid_();
  Variable& tanh_();
  Variable& erf_();
  Variable& sign_();
  Variable& pow_(Scalar exponent);
  Variable& floor_divide_(const Variable& other);
  Variable& floor_divide_(Scalar other);
  Variable& remainder_(const Variable& other);
  Variable& remainder_(Scalar other);
  Variable& fmod_(const Variable& other);
  Variable& fmod_(Scalar other);
  Variable& atan2_(const Variable& other);
  Variable& hypot_(const Variable& other);
  Variable& xlogy_(const Variable& other);
  Variable& xlogy_(Scalar other);
  Variable& copysign_(const Variable& other);
  Variable& copysign_(Scalar other);
  Variable& lerp_(const Variable& end, Scalar weight);
  Variable& lerp_(const Variable& end, const Variable& weight);
  Variable& addcmul_(const Variable& tensor1, const Variable& tensor2, Scalar value = 1);
  Variable& addcdiv_(const Variable& tensor1, const Variable& tensor2, Scalar value = 1);
  Variable& sinh_();
  Variable& cosh_();
  Variable& asin_();
  Variable& acos_();
  Variable& atan_();
  Variable& asinh_();
  Variable& acosh_();
  Variable& atanh_();
  Variable& expm1_();
  Variable& log2_();
  Variable& log10_();
  Variable& exp2_();
  Variable& erfc_();
  Variable& erfinv_();
  Variable& lgamma_();
  Variable& digamma_();
  Variable& floor_();
  Variable& ceil_();
  Variable& trunc_();
  Variable& round_(int64_t decimals = 0);
  Variable& frac_();
  Variable& nan_to_num_(double nan = 0.0, std::optional<double> posinf = std::nullopt,
                        std::optional<double> neginf = std::nullopt);
  Variable& scatter_(int64_t dim, const Tensor& index, const Variable& src);
  Variable& scatter_add_(int64_t dim, const Tensor& index, const Variable& src);
  /// Copies `src` (broadcast, converted to this dtype and device) into this
  /// Variable; the gradient flows back to `src`.
  Variable& copy_(const Variable& src);

  // ---- Comparisons (masks: plain bool Tensors, no gradient) ------------------------------
  Tensor eq(const Variable& other) const { return data().eq(other.data()); }
  Tensor ne(const Variable& other) const { return data().ne(other.data()); }
  Tensor lt(const Variable& other) const { return data().lt(other.data()); }
  Tensor le(const Variable& other) const { return data().le(other.data()); }
  Tensor gt(const Variable& other) const { return data().gt(other.data()); }
  Tensor ge(const Variable& other) const { return data().ge(other.data()); }
  Tensor eq(Scalar other) const { return data().eq(other); }
  Tensor ne(Scalar other) const { return data().ne(other); }
  Tensor lt(Scalar other) const { return data().lt(other); }
  Tensor le(Scalar other) const { return data().le(other); }
  Tensor gt(Scalar other) const { return data().gt(other); }
  Tensor ge(Scalar other) const { return data().ge(other); }
  Tensor isnan() const { return data().isnan(); }
  Tensor isinf() const { return data().isinf(); }
  Tensor isfinite() const { return data().isfinite(); }
  Tensor isclose(const Variable& other, double rtol = 1e-05, double atol = 1e-08,
                 bool equal_nan = false) const {
    return data().isclose(other.data(), rtol, atol, equal_nan);
  }
  bool allclose(const Variable& other, double rtol = 1e-05, double atol = 1e-08,
                bool equal_nan = false) const {
    return data().allclose(other.data(), rtol, atol, equal_nan);
  }
  bool equal(const Variable& other) const { return data().equal(other.data()); }

  // ---- Reductions --------------------------------------------------------------
  Variable sum() const;
  Variable sum(IntArrayRef dims, bool keepdim = false) const;
  Variable mean() const;
  Variable mean(IntArrayRef dims, bool keepdim = false) const;
  Variable prod() const;
  Variable prod(int64_t dim, bool keepdim = false) const;
  Variable max() const;
  Variable min() const;
  std::tuple<Variable, Tensor> max(int64_t dim, bool keepdim = false) const;
  std::tuple<Variable, Tensor> min(int64_t dim, bool keepdim = false) const;
  Variable amax(IntArrayRef dims = {}, bool keepdim = false) const;
  Variable amin(IntArrayRef dims = {}, bool keepdim = false) const;
  /// Over `dims` (every dim when empty).
  Variable var(IntArrayRef dims = {}, bool unbiased = true, bool keepdim = false) const;
  /// var(false): every element, biased; var(1): one dim; var({1}): dims {1}
  /// (overloads that keep a braced int from becoming `unbiased`).
  template <typename B, detail::IfBool<B> = 0>
  Variable var(B unbiased) const { return var(IntArrayRef{}, unbiased); }
  template <typename I, detail::IfIndex<I> = 0>
  Variable var(I dim, bool unbiased = true, bool keepdim = false) const {
    return var(IntArrayRef({static_cast<int64_t>(dim)}), unbiased, keepdim);
  }
  Variable std(IntArrayRef dims = {}, bool unbiased = true, bool keepdim = false) const;
  /// std(false): every element, biased; std(1): one dim; std({1}): dims {1}
  /// (overloads that keep a braced int from becoming `unbiased`).
  template <typename B, detail::IfBool<B> = 0>
  Variable std(B unbiased) const { return std(IntArrayRef{}, unbiased); }
  template <typename I, detail::IfIndex<I> = 0>
  Variable std(I dim, bool unbiased = true, bool keepdim = false) const {
    return std(IntArrayRef({static_cast<int64_t>(dim)}), unbiased, keepdim);
  }
  Variable norm(Scalar p = 2) const;
  Variable norm(Scalar p, IntArrayRef dims, bool keepdim = false) const;
  Variable logsumexp(IntArrayRef dims, bool keepdim = false) const;
  Variable softmax(int64_t dim) const;
  Variable log_softmax(int64_t dim) const;
  Variable cumsum(int64_t dim) const;
  Variable cumprod(int64_t dim) const;
  std::tuple<Variable, Tensor> kthvalue(int64_t k, int64_t dim = -1, bool keepdim = false) const;
  /// The gradient reaches the non-NaN elements.
  Variable nansum(IntArrayRef dims = {}, bool keepdim = false,
                  std::optional<DType> dtype = std::nullopt) const;
  Variable nanmean(IntArrayRef dims = {}, bool keepdim = false,
                   std::optional<DType> dtype = std::nullopt) const;
  /// Gradients as amin's and amax's: shared evenly among tied extremes.
  std::tuple<Variable, Variable> aminmax(std::optional<int64_t> dim = std::nullopt,
                                         bool keepdim = false) const;
  /// The gradient goes to the one element selected.
  Variable median() const;
  std::tuple<Variable, Tensor> median(int64_t dim, bool keepdim = false) const;
  Variable nanmedian() const;
  std::tuple<Variable, Tensor> nanmedian(int64_t dim, bool keepdim = false) const;
  /// Differentiable in the input (through its sort and interpolation), not in q.
  Variable quantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                    bool keepdim = false, const std::string& interpolation = "linear") const;
  Variable quantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                    const std::string& interpolation = "linear") const;
  Variable nanquantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                       bool keepdim = false, const std::string& interpolation = "linear") const;
  Variable nanquantile(double q, std::optional<int64_t> dim = std::nullopt,
                       bool keepdim = false, const std::string& interpolation = "linear") const;
  /// The gradient is summed into the elements each running extreme came from.
  std::tuple<Variable, Tensor> cummax(int64_t dim) const;
  std::tuple<Variable, Tensor> cummin(int64_t dim) const;
  Variable logcumsumexp(int64_t dim) const;
  // Counts and positions (no gradient).
  Tensor count_nonzero(IntArrayRef dims = {}) const { return data().count_nonzero(dims); }
  Tensor bincount(const Variable& weights = Variable(), int64_t minlength = 0) const {
    return data().bincount(weights.defined() ? weights.data() : Tensor(), minlength);
  }
  Tensor histc(int64_t bins = 100, Scalar min = 0, Scalar max = 0) const {
    return data().histc(bins, min, max);
  }
  std::tuple<Tensor, Tensor, Tensor> unique_consecutive(
      bool return_inverse = false, bool return_counts = false,
      std::optional<int64_t> dim = std::nullopt) const {
    return data().unique_consecutive(return_inverse, return_counts, dim);
  }
  // Index results (no gradient).
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const {
    return data().argmax(dim, keepdim);
  }
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const {
    return data().argmin(dim, keepdim);
  }
  Tensor argsort(int64_t dim = -1, bool descending = false) const {
    return data().argsort(dim, descending);
  }
  /// With `stable`, equal elements keep their order.
  std::tuple<Variable, Tensor> sort(int64_t dim = -1, bool descending = false,
                                    bool stable = false) const;
  /// Without `sorted`, the k elements come in an unspecified order.
  std::tuple<Variable, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true,
                                    bool sorted = true) const;

  // ---- Indexing (PyTorch's v[...] and v[...] = value) ----------------------------------
  /// select(0, i).
  Variable operator[](int64_t index) const { return select(0, index); }
  /// Integers, slices, None and Ellipsis give a view; a tensor index (int64
  /// or bool) gives a copy. Gradients flow back to the indexed elements
  /// (summed where an index repeats).
  Variable index(std::initializer_list<TensorIndex> indices) const;
  Variable index(const std::vector<TensorIndex>& indices) const;
  /// Out of place: a copy of this with value written at `indices` (added,
  /// with `accumulate`).
  Variable index_put(const std::vector<TensorIndex>& indices, const Variable& value,
                     bool accumulate = false) const;
  /// In place: v[indices] = value (or +=, with `accumulate`).
  Variable& index_put_(std::initializer_list<TensorIndex> indices, const Variable& value,
                       bool accumulate = false);
  Variable& index_put_(const std::vector<TensorIndex>& indices, const Variable& value,
                       bool accumulate = false);
  Variable& index_put_(std::initializer_list<TensorIndex> indices, Scalar value);
  Variable& index_put_(const std::vector<TensorIndex>& indices, Scalar value);

  // ---- Index ops and linear algebra ---------------------------------------------------
  Variable index_select(int64_t dim, const Tensor& index) const;
  Variable gather(int64_t dim, const Tensor& index) const;
  Variable scatter(int64_t dim, const Tensor& index, const Variable& src) const;
  Variable scatter_add(int64_t dim, const Tensor& index, const Variable& src) const;
  Variable masked_select(const Tensor& mask) const;
  /// Elements at flat indices of the row-major flattened Variable.
  Variable take(const Tensor& index) const;
  Variable index_add(int64_t dim, const Tensor& index, const Variable& source,
                     Scalar alpha = 1) const;
  Variable& index_add_(int64_t dim, const Tensor& index, const Variable& source,
                       Scalar alpha = 1);
  Variable index_copy(int64_t dim, const Tensor& index, const Variable& source) const;
  Variable& index_copy_(int64_t dim, const Tensor& index, const Variable& source);
  /// The filled slices get no gradient.
  Variable index_fill(int64_t dim, const Tensor& index, Scalar value) const;
  Variable& index_fill_(int64_t dim, const Tensor& index, Scalar value);
  Variable take_along_dim(const Tensor& indices,
                          std::optional<int64_t> dim = std::nullopt) const;

  // ---- Shape ops (Tensor's, with gradients) -------------------------------------------
  Variable tril(int64_t diagonal = 0) const;
  Variable triu(int64_t diagonal = 0) const;
  Variable& tril_(int64_t diagonal = 0);
  Variable& triu_(int64_t diagonal = 0);
  Variable flip(IntArrayRef dims) const;
  Variable fliplr() const;
  Variable flipud() const;
  Variable roll(IntArrayRef shifts, IntArrayRef dims = {}) const;
  Variable roll(int64_t shifts, std::optional<int64_t> dim = std::nullopt) const;
  Variable rot90(int64_t k = 1, IntArrayRef dims = {0, 1}) const;
  /// A view: writes through it reach this Variable.
  Variable diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Variable diag(int64_t diagonal = 0) const;
  Variable diag_embed(int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1) const;
  Variable trace() const;
  Variable repeat(IntArrayRef repeats) const;
  Variable tile(IntArrayRef dims) const;
  Variable repeat_interleave(int64_t repeats, std::optional<int64_t> dim = std::nullopt,
                             std::optional<int64_t> output_size = std::nullopt) const;
  Variable repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim = std::nullopt,
                             std::optional<int64_t> output_size = std::nullopt) const;
  Variable movedim(IntArrayRef source, IntArrayRef destination) const;
  Variable movedim(int64_t source, int64_t destination) const;
  Variable moveaxis(IntArrayRef source, IntArrayRef destination) const;
  Variable moveaxis(int64_t source, int64_t destination) const;
  Variable mm(const Variable& other) const;
  Variable bmm(const Variable& other) const;
  Variable matmul(const Variable& other) const;
  Variable mv(const Variable& vec) const;
  Variable dot(const Variable& other) const;
  Variable outer(const Variable& other) const;
  Variable cross(const Variable& other, std::optional<int64_t> dim = std::nullopt) const;
  Variable kron(const Variable& other) const;

  // ---- Decompositions and solvers (autograd/linalg_decompositions.h) -----------
  Variable det() const;
  Variable logdet() const;
  /// (sign, logabsdet); the sign has no gradient.
  std::tuple<Tensor, Variable> slogdet() const;
  Variable inverse() const;
  Variable cholesky(bool upper = false) const;
  Variable cholesky_solve(const Variable& input2, bool upper = false) const;
  Variable cholesky_inverse(bool upper = false) const;
  std::tuple<Variable, Variable> qr(bool some = true) const;
  std::tuple<Variable, Variable, Variable> svd(bool some = true, bool compute_uv = true) const;
  Variable pinverse(double rcond = 1e-15) const;
  Variable matrix_power(int64_t n) const;
  Variable matrix_exp() const;

 private:
  std::shared_ptr<VariableImpl> impl_;
  const VariableImpl& checked() const {
    if (impl_ == nullptr) throw_undefined();
    return *impl_;
  }
  [[noreturn]] static void throw_undefined();
  /// checked(), with a view's history brought up to date first.
  const VariableImpl& history() const;
};

using variable_list = std::vector<Variable>;

std::ostream& operator<<(std::ostream& out, const Variable& v);

Variable operator+(const Variable& a, const Variable& b);
Variable operator-(const Variable& a, const Variable& b);
Variable operator*(const Variable& a, const Variable& b);
Variable operator/(const Variable& a, const Variable& b);
Variable operator+(const Variable& a, Scalar b);
Variable operator-(const Variable& a, Scalar b);
Variable operator*(const Variable& a, Scalar b);
Variable operator/(const Variable& a, Scalar b);
Variable operator+(Scalar a, const Variable& b);
Variable operator-(Scalar a, const Variable& b);
Variable operator*(Scalar a, const Variable& b);
Variable operator/(Scalar a, const Variable& b);
Variable operator-(const Variable& a);

}  // namespace torchlet
