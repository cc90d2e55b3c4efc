#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nn/cloneable.h"
#include "nn/module_holder.h"

namespace torchlet::nn {

/// Flattens dims start_dim..end_dim into one (torch.nn.Flatten).
class FlattenImpl : public Cloneable<FlattenImpl> {
 public:
  explicit FlattenImpl(int64_t start_dim = 1, int64_t end_dim = -1)
      : start_dim_(start_dim), end_dim_(end_dim) {}
  void reset() override {}
  Variable forward(const Variable& input) { return input.flatten(start_dim_, end_dim_); }
  std::string extra_repr() const override;

 private:
  int64_t start_dim_;
  int64_t end_dim_;
};
TORCHLET_MODULE(Flatten);

/// Expands dim `dim` into `sizes` (torch.nn.Unflatten).
class UnflattenImpl : public Cloneable<UnflattenImpl> {
 public:
  UnflattenImpl(int64_t dim, std::vector<int64_t> sizes) : dim_(dim), sizes_(std::move(sizes)) {}
  void reset() override {}
  Variable forward(const Variable& input) { return input.unflatten(dim_, sizes_); }
  std::string extra_repr() const override;

 private:
  int64_t dim_;
  std::vector<int64_t> sizes_;
};
TORCHLET_MODULE(Unflatten);

}  // namespace torchlet::nn
