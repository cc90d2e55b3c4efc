#pragma once

// Pooling (torch.nn.functional.max_pool1d/2d/3d, avg_pool1d/2d/3d) and the
// options the pooling modules share, libtorch's way:
// `F::max_pool2d(x, F::MaxPool2dFuncOptions(2).stride(2))`.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "autograd/variable.h"
#include "tensor/scalar.h"

namespace torchlet::nn {

/// A pooling argument as PyTorch takes it: one int for every spatial dim,
/// or a tuple of one per dim. It remembers which, because the modules'
/// reprs print them as given (`kernel_size=2`, `kernel_size=(2, 3)`).
class IntOrTuple {
 public:
  IntOrTuple(int64_t value) : values_{value}, is_tuple_(false) {}  // NOLINT: implicit
  IntOrTuple(std::initializer_list<int64_t> values)                // NOLINT: implicit
      : values_(values), is_tuple_(true) {}
  IntOrTuple(std::vector<int64_t> values)  // NOLINT: implicit
      : values_(std::move(values)), is_tuple_(true) {}

  const std::vector<int64_t>& values() const { return values_; }
  bool is_tuple() const { return is_tuple_; }
  /// `2` or `(2, 3)`, as Python prints it (a 1-tuple as `(2,)`).
  std::string repr() const;

 private:
  std::vector<int64_t> values_;
  bool is_tuple_;
};

/// torch.nn.MaxPool{D}d's arguments; stride defaults to kernel_size.
template <size_t D>
struct MaxPoolOptions {
  MaxPoolOptions(IntOrTuple kernel_size) : kernel_size_(std::move(kernel_size)) {}  // NOLINT
  MaxPoolOptions(int64_t kernel_size) : kernel_size_(kernel_size) {}  // NOLINT: implicit
  MaxPoolOptions(std::initializer_list<int64_t> kernel_size)  // NOLINT: implicit
      : kernel_size_(kernel_size) {}
  MaxPoolOptions& stride(IntOrTuple v) { stride_ = std::move(v); return *this; }
  MaxPoolOptions& padding(IntOrTuple v) { padding_ = std::move(v); return *this; }
  MaxPoolOptions& dilation(IntOrTuple v) { dilation_ = std::move(v); return *this; }
  MaxPoolOptions& ceil_mode(bool v) { ceil_mode_ = v; return *this; }

  IntOrTuple kernel_size_;
  std::optional<IntOrTuple> stride_;
  IntOrTuple padding_ = 0;
  IntOrTuple dilation_ = 1;
  bool ceil_mode_ = false;
};
using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;
using MaxPool3dOptions = MaxPoolOptions<3>;

/// torch.nn.AvgPool{D}d's arguments; stride defaults to kernel_size.
template <size_t D>
struct AvgPoolOptions {
  AvgPoolOptions(IntOrTuple kernel_size) : kernel_size_(std::move(kernel_size)) {}  // NOLINT
  AvgPoolOptions(int64_t kernel_size) : kernel_size_(kernel_size) {}  // NOLINT: implicit
  AvgPoolOptions(std::initializer_list<int64_t> kernel_size)  // NOLINT: implicit
      : kernel_size_(kernel_size) {}
  AvgPoolOptions& stride(IntOrTuple v) { stride_ = std::move(v); return *this; }
  AvgPoolOptions& padding(IntOrTuple v) { padding_ = std::move(v); return *this; }
  AvgPoolOptions& ceil_mode(bool v) { ceil_mode_ = v; return *this; }
  AvgPoolOptions& count_include_pad(bool v) { count_include_pad_ = v; return *this; }
  AvgPoolOptions& divisor_override(std::optional<int64_t> v) {
    divisor_override_ = v;
    return *this;
  }

  IntOrTuple kernel_size_;
  std::optional<IntOrTuple> stride_;
  IntOrTuple padding_ = 0;
  bool ceil_mode_ = false;
  bool count_include_pad_ = true;
  std::optional<int64_t> divisor_override_;
};
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;
using AvgPool3dOptions = AvgPoolOptions<3>;

/// torch.nn.AdaptiveAvgPool{D}d's argument: the output's spatial size.
template <size_t D>
struct AdaptiveAvgPoolOptions {
  AdaptiveAvgPoolOptions(IntOrTuple output_size)  // NOLINT: implicit
      : output_size_(std::move(output_size)) {}
  AdaptiveAvgPoolOptions(int64_t output_size) : output_size_(output_size) {}  // NOLINT: implicit
  AdaptiveAvgPoolOptions(std::initializer_list<int64_t> output_size)  // NOLINT: implicit
      : output_size_(output_size) {}
  IntOrTuple output_size_;
};
using AdaptiveAvgPool1dOptions = AdaptiveAvgPoolOptions<1>;
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<2>;
using AdaptiveAvgPool3dOptions = AdaptiveAvgPoolOptions<3>;

/// torch.nn.AdaptiveMaxPool{D}d's argument: the output's spatial size.
template <size_t D>
struct AdaptiveMaxPoolOptions {
  AdaptiveMaxPoolOptions(IntOrTuple output_size)  // NOLINT: implicit
      : output_size_(std::move(output_size)) {}
  AdaptiveMaxPoolOptions(int64_t output_size) : output_size_(output_size) {}  // NOLINT: implicit
  AdaptiveMaxPoolOptions(std::initializer_list<int64_t> output_size)  // NOLINT: implicit
      : output_size_(output_size) {}
  IntOrTuple output_size_;
};
using AdaptiveMaxPool1dOptions = AdaptiveMaxPoolOptions<1>;
using AdaptiveMaxPool2dOptions = AdaptiveMaxPoolOptions<2>;

/// torch.nn.MaxUnpool2d's arguments (those of the MaxPool2d it inverts);
/// stride defaults to kernel_size.
struct MaxUnpool2dOptions {
  MaxUnpool2dOptions(IntOrTuple kernel_size)  // NOLINT: implicit
      : kernel_size_(std::move(kernel_size)) {}
  MaxUnpool2dOptions(int64_t kernel_size) : kernel_size_(kernel_size) {}  // NOLINT: implicit
  MaxUnpool2dOptions(std::initializer_list<int64_t> kernel_size)  // NOLINT: implicit
      : kernel_size_(kernel_size) {}
  MaxUnpool2dOptions& stride(IntOrTuple v) { stride_ = std::move(v); return *this; }
  MaxUnpool2dOptions& padding(IntOrTuple v) { padding_ = std::move(v); return *this; }

  IntOrTuple kernel_size_;
  std::optional<IntOrTuple> stride_;
  IntOrTuple padding_ = 0;
};

/// torch.nn.LPPool2d's arguments; stride defaults to kernel_size.
/// norm_type keeps whether it was an int or a float (its repr shows it).
struct LPPool2dOptions {
  LPPool2dOptions(Scalar norm_type, IntOrTuple kernel_size)
      : norm_type_(norm_type), kernel_size_(std::move(kernel_size)) {}
  LPPool2dOptions(Scalar norm_type, std::initializer_list<int64_t> kernel_size)
      : norm_type_(norm_type), kernel_size_(kernel_size) {}
  LPPool2dOptions& stride(IntOrTuple v) { stride_ = std::move(v); return *this; }
  LPPool2dOptions& ceil_mode(bool v) { ceil_mode_ = v; return *this; }

  Scalar norm_type_;
  IntOrTuple kernel_size_;
  std::optional<IntOrTuple> stride_;
  bool ceil_mode_ = false;
};

namespace functional {

using AdaptiveAvgPool1dFuncOptions = AdaptiveAvgPool1dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;
using AdaptiveAvgPool3dFuncOptions = AdaptiveAvgPool3dOptions;
using AdaptiveMaxPool1dFuncOptions = AdaptiveMaxPool1dOptions;
using AdaptiveMaxPool2dFuncOptions = AdaptiveMaxPool2dOptions;
using LPPool2dFuncOptions = LPPool2dOptions;

/// max_unpool2d's arguments: the pool's, and optionally the output size
/// ([H, W] or [N, C, H, W]) when the pooled input's size was ambiguous.
struct MaxUnpool2dFuncOptions : MaxUnpool2dOptions {
  using MaxUnpool2dOptions::MaxUnpool2dOptions;
  MaxUnpool2dFuncOptions& output_size(std::vector<int64_t> v) {
    output_size_ = std::move(v);
    return *this;
  }
  std::optional<std::vector<int64_t>> output_size_;
};

using MaxPool1dFuncOptions = MaxPool1dOptions;
using MaxPool2dFuncOptions = MaxPool2dOptions;
using MaxPool3dFuncOptions = MaxPool3dOptions;
using AvgPool1dFuncOptions = AvgPool1dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using AvgPool3dFuncOptions = AvgPool3dOptions;

/// Each output element is the maximum of its (dilated) window over input
/// [N, C, L] or [C, L]; padding is -inf. Ties keep the first maximum, NaN
/// propagates. Output sizes follow PyTorch's rule, ceil_mode included.
Variable max_pool1d(const Variable& input, const MaxPool1dFuncOptions& options);
/// max_pool1d and the int64 index of each maximum within its input row.
std::tuple<Variable, Tensor> max_pool1d_with_indices(const Variable& input,
                                                     const MaxPool1dFuncOptions& options);
/// Max pooling over input [N, C, H, W] or [C, H, W]; indices are flat
/// positions h * W + w in the input plane.
Variable max_pool2d(const Variable& input, const MaxPool2dFuncOptions& options);
std::tuple<Variable, Tensor> max_pool2d_with_indices(const Variable& input,
                                                     const MaxPool2dFuncOptions& options);
/// Max pooling over input [N, C, D, H, W] or [C, D, H, W].
Variable max_pool3d(const Variable& input, const MaxPool3dFuncOptions& options);
std::tuple<Variable, Tensor> max_pool3d_with_indices(const Variable& input,
                                                     const MaxPool3dFuncOptions& options);

/// Each output element is its window's mean over input [N, C, L] or
/// [C, L]: the sum divided by divisor_override if given, else by the window
/// size with padding (count_include_pad) or without.
Variable avg_pool1d(const Variable& input, const AvgPool1dFuncOptions& options);
/// Average pooling over input [N, C, H, W] or [C, H, W].
Variable avg_pool2d(const Variable& input, const AvgPool2dFuncOptions& options);
/// Average pooling over input [N, C, D, H, W] or [C, D, H, W].
Variable avg_pool3d(const Variable& input, const AvgPool3dFuncOptions& options);

/// Adaptive average pooling of input [N, C, L] or [C, L] to output_size:
/// output element i averages input [floor(i * L / out), ceil((i + 1) * L /
/// out)).
Variable adaptive_avg_pool1d(const Variable& input, const AdaptiveAvgPool1dFuncOptions& options);
/// Adaptive average pooling of input [N, C, H, W] or [C, H, W].
Variable adaptive_avg_pool2d(const Variable& input, const AdaptiveAvgPool2dFuncOptions& options);
/// Adaptive average pooling of input [N, C, D, H, W] or [C, D, H, W].
Variable adaptive_avg_pool3d(const Variable& input, const AdaptiveAvgPool3dFuncOptions& options);

/// Adaptive max pooling of input [N, C, L] or [C, L], windows as
/// adaptive_avg_pool1d's; ties and NaN as max_pool1d.
Variable adaptive_max_pool1d(const Variable& input, const AdaptiveMaxPool1dFuncOptions& options);
std::tuple<Variable, Tensor> adaptive_max_pool1d_with_indices(
    const Variable& input, const AdaptiveMaxPool1dFuncOptions& options);
/// Adaptive max pooling of input [N, C, H, W] or [C, H, W].
Variable adaptive_max_pool2d(const Variable& input, const AdaptiveMaxPool2dFuncOptions& options);
std::tuple<Variable, Tensor> adaptive_max_pool2d_with_indices(
    const Variable& input, const AdaptiveMaxPool2dFuncOptions& options);

/// The partial inverse of max_pool2d: input [N, C, h, w] or [C, h, w]
/// placed at `indices` (max_pool2d's) in zero planes of the output size,
/// (h - 1) * stride - 2 * padding + kernel_size per dim unless given.
Variable max_unpool2d(const Variable& input, const Tensor& indices,
                      const MaxUnpool2dFuncOptions& options);

/// Power-average pooling: (sum over the window of x^p)^(1/p), computed as
/// PyTorch's Python does from avg_pool2d (no padding).
Variable lp_pool2d(const Variable& input, const LPPool2dFuncOptions& options);

}  // namespace functional
}  // namespace torchlet::nn
