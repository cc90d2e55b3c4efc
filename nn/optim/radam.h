#pragma once

#include <utility>
#include <vector>

#include "nn/optim/optimizer.h"

namespace torchlet::optim {

/// RAdam's options (torch.optim.RAdam's arguments and defaults; PyTorch
/// 1.13's RAdam has no maximize).
struct RAdamOptions {
  explicit RAdamOptions(Scalar lr = 1e-3) : lr_(lr) {}
  RAdamOptions& betas(std::pair<Scalar, Scalar> v) { betas_ = v; return *this; }
  RAdamOptions& eps(Scalar v) { eps_ = v; return *this; }
  RAdamOptions& weight_decay(Scalar v) { weight_decay_ = v; return *this; }
  /// As a param_group's options.
  Options to_options() const;

  Scalar lr_;
  std::pair<Scalar, Scalar> betas_{0.9, 0.999};
  Scalar eps_ = 1e-8;
  Scalar weight_decay_ = 0;
};

/// RAdam (torch.optim.RAdam, PyTorch 1.13's update): Adam whose adaptive
/// step is rectified, and skipped while the variance estimate is unreliable
/// (the early steps). State per parameter: step, exp_avg and exp_avg_sq.
class RAdam : public Optimizer {
 public:
  RAdam(std::vector<Variable> params, const RAdamOptions& options = RAdamOptions());
  /// Groups' options override `options`.
  RAdam(std::vector<ParamGroup> groups, const RAdamOptions& options = RAdamOptions());

 protected:
  void check_options(const Options& options) const override;
  std::vector<std::string> buffer_names() const override;
  void begin_group(const ParamGroup& group) override;
  void update(const ParamGroup& group, const Tensor& param, const Tensor& grad,
              ParamState& state) override;

 private:
  // The current group's options, read by begin_group.
  struct GroupOptions {
    double lr = 0, eps = 0, weight_decay = 0;
    std::pair<double, double> betas{0, 0};
  };
  GroupOptions group_options_;
};

}  // namespace torchlet::optim
