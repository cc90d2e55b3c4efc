#pragma once

#include <vector>

#include "nn/optim/optimizer.h"

namespace torchlet::optim {

/// Adadelta's options (torch.optim.Adadelta's arguments and defaults).
struct AdadeltaOptions {
  explicit AdadeltaOptions(Scalar lr = 1.0) : lr_(lr) {}
  AdadeltaOptions& rho(Scalar v) { rho_ = v; return *this; }
  AdadeltaOptions& eps(Scalar v) { eps_ = v; return *this; }
  AdadeltaOptions& weight_decay(Scalar v) { weight_decay_ = v; return *this; }
  AdadeltaOptions& maximize(bool v) { maximize_ = v; return *this; }
  /// As a param_group's options.
  Options to_options() const;

  Scalar lr_;
  Scalar rho_ = 0.9;
  Scalar eps_ = 1e-6;
  Scalar weight_decay_ = 0;
  bool maximize_ = false;
};

/// Adadelta (torch.optim.Adadelta, PyTorch 1.13's update). State per
/// parameter: step (an integer), square_avg and acc_delta.
class Adadelta : public Optimizer {
 public:
  Adadelta(std::vector<Variable> params, const AdadeltaOptions& options = AdadeltaOptions());
  /// Groups' options override `options`.
  Adadelta(std::vector<ParamGroup> groups, const AdadeltaOptions& options = AdadeltaOptions());

 protected:
  void check_options(const Options& options) const override;
  std::vector<std::string> buffer_names() const override;
  void begin_group(const ParamGroup& group) override;
  void update(const ParamGroup& group, const Tensor& param, const Tensor& grad,
              ParamState& state) override;

 private:
  // The current group's options, read by begin_group.
  struct GroupOptions {
    double lr = 0, rho = 0, eps = 0, weight_decay = 0;
    bool maximize = false;
  };
  GroupOptions group_options_;
};

}  // namespace torchlet::optim
