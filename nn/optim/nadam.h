#pragma once

#include <string>
#include <utility>
#include <vector>

#include "nn/optim/optimizer.h"

namespace torchlet::optim {

/// NAdam's options (torch.optim.NAdam's arguments and defaults; PyTorch 1.13's
/// NAdam has no maximize).
struct NAdamOptions {
  explicit NAdamOptions(Scalar lr = 2e-3) : lr_(lr) {}
  NAdamOptions& betas(std::pair<Scalar, Scalar> v) { betas_ = v; return *this; }
  NAdamOptions& eps(Scalar v) { eps_ = v; return *this; }
  NAdamOptions& weight_decay(Scalar v) { weight_decay_ = v; return *this; }
  NAdamOptions& momentum_decay(Scalar v) { momentum_decay_ = v; return *this; }
  /// As a param_group's options.
  Options to_options() const;

  Scalar lr_;
  std::pair<Scalar, Scalar> betas_{0.9, 0.999};
  Scalar eps_ = 1e-8;
  Scalar weight_decay_ = 0;
  Scalar momentum_decay_ = 4e-3;
};

/// NAdam (torch.optim.NAdam, PyTorch 1.13's update): Adam with Nesterov
/// momentum. State per parameter: step, mu_product (a 0-dim float32 tensor,
/// the product of the momentum coefficients so far), exp_avg and exp_avg_sq.
class NAdam : public Optimizer {
 public:
  NAdam(std::vector<Variable> params, const NAdamOptions& options = NAdamOptions());
  /// Groups' options override `options`.
  NAdam(std::vector<ParamGroup> groups, const NAdamOptions& options = NAdamOptions());

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
    double lr = 0, eps = 0, weight_decay = 0, momentum_decay = 0;
    std::pair<double, double> betas{0, 0};
  };
  GroupOptions group_options_;
};

}  // namespace torchlet::optim
