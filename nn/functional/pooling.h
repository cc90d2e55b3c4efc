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

namespace functional {

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

}  // namespace functional
}  // namespace torchlet::nn
