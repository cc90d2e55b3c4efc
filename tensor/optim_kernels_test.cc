// The fused optimizer kernels' argument checks and write-back; their
// arithmetic is tested against PyTorch in nn/optim/optimizer_test.cc.

#include "tensor/optim_kernels.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/factories.h"
#include "tensor/random.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

SgdUpdate momentum_sgd() {
  SgdUpdate o;
  o.lr = 0.5;
  o.momentum = 0.9;
  return o;
}

TEST(OptimKernels, SgdWritesParamAndBufferInPlace) {
  Tensor p = from_vector(std::vector<float>{1, 2});
  Tensor g = from_vector(std::vector<float>{2, 4});
  Tensor buf = zeros({2});
  SgdUpdate o = momentum_sgd();
  o.first_step = true;
  sgd_update_(p, g, buf, o);
  EXPECT_EQ(p.to_vector<float>(), std::vector<float>({0, 0}));
  EXPECT_EQ(buf.to_vector<float>(), std::vector<float>({2, 4}));
}

TEST(OptimKernels, NonContiguousTargetsAreWrittenBack) {
  Tensor p = from_vector(std::vector<float>{1, 2, 3, 4}, {2, 2}).t();
  Tensor buf = zeros({2, 2}).t();
  const Tensor g = ones({2, 2});
  SgdUpdate o = momentum_sgd();
  o.first_step = true;
  const uint32_t version = p.version();
  sgd_update_(p, g, buf, o);
  EXPECT_EQ(p.contiguous().to_vector<float>(), std::vector<float>({0.5, 2.5, 1.5, 3.5}));
  EXPECT_EQ(buf.contiguous().to_vector<float>(), std::vector<float>({1, 1, 1, 1}));
  EXPECT_GT(p.version(), version);
}

TEST(OptimKernels, UpdatesBumpTheVersionOfEveryTensorWritten) {
  Tensor p = ones({3}), m = zeros({3}), v = zeros({3});
  const uint32_t pv = p.version(), mv = m.version(), vv = v.version();
  AdamUpdate o;
  o.lr = 0.1;
  o.beta1 = 0.9;
  o.beta2 = 0.999;
  adam_update_(p, ones({3}), m, v, Tensor(), o);
  EXPECT_GT(p.version(), pv);
  EXPECT_GT(m.version(), mv);
  EXPECT_GT(v.version(), vv);
}

// Lengths with and without a tail after whole vectors (Note [AVX2 SGD]),
// and long enough to split across threads.
constexpr int64_t kLengths[] = {1, 7, 8, 9, 31, 1000, 40000};

// One element of PyTorch's float32 SGD, one rounding per op, in its order.
float reference_sgd(float& p, float g, float& buf, const SgdUpdate& o) {
  const float lr = static_cast<float>(o.lr), momentum = static_cast<float>(o.momentum);
  const float damp = static_cast<float>(1 - o.dampening);
  const float wd = static_cast<float>(o.weight_decay);
  float d = (o.maximize ? -1.0f : 1.0f) * g;
  if (o.weight_decay != 0) d = d + wd * p;
  if (o.momentum != 0) {
    buf = o.first_step ? d : buf * momentum + damp * d;
    d = o.nesterov ? d + momentum * buf : buf;
  }
  p = p + (-lr) * d;
  return p;
}

// Every combination of options at every length: the same bits as the
// reference.
TEST(OptimKernels, FloatSgdMatchesTheReferenceBitForBit) {
  manual_seed(5);
  for (int64_t n : kLengths) {
    for (int flags = 0; flags < 32; ++flags) {
      SgdUpdate o;
      o.lr = 0.0137;
      o.momentum = (flags & 1) ? 0.9 : 0;
      o.dampening = (flags & 2) ? 0.1 : 0;
      o.weight_decay = (flags & 4) ? 1e-3 : 0;
      o.nesterov = (flags & 8) && o.momentum != 0 && o.dampening == 0;
      o.maximize = (flags & 16) != 0;
      o.first_step = n % 2 == 1;
      Tensor p = randn({n}), g = randn({n}), buf = randn({n});
      std::vector<float> ep = p.to_vector<float>(), eb = buf.to_vector<float>();
      const std::vector<float> eg = g.to_vector<float>();
      for (int64_t i = 0; i < n; ++i) reference_sgd(ep[i], eg[i], eb[i], o);
      sgd_update_(p, g, o.momentum != 0 ? buf : Tensor(), o);
      ASSERT_EQ(p.to_vector<float>(), ep) << "n " << n << " flags " << flags;
      if (o.momentum != 0) {
        ASSERT_EQ(buf.to_vector<float>(), eb) << "n " << n << " flags " << flags;
      }
    }
  }
}

// One element of PyTorch's float32 Adam (Adam._single_tensor_adam's order).
void reference_adam(float& p, float g, float& m, float& v, float& v_max, const AdamUpdate& o) {
  const double step = static_cast<double>(o.step);
  const float neg_step_size = static_cast<float>(-(o.lr / (1 - std::pow(o.beta1, step))));
  const float bias_correction2_sqrt = static_cast<float>(std::sqrt(1 - std::pow(o.beta2, step)));
  if (o.decoupled_weight_decay) p = p * static_cast<float>(1 - o.lr * o.weight_decay);
  float d = (o.maximize ? -1.0f : 1.0f) * g;
  if (o.weight_decay != 0 && !o.decoupled_weight_decay) {
    d = d + static_cast<float>(o.weight_decay) * p;
  }
  m = m * static_cast<float>(o.beta1) + static_cast<float>(1 - o.beta1) * d;
  v = v * static_cast<float>(o.beta2) + (static_cast<float>(1 - o.beta2) * d) * d;
  float second = v;
  if (o.amsgrad) {
    if (v_max < v || v != v) v_max = v;
    second = v_max;
  }
  p = p + (neg_step_size * m) / (std::sqrt(second) / bias_correction2_sqrt +
                                 static_cast<float>(o.eps));
}

// The same bits, or NaN where the reference has NaN.
::testing::AssertionResult same_floats(const std::vector<float>& a, const std::vector<float>& e) {
  for (size_t i = 0; i < e.size(); ++i) {
    if (!(a[i] == e[i] || (a[i] != a[i] && e[i] != e[i]))) {
      return ::testing::AssertionFailure() << "element " << i << ": " << a[i] << " vs " << e[i];
    }
  }
  return ::testing::AssertionSuccess();
}

// Every combination of options at every length, with an infinite and a NaN
// gradient among the elements.
TEST(OptimKernels, FloatAdamMatchesTheReferenceBitForBit) {
  manual_seed(6);
  for (int64_t n : kLengths) {
    for (int flags = 0; flags < 16; ++flags) {
      AdamUpdate o;
      o.lr = 0.003;
      o.beta1 = 0.9;
      o.beta2 = 0.999;
      o.eps = 1e-8;
      o.amsgrad = (flags & 1) != 0;
      o.decoupled_weight_decay = (flags & 2) != 0;
      o.weight_decay = (flags & 4) ? 0.01 : 0;
      o.maximize = (flags & 8) != 0;
      o.step = 3;
      Tensor p = randn({n}), g = randn({n}), m = randn({n}) * 0.1;
      Tensor v = rand({n}) * 0.01, v_max = rand({n}) * 0.01;
      std::vector<float> eg = g.to_vector<float>();
      if (n > 9) {
        eg[3] = std::numeric_limits<float>::infinity();
        eg[5] = std::numeric_limits<float>::quiet_NaN();
        g = from_vector(eg);
      }
      std::vector<float> ep = p.to_vector<float>(), em = m.to_vector<float>();
      std::vector<float> ev = v.to_vector<float>(), emax = v_max.to_vector<float>();
      for (int64_t i = 0; i < n; ++i) reference_adam(ep[i], eg[i], em[i], ev[i], emax[i], o);
      adam_update_(p, g, m, v, o.amsgrad ? v_max : Tensor(), o);
      ASSERT_TRUE(same_floats(p.to_vector<float>(), ep)) << "n " << n << " flags " << flags;
      ASSERT_TRUE(same_floats(m.to_vector<float>(), em)) << "n " << n << " flags " << flags;
      ASSERT_TRUE(same_floats(v.to_vector<float>(), ev)) << "n " << n << " flags " << flags;
      if (o.amsgrad) {
        ASSERT_TRUE(same_floats(v_max.to_vector<float>(), emax)) << "n " << n << " flags " << flags;
      }
    }
  }
}

TEST(OptimKernelErrors, GradOfAnotherShape) {
  EXPECT_THROW_MSG(sgd_update_(zeros({2, 3}), zeros({3}), Tensor(), SgdUpdate()),
                   "sgd_update_: expected grad of shape [2, 3] like the parameter, got [3]");
}

TEST(OptimKernelErrors, BufferOfAnotherDtype) {
  EXPECT_THROW_MSG(sgd_update_(zeros({2}), zeros({2}), zeros({2}, kFloat64), momentum_sgd()),
                   "sgd_update_: expected momentum_buffer of dtype float32 like the parameter, got "
                   "float64");
}

TEST(OptimKernelErrors, MissingBuffer) {
  AdamUpdate o;
  o.amsgrad = true;
  EXPECT_THROW_MSG(adam_update_(zeros({2}), zeros({2}), zeros({2}), zeros({2}), Tensor(), o),
                   "adam_update_: max_exp_avg_sq is undefined");
}

TEST(OptimKernelErrors, AdamStepBelowOne) {
  AdamUpdate o;
  o.step = 0;
  EXPECT_THROW_MSG(adam_update_(zeros({2}), zeros({2}), zeros({2}), zeros({2}), Tensor(), o),
                   "adam_update_: expected step >= 1, got 0");
}

TEST(OptimKernelErrors, IntegerParameter) {
  EXPECT_THROW_MSG(adagrad_update_(zeros({2}, kInt64), zeros({2}, kInt64), zeros({2}, kInt64),
                                   AdagradUpdate()),
                   "adagrad_update_: expected a floating-point parameter, got dtype int64");
}

TEST(OptimKernelErrors, UndefinedParameter) {
  EXPECT_THROW_MSG(adagrad_update_(Tensor(), zeros({2}), zeros({2}), AdagradUpdate()),
                   "adagrad_update_: the parameter is undefined");
}

TEST(OptimKernelErrors, RmspropCenteredNeedsGradAvg) {
  RmspropUpdate o;
  o.centered = true;
  EXPECT_THROW_MSG(rmsprop_update_(zeros({2}), zeros({2}), zeros({2}), Tensor(), Tensor(), o),
                   "rmsprop_update_: grad_avg is undefined");
}

TEST(OptimKernelErrors, RmspropMomentumBufferOfAnotherShape) {
  RmspropUpdate o;
  o.momentum = 0.5;
  EXPECT_THROW_MSG(rmsprop_update_(zeros({2}), zeros({2}), zeros({2}), Tensor(), zeros({4}), o),
                   "rmsprop_update_: expected momentum_buffer of shape [2] like the parameter, got [4]");
}

}  // namespace
}  // namespace torchlet
