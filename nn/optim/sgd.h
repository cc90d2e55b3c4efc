#pragma once

#include <vector>

#include "nn/optim/optimizer.h"
#include "tensor/optim_kernels.h"

namespace torchlet::optim {

/// SGD's options (torch.optim.SGD's arguments and defaults). Numbers keep
/// whether they were given as integers or floats, which is how they print.
struct SGDOptions {
  /// `lr` is required, as in PyTorch.
  explicit SGDOptions(Scalar lr) : lr_(lr) {}
  SGDOptions& momentum(Scalar v) { momentum_ = v; return *this; }
  SGDOptions& dampening(Scalar v) { dampening_ = v; return *this; }
  SGDOptions& weight_decay(Scalar v) { weight_decay_ = v; return *this; }
  SGDOptions& nesterov(bool v) { nesterov_ = v; return *this; }
  SGDOptions& maximize(bool v) { maximize_ = v; return *this; }
  /// As a param_group's options.
  Options to_options() const;

  Scalar lr_;
  Scalar momentum_ = 0;
  Scalar dampening_ = 0;
  Scalar weight_decay_ = 0;
  bool nesterov_ = false;
  bool maximize_ = false;
};

/// Stochastic gradient descent with optional momentum, Nesterov momentum,
/// dampening and weight decay (torch.optim.SGD, PyTorch 1.13's update).
/// State per parameter: momentum_buffer (when momentum != 0).
class SGD : public Optimizer {
 public:
  SGD(std::vector<Variable> params, const SGDOptions& options);
  /// Groups' options override `options`.
  SGD(std::vector<ParamGroup> groups, const SGDOptions& options);

 protected:
  void check_options(const Options& options) const override;
  std::vector<std::string> buffer_names() const override;
  void begin_group(const ParamGroup& group) override;
  void update(const ParamGroup& group, const Tensor& param, const Tensor& grad,
              ParamState& state) override;

 private:
  SgdUpdate group_options_;  // the current group's, read by begin_group
};

}  // namespace torchlet::optim
