#pragma once

#include <cstdint>
#include <string>

#include "nn/cloneable.h"
#include "nn/module_holder.h"

namespace torchlet::nn {

/// Returns its input (torch.nn.Identity).
class IdentityImpl : public Cloneable<IdentityImpl> {
 public:
  void reset() override {}
  Variable forward(const Variable& input) { return input; }
};
TORCHLET_MODULE(Identity);

/// y = x Wᵀ + b over the last dimension (torch.nn.Linear). Weight
/// [out_features, in_features] and bias [out_features] start as PyTorch's:
/// kaiming_uniform_(a = sqrt(5)) and uniform on ±1/sqrt(in_features).
class LinearImpl : public Cloneable<LinearImpl> {
 public:
  LinearImpl(int64_t in_features, int64_t out_features, bool bias = true);
  void reset() override;
  /// Draws new weights and bias (PyTorch's reset_parameters).
  void reset_parameters();
  Variable forward(const Variable& input);
  std::string extra_repr() const override;

  int64_t in_features() const { return in_features_; }
  int64_t out_features() const { return out_features_; }

  Parameter weight;
  /// Undefined when constructed with bias = false.
  Parameter bias;

 private:
  int64_t in_features_;
  int64_t out_features_;
  bool has_bias_;
};
TORCHLET_MODULE(Linear);

/// y[..., k] = x1 W[k] x2ᵀ + b[k] over the last dimensions (torch.nn.Bilinear).
/// Weight [out_features, in1_features, in2_features] and bias
/// [out_features] start as PyTorch's: uniform on ±1/sqrt(in1_features).
class BilinearImpl : public Cloneable<BilinearImpl> {
 public:
  BilinearImpl(int64_t in1_features, int64_t in2_features, int64_t out_features,
               bool bias = true);
  void reset() override;
  /// Draws new weights and bias (PyTorch's reset_parameters).
  void reset_parameters();
  Variable forward(const Variable& input1, const Variable& input2);
  std::string extra_repr() const override;

  Parameter weight;
  /// Undefined when constructed with bias = false.
  Parameter bias;

 private:
  int64_t in1_features_;
  int64_t in2_features_;
  int64_t out_features_;
  bool has_bias_;
};
TORCHLET_MODULE(Bilinear);

}  // namespace torchlet::nn
