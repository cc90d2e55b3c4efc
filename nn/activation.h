#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options.h"
#include "nn/stateless.h"

namespace torchlet::nn {

/// The options of a layer whose only option is `inplace` (ReLU, ReLU6,
/// SELU, SiLU, Mish).
struct InplaceOptions {
  InplaceOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT: implicit, as libtorch's
  TORCHLET_ARG(bool, inplace);
};
using ReLUOptions = InplaceOptions;
using ReLU6Options = InplaceOptions;
using SELUOptions = InplaceOptions;
using SiLUOptions = InplaceOptions;
using MishOptions = InplaceOptions;

/// torch.nn.LeakyReLU's arguments.
struct LeakyReLUOptions {
  TORCHLET_ARG(double, negative_slope) = 1e-2;
  TORCHLET_ARG(bool, inplace) = false;
};

/// torch.nn.ELU's arguments.
struct ELUOptions {
  TORCHLET_ARG(double, alpha) = 1.0;
  TORCHLET_ARG(bool, inplace) = false;
};

/// torch.nn.GELU's argument: approximate is "none" or "tanh".
struct GELUOptions {
  TORCHLET_ARG(std::string, approximate) = "none";
};

/// torch.nn.Hardtanh's arguments.
struct HardtanhOptions {
  TORCHLET_ARG(double, min_val) = -1.0;
  TORCHLET_ARG(double, max_val) = 1.0;
  TORCHLET_ARG(bool, inplace) = false;
};

/// torch.nn.Softplus's arguments. They keep whether they were given as
/// integers or floats, which is how PyTorch prints them (`beta=1`).
struct SoftplusOptions {
  TORCHLET_ARG(Scalar, beta) = 1;
  TORCHLET_ARG(Scalar, threshold) = 20;
};

/// torch.nn.PReLU's arguments: one weight, or one per channel, each
/// starting at `init`.
struct PReLUOptions {
  TORCHLET_ARG(int64_t, num_parameters) = 1;
  TORCHLET_ARG(double, init) = 0.25;
};

/// max(0, x) (torch.nn.ReLU); with `inplace`, overwrites its input.
class ReLUImpl : public StatelessModule<ReLUImpl, ReLUOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input);
  std::string extra_repr() const override;
};
TORCHLET_MODULE(ReLU);

/// min(max(0, x), 6) (torch.nn.ReLU6).
class ReLU6Impl : public StatelessModule<ReLU6Impl, ReLU6Options> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input);
  std::string extra_repr() const override;
};
TORCHLET_MODULE(ReLU6);

/// x for x > 0, else negative_slope * x (torch.nn.LeakyReLU).
class LeakyReLUImpl : public StatelessModule<LeakyReLUImpl, LeakyReLUOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input);
  std::string extra_repr() const override;
};
TORCHLET_MODULE(LeakyReLU);

/// x for x > 0, else alpha * (exp(x) - 1) (torch.nn.ELU).
class ELUImpl : public StatelessModule<ELUImpl, ELUOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input);
  std::string extra_repr() const override;
};
TORCHLET_MODULE(ELU);

/// Scaled ELU with PyTorch's constants (torch.nn.SELU).
class SELUImpl : public StatelessModule<SELUImpl, SELUOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input);
  std::string extra_repr() const override;
};
TORCHLET_MODULE(SELU);

/// x * Phi(x), exactly or by the tanh approximation (torch.nn.GELU).
class GELUImpl : public StatelessModule<GELUImpl, GELUOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input);
  std::string extra_repr() const override;
};
TORCHLET_MODULE(GELU);

/// x * sigmoid(x) (torch.nn.SiLU).
class SiLUImpl : public StatelessModule<SiLUImpl, SiLUOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input);
  std::string extra_repr() const override;
};
TORCHLET_MODULE(SiLU);

/// x * tanh(softplus(x)) (torch.nn.Mish).
class MishImpl : public StatelessModule<MishImpl, MishOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input);
  std::string extra_repr() const override;
};
TORCHLET_MODULE(Mish);

/// x clamped to [min_val, max_val] (torch.nn.Hardtanh).
class HardtanhImpl : public StatelessModule<HardtanhImpl, HardtanhOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input);
  std::string extra_repr() const override;
};
TORCHLET_MODULE(Hardtanh);

/// log(1 + exp(beta * x)) / beta, linear above threshold (torch.nn.Softplus).
class SoftplusImpl : public StatelessModule<SoftplusImpl, SoftplusOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input);
  std::string extra_repr() const override;
};
TORCHLET_MODULE(Softplus);

/// x for x > 0, else weight * x with a learned weight of num_parameters
/// elements (one, or one per channel), each starting at `init`
/// (torch.nn.PReLU).
class PReLUImpl : public Cloneable<PReLUImpl> {
 public:
  explicit PReLUImpl(PReLUOptions options = {});
  void reset() override;
  Variable forward(const Variable& input);
  std::string extra_repr() const override;

  PReLUOptions options;
  Parameter weight;
};
TORCHLET_MODULE(PReLU);

/// 1 / (1 + exp(-x)) (torch.nn.Sigmoid).
class SigmoidImpl : public Cloneable<SigmoidImpl> {
 public:
  void reset() override {}
  Variable forward(const Variable& input) { return input.sigmoid(); }
};
TORCHLET_MODULE(Sigmoid);

/// tanh(x) (torch.nn.Tanh).
class TanhImpl : public Cloneable<TanhImpl> {
 public:
  void reset() override {}
  Variable forward(const Variable& input) { return input.tanh(); }
};
TORCHLET_MODULE(Tanh);

/// softmax over `dim` (torch.nn.Softmax). Without a dim, PyTorch's legacy
/// choice: dim 0 for inputs of 0, 1 or 3 dimensions, else dim 1.
class SoftmaxImpl : public Cloneable<SoftmaxImpl> {
 public:
  explicit SoftmaxImpl(std::optional<int64_t> dim = std::nullopt) : dim_(dim) {}
  void reset() override {}
  Variable forward(const Variable& input);
  std::string extra_repr() const override;

 private:
  std::optional<int64_t> dim_;
};
TORCHLET_MODULE(Softmax);

/// log(softmax(x)) over `dim`, computed stably (torch.nn.LogSoftmax).
class LogSoftmaxImpl : public Cloneable<LogSoftmaxImpl> {
 public:
  explicit LogSoftmaxImpl(std::optional<int64_t> dim = std::nullopt) : dim_(dim) {}
  void reset() override {}
  Variable forward(const Variable& input);
  std::string extra_repr() const override;

 private:
  std::optional<int64_t> dim_;
};
TORCHLET_MODULE(LogSoftmax);

}  // namespace torchlet::nn
