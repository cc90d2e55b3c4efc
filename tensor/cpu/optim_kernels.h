#pragma once

// CPU loops behind tensor/optim_kernels.h: contiguous tensors of one
// floating dtype and one shape, validated by the caller.

#include "tensor/optim_kernels.h"

namespace torchlet::cpu {

void sgd_update(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                const SgdUpdate& options);
void adam_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                 const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq,
                 const AdamUpdate& options);
void rmsprop_update(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                    const Tensor& grad_avg, const Tensor& momentum_buffer,
                    const RmspropUpdate& options);
void adagrad_update(const Tensor& param, const Tensor& grad, const Tensor& sum,
                    const AdagradUpdate& options);

}  // namespace torchlet::cpu
