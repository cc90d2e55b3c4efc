#pragma once

#include <string>
#include <vector>

#include "nn/optim/optimizer.h"

namespace torchlet::optim {

/// ASGD's options (torch.optim.ASGD's arguments and defaults).
struct ASGDOptions {
  explicit ASGDOptions(Scalar lr = 1e-2) : lr_(lr) {}
  ASGDOptions& lambd(Scalar v) { lambd_ = v; return *this; }
  ASGDOptions& alpha(Scalar v) { alpha_ = v; return *this; }
  ASGDOptions& t0(Scalar v) { t0_ = v; return *this; }
  ASGDOptions& weight_decay(Scalar v) { weight_decay_ = v; return *this; }
  ASGDOptions& maximize(bool v) { maximize_ = v; return *this; }
  /// As a param_group's options.
  Options to_options() const;

  Scalar lr_;
  Scalar lambd_ = 1e-4;
  Scalar alpha_ = 0.75;
  Scalar t0_ = 1e6;
  Scalar weight_decay_ = 0;
  bool maximize_ = false;
};

/// Averaged SGD (torch.optim.ASGD, PyTorch 1.13's update). State per
/// parameter: step, eta (the decayed learning rate) and mu (the averaging
/// coefficient), each a 0-dim float32 tensor as in PyTorch, and ax (the
/// average of the parameter).
class ASGD : public Optimizer {
 public:
  ASGD(std::vector<Variable> params, const ASGDOptions& options = ASGDOptions());
  /// Groups' options override `options`.
  ASGD(std::vector<ParamGroup> groups, const ASGDOptions& options = ASGDOptions());

 protected:
  void check_options(const Options& options) const override;
  std::vector<std::string> buffer_names() const override;
  bool is_scalar_buffer(const std::string& name) const override;
  void begin_group(const ParamGroup& group) override;
  void update(const ParamGroup& group, const Tensor& param, const Tensor& grad,
              ParamState& state) override;

 private:
  // The current group's options, read by begin_group.
  struct GroupOptions {
    double lr = 0, lambd = 0, alpha = 0, t0 = 0, weight_decay = 0;
    bool maximize = false;
  };
  GroupOptions group_options_;
};

}  // namespace torchlet::optim
