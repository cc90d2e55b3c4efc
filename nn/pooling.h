#pragma once

// Pooling layers (torch.nn.MaxPool1d/2d/3d, AvgPool1d/2d/3d), configured
// with the options of nn/functional/pooling.h:
// `nn::MaxPool2d pool(nn::MaxPool2dOptions(2).stride(2));`.

#include <string>
#include <tuple>

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
  explicit MaxPoolImpl(IntOrTuple kernel_size) : options(std::move(kernel_size)) {}
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
  explicit AvgPoolImpl(IntOrTuple kernel_size) : options(std::move(kernel_size)) {}
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

}  // namespace torchlet::nn
