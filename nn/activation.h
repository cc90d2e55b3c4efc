#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

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
using HardswishOptions = InplaceOptions;
using HardsigmoidOptions = InplaceOptions;

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

/// torch.nn.CELU's arguments; alpha prints as given (`alpha=2`).
struct CELUOptions {
  TORCHLET_ARG(Scalar, alpha) = 1.0;
  TORCHLET_ARG(bool, inplace) = false;
};

/// torch.nn.Threshold's arguments, printed as given (`value=20`).
struct ThresholdOptions {
  ThresholdOptions(Scalar threshold, Scalar value) : threshold_(threshold), value_(value) {}
  TORCHLET_ARG(Scalar, threshold);
  TORCHLET_ARG(Scalar, value);
  TORCHLET_ARG(bool, inplace) = false;
};

/// torch.nn.Softshrink's and Hardshrink's argument, printed as given.
struct ShrinkOptions {
  ShrinkOptions() = default;
  ShrinkOptions(Scalar lambda) : lambda_(lambda) {}  // NOLINT: implicit, as libtorch's
  /// So that `Softshrink(1)` converts in one step.
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  ShrinkOptions(T lambda) : lambda_(lambda) {}  // NOLINT: implicit
  TORCHLET_ARG(Scalar, lambda) = 0.5;
};
using SoftshrinkOptions = ShrinkOptions;
using HardshrinkOptions = ShrinkOptions;

/// torch.nn.GLU's argument: the dimension that is halved.
struct GLUOptions {
  GLUOptions(int64_t dim = -1) : dim_(dim) {}  // NOLINT: implicit, as libtorch's
  TORCHLET_ARG(int64_t, dim);
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

/// x for x > 0, else alpha * (exp(x / alpha) - 1) (torch.nn.CELU).
class CELUImpl : public StatelessModule<CELUImpl, CELUOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input);
  std::string extra_repr() const override;
};
TORCHLET_MODULE(CELU);

/// x * min(max(x + 3, 0), 6) / 6 (torch.nn.Hardswish; prints no options).
class HardswishImpl : public StatelessModule<HardswishImpl, HardswishOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input);
};
TORCHLET_MODULE(Hardswish);

/// min(max(x + 3, 0), 6) / 6 (torch.nn.Hardsigmoid; prints no options).
class HardsigmoidImpl : public StatelessModule<HardsigmoidImpl, HardsigmoidOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input);
};
TORCHLET_MODULE(Hardsigmoid);

/// x where x > threshold, else value (torch.nn.Threshold).
class ThresholdImpl : public StatelessModule<ThresholdImpl, ThresholdOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input);
  std::string extra_repr() const override;
};
TORCHLET_MODULE(Threshold);

/// Shrinks toward 0 by lambda, 0 on [-lambda, lambda] (torch.nn.Softshrink).
class SoftshrinkImpl : public StatelessModule<SoftshrinkImpl, SoftshrinkOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input);
  std::string extra_repr() const override;
};
TORCHLET_MODULE(Softshrink);

/// 0 on [-lambda, lambda], else x (torch.nn.Hardshrink).
class HardshrinkImpl : public StatelessModule<HardshrinkImpl, HardshrinkOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input);
  std::string extra_repr() const override;
};
TORCHLET_MODULE(Hardshrink);

/// a * sigmoid(b) over the halves of dim (torch.nn.GLU).
class GLUImpl : public StatelessModule<GLUImpl, GLUOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input);
  std::string extra_repr() const override;
};
TORCHLET_MODULE(GLU);

/// log(sigmoid(x)) (torch.nn.LogSigmoid).
class LogSigmoidImpl : public Cloneable<LogSigmoidImpl> {
 public:
  void reset() override {}
  Variable forward(const Variable& input);
};
TORCHLET_MODULE(LogSigmoid);

/// x / (1 + |x|) (torch.nn.Softsign).
class SoftsignImpl : public Cloneable<SoftsignImpl> {
 public:
  void reset() override {}
  Variable forward(const Variable& input);
};
TORCHLET_MODULE(Softsign);

/// x - tanh(x) (torch.nn.Tanhshrink).
class TanhshrinkImpl : public Cloneable<TanhshrinkImpl> {
 public:
  void reset() override {}
  Variable forward(const Variable& input);
};
TORCHLET_MODULE(Tanhshrink);

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

/// softmax(-x) over `dim` (torch.nn.Softmin); without a dim, Softmax's
/// legacy choice.
class SoftminImpl : public Cloneable<SoftminImpl> {
 public:
  explicit SoftminImpl(std::optional<int64_t> dim = std::nullopt) : dim_(dim) {}
  void reset() override {}
  Variable forward(const Variable& input);
  std::string extra_repr() const override;

 private:
  std::optional<int64_t> dim_;
};
TORCHLET_MODULE(Softmin);

}  // namespace torchlet::nn
