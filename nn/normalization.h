#pragma once

// Instance, group and local response normalization layers
// (torch.nn.InstanceNorm1d/2d/3d, GroupNorm, LocalResponseNorm).

#include <cstdint>
#include <string>

#include "nn/batchnorm.h"
#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options.h"

namespace torchlet::nn {

/// The arguments of torch.nn.InstanceNorm1d/2d/3d, with their defaults
/// (BatchNorm's but affine and track_running_stats false).
struct InstanceNormOptions : BatchNormOptions {
  InstanceNormOptions(int64_t num_features)  // NOLINT: implicit, as BatchNormOptions
      : BatchNormOptions(BatchNormOptions(num_features).affine(false).track_running_stats(false)) {}
};
using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;
using InstanceNorm3dOptions = InstanceNormOptions;

/// What InstanceNorm1d/2d/3d share (PyTorch's _InstanceNorm): each sample's
/// channels are normalized over their own values, in training and, unless
/// track_running_stats, in eval; with track_running_stats the running
/// statistics move towards the batch's average (num_batches_tracked stays
/// 0, as in PyTorch) and normalize in eval. An input without the batch dim
/// is normalized as a batch of one. momentum None is an error at forward,
/// as in PyTorch.
template <typename Derived>
class InstanceNormImplBase : public NormImplBase<Derived> {
 public:
  /// InstanceNormOptions(num_features): PyTorch's defaults.
  explicit InstanceNormImplBase(int64_t num_features)
      : NormImplBase<Derived>(InstanceNormOptions(num_features)) {}
  /// Options built from InstanceNormOptions(num_features) (the setters
  /// return the BatchNormOptions base).
  explicit InstanceNormImplBase(const BatchNormOptions& options) : NormImplBase<Derived>(options) {}
  Variable forward(const Variable& input);

 protected:
  /// The rank of an input without the batch dim.
  virtual int64_t no_batch_dim() const = 0;
};

/// Instance norm over [N, C, L] or [C, L] (torch.nn.InstanceNorm1d).
class InstanceNorm1dImpl : public InstanceNormImplBase<InstanceNorm1dImpl> {
 public:
  using InstanceNormImplBase::InstanceNormImplBase;

 protected:
  void check_input_dim(const Variable& input) const override;
  int64_t no_batch_dim() const override { return 2; }
};
TORCHLET_MODULE(InstanceNorm1d);

/// Instance norm over [N, C, H, W] or [C, H, W] (torch.nn.InstanceNorm2d).
class InstanceNorm2dImpl : public InstanceNormImplBase<InstanceNorm2dImpl> {
 public:
  using InstanceNormImplBase::InstanceNormImplBase;

 protected:
  void check_input_dim(const Variable& input) const override;
  int64_t no_batch_dim() const override { return 3; }
};
TORCHLET_MODULE(InstanceNorm2d);

/// Instance norm over [N, C, D, H, W] or [C, D, H, W]
/// (torch.nn.InstanceNorm3d).
class InstanceNorm3dImpl : public InstanceNormImplBase<InstanceNorm3dImpl> {
 public:
  using InstanceNormImplBase::InstanceNormImplBase;

 protected:
  void check_input_dim(const Variable& input) const override;
  int64_t no_batch_dim() const override { return 4; }
};
TORCHLET_MODULE(InstanceNorm3d);

/// The arguments of torch.nn.GroupNorm, with their defaults.
struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels)
      : num_groups_(num_groups), num_channels_(num_channels) {}
  TORCHLET_ARG(int64_t, num_groups);
  TORCHLET_ARG(int64_t, num_channels);
  TORCHLET_ARG(double, eps) = 1e-5;
  TORCHLET_ARG(bool, affine) = true;
};

/// Group norm (torch.nn.GroupNorm): the channels of each sample of [N, C, *]
/// split into num_groups groups, each normalized over its values, then an
/// elementwise affine weight (ones) and bias (zeros) [C] when affine.
class GroupNormImpl : public Cloneable<GroupNormImpl> {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels);
  explicit GroupNormImpl(const GroupNormOptions& options);
  void reset() override;
  /// weight = 1 and bias = 0.
  void reset_parameters();
  Variable forward(const Variable& input);
  std::string extra_repr() const override;
  const GroupNormOptions& options() const { return options_; }

  /// Undefined unless affine.
  Parameter weight;
  Parameter bias;

 private:
  GroupNormOptions options_;
};
TORCHLET_MODULE(GroupNorm);

/// The arguments of torch.nn.LocalResponseNorm, with their defaults.
struct LocalResponseNormOptions {
  LocalResponseNormOptions(int64_t size) : size_(size) {}  // NOLINT: implicit
  TORCHLET_ARG(int64_t, size);
  TORCHLET_ARG(double, alpha) = 1e-4;
  TORCHLET_ARG(double, beta) = 0.75;
  TORCHLET_ARG(double, k) = 1.0;
};

/// Local response norm across channels (torch.nn.LocalResponseNorm; see
/// nn::functional::local_response_norm).
class LocalResponseNormImpl : public Cloneable<LocalResponseNormImpl> {
 public:
  explicit LocalResponseNormImpl(const LocalResponseNormOptions& options) : options_(options) {}
  void reset() override {}
  Variable forward(const Variable& input);
  std::string extra_repr() const override;
  const LocalResponseNormOptions& options() const { return options_; }

 private:
  LocalResponseNormOptions options_;
};
TORCHLET_MODULE(LocalResponseNorm);

}  // namespace torchlet::nn
