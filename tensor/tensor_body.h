#pragma once

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "tensor/device.h"
#include "tensor/dtype.h"
#include "tensor/error.h"
#include "tensor/scalar.h"
#include "tensor/shape.h"
#include "tensor/tensor_impl.h"
#include "tensor/tensor_options.h"

namespace torchlet {

class TensorIndex;
namespace cuda {
class Stream;
}  // namespace cuda

/// A strided n-dimensional array on one device: a cheap handle (one pointer)
/// to a TensorImpl. Copying a Tensor shares the data; views share storage.
/// Tensors know nothing of gradients: see torchlet::Variable for autograd.
class Tensor {
 public:
  /// An undefined tensor (like a default-constructed at::Tensor).
  Tensor() = default;
  explicit Tensor(IntrusivePtr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return static_cast<bool>(impl_); }
  TensorImpl* impl() const { return impl_.get(); }
  /// True when both handles point to the same tensor (not merely equal data).
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }

  // ---- Metadata ----------------------------------------------------------
  int64_t dim() const { return checked_impl()->dim(); }
  IntArrayRef sizes() const { return checked_impl()->sizes(); }
  IntArrayRef strides() const { return checked_impl()->strides(); }
  IntArrayRef shape() const { return sizes(); }
  /// Size of `dim` (negative counts from the end).
  int64_t size(int64_t dim) const {
    const TensorImpl* t = checked_impl();
    if (t->dim() == 0) throw_no_dimensions("size", dim);
    return t->sizes()[wrap_dim(dim, t->dim(), "size")];
  }
  int64_t stride(int64_t dim) const {
    const TensorImpl* t = checked_impl();
    if (t->dim() == 0) throw_no_dimensions("stride", dim);
    return t->strides()[wrap_dim(dim, t->dim(), "stride")];
  }
  int64_t numel() const { return checked_impl()->numel(); }
  DType dtype() const { return checked_impl()->dtype(); }
  Device device() const { return checked_impl()->device(); }
  /// This tensor's dtype and device, for a factory that makes a tensor like
  /// it: `zeros({2}, t.options())`, `empty({2}, t.options().dtype(kInt64))`
  /// (libtorch's `Tensor::options()`).
  TensorOptions options() const { return TensorOptions(dtype()).device(device()); }
  int64_t storage_offset() const { return checked_impl()->storage_offset(); }
  bool is_contiguous() const { return checked_impl()->is_contiguous(); }
  bool is_floating_point() const { return torchlet::is_floating_point(dtype()); }
  bool is_cuda() const { return device().is_cuda(); }
  size_t element_size() const { return torchlet::element_size(dtype()); }
  /// The shared storage's version: bumped by every in-place write to any view.
  uint32_t version() const { return checked_impl()->storage()->version(); }
  void bump_version() const { checked_impl()->storage()->bump_version(); }
  /// True when both tensors view the same storage.
  bool shares_storage(const Tensor& other) const;

  /// Address of the first element.
  void* data_ptr() const { return checked_impl()->data(); }
  /// Typed address of the first element; throws unless T matches dtype().
  template <typename T>
  T* data() const {
    check_dtype_is(dtype_of<T>(), "data");
    return static_cast<T*>(data_ptr());
  }

  /// The single element, converted to T; throws unless numel() == 1.
  template <typename T>
  T item() const {
    return item_scalar().to<T>();
  }
  Scalar item_scalar() const;
  /// All elements in row-major order, converted to T.
  template <typename T>
  std::vector<T> to_vector() const;

  // ---- Conversion and copies -----------------------------------------------
  Tensor to(Device device) const;
  Tensor to(DType dtype) const;
  Tensor to(Device device, DType dtype) const;
  /// With non_blocking, a copy between page-locked CPU memory and a GPU is
  /// queued and returns at once, as in PyTorch: a GPU tensor copied to the
  /// CPU lands in page-locked memory, readable once the GPU is
  /// synchronized. Other copies block.
  Tensor to(Device device, bool non_blocking) const;
  Tensor to(Device device, DType dtype, bool non_blocking) const;
  /// A copy in page-locked memory (torch.Tensor.pin_memory), or this
  /// tensor if it is pinned already; CPU tensors only, and needs a GPU.
  Tensor pin_memory() const;
  /// Whether this CPU tensor's memory is page-locked.
  bool is_pinned() const;
  /// Marks this GPU tensor's memory as used by `stream` as well as by the
  /// stream it was made on (torch.Tensor.record_stream): when it is freed,
  /// the caching allocator reuses it only after the work queued on
  /// `stream` by then has finished (Note [CUDA caching allocator]).
  void record_stream(const cuda::Stream& stream) const;
  Tensor contiguous() const;
  Tensor clone() const;
  /// Copies `src` (broadcast to this shape, any dtype, any device) into this.
  Tensor& copy_(const Tensor& src, bool non_blocking = false);
  Tensor& fill_(Scalar value);
  Tensor& zero_();

  // ---- Views (share storage) -------------------------------------------------
  /// A view with explicit geometry over this tensor's storage; throws if it
  /// would reach outside the storage.
  Tensor as_strided(IntArrayRef sizes, IntArrayRef strides,
                    std::optional<int64_t> storage_offset = std::nullopt) const;
  Tensor view(IntArrayRef shape) const;
  Tensor view_as(const Tensor& other) const;
  Tensor reshape(IntArrayRef shape) const;
  Tensor reshape_as(const Tensor& other) const;
  Tensor permute(IntArrayRef dims) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor slice(int64_t dim, std::optional<int64_t> start = std::nullopt,
               std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor expand(IntArrayRef sizes) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t dim, IntArrayRef sizes) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  /// select(0, i).
  Tensor operator[](int64_t index) const { return select(0, index); }

  // ---- Indexing (PyTorch's t[0, 1:None:2, None, ...]) -------------------------
  Tensor index(std::initializer_list<TensorIndex> indices) const;
  Tensor index(const std::vector<TensorIndex>& indices) const;
  /// t[indices] = value; with `accumulate`, t[indices] += value (repeated
  /// indices add every value).
  Tensor& index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value,
                     bool accumulate = false);
  Tensor& index_put_(std::initializer_list<TensorIndex> indices, Scalar value);
  Tensor& index_put_(const std::vector<TensorIndex>& indices, const Tensor& value,
                     bool accumulate = false);
  Tensor& index_put_(const std::vector<TensorIndex>& indices, Scalar value);

  // ---- Elementwise -----------------------------------------------------------
  Tensor add(const Tensor& other, Scalar alpha = 1) const;
  Tensor add(Scalar other, Scalar alpha = 1) const;
  Tensor sub(const Tensor& other, Scalar alpha = 1) const;
  Tensor sub(Scalar other, Scalar alpha = 1) const;
  Tensor mul(const Tensor& other) const;
  Tensor mul(Scalar other) const;
  Tensor div(const Tensor& other) const;
  Tensor div(Scalar other) const;
  Tensor pow(const Tensor& exponent) const;
  Tensor pow(Scalar exponent) const;
  Tensor maximum(const Tensor& other) const;
  Tensor minimum(const Tensor& other) const;
  Tensor& add_(const Tensor& other, Scalar alpha = 1);
  Tensor& add_(Scalar other, Scalar alpha = 1);
  Tensor& sub_(const Tensor& other, Scalar alpha = 1);
  Tensor& sub_(Scalar other, Scalar alpha = 1);
  Tensor& mul_(const Tensor& other);
  Tensor& mul_(Scalar other);
  Tensor& div_(const Tensor& other);
  Tensor& div_(Scalar other);
  Tensor& pow_(const Tensor& exponent);
  Tensor& pow_(Scalar exponent);
  Tensor floor_divide(const Tensor& other) const;
  Tensor floor_divide(Scalar other) const;
  Tensor remainder(const Tensor& other) const;
  Tensor remainder(Scalar other) const;
  Tensor fmod(const Tensor& other) const;
  Tensor fmod(Scalar other) const;
  Tensor atan2(const Tensor& other) const;
  Tensor& floor_divide_(const Tensor& other);
  Tensor& floor_divide_(Scalar other);
  Tensor& remainder_(const Tensor& other);
  Tensor& remainder_(Scalar other);
  Tensor& fmod_(const Tensor& other);
  Tensor& fmod_(Scalar other);
  Tensor& atan2_(const Tensor& other);
  // Elementwise math (tensor/elementwise.h): integer inputs give float32.
  Tensor hypot(const Tensor& other) const;
  Tensor& hypot_(const Tensor& other);
  Tensor logaddexp(const Tensor& other) const;
  Tensor logaddexp2(const Tensor& other) const;
  Tensor xlogy(const Tensor& other) const;
  Tensor xlogy(Scalar other) const;
  Tensor& xlogy_(const Tensor& other);
  Tensor& xlogy_(Scalar other);
  Tensor copysign(const Tensor& other) const;
  Tensor copysign(Scalar other) const;
  Tensor& copysign_(const Tensor& other);
  Tensor& copysign_(Scalar other);
  /// this + weight * (end - this); all operands of one floating dtype.
  Tensor lerp(const Tensor& end, Scalar weight) const;
  Tensor lerp(const Tensor& end, const Tensor& weight) const;
  Tensor& lerp_(const Tensor& end, Scalar weight);
  Tensor& lerp_(const Tensor& end, const Tensor& weight);
  /// this + value * tensor1 * tensor2.
  Tensor addcmul(const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1) const;
  Tensor& addcmul_(const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1);
  /// this + value * tensor1 / tensor2; integer tensor1 and tensor2 are refused.
  Tensor addcdiv(const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1) const;
  Tensor& addcdiv_(const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1);
  Tensor sinh() const;
  Tensor cosh() const;
  Tensor asin() const;
  Tensor acos() const;
  Tensor atan() const;
  Tensor asinh() const;
  Tensor acosh() const;
  Tensor atanh() const;
  Tensor expm1() const;
  Tensor log2() const;
  Tensor log10() const;
  Tensor exp2() const;
  Tensor erfc() const;
  Tensor erfinv() const;
  Tensor lgamma() const;
  Tensor digamma() const;
  Tensor& sinh_();
  Tensor& cosh_();
  Tensor& asin_();
  Tensor& acos_();
  Tensor& atan_();
  Tensor& asinh_();
  Tensor& acosh_();
  Tensor& atanh_();
  Tensor& expm1_();
  Tensor& log2_();
  Tensor& log10_();
  Tensor& exp2_();
  Tensor& erfc_();
  Tensor& erfinv_();
  Tensor& lgamma_();
  Tensor& digamma_();
  /// |this - other| <= atol + rtol * |other| elementwise (bool); one dtype.
  Tensor isclose(const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
                 bool equal_nan = false) const;
  bool allclose(const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
                bool equal_nan = false) const;
  /// Same sizes and equal elements.
  bool equal(const Tensor& other) const;

  Tensor neg() const;
  Tensor abs() const;
  Tensor sign() const;
  Tensor exp() const;
  Tensor erf() const;
  Tensor log() const;
  Tensor log1p() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  Tensor sin() const;
  Tensor cos() const;
  Tensor relu() const;
  Tensor sigmoid() const;
  Tensor tanh() const;
  /// GELU; `approximate` is "none" (erf) or "tanh".
  Tensor gelu(const std::string& approximate = "none") const;
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor clamp_min(Scalar min) const { return clamp(min, std::nullopt); }
  Tensor clamp_max(Scalar max) const { return clamp(std::nullopt, max); }
  Tensor& neg_();
  Tensor& abs_();
  Tensor& sign_();
  Tensor& exp_();
  Tensor& erf_();
  Tensor& log_();
  Tensor& log1p_();
  Tensor& sqrt_();
  Tensor& rsqrt_();
  Tensor& sin_();
  Tensor& cos_();
  Tensor& relu_();
  Tensor& sigmoid_();
  Tensor& tanh_();
  Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
  Tensor floor() const;
  Tensor ceil() const;
  Tensor trunc() const;
  /// Half to even, to `decimals` decimal places.
  Tensor round(int64_t decimals = 0) const;
  Tensor frac() const;
  Tensor& floor_();
  Tensor& ceil_();
  Tensor& trunc_();
  Tensor& round_(int64_t decimals = 0);
  Tensor& frac_();
  Tensor isnan() const;
  Tensor isinf() const;
  Tensor isfinite() const;
  /// NaN and infinities replaced (see torchlet::nan_to_num).
  Tensor nan_to_num(double nan = 0.0, std::optional<double> posinf = std::nullopt,
                    std::optional<double> neginf = std::nullopt) const;
  Tensor& nan_to_num_(double nan = 0.0, std::optional<double> posinf = std::nullopt,
                      std::optional<double> neginf = std::nullopt);

  Tensor eq(const Tensor& other) const;
  Tensor eq(Scalar other) const;
  Tensor ne(const Tensor& other) const;
  Tensor ne(Scalar other) const;
  Tensor lt(const Tensor& other) const;
  Tensor lt(Scalar other) const;
  Tensor le(const Tensor& other) const;
  Tensor le(Scalar other) const;
  Tensor gt(const Tensor& other) const;
  Tensor gt(Scalar other) const;
  Tensor ge(const Tensor& other) const;
  Tensor ge(Scalar other) const;
  Tensor logical_and(const Tensor& other) const;
  Tensor logical_or(const Tensor& other) const;
  Tensor logical_not() const;
  /// Elements of this where `condition`, else of `other` (torch.Tensor.where).
  Tensor where(const Tensor& condition, const Tensor& other) const;
  Tensor masked_fill(const Tensor& mask, Scalar value) const;
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
  Tensor& masked_fill_(const Tensor& mask, Scalar value);
  Tensor& masked_fill_(const Tensor& mask, const Tensor& value);

  // ---- Reductions (tensor/reduction.h) ---------------------------------------
  // Without dims they reduce every element to a 0-dim tensor. Integral and
  // bool inputs sum/prod to int64, as in PyTorch.
  Tensor sum(std::optional<DType> dtype = std::nullopt) const;
  Tensor sum(IntArrayRef dims, bool keepdim = false,
             std::optional<DType> dtype = std::nullopt) const;
  Tensor mean() const;
  Tensor mean(IntArrayRef dims, bool keepdim = false) const;
  Tensor prod() const;
  Tensor prod(int64_t dim, bool keepdim = false) const;
  Tensor max() const;
  /// (values, indices) along `dim`.
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  Tensor min() const;
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  /// Empty `dims` reduces over every dim.
  Tensor amax(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor amin(IntArrayRef dims = {}, bool keepdim = false) const;
  /// Without `dim`, the index into the flattened tensor.
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  /// Over `dims` (every dim when empty).
  Tensor var(IntArrayRef dims = {}, bool unbiased = true, bool keepdim = false) const;
  /// var(false): every element, biased; var(1): one dim; var({1}): dims {1}
  /// (overloads that keep a braced int from becoming `unbiased`).
  template <typename B, detail::IfBool<B> = 0>
  Tensor var(B unbiased) const { return var(IntArrayRef{}, unbiased); }
  template <typename I, detail::IfIndex<I> = 0>
  Tensor var(I dim, bool unbiased = true, bool keepdim = false) const {
    return var(IntArrayRef({static_cast<int64_t>(dim)}), unbiased, keepdim);
  }
  Tensor std(IntArrayRef dims = {}, bool unbiased = true, bool keepdim = false) const;
  /// std(false): every element, biased; std(1): one dim; std({1}): dims {1}
  /// (overloads that keep a braced int from becoming `unbiased`).
  template <typename B, detail::IfBool<B> = 0>
  Tensor std(B unbiased) const { return std(IntArrayRef{}, unbiased); }
  template <typename I, detail::IfIndex<I> = 0>
  Tensor std(I dim, bool unbiased = true, bool keepdim = false) const {
    return std(IntArrayRef({static_cast<int64_t>(dim)}), unbiased, keepdim);
  }
  /// The p-norm of all elements (p = 2 by default; inf for max-abs).
  Tensor norm(Scalar p = 2) const;
  Tensor norm(Scalar p, IntArrayRef dims, bool keepdim = false) const;
  Tensor logsumexp(IntArrayRef dims, bool keepdim = false) const;
  Tensor all() const;
  Tensor all(int64_t dim, bool keepdim = false) const;
  Tensor any() const;
  Tensor any(int64_t dim, bool keepdim = false) const;
  Tensor softmax(int64_t dim) const;
  Tensor log_softmax(int64_t dim) const;
  Tensor cumsum(int64_t dim) const;
  Tensor cumprod(int64_t dim) const;
  /// Sum (or mean) of the non-NaN elements over `dims` (every dim when
  /// empty); an explicit `dtype` converts the input first.
  Tensor nansum(IntArrayRef dims = {}, bool keepdim = false,
                std::optional<DType> dtype = std::nullopt) const;
  Tensor nanmean(IntArrayRef dims = {}, bool keepdim = false,
                 std::optional<DType> dtype = std::nullopt) const;
  /// (amin, amax) in one call; without `dim`, over every element.
  std::tuple<Tensor, Tensor> aminmax(std::optional<int64_t> dim = std::nullopt,
                                     bool keepdim = false) const;
  /// How many elements are nonzero over `dims` (every dim when empty): int64.
  Tensor count_nonzero(IntArrayRef dims = {}) const;
  /// The lower median of every element (NaN if any is NaN).
  Tensor median() const;
  /// (values, indices): the lower median along `dim`.
  std::tuple<Tensor, Tensor> median(int64_t dim, bool keepdim = false) const;
  /// median ignoring NaNs (NaN only where every element is NaN).
  Tensor nanmedian() const;
  std::tuple<Tensor, Tensor> nanmedian(int64_t dim, bool keepdim = false) const;
  /// The q-th quantiles (q in [0, 1], a scalar or 1-D tensor) along `dim`, or
  /// of every element; `interpolation` is "linear", "lower", "higher",
  /// "midpoint" or "nearest". A 1-D q adds a leading dim of its size.
  Tensor quantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                  bool keepdim = false, const std::string& interpolation = "linear") const;
  Tensor quantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                  const std::string& interpolation = "linear") const;
  /// quantile ignoring NaNs.
  Tensor nanquantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                     bool keepdim = false, const std::string& interpolation = "linear") const;
  Tensor nanquantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                     const std::string& interpolation = "linear") const;
  /// Running max (or min) along `dim`: (values, indices of where each was reached).
  std::tuple<Tensor, Tensor> cummax(int64_t dim) const;
  std::tuple<Tensor, Tensor> cummin(int64_t dim) const;
  /// log(cumsum(exp(x))) along `dim`, computed stably.
  Tensor logcumsumexp(int64_t dim) const;

  // ---- Sorting and selection (tensor/sorting.h) -------------------------------
  /// (values, indices) sorted along `dim`.
  std::tuple<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false,
                                  bool stable = false) const;
  Tensor argsort(int64_t dim = -1, bool descending = false) const;
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true,
                                  bool sorted = true) const;
  /// The k-th smallest (1-based) along `dim`: (values, indices).
  std::tuple<Tensor, Tensor> kthvalue(int64_t k, int64_t dim = -1, bool keepdim = false) const;
  /// Indices of nonzero elements: int64 of shape [count, dim()].
  Tensor nonzero() const;
  /// The consecutive runs of equal values: (values, inverse, counts), the
  /// last two undefined unless asked for. Without `dim`, of the flattened
  /// tensor; with it, of the slices along `dim`.
  std::tuple<Tensor, Tensor, Tensor> unique_consecutive(
      bool return_inverse = false, bool return_counts = false,
      std::optional<int64_t> dim = std::nullopt) const;

  // ---- Counting (tensor/search.h) ---------------------------------------------
  /// Occurrences of each value of a 1-D non-negative integral tensor
  /// (weighted sums with `weights`), at least `minlength` bins.
  Tensor bincount(const Tensor& weights = Tensor(), int64_t minlength = 0) const;
  /// A histogram of `bins` equal bins over [min, max] (min = max: the data's range).
  Tensor histc(int64_t bins = 100, Scalar min = 0, Scalar max = 0) const;

  // ---- Index-based ops (tensor/index_ops.h) -----------------------------------
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor gather(int64_t dim, const Tensor& index) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(int64_t dim, const Tensor& index, Scalar value) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src);
  Tensor& scatter_(int64_t dim, const Tensor& index, Scalar value);
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src);
  /// The elements where `mask` (bool, broadcastable) holds, as a 1-D tensor.
  Tensor masked_select(const Tensor& mask) const;
  /// Elements at flat indices `index` (of the row-major flattened tensor).
  Tensor take(const Tensor& index) const;
  /// A copy with alpha * source's slices added at `index` along `dim`
  /// (repeated indices add every slice).
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source,
                   Scalar alpha = 1) const;
  Tensor& index_add_(int64_t dim, const Tensor& index, const Tensor& source, Scalar alpha = 1);
  /// A copy with source's slices written at `index` along `dim`.
  Tensor index_copy(int64_t dim, const Tensor& index, const Tensor& source) const;
  Tensor& index_copy_(int64_t dim, const Tensor& index, const Tensor& source);
  /// A copy with the slices at `index` along `dim` set to `value`.
  Tensor index_fill(int64_t dim, const Tensor& index, Scalar value) const;
  Tensor& index_fill_(int64_t dim, const Tensor& index, Scalar value);
  /// gather with broadcast `indices`; without `dim`, over the flattened tensor.
  Tensor take_along_dim(const Tensor& indices, std::optional<int64_t> dim = std::nullopt) const;

  // ---- Shape ops (tensor/shape_ops.h) -------------------------------------------
  /// The lower (tril) or upper (triu) triangle of the last two dims, from
  /// `diagonal` (0 the main one, > 0 above it, < 0 below it).
  Tensor tril(int64_t diagonal = 0) const;
  Tensor triu(int64_t diagonal = 0) const;
  Tensor& tril_(int64_t diagonal = 0);
  Tensor& triu_(int64_t diagonal = 0);
  /// Reverses the order of elements along `dims`.
  Tensor flip(IntArrayRef dims) const;
  Tensor fliplr() const;
  Tensor flipud() const;
  /// Rolls elements by `shifts` along `dims`; without dims, over the
  /// flattened tensor, keeping the shape.
  Tensor roll(IntArrayRef shifts, IntArrayRef dims = {}) const;
  Tensor roll(int64_t shifts, std::optional<int64_t> dim = std::nullopt) const;
  /// Rotates by 90 degrees `k` times, from dims[0] toward dims[1].
  Tensor rot90(int64_t k = 1, IntArrayRef dims = {0, 1}) const;
  /// A view of the diagonal `offset` of dims (dim1, dim2), appended last.
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  /// 1-D: a square matrix with this on diagonal `diagonal`; 2-D: that diagonal.
  Tensor diag(int64_t diagonal = 0) const;
  /// Matrices (dims dim1, dim2 of the result) with the last dim on their
  /// diagonal `offset`.
  Tensor diag_embed(int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1) const;
  /// The sum of the main diagonal of a 2-D tensor.
  Tensor trace() const;
  /// Tiles this tensor `repeats[i]` times along each dim (leading repeats
  /// add dims).
  Tensor repeat(IntArrayRef repeats) const;
  /// repeat, with `dims` padded with leading ones to this tensor's rank.
  Tensor tile(IntArrayRef dims) const;
  /// Repeats each element (or slice along `dim`) `repeats` times; without
  /// `dim`, over the flattened tensor.
  Tensor repeat_interleave(int64_t repeats, std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt) const;
  Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt) const;
  /// A view with dims `source` moved to positions `destination`.
  Tensor movedim(IntArrayRef source, IntArrayRef destination) const;
  Tensor movedim(int64_t source, int64_t destination) const;
  Tensor moveaxis(IntArrayRef source, IntArrayRef destination) const;
  Tensor moveaxis(int64_t source, int64_t destination) const;

  // ---- Linear algebra (tensor/linalg.h) ---------------------------------------
  Tensor mm(const Tensor& other) const;
  Tensor bmm(const Tensor& other) const;
  Tensor matmul(const Tensor& other) const;
  Tensor mv(const Tensor& vec) const;
  Tensor dot(const Tensor& other) const;
  Tensor outer(const Tensor& other) const;
  /// beta * this + alpha * (mat1 @ mat2).
  Tensor addmm(const Tensor& mat1, const Tensor& mat2, Scalar beta = 1, Scalar alpha = 1) const;
  /// beta * this + alpha * (batch1 @ batch2), batched.
  Tensor baddbmm(const Tensor& batch1, const Tensor& batch2, Scalar beta = 1,
                 Scalar alpha = 1) const;
  /// The cross product of 3-vectors along `dim`; without `dim`, along the
  /// first dim of size 3.
  Tensor cross(const Tensor& other, std::optional<int64_t> dim = std::nullopt) const;
  /// The Kronecker product.
  Tensor kron(const Tensor& other) const;

  // ---- Decompositions and solvers (tensor/linalg_decompositions.h) ------------
  // Over the last two dims, batched over the leading ones; float32/float64.
  Tensor det() const;
  Tensor logdet() const;
  /// (sign, logabsdet).
  std::tuple<Tensor, Tensor> slogdet() const;
  Tensor inverse() const;
  Tensor cholesky(bool upper = false) const;
  /// Solves A X = this for A = L L^H given its factor `input2` = L (or U).
  Tensor cholesky_solve(const Tensor& input2, bool upper = false) const;
  /// The inverse of A = L L^H given this factor L (or U).
  Tensor cholesky_inverse(bool upper = false) const;
  /// (Q, R): reduced with `some`, else complete (torch.qr).
  std::tuple<Tensor, Tensor> qr(bool some = true) const;
  /// torch.svd: (U, S, V) with V (not V^H); without `compute_uv`, U and V
  /// are zeros.
  std::tuple<Tensor, Tensor, Tensor> svd(bool some = true, bool compute_uv = true) const;
  Tensor pinverse(double rcond = 1e-15) const;
  Tensor matrix_power(int64_t n) const;
  Tensor matrix_exp() const;

  // ---- Random fills ----------------------------------------------------------
  Tensor& uniform_(double from = 0, double to = 1);
  Tensor& normal_(double mean = 0, double std = 1);

  /// PyTorch's repr: "tensor([[1., 2.],\n        [3., 4.]])".
  std::string str() const;

 private:
  TensorImpl* checked_impl() const {
    TORCHLET_CHECK(impl_, "Tensor: the tensor is undefined (default-constructed)");
    return impl_.get();
  }
  void check_dtype_is(DType expected, const char* op) const;
  /// size() and stride() of a 0-dim tensor (Note [size and stride of a 0-dim
  /// tensor]).
  [[noreturn]] static void throw_no_dimensions(const char* op, int64_t dim);
  /// A contiguous tensor in host memory with `dtype` (this one if it is already).
  Tensor host_contiguous(DType dtype) const;

  IntrusivePtr<TensorImpl> impl_;
};

std::ostream& operator<<(std::ostream& out, const Tensor& t);

template <typename T>
std::vector<T> Tensor::to_vector() const {
  const Tensor host = host_contiguous(dtype_of<T>());
  const T* p = static_cast<const T*>(host.data_ptr());
  return std::vector<T>(p, p + host.numel());
}

Tensor operator-(const Tensor& a);
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, Scalar b);
Tensor operator-(const Tensor& a, Scalar b);
Tensor operator*(const Tensor& a, Scalar b);
Tensor operator/(const Tensor& a, Scalar b);
Tensor operator+(Scalar a, const Tensor& b);
Tensor operator-(Scalar a, const Tensor& b);
Tensor operator*(Scalar a, const Tensor& b);
Tensor operator/(Scalar a, const Tensor& b);
Tensor& operator+=(Tensor& a, const Tensor& b);
Tensor& operator-=(Tensor& a, const Tensor& b);
Tensor& operator*=(Tensor& a, const Tensor& b);
Tensor& operator/=(Tensor& a, const Tensor& b);
Tensor& operator+=(Tensor& a, Scalar b);
Tensor& operator-=(Tensor& a, Scalar b);
Tensor& operator*=(Tensor& a, Scalar b);
Tensor& operator/=(Tensor& a, Scalar b);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, Scalar b);
Tensor operator!=(const Tensor& a, Scalar b);
Tensor operator<(const Tensor& a, Scalar b);
Tensor operator<=(const Tensor& a, Scalar b);
Tensor operator>(const Tensor& a, Scalar b);
Tensor operator>=(const Tensor& a, Scalar b);

}  // namespace torchlet
