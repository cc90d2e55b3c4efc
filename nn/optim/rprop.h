#pragma once

#include <utility>
#include <vector>

#include "nn/optim/optimizer.h"

namespace torchlet::optim {

/// Rprop's options (torch.optim.Rprop's arguments and defaults; PyTorch
/// 1.13's Rprop has no weight_decay).
struct RpropOptions {
  explicit RpropOptions(Scalar lr = 1e-2) : lr_(lr) {}
  /// (etaminus, etaplus): the step sizes' factors when the gradient's sign
  /// flips and when it stays; 0 < etaminus < 1 < etaplus.
  RpropOptions& etas(std::pair<Scalar, Scalar> v) { etas_ = v; return *this; }
  /// (min, max): the bounds of the step sizes.
  RpropOptions& step_sizes(std::pair<Scalar, Scalar> v) { step_sizes_ = v; return *this; }
  RpropOptions& maximize(bool v) { maximize_ = v; return *this; }
  /// As a param_group's options.
  Options to_options() const;

  Scalar lr_;
  std::pair<Scalar, Scalar> etas_{0.5, 1.2};
  std::pair<Scalar, Scalar> step_sizes_{1e-6, 50};
  bool maximize_ = false;
};

/// Rprop (torch.optim.Rprop, PyTorch 1.13's update): each element moves by
/// its own step size against the sign of its gradient. State per
/// parameter: step (an integer), prev (the last gradient used) and
/// step_size (starting at the group's lr).
class Rprop : public Optimizer {
 public:
  Rprop(std::vector<Variable> params, const RpropOptions& options = RpropOptions());
  /// Groups' options override `options`.
  Rprop(std::vector<ParamGroup> groups, const RpropOptions& options = RpropOptions());

 protected:
  void check_options(const Options& options) const override;
  std::vector<std::string> buffer_names() const override;
  void begin_group(const ParamGroup& group) override;
  void update(const ParamGroup& group, const Tensor& param, const Tensor& grad,
              ParamState& state) override;

 private:
  // The current group's options, read by begin_group.
  struct GroupOptions {
    double lr = 0;
    std::pair<double, double> etas{0, 0}, step_sizes{0, 0};
    bool maximize = false;
  };
  GroupOptions group_options_;
};

}  // namespace torchlet::optim
