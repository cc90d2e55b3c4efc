#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "nn/cloneable.h"
#include "nn/module_holder.h"

namespace torchlet::nn {

/// max(0, x) (torch.nn.ReLU); with `inplace`, overwrites its input.
class ReLUImpl : public Cloneable<ReLUImpl> {
 public:
  explicit ReLUImpl(bool inplace = false) : inplace_(inplace) {}
  void reset() override {}
  Variable forward(const Variable& input);
  std::string extra_repr() const override { return inplace_ ? "inplace=True" : ""; }

 private:
  bool inplace_;
};
TORCHLET_MODULE(ReLU);

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
