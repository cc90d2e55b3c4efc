#pragma once

// Fused optimizer updates: one pass over a parameter that reads its gradient
// and state buffers and writes the parameter and the buffers in place, with
// no temporaries. Each follows PyTorch 1.13's single-tensor implementation
// (torch/optim/*.py) operation by operation, rounding where it rounds.

#include <cstdint>

#include "tensor/tensor_body.h"

namespace torchlet {

/// Hyperparameters of one SGD update (torch.optim.SGD).
struct SgdUpdate {
  double lr = 0;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;
  bool maximize = false;
  /// The momentum buffer holds nothing yet: it starts as the gradient.
  bool first_step = false;
};

/// param -= lr * d_p, with d_p the (decayed, momentum-averaged) gradient.
/// `momentum_buffer` is used when momentum != 0 (undefined otherwise).
void sgd_update_(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                 const SgdUpdate& options);

/// Hyperparameters of one Adam or AdamW update (torch.optim.Adam, AdamW).
struct AdamUpdate {
  double lr = 0;
  double beta1 = 0;
  double beta2 = 0;
  double eps = 0;
  double weight_decay = 0;
  bool amsgrad = false;
  bool maximize = false;
  /// AdamW: decay the parameter (param *= 1 - lr * weight_decay) instead of
  /// adding weight_decay * param to the gradient.
  bool decoupled_weight_decay = false;
  /// The step number after this update's increment (1 on the first).
  int64_t step = 1;
};

/// One Adam step; `max_exp_avg_sq` is used with amsgrad (undefined otherwise).
void adam_update_(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                  const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq,
                  const AdamUpdate& options);

/// Hyperparameters of one RMSprop update (torch.optim.RMSprop).
struct RmspropUpdate {
  double lr = 0;
  double alpha = 0;
  double eps = 0;
  double weight_decay = 0;
  double momentum = 0;
  bool centered = false;
  bool maximize = false;
};

/// One RMSprop step; `grad_avg` is used when centered, `momentum_buffer`
/// when momentum > 0 (each undefined otherwise).
void rmsprop_update_(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                     const Tensor& grad_avg, const Tensor& momentum_buffer,
                     const RmspropUpdate& options);

/// Hyperparameters of one Adagrad update (torch.optim.Adagrad).
struct AdagradUpdate {
  /// lr / (1 + (step - 1) * lr_decay).
  double clr = 0;
  double weight_decay = 0;
  double eps = 0;
  bool maximize = false;
};

/// One Adagrad step over the running sum of squared gradients.
void adagrad_update_(const Tensor& param, const Tensor& grad, const Tensor& sum,
                     const AdagradUpdate& options);

}  // namespace torchlet
