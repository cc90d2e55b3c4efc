// The fused optimizer loops (see Note [Fused optimizer updates] in
// tensor/optim_kernels.cc). Arithmetic runs in the parameter's dtype with
// the hyperparameters converted to it, one rounding per PyTorch op, so a
// float32 step matches PyTorch's float32 step.

#include "tensor/cpu/optim_kernels.h"
#include "tensor/cpu/cpu_features.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include <Eigen/Core>
#if defined(__SSE__)
#include <immintrin.h>
#endif

#include "tensor/cpu/dispatch.h"
#include "tensor/parallel.h"

namespace torchlet::cpu {
namespace {

// Note [Optimizer update blocks]
// Each update walks the parameter in blocks small enough that all its arrays
// stay in L1 together; within a block every statement is one Eigen array
// expression, which Eigen vectorizes (plain loops at -O2 are not); square
// roots are a scalar loop (see exact_sqrt). Memory is still streamed once: a
// block is read, updated in cache, and written back. The only scratch is a
// few block-sized stack arrays (the effective gradient, the denominator).
constexpr int64_t kBlock = 1024;

template <typename T>
using Span = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstSpan = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using Scratch = Eigen::Array<T, Eigen::Dynamic, 1, Eigen::ColMajor, kBlock, 1>;

template <typename T>
T* ptr(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

// out = sqrt(in), correctly rounded, vectorized. Eigen's float packet sqrt
// is an approximation under EIGEN_FAST_MATH (its default), which would make
// results depend on how a parameter is split into packets, so floats use
// SSE's exact sqrtps directly (std::sqrt for the tail and off x86); Eigen's
// double sqrt is exact.
template <typename T, typename In>
void exact_sqrt(Scratch<T>& out, const In& in) {
  if constexpr (std::is_same_v<T, float>) {
    Eigen::Index i = 0;
#if defined(__SSE__)
    for (; i + 4 <= out.size(); i += 4) {
      _mm_storeu_ps(out.data() + i, _mm_sqrt_ps(_mm_loadu_ps(in.data() + i)));
    }
#endif
    for (; i < out.size(); ++i) out[i] = std::sqrt(in[i]);
  } else {
    out = in.sqrt();
  }
}

// Runs fn(offset, n) over blocks covering [0, numel), split across the pool.
template <typename F>
void for_blocks(int64_t numel, const F& fn) {
  parallel_for(0, numel, kParallelGrain, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; b += kBlock) fn(b, std::min(kBlock, end - b));
  });
}

// The gradient as the update uses it: negated for maximize, plus
// weight_decay * param (PyTorch: d_p = d_p.add(param, alpha=weight_decay)).
template <typename T>
void effective_grad(Scratch<T>& d, const ConstSpan<T>& g, const Span<T>& p, T sign,
                    T weight_decay, bool decay) {
  d = sign * g;
  if (decay) d = d + weight_decay * p;
}

#if defined(__x86_64__) || defined(__i386__)
// Note [AVX2 SGD]
// The default build targets baseline x86-64, where Eigen's packets are four
// floats wide: SGD over the MLP's 670k parameters took 313 us on one thread
// with its state in cache. Float SGD and Adam take eight lanes at a time
// where the CPU has AVX2 (checked once at run time). They compute the Eigen
// path's values bit for bit: the same multiplies, adds, divisions and exact
// square roots in the same order, each rounded, and no fused multiply-add
// (the functions' target is AVX2 without FMA, so the compiler cannot
// contract a * b + c either).
struct SgdFloat {
  float lr, momentum, damp, wd, sign;
  bool decay, use_momentum, first_step, nesterov;
};

__attribute__((target("avx2"))) void sgd_float_avx2(float* p, const float* g, float* buf,
                                                     int64_t n, const SgdFloat& c) {
  const __m256 neg_lr = _mm256_set1_ps(-c.lr), momentum = _mm256_set1_ps(c.momentum);
  const __m256 damp = _mm256_set1_ps(c.damp), wd = _mm256_set1_ps(c.wd);
  const __m256 sign = _mm256_set1_ps(c.sign);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 param = _mm256_loadu_ps(p + i);
    __m256 d = _mm256_mul_ps(sign, _mm256_loadu_ps(g + i));
    if (c.decay) d = _mm256_add_ps(d, _mm256_mul_ps(wd, param));
    if (c.use_momentum) {
      const __m256 b =
          c.first_step ? d
                       : _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(buf + i), momentum),
                                       _mm256_mul_ps(damp, d));
      _mm256_storeu_ps(buf + i, b);
      d = c.nesterov ? _mm256_add_ps(d, _mm256_mul_ps(momentum, b)) : b;
    }
    _mm256_storeu_ps(p + i, _mm256_add_ps(param, _mm256_mul_ps(neg_lr, d)));
  }
  for (; i < n; ++i) {
    float d = c.sign * g[i];
    if (c.decay) d = d + c.wd * p[i];
    if (c.use_momentum) {
      const float b = c.first_step ? d : buf[i] * c.momentum + c.damp * d;
      buf[i] = b;
      d = c.nesterov ? d + c.momentum * b : b;
    }
    p[i] = p[i] + (-c.lr) * d;
  }
}

struct AdamFloat {
  float neg_step_size, bias_correction2_sqrt, beta1, one_minus_beta1, beta2, one_minus_beta2;
  float eps, wd, param_decay, sign;
  bool decoupled, decay, amsgrad;
};

// Adam's update as the Eigen path computes it (Note [AVX2 SGD]).
__attribute__((target("avx2"))) void adam_float_avx2(float* p, const float* g, float* m, float* v,
                                                     float* v_max, int64_t n, const AdamFloat& c) {
  const __m256 neg_step_size = _mm256_set1_ps(c.neg_step_size);
  const __m256 bias_correction2_sqrt = _mm256_set1_ps(c.bias_correction2_sqrt);
  const __m256 beta1 = _mm256_set1_ps(c.beta1), one_minus_beta1 = _mm256_set1_ps(c.one_minus_beta1);
  const __m256 beta2 = _mm256_set1_ps(c.beta2), one_minus_beta2 = _mm256_set1_ps(c.one_minus_beta2);
  const __m256 eps = _mm256_set1_ps(c.eps), wd = _mm256_set1_ps(c.wd);
  const __m256 param_decay = _mm256_set1_ps(c.param_decay), sign = _mm256_set1_ps(c.sign);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 param = _mm256_loadu_ps(p + i);
    if (c.decoupled) param = _mm256_mul_ps(param, param_decay);
    __m256 d = _mm256_mul_ps(sign, _mm256_loadu_ps(g + i));
    if (c.decay) d = _mm256_add_ps(d, _mm256_mul_ps(wd, param));
    const __m256 mi = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(m + i), beta1),
                                    _mm256_mul_ps(one_minus_beta1, d));
    _mm256_storeu_ps(m + i, mi);
    __m256 vi = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(v + i), beta2),
                              _mm256_mul_ps(_mm256_mul_ps(one_minus_beta2, d), d));
    _mm256_storeu_ps(v + i, vi);
    if (c.amsgrad) {
      const __m256 old = _mm256_loadu_ps(v_max + i);
      // torch.maximum: the larger, and NaN wins.
      const __m256 take = _mm256_or_ps(_mm256_cmp_ps(old, vi, _CMP_LT_OQ),
                                       _mm256_cmp_ps(vi, vi, _CMP_UNORD_Q));
      vi = _mm256_blendv_ps(old, vi, take);
      _mm256_storeu_ps(v_max + i, vi);
    }
    const __m256 denom =
        _mm256_add_ps(_mm256_div_ps(_mm256_sqrt_ps(vi), bias_correction2_sqrt), eps);
    _mm256_storeu_ps(
        p + i, _mm256_add_ps(param, _mm256_div_ps(_mm256_mul_ps(neg_step_size, mi), denom)));
  }
  for (; i < n; ++i) {
    float param = p[i];
    if (c.decoupled) param = param * c.param_decay;
    float d = c.sign * g[i];
    if (c.decay) d = d + c.wd * param;
    const float mi = m[i] * c.beta1 + c.one_minus_beta1 * d;
    m[i] = mi;
    float vi = v[i] * c.beta2 + (c.one_minus_beta2 * d) * d;
    v[i] = vi;
    if (c.amsgrad) {
      if (v_max[i] < vi || vi != vi) v_max[i] = vi;
      vi = v_max[i];
    }
    p[i] = param + (c.neg_step_size * mi) / (std::sqrt(vi) / c.bias_correction2_sqrt + c.eps);
  }
}
#endif

}  // namespace

void sgd_update(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                const SgdUpdate& o) {
#if defined(__x86_64__) || defined(__i386__)
  if (param.dtype() == kFloat32 && cpu_has_avx2()) {  // Note [AVX2 SGD]
    const SgdFloat c{static_cast<float>(o.lr),
                     static_cast<float>(o.momentum),
                     static_cast<float>(1 - o.dampening),
                     static_cast<float>(o.weight_decay),
                     o.maximize ? -1.0f : 1.0f,
                     o.weight_decay != 0,
                     o.momentum != 0,
                     o.first_step,
                     o.nesterov};
    float* p = ptr<float>(param);
    const float* g = ptr<float>(grad);
    float* buf = c.use_momentum ? ptr<float>(momentum_buffer) : nullptr;
    parallel_for(0, param.numel(), kParallelGrain, [&](int64_t b, int64_t e) {
      sgd_float_avx2(p + b, g + b, buf != nullptr ? buf + b : nullptr, e - b, c);
    });
    return;
  }
#endif
  dispatch_floating(param.dtype(), "sgd_update_", [&](auto tag) {
    using T = decltype(tag);
    const T lr = o.lr, momentum = o.momentum, damp = T(1 - o.dampening), wd = o.weight_decay;
    const T sign = o.maximize ? T(-1) : T(1);
    const bool decay = o.weight_decay != 0, use_momentum = o.momentum != 0;
    for_blocks(param.numel(), [&](int64_t b, int64_t n) {
      Span<T> p(ptr<T>(param) + b, n);
      const ConstSpan<T> g(ptr<T>(grad) + b, n);
      Scratch<T> d(n);
      effective_grad<T>(d, g, p, sign, wd, decay);
      if (use_momentum) {
        Span<T> buf(ptr<T>(momentum_buffer) + b, n);
        if (o.first_step) {
          buf = d;
        } else {
          buf = buf * momentum + damp * d;
        }
        if (o.nesterov) {
          d = d + momentum * buf;
        } else {
          d = buf;
        }
      }
      p = p + (-lr) * d;
    });
  });
}

void adam_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                 const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, const AdamUpdate& o) {
#if defined(__x86_64__) || defined(__i386__)
  if (param.dtype() == kFloat32 && cpu_has_avx2()) {  // Note [AVX2 SGD]
    const double step = static_cast<double>(o.step);
    AdamFloat c;
    c.neg_step_size = static_cast<float>(-(o.lr / (1 - std::pow(o.beta1, step))));
    c.bias_correction2_sqrt = static_cast<float>(std::sqrt(1 - std::pow(o.beta2, step)));
    c.beta1 = static_cast<float>(o.beta1);
    c.one_minus_beta1 = static_cast<float>(1 - o.beta1);
    c.beta2 = static_cast<float>(o.beta2);
    c.one_minus_beta2 = static_cast<float>(1 - o.beta2);
    c.eps = static_cast<float>(o.eps);
    c.wd = static_cast<float>(o.weight_decay);
    c.param_decay = static_cast<float>(1 - o.lr * o.weight_decay);
    c.sign = o.maximize ? -1.0f : 1.0f;
    c.decoupled = o.decoupled_weight_decay;
    c.decay = o.weight_decay != 0 && !c.decoupled;
    c.amsgrad = o.amsgrad;
    float* p = ptr<float>(param);
    const float* g = ptr<float>(grad);
    float* m = ptr<float>(exp_avg);
    float* v = ptr<float>(exp_avg_sq);
    float* v_max = o.amsgrad ? ptr<float>(max_exp_avg_sq) : nullptr;
    parallel_for(0, param.numel(), kParallelGrain, [&](int64_t b, int64_t e) {
      adam_float_avx2(p + b, g + b, m + b, v + b, v_max != nullptr ? v_max + b : nullptr, e - b,
                      c);
    });
    return;
  }
#endif
  dispatch_floating(param.dtype(), "adam_update_", [&](auto tag) {
    using T = decltype(tag);
    const double step = static_cast<double>(o.step);
    const T neg_step_size = -(o.lr / (1 - std::pow(o.beta1, step)));
    const T bias_correction2_sqrt = std::sqrt(1 - std::pow(o.beta2, step));
    const T beta1 = o.beta1, one_minus_beta1 = 1 - o.beta1;
    const T beta2 = o.beta2, one_minus_beta2 = 1 - o.beta2;
    const T eps = o.eps, wd = o.weight_decay, param_decay = 1 - o.lr * o.weight_decay;
    const T sign = o.maximize ? T(-1) : T(1);
    const bool decoupled = o.decoupled_weight_decay;
    const bool decay = o.weight_decay != 0 && !decoupled;
    for_blocks(param.numel(), [&](int64_t b, int64_t n) {
      Span<T> p(ptr<T>(param) + b, n), m(ptr<T>(exp_avg) + b, n), v(ptr<T>(exp_avg_sq) + b, n);
      const ConstSpan<T> g(ptr<T>(grad) + b, n);
      if (decoupled) p = p * param_decay;
      Scratch<T> d(n);
      effective_grad<T>(d, g, p, sign, wd, decay);
      m = m * beta1 + one_minus_beta1 * d;
      v = v * beta2 + (one_minus_beta2 * d) * d;
      Scratch<T> root(n);
      if (o.amsgrad) {
        Span<T> v_max(ptr<T>(max_exp_avg_sq) + b, n);
        v_max = (v_max < v || v != v).select(v, v_max);  // torch.maximum: NaN wins
        exact_sqrt(root, v_max);
      } else {
        exact_sqrt(root, v);
      }
      p = p + (neg_step_size * m) / (root / bias_correction2_sqrt + eps);
    });
  });
}

void rmsprop_update(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                    const Tensor& grad_avg, const Tensor& momentum_buffer,
                    const RmspropUpdate& o) {
  dispatch_floating(param.dtype(), "rmsprop_update_", [&](auto tag) {
    using T = decltype(tag);
    const T alpha = o.alpha, one_minus_alpha = 1 - o.alpha, eps = o.eps;
    const T wd = o.weight_decay, momentum = o.momentum, neg_lr = -o.lr;
    const T sign = o.maximize ? T(-1) : T(1);
    const bool decay = o.weight_decay != 0;
    for_blocks(param.numel(), [&](int64_t b, int64_t n) {
      Span<T> p(ptr<T>(param) + b, n), sq(ptr<T>(square_avg) + b, n);
      const ConstSpan<T> g(ptr<T>(grad) + b, n);
      Scratch<T> d(n), denom(n);
      effective_grad<T>(d, g, p, sign, wd, decay);
      sq = sq * alpha + (one_minus_alpha * d) * d;
      if (o.centered) {
        Span<T> avg(ptr<T>(grad_avg) + b, n);
        avg = avg * alpha + one_minus_alpha * d;
        denom = sq + (T(-1) * avg) * avg;
        exact_sqrt(denom, denom);
      } else {
        exact_sqrt(denom, sq);
      }
      denom = denom + eps;
      if (o.momentum > 0) {
        Span<T> buf(ptr<T>(momentum_buffer) + b, n);
        buf = buf * momentum + d / denom;
        p = p + neg_lr * buf;
      } else {
        p = p + (neg_lr * d) / denom;
      }
    });
  });
}

void adagrad_update(const Tensor& param, const Tensor& grad, const Tensor& sum,
                    const AdagradUpdate& o) {
  dispatch_floating(param.dtype(), "adagrad_update_", [&](auto tag) {
    using T = decltype(tag);
    const T eps = o.eps, wd = o.weight_decay, neg_clr = -o.clr;
    const T sign = o.maximize ? T(-1) : T(1);
    const bool decay = o.weight_decay != 0;
    for_blocks(param.numel(), [&](int64_t b, int64_t n) {
      Span<T> p(ptr<T>(param) + b, n), s(ptr<T>(sum) + b, n);
      const ConstSpan<T> g(ptr<T>(grad) + b, n);
      Scratch<T> d(n);
      effective_grad<T>(d, g, p, sign, wd, decay);
      s = s + d * d;
      Scratch<T> root(n);
      exact_sqrt(root, s);
      p = p + (neg_clr * d) / (root + eps);
    });
  });
}

}  // namespace torchlet::cpu
