#pragma once

// Dropout layers (torch.nn.Dropout, Dropout1d, Dropout2d, Dropout3d, AlphaDropout,
// FeatureAlphaDropout): the functional forms of nn/functional/dropout.h in
// training mode, the identity in eval mode.

#include <string>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options.h"

namespace torchlet::nn {

/// The arguments of every dropout layer, with their defaults.
struct DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT: implicit
  TORCHLET_ARG(double, p);
  TORCHLET_ARG(bool, inplace) = false;
};

/// What the dropout layers share (PyTorch's _DropoutNd): the options,
/// their check and the repr `Dropout(p=0.5, inplace=False)`.
template <typename Derived>
class DropoutImplBase : public Cloneable<Derived> {
 public:
  explicit DropoutImplBase(const DropoutOptions& options = {});
  void reset() override {}
  std::string extra_repr() const override;
  const DropoutOptions& options() const { return options_; }

 private:
  DropoutOptions options_;
};

/// Zeroes elements with probability p in training (torch.nn.Dropout).
class DropoutImpl : public DropoutImplBase<DropoutImpl> {
 public:
  using DropoutImplBase::DropoutImplBase;
  Variable forward(const Variable& input);
};
TORCHLET_MODULE(Dropout);

/// Zeroes whole channels of [N, C, L] or [C, L] with probability p in
/// training (torch.nn.Dropout1d).
class Dropout1dImpl : public DropoutImplBase<Dropout1dImpl> {
 public:
  using DropoutImplBase::DropoutImplBase;
  Variable forward(const Variable& input);
};
TORCHLET_MODULE(Dropout1d);

/// Zeroes whole channels with probability p in training
/// (torch.nn.Dropout2d).
class Dropout2dImpl : public DropoutImplBase<Dropout2dImpl> {
 public:
  using DropoutImplBase::DropoutImplBase;
  Variable forward(const Variable& input);
};
TORCHLET_MODULE(Dropout2d);

/// Zeroes whole channels of [N, C, D, H, W] or [C, D, H, W] with
/// probability p in training (torch.nn.Dropout3d).
class Dropout3dImpl : public DropoutImplBase<Dropout3dImpl> {
 public:
  using DropoutImplBase::DropoutImplBase;
  Variable forward(const Variable& input);
};
TORCHLET_MODULE(Dropout3d);

/// Alpha dropout for SELU networks in training (torch.nn.AlphaDropout).
class AlphaDropoutImpl : public DropoutImplBase<AlphaDropoutImpl> {
 public:
  using DropoutImplBase::DropoutImplBase;
  Variable forward(const Variable& input);
};
TORCHLET_MODULE(AlphaDropout);

/// Alpha dropout of whole channels in training
/// (torch.nn.FeatureAlphaDropout).
class FeatureAlphaDropoutImpl : public DropoutImplBase<FeatureAlphaDropoutImpl> {
 public:
  using DropoutImplBase::DropoutImplBase;
  Variable forward(const Variable& input);
};
TORCHLET_MODULE(FeatureAlphaDropout);

}  // namespace torchlet::nn
