#include "nn/functional/pooling.h"

#include "autograd/pool_ops.h"

namespace torchlet::nn {

std::string IntOrTuple::repr() const {
  if (!is_tuple_) return std::to_string(values_[0]);
  std::string text = "(";
  for (size_t i = 0; i < values_.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(values_[i]);
  }
  return text + (values_.size() == 1 ? ",)" : ")");
}

namespace functional {
namespace {

// Note [Pooling argument messages]
// PyTorch checks the length of each pooling argument in Python or in the
// op's C++ front, with wording that differs by op and argument; the table
// below keeps each message as PyTorch 1.13 words it.
enum class Arg { kKernel, kStride, kPadding, kDilation };

std::string arity_message(const char* op, int64_t dims, Arg arg, size_t got) {
  const std::string n = dims == 2 ? "two" : "three";
  const std::string o = op;
  const bool max = o.rfind("max", 0) == 0;
  if (dims == 1) {
    static const char* const kNames[] = {"kernel_size", "stride", "padding", "dilation"};
    const char* name = kNames[static_cast<int>(arg)];
    if (!max) {
      return o + "() argument '" + name + "' should contain one int (got " +
             std::to_string(got) + ")";
    }
    static const char* const kKinds[] = {"an int, list of ints or tuple of ints",
                                         "None, an int, list of ints, or tuple of ints",
                                         "an int, list of ints, or tuple of ints",
                                         "an int, list of ints or tuple of ints"};
    return o + "() " + name + " must be " + kKinds[static_cast<int>(arg)] +
           " of size 1 but got size " + std::to_string(got);
  }
  const bool avg3d = o == "avg_pool3d";
  switch (arg) {
    case Arg::kKernel:
      return o + ": kernel_size must " + (avg3d ? "" : "either ") + "be a single int, or a tuple of " +
             n + " ints";
    case Arg::kStride:
      return o + ": stride must " + (avg3d ? "" : "either ") +
             "be omitted, a single int, or a tuple of " + n + " ints";
    case Arg::kPadding:
      return o + ": padding must " + (max ? "be either be" : avg3d ? "be" : "either be") +
             " a single int, or a tuple of " + n + " ints";
    case Arg::kDilation:
      return o + ": dilation must be either a single int, or a tuple of " + n + " ints";
  }
  return o;
}

SizeVec expand(const char* op, int64_t dims, Arg arg, const IntOrTuple& value) {
  const std::vector<int64_t>& v = value.values();
  TORCHLET_CHECK(v.size() == 1 || static_cast<int64_t>(v.size()) == dims,
                 arity_message(op, dims, arg, v.size()));
  return v.size() == 1 ? SizeVec(static_cast<size_t>(dims), v[0]) : SizeVec(v.begin(), v.end());
}

template <size_t D>
PoolGeometry max_geometry(const char* op, const MaxPoolOptions<D>& o) {
  PoolGeometry g;
  g.spatial_dims = D;
  g.kernel = expand(op, D, Arg::kKernel, o.kernel_size_);
  g.stride = o.stride_ ? expand(op, D, Arg::kStride, *o.stride_) : g.kernel;
  g.padding = expand(op, D, Arg::kPadding, o.padding_);
  g.dilation = expand(op, D, Arg::kDilation, o.dilation_);
  g.ceil_mode = o.ceil_mode_;
  return g;
}

template <size_t D>
PoolGeometry avg_geometry(const char* op, const AvgPoolOptions<D>& o) {
  PoolGeometry g;
  g.spatial_dims = D;
  g.kernel = expand(op, D, Arg::kKernel, o.kernel_size_);
  g.stride = o.stride_ ? expand(op, D, Arg::kStride, *o.stride_) : g.kernel;
  g.padding = expand(op, D, Arg::kPadding, o.padding_);
  g.dilation = SizeVec(D, 1);
  g.ceil_mode = o.ceil_mode_;
  return g;
}

template <size_t D>
std::tuple<Variable, Tensor> max_pool_nd(const char* op, const Variable& input,
                                         const MaxPoolOptions<D>& options, bool return_indices) {
  return max_pool(op, input, max_geometry(op, options), return_indices);
}

template <size_t D>
Variable avg_pool_nd(const char* op, const Variable& input, const AvgPoolOptions<D>& options) {
  return avg_pool(op, input, avg_geometry(op, options), options.count_include_pad_,
                  options.divisor_override_);
}

// The arity check of an adaptive pool's output_size, in PyTorch's words.
SizeVec adaptive_size(const char* op, int64_t dims, bool is_max, const IntOrTuple& value) {
  const std::vector<int64_t>& v = value.values();
  if (v.size() == 1 || static_cast<int64_t>(v.size()) == dims) {
    return v.size() == 1 ? SizeVec(static_cast<size_t>(dims), v[0]) : SizeVec(v.begin(), v.end());
  }
  const std::string o = op;
  if (dims == 1) {
    TORCHLET_CHECK(false, o, "() argument 'output_size' should contain one int (got ", v.size(),
                   ")");
  }
  TORCHLET_CHECK(!is_max, o, "(): internal error: output_size.size() must be ", dims);
  TORCHLET_CHECK(false, o, ": output_size must be ", dims);
  return {};
}

// Python's tuple text of a size list, "(7, 7)".
std::string tuple_text(IntArrayRef values) {
  std::string text = "(";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + (values.size() == 1 ? ",)" : ")");
}

// PyTorch's _unpool_output_size: the default size, or the given one (its
// last two entries) if within a stride of it.
SizeVec unpool_output_size(const Variable& input, const SizeVec& kernel, const SizeVec& stride,
                           const SizeVec& padding, const std::optional<std::vector<int64_t>>& given) {
  SizeVec size;
  for (size_t d = 0; d < 2; ++d) {
    size.push_back((input.size(static_cast<int64_t>(d) - 2) - 1) * stride[d] + kernel[d] -
                   2 * padding[d]);
  }
  if (!given) return size;
  std::vector<int64_t> requested = *given;
  if (requested.size() == 4) requested.erase(requested.begin(), requested.begin() + 2);
  TORCHLET_CHECK(requested.size() == 2,
                 "output_size should be a sequence containing 2 or 4 elements, but it has a "
                 "length of '",
                 given->size(), "'");
  for (size_t d = 0; d < 2; ++d) {
    const int64_t lo = size[d] - stride[d], hi = size[d] + stride[d];
    TORCHLET_CHECK(lo < requested[d] && requested[d] < hi, "invalid output_size \"",
                   tuple_text(requested), "\" (dim ", d, " must be between ", lo, " and ", hi, ")");
  }
  return SizeVec(requested.begin(), requested.end());
}

}  // namespace

Variable max_pool1d(const Variable& input, const MaxPool1dFuncOptions& options) {
  return std::get<0>(max_pool_nd("max_pool1d", input, options, false));
}
std::tuple<Variable, Tensor> max_pool1d_with_indices(const Variable& input,
                                                     const MaxPool1dFuncOptions& options) {
  return max_pool_nd("max_pool1d", input, options, true);
}
Variable max_pool2d(const Variable& input, const MaxPool2dFuncOptions& options) {
  return std::get<0>(max_pool_nd("max_pool2d", input, options, false));
}
std::tuple<Variable, Tensor> max_pool2d_with_indices(const Variable& input,
                                                     const MaxPool2dFuncOptions& options) {
  return max_pool_nd("max_pool2d", input, options, true);
}
Variable max_pool3d(const Variable& input, const MaxPool3dFuncOptions& options) {
  return std::get<0>(max_pool_nd("max_pool3d", input, options, false));
}
std::tuple<Variable, Tensor> max_pool3d_with_indices(const Variable& input,
                                                     const MaxPool3dFuncOptions& options) {
  return max_pool_nd("max_pool3d", input, options, true);
}

Variable avg_pool1d(const Variable& input, const AvgPool1dFuncOptions& options) {
  return avg_pool_nd("avg_pool1d", input, options);
}
Variable avg_pool2d(const Variable& input, const AvgPool2dFuncOptions& options) {
  return avg_pool_nd("avg_pool2d", input, options);
}
Variable avg_pool3d(const Variable& input, const AvgPool3dFuncOptions& options) {
  return avg_pool_nd("avg_pool3d", input, options);
}

Variable adaptive_avg_pool1d(const Variable& input, const AdaptiveAvgPool1dFuncOptions& options) {
  return adaptive_avg_pool("adaptive_avg_pool1d", input,
                           adaptive_size("adaptive_avg_pool1d", 1, false, options.output_size_));
}
Variable adaptive_avg_pool2d(const Variable& input, const AdaptiveAvgPool2dFuncOptions& options) {
  return adaptive_avg_pool("adaptive_avg_pool2d", input,
                           adaptive_size("adaptive_avg_pool2d", 2, false, options.output_size_));
}
Variable adaptive_avg_pool3d(const Variable& input, const AdaptiveAvgPool3dFuncOptions& options) {
  return adaptive_avg_pool("adaptive_avg_pool3d", input,
                           adaptive_size("adaptive_avg_pool3d", 3, false, options.output_size_));
}

std::tuple<Variable, Tensor> adaptive_max_pool1d_with_indices(
    const Variable& input, const AdaptiveMaxPool1dFuncOptions& options) {
  return adaptive_max_pool("adaptive_max_pool1d", input,
                           adaptive_size("adaptive_max_pool1d", 1, true, options.output_size_),
                           true);
}
Variable adaptive_max_pool1d(const Variable& input, const AdaptiveMaxPool1dFuncOptions& options) {
  return std::get<0>(adaptive_max_pool(
      "adaptive_max_pool1d", input,
      adaptive_size("adaptive_max_pool1d", 1, true, options.output_size_), false));
}
std::tuple<Variable, Tensor> adaptive_max_pool2d_with_indices(
    const Variable& input, const AdaptiveMaxPool2dFuncOptions& options) {
  return adaptive_max_pool("adaptive_max_pool2d", input,
                           adaptive_size("adaptive_max_pool2d", 2, true, options.output_size_),
                           true);
}
Variable adaptive_max_pool2d(const Variable& input, const AdaptiveMaxPool2dFuncOptions& options) {
  return std::get<0>(adaptive_max_pool(
      "adaptive_max_pool2d", input,
      adaptive_size("adaptive_max_pool2d", 2, true, options.output_size_), false));
}

Variable max_unpool2d(const Variable& input, const Tensor& indices,
                      const MaxUnpool2dFuncOptions& options) {
  const SizeVec kernel = expand("max_unpool2d", 2, Arg::kKernel, options.kernel_size_);
  const SizeVec stride =
      options.stride_ ? expand("max_unpool2d", 2, Arg::kStride, *options.stride_) : kernel;
  const SizeVec padding = expand("max_unpool2d", 2, Arg::kPadding, options.padding_);
  TORCHLET_CHECK(input.dim() == 3 || input.dim() == 4,
                 "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with ",
                 input.dim(), " dimensions.");
  return torchlet::max_unpool2d(
      input, indices, unpool_output_size(input, kernel, stride, padding, options.output_size_));
}

Variable lp_pool2d(const Variable& input, const LPPool2dFuncOptions& options) {
  const SizeVec kernel = expand("lp_pool2d", 2, Arg::kKernel, options.kernel_size_);
  AvgPool2dOptions avg(options.kernel_size_);
  if (options.stride_) avg.stride(*options.stride_);
  avg.ceil_mode(options.ceil_mode_);
  const Variable out = avg_pool2d(input.pow(options.norm_type_), avg);
  return (out.sign() * out.abs().relu())
      .mul(static_cast<double>(kernel[0] * kernel[1]))
      .pow(1.0 / options.norm_type_.to_double());
}

}  // namespace functional
}  // namespace torchlet::nn
