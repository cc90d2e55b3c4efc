#pragma once

// Batch normalization layers (torch.nn.BatchNorm1d/2d/3d).

#include <cstdint>
#include <optional>
#include <string>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options.h"

namespace torchlet::nn {

/// The arguments of torch.nn.BatchNorm1d/2d/3d and InstanceNorm1d/2d/3d
/// (their common _NormBase), with BatchNorm's defaults. momentum nullopt is
/// PyTorch's None: a cumulative moving average.
struct BatchNormOptions {
  /// `num_features` (C) is required, as in PyTorch.
  BatchNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT: implicit
  TORCHLET_ARG(int64_t, num_features);
  TORCHLET_ARG(double, eps) = 1e-5;
  TORCHLET_ARG(std::optional<double>, momentum) = 0.1;
  TORCHLET_ARG(bool, affine) = true;
  TORCHLET_ARG(bool, track_running_stats) = true;
};
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;

// Note [Running statistics are written in place]
// running_mean, running_var and num_batches_tracked are buffers whose
// storage a training forward updates in place, never replaced: every
// handle to them (the module's members, its registry slots, a state_dict
// taken earlier, and DataParallel's replica on the first device, which
// shares the original's storage) sees the new statistics, as in PyTorch.

/// What the batch and instance norm layers share (PyTorch's _NormBase):
/// parameters weight (ones) and bias (zeros) [C] when affine; buffers
/// running_mean (zeros), running_var (ones) and num_batches_tracked (int64
/// 0-dim) when track_running_stats.
template <typename Derived>
class NormImplBase : public Cloneable<Derived> {
 public:
  explicit NormImplBase(const BatchNormOptions& options);
  void reset() override;
  /// Zeros running_mean and num_batches_tracked, fills running_var with 1.
  void reset_running_stats();
  /// reset_running_stats(), then weight = 1 and bias = 0.
  void reset_parameters();
  std::string extra_repr() const override;
  const BatchNormOptions& options() const { return options_; }

  /// Undefined unless affine.
  Parameter weight;
  Parameter bias;
  /// Undefined unless track_running_stats.
  Variable running_mean;
  Variable running_var;
  Variable num_batches_tracked;

 protected:
  /// Throws PyTorch's message unless input has the layer's rank.
  virtual void check_input_dim(const Variable& input) const = 0;

 private:
  BatchNormOptions options_;
};

/// What BatchNorm1d/2d/3d share (PyTorch's _BatchNorm). In training the
/// batch statistics normalize the input and update the running ones (Note
/// [Running statistics are written in place]); in eval the running
/// statistics normalize it, or the batch's when there are none.
template <typename Derived>
class BatchNormImplBase : public NormImplBase<Derived> {
 public:
  using NormImplBase<Derived>::NormImplBase;
  Variable forward(const Variable& input);
};

/// Batch norm over [N, C] or [N, C, L] (torch.nn.BatchNorm1d).
class BatchNorm1dImpl : public BatchNormImplBase<BatchNorm1dImpl> {
 public:
  using BatchNormImplBase::BatchNormImplBase;

 protected:
  void check_input_dim(const Variable& input) const override;
};
TORCHLET_MODULE(BatchNorm1d);

/// Batch norm over [N, C, H, W] (torch.nn.BatchNorm2d).
class BatchNorm2dImpl : public BatchNormImplBase<BatchNorm2dImpl> {
 public:
  using BatchNormImplBase::BatchNormImplBase;

 protected:
  void check_input_dim(const Variable& input) const override;
};
TORCHLET_MODULE(BatchNorm2d);

/// Batch norm over [N, C, D, H, W] (torch.nn.BatchNorm3d).
class BatchNorm3dImpl : public BatchNormImplBase<BatchNorm3dImpl> {
 public:
  using BatchNormImplBase::BatchNormImplBase;

 protected:
  void check_input_dim(const Variable& input) const override;
};
TORCHLET_MODULE(BatchNorm3d);

}  // namespace torchlet::nn
