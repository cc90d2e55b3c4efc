// The fused optimizer loops (see Note [Fused optimizer updates] in
// tensor/optim_kernels.cc). Arithmetic runs in the parameter's dtype with
// the hyperparameters converted to it, one rounding per PyTorch op, so a
// float32 step matches PyTorch's float32 step.

#include "tensor/cpu/optim_kernels.h"

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "tensor/cpu/dispatch.h"
#include "tensor/parallel.h"

namespace torchlet::cpu {
namespace {

template <bool B>
using Flag = std::integral_constant<bool, B>;

// Calls fn(Flag<a>{}, Flag<b>{}) so loops are compiled without the branches.
template <typename F>
void with_flags(bool a, bool b, F&& fn) {
  if (a) {
    b ? fn(Flag<true>{}, Flag<true>{}) : fn(Flag<true>{}, Flag<false>{});
  } else {
    b ? fn(Flag<false>{}, Flag<true>{}) : fn(Flag<false>{}, Flag<false>{});
  }
}

template <typename T>
T* ptr(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

template <typename T>
T* data_or_null(const Tensor& t) {
  return t.defined() ? ptr<T>(t) : nullptr;
}

// The gradient as the update uses it: negated for maximize, plus
// weight_decay * param (PyTorch: d_p = d_p.add(param, alpha=weight_decay)).
template <bool kDecay, typename T>
inline T decayed_grad(T g, T p, T sign, T weight_decay) {
  g = sign * g;
  if constexpr (kDecay) g = g + weight_decay * p;
  return g;
}

}  // namespace

void sgd_update(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                const SgdUpdate& o) {
  dispatch_floating(param.dtype(), "sgd_update_", [&](auto tag) {
    using T = decltype(tag);
    T* p = ptr<T>(param);
    const T* g = ptr<T>(grad);
    T* buf = data_or_null<T>(momentum_buffer);
    const T lr = o.lr, momentum = o.momentum, damp = T(1 - o.dampening), wd = o.weight_decay;
    const T sign = o.maximize ? T(-1) : T(1);
    const bool first = o.first_step, nesterov = o.nesterov;
    with_flags(o.weight_decay != 0, o.momentum != 0, [&](auto decay, auto use_momentum) {
      parallel_for(0, param.numel(), kParallelGrain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          T d = decayed_grad<decay()>(g[i], p[i], sign, wd);
          if constexpr (use_momentum()) {
            const T b = first ? d : T(buf[i] * momentum) + damp * d;
            buf[i] = b;
            d = nesterov ? d + momentum * b : b;
          }
          p[i] = p[i] + -lr * d;
        }
      });
    });
  });
}

void adam_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                 const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, const AdamUpdate& o) {
  dispatch_floating(param.dtype(), "adam_update_", [&](auto tag) {
    using T = decltype(tag);
    T* p = ptr<T>(param);
    const T* g = ptr<T>(grad);
    T* m = ptr<T>(exp_avg);
    T* v = ptr<T>(exp_avg_sq);
    T* v_max = data_or_null<T>(max_exp_avg_sq);
    const double step = static_cast<double>(o.step);
    const double step_size = o.lr / (1 - std::pow(o.beta1, step));
    const T bias_correction2_sqrt = std::sqrt(1 - std::pow(o.beta2, step));
    const T beta1 = o.beta1, one_minus_beta1 = 1 - o.beta1;
    const T beta2 = o.beta2, one_minus_beta2 = 1 - o.beta2;
    const T eps = o.eps, wd = o.weight_decay, neg_step_size = -step_size;
    const T param_decay = 1 - o.lr * o.weight_decay;
    const T sign = o.maximize ? T(-1) : T(1);
    const bool decoupled = o.decoupled_weight_decay;
    with_flags(o.weight_decay != 0 && !decoupled, o.amsgrad, [&](auto decay, auto amsgrad) {
      parallel_for(0, param.numel(), kParallelGrain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          T pi = p[i];
          if (decoupled) pi = pi * param_decay;
          const T gi = decayed_grad<decay()>(g[i], pi, sign, wd);
          const T mi = T(m[i] * beta1) + one_minus_beta1 * gi;
          T vi = T(v[i] * beta2) + T(one_minus_beta2 * gi) * gi;
          m[i] = mi;
          v[i] = vi;
          if constexpr (amsgrad()) {
            vi = v_max[i] < vi || std::isnan(vi) ? vi : v_max[i];
            v_max[i] = vi;
          }
          const T denom = T(std::sqrt(vi) / bias_correction2_sqrt) + eps;
          p[i] = pi + T(neg_step_size * mi) / denom;
        }
      });
    });
  });
}

void rmsprop_update(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                    const Tensor& grad_avg, const Tensor& momentum_buffer,
                    const RmspropUpdate& o) {
  dispatch_floating(param.dtype(), "rmsprop_update_", [&](auto tag) {
    using T = decltype(tag);
    T* p = ptr<T>(param);
    const T* g = ptr<T>(grad);
    T* sq = ptr<T>(square_avg);
    T* avg = data_or_null<T>(grad_avg);
    T* buf = data_or_null<T>(momentum_buffer);
    const T alpha = o.alpha, one_minus_alpha = 1 - o.alpha, eps = o.eps;
    const T wd = o.weight_decay, momentum = o.momentum, neg_lr = -o.lr;
    const T sign = o.maximize ? T(-1) : T(1);
    const bool centered = o.centered;
    with_flags(o.weight_decay != 0, o.momentum > 0, [&](auto decay, auto use_momentum) {
      parallel_for(0, param.numel(), kParallelGrain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          const T gi = decayed_grad<decay()>(g[i], p[i], sign, wd);
          const T si = T(sq[i] * alpha) + T(one_minus_alpha * gi) * gi;
          sq[i] = si;
          T denom;
          if (centered) {
            const T ai = T(avg[i] * alpha) + one_minus_alpha * gi;
            avg[i] = ai;
            denom = std::sqrt(si + T(T(-1) * ai) * ai);
          } else {
            denom = std::sqrt(si);
          }
          denom = denom + eps;
          if constexpr (use_momentum()) {
            const T b = T(buf[i] * momentum) + gi / denom;
            buf[i] = b;
            p[i] = p[i] + neg_lr * b;
          } else {
            p[i] = p[i] + T(neg_lr * gi) / denom;
          }
        }
      });
    });
  });
}

void adagrad_update(const Tensor& param, const Tensor& grad, const Tensor& sum,
                    const AdagradUpdate& o) {
  dispatch_floating(param.dtype(), "adagrad_update_", [&](auto tag) {
    using T = decltype(tag);
    T* p = ptr<T>(param);
    const T* g = ptr<T>(grad);
    T* s = ptr<T>(sum);
    const T eps = o.eps, wd = o.weight_decay, neg_clr = -o.clr;
    const T sign = o.maximize ? T(-1) : T(1);
    with_flags(o.weight_decay != 0, false, [&](auto decay, auto) {
      parallel_for(0, param.numel(), kParallelGrain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          const T gi = decayed_grad<decay()>(g[i], p[i], sign, wd);
          const T si = s[i] + T(T(1) * gi) * gi;
          s[i] = si;
          const T denom = std::sqrt(si) + eps;
          p[i] = p[i] + T(neg_clr * gi) / denom;
        }
      });
    });
  });
}

}  // namespace torchlet::cpu
