#pragma once

#include <vector>

#include "nn/optim/optimizer.h"

namespace torchlet::optim {

/// Adagrad's options (torch.optim.Adagrad's arguments and defaults).
struct AdagradOptions {
  explicit AdagradOptions(Scalar lr = 1e-2) : lr_(lr) {}
  AdagradOptions& lr_decay(Scalar v) { lr_decay_ = v; return *this; }
  AdagradOptions& weight_decay(Scalar v) { weight_decay_ = v; return *this; }
  AdagradOptions& initial_accumulator_value(Scalar v) { initial_accumulator_value_ = v; return *this; }
  AdagradOptions& eps(Scalar v) { eps_ = v; return *this; }
  AdagradOptions& maximize(bool v) { maximize_ = v; return *this; }
  /// As a param_group's options.
  Options to_options() const;

  Scalar lr_;
  Scalar lr_decay_ = 0;
  Scalar weight_decay_ = 0;
  Scalar initial_accumulator_value_ = 0;
  Scalar eps_ = 1e-10;
  bool maximize_ = false;
};

/// Adagrad (torch.optim.Adagrad, PyTorch 1.13's dense update). State per
/// parameter, made when the parameter is added (as PyTorch does): step and
/// sum (filled with initial_accumulator_value).
class Adagrad : public Optimizer {
 public:
  Adagrad(std::vector<Variable> params, const AdagradOptions& options = AdagradOptions());
  /// Groups' options override `options`.
  Adagrad(std::vector<ParamGroup> groups, const AdagradOptions& options = AdagradOptions());

 protected:
  void check_options(const Options& options) const override;
  std::vector<std::string> buffer_names() const override;
  void init_state(const ParamGroup& group, const Variable& param, ParamState& state) override;
  void begin_group(const ParamGroup& group) override;
  void update(const ParamGroup& group, const Tensor& param, const Tensor& grad,
              ParamState& state) override;

 private:
  // The current group's options, read by begin_group.
  struct GroupOptions {
    double lr = 0, lr_decay = 0, weight_decay = 0, eps = 0, initial_accumulator_value = 0;
    bool maximize = false;
  };
  GroupOptions group_options_;
};

}  // namespace torchlet::optim
