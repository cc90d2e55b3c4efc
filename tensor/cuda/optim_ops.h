#pragma once

// The fused optimizer updates on one element, as the CUDA kernels apply
// them (tensor/cuda/optim_kernels.cu): the CPU loops' arithmetic
// (tensor/cpu/optim_kernels.cc), operation by operation in the parameter's
// dtype, so a float32 step on the GPU matches PyTorch's float32 step. Host
// tests hold them to the CPU updates (tensor/cuda/elementwise_ops_test.cc).
//
// Plain C++17 and <cmath>, so nvcc compiles it too.

#include <cmath>

#include "tensor/cuda/host_device.h"

namespace torchlet::cuda::ops {

// Hyperparameters converted to T once, on the host, as the CPU loops do.
template <typename T>
struct SgdStep {
  T lr, momentum, damp, wd, sign;
  bool decay, use_momentum, first_step, nesterov;
};

template <typename T>
struct AdamStep {
  T neg_step_size, bias_correction2_sqrt, beta1, one_minus_beta1, beta2, one_minus_beta2;
  T eps, wd, param_decay, sign;
  bool decoupled, decay, amsgrad;
};

template <typename T>
struct RmspropStep {
  T alpha, one_minus_alpha, eps, wd, momentum, neg_lr, sign;
  bool decay, centered, use_momentum;
};

template <typename T>
struct AdagradStep {
  T eps, wd, neg_clr, sign;
  bool decay;
};

// d_p: the gradient negated for maximize, plus weight_decay * param.
template <typename T>
TORCHLET_HOST_DEVICE T effective_grad(T g, T p, T sign, T wd, bool decay) {
  T d = sign * g;
  if (decay) d = d + wd * p;
  return d;
}

/// `buf` is the momentum buffer's element (unused without momentum).
template <typename T>
TORCHLET_HOST_DEVICE void sgd_element(const SgdStep<T>& o, T& p, T g, T& buf) {
  T d = effective_grad(g, p, o.sign, o.wd, o.decay);
  if (o.use_momentum) {
    buf = o.first_step ? d : buf * o.momentum + o.damp * d;
    d = o.nesterov ? d + o.momentum * buf : buf;
  }
  p = p + (-o.lr) * d;
}

/// `v_max` is used with amsgrad.
template <typename T>
TORCHLET_HOST_DEVICE void adam_element(const AdamStep<T>& o, T& p, T g, T& m, T& v, T& v_max) {
  if (o.decoupled) p = p * o.param_decay;
  const T d = effective_grad(g, p, o.sign, o.wd, o.decay);
  m = m * o.beta1 + o.one_minus_beta1 * d;
  v = v * o.beta2 + (o.one_minus_beta2 * d) * d;
  T root;
  if (o.amsgrad) {
    if (v_max < v || v != v) v_max = v;  // torch.maximum: NaN wins
    root = std::sqrt(v_max);
  } else {
    root = std::sqrt(v);
  }
  p = p + (o.neg_step_size * m) / (root / o.bias_correction2_sqrt + o.eps);
}

/// `avg` is used when centered, `buf` with momentum.
template <typename T>
TORCHLET_HOST_DEVICE void rmsprop_element(const RmspropStep<T>& o, T& p, T g, T& sq, T& avg,
                                          T& buf) {
  const T d = effective_grad(g, p, o.sign, o.wd, o.decay);
  sq = sq * o.alpha + (o.one_minus_alpha * d) * d;
  T denom;
  if (o.centered) {
    avg = avg * o.alpha + o.one_minus_alpha * d;
    denom = std::sqrt(sq + (T(-1) * avg) * avg);
  } else {
    denom = std::sqrt(sq);
  }
  denom = denom + o.eps;
  if (o.use_momentum) {
    buf = buf * o.momentum + d / denom;
    p = p + o.neg_lr * buf;
  } else {
    p = p + (o.neg_lr * d) / denom;
  }
}

template <typename T>
TORCHLET_HOST_DEVICE void adagrad_element(const AdagradStep<T>& o, T& p, T g, T& sum) {
  const T d = effective_grad(g, p, o.sign, o.wd, o.decay);
  sum = sum + d * d;
  p = p + (o.neg_clr * d) / (std::sqrt(sum) + o.eps);
}

}  // namespace torchlet::cuda::ops
