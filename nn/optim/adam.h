#pragma once

#include <utility>
#include <vector>

#include "nn/optim/optimizer.h"
#include "tensor/optim_kernels.h"

namespace torchlet::optim {

/// The options Adam and AdamW share (torch.optim.Adam / AdamW arguments);
/// the setters return the derived type so calls chain.
template <typename Derived>
struct AdamOptionsBase {
  Derived& betas(std::pair<Scalar, Scalar> v) { betas_ = v; return self(); }
  Derived& eps(Scalar v) { eps_ = v; return self(); }
  Derived& weight_decay(Scalar v) { weight_decay_ = v; return self(); }
  Derived& amsgrad(bool v) { amsgrad_ = v; return self(); }
  Derived& maximize(bool v) { maximize_ = v; return self(); }

  Scalar lr_ = 1e-3;
  std::pair<Scalar, Scalar> betas_{0.9, 0.999};
  Scalar eps_ = 1e-8;
  Scalar weight_decay_ = 0;
  bool amsgrad_ = false;
  bool maximize_ = false;

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

/// Adam's options and defaults.
struct AdamOptions : AdamOptionsBase<AdamOptions> {
  explicit AdamOptions(Scalar lr = 1e-3) { lr_ = lr; }
  /// As a param_group's options (Adam's keys).
  Options to_options() const;
};

/// AdamW's options: Adam's, with weight_decay defaulting to 1e-2.
struct AdamWOptions : AdamOptionsBase<AdamWOptions> {
  explicit AdamWOptions(Scalar lr = 1e-3) {
    lr_ = lr;
    weight_decay_ = 1e-2;
  }
  /// As a param_group's options (AdamW's keys).
  Options to_options() const;
};

/// Adam (torch.optim.Adam, PyTorch 1.13's update): weight decay adds
/// weight_decay * param to the gradient. State per parameter: step,
/// exp_avg, exp_avg_sq and, with amsgrad, max_exp_avg_sq.
class Adam : public Optimizer {
 public:
  Adam(std::vector<Variable> params, const AdamOptions& options = AdamOptions());
  /// Groups' options override `options`.
  Adam(std::vector<ParamGroup> groups, const AdamOptions& options = AdamOptions());

 protected:
  Adam(const char* name, Options defaults, std::vector<ParamGroup> groups);
  void check_options(const Options& options) const override;
  std::vector<std::string> buffer_names() const override;
  void begin_group(const ParamGroup& group) override;
  void update(const ParamGroup& group, const Tensor& param, const Tensor& grad,
              ParamState& state) override;
  /// AdamW: decoupled weight decay (param *= 1 - lr * weight_decay).
  virtual bool decoupled_weight_decay() const { return false; }

 private:
  AdamUpdate group_options_;  // the current group's, read by begin_group
};

/// AdamW (torch.optim.AdamW, PyTorch 1.13's update): Adam with decoupled
/// weight decay. State as Adam's.
class AdamW : public Adam {
 public:
  AdamW(std::vector<Variable> params, const AdamWOptions& options = AdamWOptions());
  /// Groups' options override `options`.
  AdamW(std::vector<ParamGroup> groups, const AdamWOptions& options = AdamWOptions());

 protected:
  bool decoupled_weight_decay() const override { return true; }
};

}  // namespace torchlet::optim
