#pragma once

#include <vector>

#include "nn/optim/optimizer.h"
#include "tensor/optim_kernels.h"

namespace torchlet::optim {

/// RMSprop's options (torch.optim.RMSprop's arguments and defaults).
struct RMSpropOptions {
  explicit RMSpropOptions(Scalar lr = 1e-2) : lr_(lr) {}
  RMSpropOptions& alpha(Scalar v) { alpha_ = v; return *this; }
  RMSpropOptions& eps(Scalar v) { eps_ = v; return *this; }
  RMSpropOptions& weight_decay(Scalar v) { weight_decay_ = v; return *this; }
  RMSpropOptions& momentum(Scalar v) { momentum_ = v; return *this; }
  RMSpropOptions& centered(bool v) { centered_ = v; return *this; }
  RMSpropOptions& maximize(bool v) { maximize_ = v; return *this; }
  /// As a param_group's options.
  Options to_options() const;

  Scalar lr_;
  Scalar alpha_ = 0.99;
  Scalar eps_ = 1e-8;
  Scalar weight_decay_ = 0;
  Scalar momentum_ = 0;
  bool centered_ = false;
  bool maximize_ = false;
};

/// RMSprop (torch.optim.RMSprop, PyTorch 1.13's update). State per
/// parameter: step, square_avg, momentum_buffer (momentum > 0) and
/// grad_avg (centered).
class RMSprop : public Optimizer {
 public:
  RMSprop(std::vector<Variable> params, const RMSpropOptions& options = RMSpropOptions());
  /// Groups' options override `options`.
  RMSprop(std::vector<ParamGroup> groups, const RMSpropOptions& options = RMSpropOptions());

 protected:
  void check_options(const Options& options) const override;
  std::vector<std::string> buffer_names() const override;
  void begin_group(const ParamGroup& group) override;
  void update(const ParamGroup& group, const Tensor& param, const Tensor& grad,
              ParamState& state) override;

 private:
  RmspropUpdate group_options_;  // the current group's, read by begin_group
};

}  // namespace torchlet::optim
