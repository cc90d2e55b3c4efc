#pragma once

// Pooling layers (torch.nn.MaxPool1d/2d/3d, AvgPool1d/2d/3d), configured
// with the options of nn/functional/pooling.h:
// `nn::MaxPool2d pool(nn::MaxPool2dOptions(2).stride(2));`.

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "nn/cloneable.h"
#include "nn/functional/pooling.h"
#include "nn/module_holder.h"

namespace torchlet::nn {

/// The shared body of MaxPool{D}d: no parameters; forward is
/// functional::max_pool{D}d with the options.
template <size_t D, typename Derived>
class MaxPoolImpl : public Cloneable<Derived> {
 public:
  explicit MaxPoolImpl(MaxPoolOptions<D> options) : options(std::move(options)) {}
  void reset() override {}
  /// `kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False`.
  std::string extra_repr() const override;

  MaxPoolOptions<D> options;
};

class MaxPool1dImpl;
class MaxPool2dImpl;
class MaxPool3dImpl;
extern template class MaxPoolImpl<1, MaxPool1dImpl>;
extern template class MaxPoolImpl<2, MaxPool2dImpl>;
extern template class MaxPoolImpl<3, MaxPool3dImpl>;

/// Max pooling over [N, C, L] or [C, L] (torch.nn.MaxPool1d).
class MaxPool1dImpl : public MaxPoolImpl<1, MaxPool1dImpl> {
 public:
  using MaxPoolImpl::MaxPoolImpl;
  Variable forward(const Variable& input);
  /// The output and the index of each maximum (return_indices=True).
  std::tuple<Variable, Tensor> forward_with_indices(const Variable& input);
};
TORCHLET_MODULE(MaxPool1d);

/// Max pooling over [N, C, H, W] or [C, H, W] (torch.nn.MaxPool2d).
class MaxPool2dImpl : public MaxPoolImpl<2, MaxPool2dImpl> {
 public:
  using MaxPoolImpl::MaxPoolImpl;
  Variable forward(const Variable& input);
  /// The output and the index of each maximum (return_indices=True).
  std::tuple<Variable, Tensor> forward_with_indices(const Variable& input);
};
TORCHLET_MODULE(MaxPool2d);

/// Max pooling over [N, C, D, H, W] or [C, D, H, W] (torch.nn.MaxPool3d).
class MaxPool3dImpl : public MaxPoolImpl<3, MaxPool3dImpl> {
 public:
  using MaxPoolImpl::MaxPoolImpl;
  Variable forward(const Variable& input);
  /// The output and the index of each maximum (return_indices=True).
  std::tuple<Variable, Tensor> forward_with_indices(const Variable& input);
};
TORCHLET_MODULE(MaxPool3d);

/// The shared body of AvgPool{D}d: no parameters; forward is
/// functional::avg_pool{D}d with the options.
template <size_t D, typename Derived>
class AvgPoolImpl : public Cloneable<Derived> {
 public:
  explicit AvgPoolImpl(AvgPoolOptions<D> options) : options(std::move(options)) {}
  void reset() override {}
  /// `kernel_size=2, stride=2, padding=0` (AvgPool1d prints 1-tuples, as
  /// PyTorch's).
  std::string extra_repr() const override;

  AvgPoolOptions<D> options;
};

class AvgPool1dImpl;
class AvgPool2dImpl;
class AvgPool3dImpl;
extern template class AvgPoolImpl<1, AvgPool1dImpl>;
extern template class AvgPoolImpl<2, AvgPool2dImpl>;
extern template class AvgPoolImpl<3, AvgPool3dImpl>;

/// Average pooling over [N, C, L] or [C, L] (torch.nn.AvgPool1d).
class AvgPool1dImpl : public AvgPoolImpl<1, AvgPool1dImpl> {
 public:
  using AvgPoolImpl::AvgPoolImpl;
  Variable forward(const Variable& input);
};
TORCHLET_MODULE(AvgPool1d);

/// Average pooling over [N, C, H, W] or [C, H, W] (torch.nn.AvgPool2d).
class AvgPool2dImpl : public AvgPoolImpl<2, AvgPool2dImpl> {
 public:
  using AvgPoolImpl::AvgPoolImpl;
  Variable forward(const Variable& input);
};
TORCHLET_MODULE(AvgPool2d);

/// Average pooling over [N, C, D, H, W] or [C, D, H, W] (torch.nn.AvgPool3d).
class AvgPool3dImpl : public AvgPoolImpl<3, AvgPool3dImpl> {
 public:
  using AvgPoolImpl::AvgPoolImpl;
  Variable forward(const Variable& input);
};
TORCHLET_MODULE(AvgPool3d);

/// The shared body of AdaptiveAvgPool{D}d: forward is
/// functional::adaptive_avg_pool{D}d to options.output_size_.
template <size_t D, typename Derived>
class AdaptiveAvgPoolImpl : public Cloneable<Derived> {
 public:
  explicit AdaptiveAvgPoolImpl(AdaptiveAvgPoolOptions<D> options) : options(std::move(options)) {}
  void reset() override {}
  /// `output_size=2` or `output_size=(2, 3)`.
  std::string extra_repr() const override { return "output_size=" + options.output_size_.repr(); }

  AdaptiveAvgPoolOptions<D> options;
};

/// Adaptive average pooling over [N, C, L] or [C, L] (torch.nn.AdaptiveAvgPool1d).
class AdaptiveAvgPool1dImpl : public AdaptiveAvgPoolImpl<1, AdaptiveAvgPool1dImpl> {
 public:
  using AdaptiveAvgPoolImpl::AdaptiveAvgPoolImpl;
  Variable forward(const Variable& input);
};
TORCHLET_MODULE(AdaptiveAvgPool1d);

/// Adaptive average pooling over [N, C, H, W] or [C, H, W] (torch.nn.AdaptiveAvgPool2d).
class AdaptiveAvgPool2dImpl : public AdaptiveAvgPoolImpl<2, AdaptiveAvgPool2dImpl> {
 public:
  using AdaptiveAvgPoolImpl::AdaptiveAvgPoolImpl;
  Variable forward(const Variable& input);
};
TORCHLET_MODULE(AdaptiveAvgPool2d);

/// Adaptive average pooling over [N, C, D, H, W] or [C, D, H, W]
/// (torch.nn.AdaptiveAvgPool3d).
class AdaptiveAvgPool3dImpl : public AdaptiveAvgPoolImpl<3, AdaptiveAvgPool3dImpl> {
 public:
  using AdaptiveAvgPoolImpl::AdaptiveAvgPoolImpl;
  Variable forward(const Variable& input);
};
TORCHLET_MODULE(AdaptiveAvgPool3d);

/// The shared body of AdaptiveMaxPool{D}d.
template <size_t D, typename Derived>
class AdaptiveMaxPoolImpl : public Cloneable<Derived> {
 public:
  explicit AdaptiveMaxPoolImpl(AdaptiveMaxPoolOptions<D> options) : options(std::move(options)) {}
  void reset() override {}
  /// `output_size=2` or `output_size=(2, 3)`.
  std::string extra_repr() const override { return "output_size=" + options.output_size_.repr(); }

  AdaptiveMaxPoolOptions<D> options;
};

/// Adaptive max pooling over [N, C, L] or [C, L] (torch.nn.AdaptiveMaxPool1d).
class AdaptiveMaxPool1dImpl : public AdaptiveMaxPoolImpl<1, AdaptiveMaxPool1dImpl> {
 public:
  using AdaptiveMaxPoolImpl::AdaptiveMaxPoolImpl;
  Variable forward(const Variable& input);
  /// The output and the index of each maximum (return_indices=True).
  std::tuple<Variable, Tensor> forward_with_indices(const Variable& input);
};
TORCHLET_MODULE(AdaptiveMaxPool1d);

/// Adaptive max pooling over [N, C, H, W] or [C, H, W] (torch.nn.AdaptiveMaxPool2d).
class AdaptiveMaxPool2dImpl : public AdaptiveMaxPoolImpl<2, AdaptiveMaxPool2dImpl> {
 public:
  using AdaptiveMaxPoolImpl::AdaptiveMaxPoolImpl;
  Variable forward(const Variable& input);
  /// The output and the index of each maximum (return_indices=True).
  std::tuple<Variable, Tensor> forward_with_indices(const Variable& input);
};
TORCHLET_MODULE(AdaptiveMaxPool2d);

/// The partial inverse of MaxPool2d (torch.nn.MaxUnpool2d): forward(input,
/// indices[, output_size]).
class MaxUnpool2dImpl : public Cloneable<MaxUnpool2dImpl> {
 public:
  explicit MaxUnpool2dImpl(MaxUnpool2dOptions options) : options(std::move(options)) {}
  void reset() override {}
  Variable forward(const Variable& input, const Tensor& indices,
                   const std::optional<std::vector<int64_t>>& output_size = std::nullopt);
  /// `kernel_size=(2, 2), stride=(2, 2), padding=(0, 0)`: pairs, as PyTorch's.
  std::string extra_repr() const override;

  MaxUnpool2dOptions options;
};
TORCHLET_MODULE(MaxUnpool2d);

/// Power-average pooling over [N, C, H, W] or [C, H, W] (torch.nn.LPPool2d).
class LPPool2dImpl : public Cloneable<LPPool2dImpl> {
 public:
  explicit LPPool2dImpl(LPPool2dOptions options) : options(std::move(options)) {}
  void reset() override {}
  Variable forward(const Variable& input);
  /// `norm_type=2, kernel_size=3, stride=None, ceil_mode=False`.
  std::string extra_repr() const override;

  LPPool2dOptions options;
};
TORCHLET_MODULE(LPPool2d);

}  // namespace torchlet::nn
