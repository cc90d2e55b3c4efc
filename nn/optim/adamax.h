#pragma once

#include <utility>
#include <vector>

#include "nn/optim/optimizer.h"

namespace torchlet::optim {

/// Adamax's options (torch.optim.Adamax's arguments and defaults).
struct AdamaxOptions {
  explicit AdamaxOptions(Scalar lr = 2e-3) : lr_(lr) {}
  AdamaxOptions& betas(std::pair<Scalar, Scalar> v) { betas_ = v; return *this; }
  AdamaxOptions& eps(Scalar v) { eps_ = v; return *this; }
  AdamaxOptions& weight_decay(Scalar v) { weight_decay_ = v; return *this; }
  AdamaxOptions& maximize(bool v) { maximize_ = v; return *this; }
  /// As a param_group's options.
  Options to_options() const;

  Scalar lr_;
  std::pair<Scalar, Scalar> betas_{0.9, 0.999};
  Scalar eps_ = 1e-8;
  Scalar weight_decay_ = 0;
  bool maximize_ = false;
};

/// Adamax (torch.optim.Adamax, PyTorch 1.13's update): Adam with the
/// infinity norm. State per parameter: step, exp_avg and exp_inf.
class Adamax : public Optimizer {
 public:
  Adamax(std::vector<Variable> params, const AdamaxOptions& options = AdamaxOptions());
  /// Groups' options override `options`.
  Adamax(std::vector<ParamGroup> groups, const AdamaxOptions& options = AdamaxOptions());

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
    bool maximize = false;
  };
  GroupOptions group_options_;
};

}  // namespace torchlet::optim
