// Differentiable elementwise ops. Formulas use Variable ops so that a
// backward run with create_graph records its own graph.
#include <cmath>

#include "autograd/functions.h"
#include "autograd/grad_mode.h"
#include "autograd/op_helpers.h"

namespace torchlet {

using autograd::InputMeta;
using autograd::InputMetaState;
using autograd::OpNode;
using autograd::PlainNode;
using autograd::constant;
using autograd::record;
using autograd::sum_to;

namespace {

// Saved-variable slots of the binary ops that save their inputs.
enum Saved : size_t { kSelf = 0, kOther = 1 };

// A binary op's inputs' metadata, and (add, sub) the scale of `other`.
struct BinaryState {
  InputMeta self;
  InputMeta other;
  double alpha = 1;
};
using BinaryNode = OpNode<BinaryState>;

// An op with a number operand (the factor, divisor or exponent).
struct ScalarState {
  InputMeta input;
  double scalar = 0;
};
using ScalarNode = OpNode<ScalarState>;

// The elements whose gradient is zero (clamped, non-finite, filled).
struct MaskState {
  InputMeta input;
  Tensor mask;
  bool release() {
    mask = Tensor();
    return true;
  }
};

struct WhereState {
  InputMeta self;
  InputMeta other;
  Tensor condition;
  bool release() {
    condition = Tensor();
    return true;
  }
};

// copy_: where the source came from (its gradient goes back there).
struct CopyState {
  InputMeta src;
  Device src_device;
};

// relu's gradient from its output y: g where y > 0. One fused kernel, and
// itself differentiable in g (its gradient is the same mask).
Variable threshold_relu_backward(const Variable& g, const Variable& y) {
  return record("ThresholdBackwardBackward0", [](PlainNode& n, const variable_list& gg)
                                                   -> variable_list {
    return {threshold_relu_backward(gg[0], n.var(0))};
  }, {&g}, threshold_backward(g.data(), y.data(), 0), [&](PlainNode& n) {
    n.saved.emplace_back(y.detach(), false);
  });
}

// The gradient of an input, given back in its shape and dtype (none when
// it needs none).
Variable input_grad(bool needed, const InputMeta& input, const Variable& g) {
  return needed ? sum_to(g, input) : Variable();
}
Variable self_grad(const BinaryNode& n, const Variable& g) {
  return input_grad(n.needs_input_grad(0), n.state.self, g);
}
Variable other_grad(const BinaryNode& n, const Variable& g) {
  return input_grad(n.needs_input_grad(1), n.state.other, g);
}

// a op b on Variables: both inputs' shapes and dtypes, and (`save_inputs`)
// the inputs themselves in slots kSelf and kOther.
Variable binary_op(const char* name, BinaryNode::Formula f, const Variable& a, const Variable& b,
                   Tensor out, bool save_inputs, double alpha = 1) {
  return record(name, f, {&a, &b}, std::move(out), [&](BinaryNode& n) {
    n.state = {InputMeta(a), InputMeta(b), alpha};
    if (save_inputs) {
      n.saved.emplace_back(a, false);
      n.saved.emplace_back(b, false);
    }
  });
}

variable_list add_backward(BinaryNode& n, const variable_list& g) {
  const double alpha = n.state.alpha;
  return {self_grad(n, g[0]), other_grad(n, alpha == 1 ? g[0] : g[0] * alpha)};
}
variable_list sub_backward(BinaryNode& n, const variable_list& g) {
  const double alpha = n.state.alpha;
  return {self_grad(n, g[0]), other_grad(n, alpha == 1 ? -g[0] : g[0] * -alpha)};
}
variable_list mul_backward(BinaryNode& n, const variable_list& g) {
  return {n.needs_input_grad(0) ? self_grad(n, g[0] * n.var(kOther)) : Variable(),
          n.needs_input_grad(1) ? other_grad(n, g[0] * n.var(kSelf)) : Variable()};
}
variable_list div_backward(BinaryNode& n, const variable_list& g) {
  const Variable b = n.var(kOther);
  return {n.needs_input_grad(0) ? self_grad(n, g[0] / b) : Variable(),
          n.needs_input_grad(1) ? other_grad(n, -g[0] * n.var(kSelf) / (b * b)) : Variable()};
}
variable_list pow_backward(BinaryNode& n, const variable_list& g) {
  const Variable a = n.var(kSelf), b = n.var(kOther);
  Variable ga, gb;
  // d/da a^b = b a^(b-1), taken as 0 where b == 0 (0^0 included), as PyTorch.
  if (n.needs_input_grad(0)) {
    ga = self_grad(n, (g[0] * b * a.pow(b - 1.0)).masked_fill(b.data().eq(0), 0));
  }
  if (n.needs_input_grad(1)) {
    // d/db a^b = a^b log a, taken as 0 where a == 0 and b >= 0 (PyTorch).
    const Tensor zero_base = a.data().eq(0).logical_and(b.data().ge(0));
    gb = other_grad(n, (g[0] * a.pow(b) * a.log()).masked_fill(zero_base, 0));
  }
  return {ga, gb};
}
variable_list extreme_backward(BinaryNode& n, const variable_list& g, bool maximum) {
  // Ties split the gradient evenly (PyTorch 1.13).
  const Tensor a = n.var(kSelf).data(), b = n.var(kOther).data();
  const Variable shared = g[0].where(a.ne(b), g[0] * 0.5);
  const Tensor a_loses = maximum ? a.lt(b) : a.gt(b);
  const Tensor b_loses = maximum ? a.gt(b) : a.lt(b);
  return {self_grad(n, shared.masked_fill(a_loses, 0)),
          other_grad(n, shared.masked_fill(b_loses, 0))};
}
variable_list maximum_backward(BinaryNode& n, const variable_list& g) {
  return extreme_backward(n, g, true);
}
variable_list minimum_backward(BinaryNode& n, const variable_list& g) {
  return extreme_backward(n, g, false);
}

// Unary ops save one Variable, their input or their output, as the
// formula needs: it is n.var(0).
Variable unary_op(const char* name, PlainNode::Formula f, const Variable& x, Tensor out,
                  bool save_input, bool save_output) {
  auto node = autograd::record_op(name, f, {&x}, out.device());
  if (node && save_input) node->saved.emplace_back(x, false);
  Variable result = autograd::make_result(std::move(out), node);
  if (node && save_output) node->saved.emplace_back(result, true);
  return result;
}

Variable scalar_op(const char* name, ScalarNode::Formula f, const Variable& x, Tensor out,
                   double scalar, bool save_input = false) {
  return record(name, f, {&x}, std::move(out), [&](ScalarNode& n) {
    n.state = {InputMeta(x), scalar};
    if (save_input) n.saved.emplace_back(x, false);
  });
}

Variable scalar_input_grad(const ScalarNode& n, const Variable& g) {
  return input_grad(n.needs_input_grad(0), n.state.input, g);
}

}  // namespace

// ---- Binary ---------------------------------------------------------------------------

Variable Variable::add(const Variable& other, Scalar alpha) const {
  return binary_op("AddBackward0", add_backward, *this, other, data().add(other.data(), alpha),
                   false, alpha.to<double>());
}
Variable Variable::sub(const Variable& other, Scalar alpha) const {
  return binary_op("SubBackward0", sub_backward, *this, other, data().sub(other.data(), alpha),
                   false, alpha.to<double>());
}
Variable Variable::mul(const Variable& other) const {
  return binary_op("MulBackward0", mul_backward, *this, other, data().mul(other.data()), true);
}
Variable Variable::div(const Variable& other) const {
  return binary_op("DivBackward0", div_backward, *this, other, data().div(other.data()), true);
}
Variable Variable::pow(const Variable& exponent) const {
  return binary_op("PowBackward1", pow_backward, *this, exponent, data().pow(exponent.data()),
                   true);
}
Variable Variable::maximum(const Variable& other) const {
  return binary_op("MaximumBackward0", maximum_backward, *this, other,
                   data().maximum(other.data()), true);
}
Variable Variable::minimum(const Variable& other) const {
  return binary_op("MinimumBackward0", minimum_backward, *this, other,
                   data().minimum(other.data()), true);
}

// ---- With a scalar -----------------------------------------------------------------------

namespace {
// The gradient of x + c, x - c, fmod(x, c) and remainder(x, c): g itself.
variable_list pass_backward(ScalarNode& n, const variable_list& g) {
  return {scalar_input_grad(n, g[0])};
}
variable_list mul_scalar_backward(ScalarNode& n, const variable_list& g) {
  return {scalar_input_grad(n, g[0] * n.state.scalar)};
}
variable_list div_scalar_backward(ScalarNode& n, const variable_list& g) {
  return {scalar_input_grad(n, g[0] / n.state.scalar)};
}
}  // namespace

Variable Variable::add(Scalar other, Scalar alpha) const {
  return scalar_op("AddBackward1", pass_backward, *this, data().add(other, alpha), 0);
}
Variable Variable::sub(Scalar other, Scalar alpha) const {
  return scalar_op("SubBackward1", pass_backward, *this, data().sub(other, alpha), 0);
}
Variable Variable::mul(Scalar other) const {
  return scalar_op("MulBackward1", mul_scalar_backward, *this, data().mul(other),
                   other.to<double>());
}
Variable Variable::div(Scalar other) const {
  return scalar_op("DivBackward1", div_scalar_backward, *this, data().div(other),
                   other.to<double>());
}
Variable Variable::pow(Scalar exponent) const {
  return scalar_op("PowBackward0", [](ScalarNode& n, const variable_list& g) -> variable_list {
    const double p = n.state.scalar;
    if (p == 0) return {scalar_input_grad(n, g[0] * 0.0)};
    return {scalar_input_grad(n, g[0] * (n.var(0).pow(p - 1) * p))};
  }, *this, data().pow(exponent), exponent.to<double>(), /*save_input=*/true);
}

// ---- Division family --------------------------------------------------------------------------

Variable Variable::floor_divide(const Variable& other) const {
  return binary_op("FloorDivideBackward0", [](BinaryNode&, const variable_list&)
                                               -> variable_list {
    TORCHLET_CHECK(false, "floor_divide: derivative for floor_divide is not implemented");
    return {};
  }, *this, other, data().floor_divide(other.data()), false);
}
Variable Variable::floor_divide(Scalar other) const {
  return scalar_op("FloorDivideBackward1", [](ScalarNode&, const variable_list&)
                                               -> variable_list {
    TORCHLET_CHECK(false, "floor_divide: derivative for floor_divide is not implemented");
    return {};
  }, *this, data().floor_divide(other), 0);
}
Variable Variable::remainder(const Variable& other) const {
  // d/db (a - floor(a / b) b) = -floor(a / b), a constant where it is defined.
  return binary_op("RemainderBackward0", [](BinaryNode& n, const variable_list& g)
                                             -> variable_list {
    const Variable quotient =
        n.needs_input_grad(1)
            ? constant(n.var(kSelf).data().floor_divide(n.var(kOther).data()))
            : Variable();
    return {self_grad(n, g[0]),
            n.needs_input_grad(1) ? other_grad(n, -g[0] * quotient) : Variable()};
  }, *this, other, data().remainder(other.data()), true);
}
Variable Variable::remainder(Scalar other) const {
  return scalar_op("RemainderBackward1", pass_backward, *this, data().remainder(other), 0);
}
Variable Variable::fmod(const Variable& other) const {
  // d/db (a - trunc(a / b) b) = -trunc(a / b).
  return binary_op("FmodBackward1", [](BinaryNode& n, const variable_list& g) -> variable_list {
    const Variable quotient =
        n.needs_input_grad(1) ? constant(n.var(kSelf).data().div(n.var(kOther).data()).trunc())
                              : Variable();
    return {self_grad(n, g[0]),
            n.needs_input_grad(1) ? other_grad(n, -g[0] * quotient) : Variable()};
  }, *this, other, data().fmod(other.data()), true);
}
Variable Variable::fmod(Scalar other) const {
  return scalar_op("FmodBackward0", pass_backward, *this, data().fmod(other), 0);
}
Variable Variable::atan2(const Variable& other) const {
  return binary_op("Atan2Backward0", [](BinaryNode& n, const variable_list& g) -> variable_list {
    const Variable a = n.var(kSelf), b = n.var(kOther);
    const Variable scale = g[0] / (a * a + b * b);
    return {n.needs_input_grad(0) ? self_grad(n, scale * b) : Variable(),
            n.needs_input_grad(1) ? other_grad(n, -scale * a) : Variable()};
  }, *this, other, data().atan2(other.data()), true);
}

Variable operator+(const Variable& a, const Variable& b) { return a.add(b); }
Variable operator-(const Variable& a, const Variable& b) { return a.sub(b); }
Variable operator*(const Variable& a, const Variable& b) { return a.mul(b); }
Variable operator/(const Variable& a, const Variable& b) { return a.div(b); }
Variable operator+(const Variable& a, Scalar b) { return a.add(b); }
Variable operator-(const Variable& a, Scalar b) { return a.sub(b); }
Variable operator*(const Variable& a, Scalar b) { return a.mul(b); }
Variable operator/(const Variable& a, Scalar b) { return a.div(b); }
Variable operator+(Scalar a, const Variable& b) { return b.add(a); }
Variable operator-(Scalar a, const Variable& b) { return b.neg().add(a); }
Variable operator*(Scalar a, const Variable& b) { return b.mul(a); }
Variable operator/(Scalar a, const Variable& b) { return b.pow(-1.0).mul(a); }
Variable operator-(const Variable& a) { return a.neg(); }

// ---- Unary -------------------------------------------------------------------------------

namespace {
// A unary op whose backward never reads its input: the formula and whether
// it saves the output. Such an op can run truly in place (see Note [Truly
// in-place ops]).
struct OutputOnlyUnary {
  const char* name;
  PlainNode::Formula formula;
  bool save_output;
  Variable record(const Variable& x, Tensor out) const {
    return unary_op(name, formula, x, std::move(out), false, save_output);
  }
};

variable_list zero_backward(PlainNode&, const variable_list& g) { return {g[0] * 0.0}; }

const OutputOnlyUnary kNeg{"NegBackward0", [](PlainNode&, const variable_list& g)
                                               -> variable_list { return {-g[0]}; }, false};
const OutputOnlyUnary kExp{"ExpBackward0", [](PlainNode& n, const variable_list& g)
                                               -> variable_list { return {g[0] * n.var(0)}; },
                           true};
const OutputOnlyUnary kSqrt{"SqrtBackward0", [](PlainNode& n, const variable_list& g)
                                                 -> variable_list {
  return {g[0] / (n.var(0) * 2.0)};
}, true};
const OutputOnlyUnary kRsqrt{"RsqrtBackward0", [](PlainNode& n, const variable_list& g)
                                                   -> variable_list {
  const Variable y = n.var(0);
  return {g[0] * y * y * y * -0.5};
}, true};
const OutputOnlyUnary kRelu{"ReluBackward0", [](PlainNode& n, const variable_list& g)
                                                 -> variable_list {
  return {threshold_relu_backward(g[0], n.var(0))};
}, true};
const OutputOnlyUnary kSigmoid{"SigmoidBackward0", [](PlainNode& n, const variable_list& g)
                                                       -> variable_list {
  const Variable y = n.var(0);
  return {g[0] * y * (1.0 - y)};
}, true};
const OutputOnlyUnary kTanh{"TanhBackward0", [](PlainNode& n, const variable_list& g)
                                                 -> variable_list {
  const Variable y = n.var(0);
  return {g[0] * (1.0 - y * y)};
}, true};
// Piecewise-constant ops: a zero gradient (PyTorch's zeros_like(grad)).
const OutputOnlyUnary kSign{"SignBackward0", zero_backward, false};
const OutputOnlyUnary kFloor{"FloorBackward0", zero_backward, false};
const OutputOnlyUnary kCeil{"CeilBackward0", zero_backward, false};
const OutputOnlyUnary kTrunc{"TruncBackward0", zero_backward, false};
const OutputOnlyUnary kRound{"RoundBackward0", zero_backward, false};
const OutputOnlyUnary kRoundDecimals{"RoundBackward1", zero_backward, false};
const OutputOnlyUnary kFrac{"FracBackward0", [](PlainNode&, const variable_list& g)
                                                 -> variable_list { return {g[0]}; }, false};
}  // namespace

Variable Variable::neg() const { return kNeg.record(*this, data().neg()); }
Variable Variable::exp() const { return kExp.record(*this, data().exp()); }
Variable Variable::sqrt() const { return kSqrt.record(*this, data().sqrt()); }
Variable Variable::rsqrt() const { return kRsqrt.record(*this, data().rsqrt()); }
Variable Variable::relu() const { return kRelu.record(*this, data().relu()); }
Variable Variable::sigmoid() const { return kSigmoid.record(*this, data().sigmoid()); }
Variable Variable::tanh() const { return kTanh.record(*this, data().tanh()); }
Variable Variable::sign() const { return kSign.record(*this, data().sign()); }
Variable Variable::floor() const { return kFloor.record(*this, data().floor()); }
Variable Variable::ceil() const { return kCeil.record(*this, data().ceil()); }
Variable Variable::trunc() const { return kTrunc.record(*this, data().trunc()); }
Variable Variable::frac() const { return kFrac.record(*this, data().frac()); }
Variable Variable::round(int64_t decimals) const {
  return (decimals == 0 ? kRound : kRoundDecimals).record(*this, data().round(decimals));
}
Variable Variable::nan_to_num(double nan, std::optional<double> posinf,
                              std::optional<double> neginf) const {
  // The gradient passes where the input was finite (PyTorch).
  return record("NanToNumBackward0", [](OpNode<MaskState>& n, const variable_list& g)
                                          -> variable_list {
    return {g[0].masked_fill(n.state.mask, 0)};
  }, {this}, data().nan_to_num(nan, posinf, neginf), [&](OpNode<MaskState>& n) {
    n.state.mask = data().isfinite().logical_not();
  });
}

Variable Variable::abs() const {
  return unary_op("AbsBackward0", [](PlainNode& n, const variable_list& g) -> variable_list {
    return {g[0] * constant(n.var(0).data().sign())};
  }, *this, data().abs(), true, false);
}
Variable Variable::log() const {
  return unary_op("LogBackward0", [](PlainNode& n, const variable_list& g) -> variable_list {
    return {g[0] / n.var(0)};
  }, *this, data().log(), true, false);
}
Variable Variable::sin() const {
  return unary_op("SinBackward0", [](PlainNode& n, const variable_list& g) -> variable_list {
    return {g[0] * n.var(0).cos()};
  }, *this, data().sin(), true, false);
}
Variable Variable::cos() const {
  return unary_op("CosBackward0", [](PlainNode& n, const variable_list& g) -> variable_list {
    return {-g[0] * n.var(0).sin()};
  }, *this, data().cos(), true, false);
}
Variable Variable::erf() const {
  return unary_op("ErfBackward0", [](PlainNode& n, const variable_list& g) -> variable_list {
    const Variable x = n.var(0);
    return {g[0] * (x * x * -1.0).exp() * M_2_SQRTPI};
  }, *this, data().erf(), true, false);
}
Variable Variable::log1p() const {
  return unary_op("Log1PBackward0", [](PlainNode& n, const variable_list& g) -> variable_list {
    return {g[0] / (n.var(0) + 1.0)};
  }, *this, data().log1p(), true, false);
}
Variable Variable::gelu(const std::string& approximate) const {
  Tensor out = data().gelu(approximate);
  if (approximate == "tanh") {
    return unary_op("GeluBackward0", [](PlainNode& n, const variable_list& g) -> variable_list {
      // d/dx 0.5 x (1 + tanh(u)), u = k (x + 0.044715 x^3): one fused
      // kernel, or with create_graph the same formula in Variable ops (Note
      // [Fused backward, composite double backward] in autograd/ops_nn.cc).
      const Variable x = n.var(0);
      if (!is_grad_enabled()) return {constant(gelu_backward(g[0].data(), x.data(), "tanh"))};
      const double k = M_2_SQRTPI * M_SQRT1_2;
      const Variable t = ((x + x * x * x * 0.044715) * k).tanh();
      const Variable du = (1.0 + x * x * (3 * 0.044715)) * k;
      return {g[0] * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * du)};
    }, *this, std::move(out), true, false);
  }
  return unary_op("GeluBackward0", [](PlainNode& n, const variable_list& g) -> variable_list {
    // d/dx x Phi(x) = Phi(x) + x phi(x), fused or as a formula (above).
    const Variable x = n.var(0);
    if (!is_grad_enabled()) return {constant(gelu_backward(g[0].data(), x.data()))};
    const Variable cdf = 0.5 * (1.0 + (x * M_SQRT1_2).erf());
    const Variable pdf = (x * x * -0.5).exp() * (0.5 * M_2_SQRTPI * M_SQRT1_2);
    return {g[0] * (cdf + x * pdf)};
  }, *this, std::move(out), true, false);
}
Variable Variable::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  Tensor out = data().clamp(min, max);
  return record("ClampBackward1", [](OpNode<MaskState>& n, const variable_list& g)
                                       -> variable_list {
    return {g[0].masked_fill(n.state.mask, 0)};
  }, {this}, std::move(out), [&](OpNode<MaskState>& n) {
    // Where the input was clamped the gradient is 0 (bounds themselves pass).
    Tensor outside = zeros(sizes(), options().dtype(kBool));
    if (min) outside = outside.logical_or(data().lt(*min));
    if (max) outside = outside.logical_or(data().gt(*max));
    n.state.mask = outside;
  });
}

Variable Variable::where(const Tensor& condition, const Variable& other) const {
  Tensor out = data().where(condition, other.data());
  return record("WhereBackward0", [](OpNode<WhereState>& n, const variable_list& g)
                                       -> variable_list {
    const WhereState& s = n.state;
    const Tensor& cond = s.condition;
    return {n.needs_input_grad(0) ? sum_to(g[0].masked_fill(cond.logical_not(), 0), s.self)
                                  : Variable(),
            n.needs_input_grad(1) ? sum_to(g[0].masked_fill(cond, 0), s.other) : Variable()};
  }, {this, &other}, std::move(out), [&](OpNode<WhereState>& n) {
    n.state = {InputMeta(*this), InputMeta(other), condition};
  });
}
Variable where(const Tensor& condition, const Variable& a, const Variable& b) {
  return a.where(condition, b);
}

namespace {
Variable record_masked_fill(const Variable& x, const Tensor& mask, Tensor out) {
  return record("MaskedFillBackward0", [](OpNode<MaskState>& n, const variable_list& g)
                                            -> variable_list {
    return {input_grad(n.needs_input_grad(0), n.state.input, g[0].masked_fill(n.state.mask, 0))};
  }, {&x}, std::move(out), [&](OpNode<MaskState>& n) { n.state = {InputMeta(x), mask}; });
}
}  // namespace

Variable Variable::masked_fill(const Tensor& mask, Scalar value) const {
  return record_masked_fill(*this, mask, data().masked_fill(mask, value));
}

// ---- In place -------------------------------------------------------------------------------
// Without recording they write straight into the data (optimizers run so).
// Ops whose backward does not read the old value run truly in place while
// recording too (Note [Truly in-place ops]); the others compute out of
// place from a snapshot of the old value.

using autograd::inplace;
using autograd::inplace_direct;

Variable& Variable::add_(const Variable& other, Scalar alpha) {
  return inplace_direct("add_", *this, {&other}, [&](Tensor& t) { t.add_(other.data(), alpha); },
                        [&](const Variable& old, Tensor out) {
    return binary_op("AddBackward0", add_backward, old, other, std::move(out), false,
                     alpha.to<double>());
  });
}
Variable& Variable::add_(Scalar other, Scalar alpha) {
  return inplace_direct("add_", *this, {}, [&](Tensor& t) { t.add_(other, alpha); },
                        [](const Variable& old, Tensor out) {
    return scalar_op("AddBackward1", pass_backward, old, std::move(out), 0);
  });
}
Variable& Variable::sub_(const Variable& other, Scalar alpha) {
  return inplace_direct("sub_", *this, {&other}, [&](Tensor& t) { t.sub_(other.data(), alpha); },
                        [&](const Variable& old, Tensor out) {
    return binary_op("SubBackward0", sub_backward, old, other, std::move(out), false,
                     alpha.to<double>());
  });
}
Variable& Variable::sub_(Scalar other, Scalar alpha) {
  return inplace_direct("sub_", *this, {}, [&](Tensor& t) { t.sub_(other, alpha); },
                        [](const Variable& old, Tensor out) {
    return scalar_op("SubBackward1", pass_backward, old, std::move(out), 0);
  });
}
Variable& Variable::mul_(const Variable& other) {
  return inplace("mul_", *this, other.requires_grad(), {&other},
                 [&](const Variable& old) { return old.mul(other); },
                 [&](Tensor& t) { t.mul_(other.data()); });
}
Variable& Variable::mul_(Scalar other) {
  return inplace_direct("mul_", *this, {}, [&](Tensor& t) { t.mul_(other); },
                        [&](const Variable& old, Tensor out) {
    return scalar_op("MulBackward1", mul_scalar_backward, old, std::move(out), other.to<double>());
  });
}
Variable& Variable::div_(Scalar other) {
  return inplace_direct("div_", *this, {}, [&](Tensor& t) { t.div_(other); },
                        [&](const Variable& old, Tensor out) {
    return scalar_op("DivBackward1", div_scalar_backward, old, std::move(out), other.to<double>());
  });
}
namespace {
// fill_ and zero_: the old value's gradient is zero.
Variable& fill_inplace(const char* op, const char* node, Variable& self, Scalar value) {
  return inplace_direct(op, self, {}, [&](Tensor& t) { t.fill_(value); },
                        [&](const Variable& old, Tensor out) {
    return record(node, [](PlainNode&, const variable_list& g) -> variable_list {
      return {constant(zeros_like(g[0].data()))};
    }, {&old}, std::move(out), [](PlainNode&) {});
  });
}
}  // namespace

Variable& Variable::zero_() { return fill_inplace("zero_", "ZeroBackward0", *this, 0); }
Variable& Variable::fill_(Scalar value) {
  return fill_inplace("fill_", "FillBackward2", *this, value);
}
Variable& Variable::div_(const Variable& other) {
  return inplace("div_", *this, other.requires_grad(), {&other},
                 [&](const Variable& old) { return old.div(other); },
                 [&](Tensor& t) { t.div_(other.data()); });
}
Variable& Variable::masked_fill_(const Tensor& mask, Scalar value) {
  return inplace_direct("masked_fill_", *this, {}, [&](Tensor& t) { t.masked_fill_(mask, value); },
                        [&](const Variable& old, Tensor out) {
    return record_masked_fill(old, mask, std::move(out));
  });
}
Variable& Variable::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) {
  return inplace("clamp_", *this, true, {},
                 [&](const Variable& old) { return old.clamp(min, max); },
                 [&](Tensor& t) { t.clamp_(min, max); });
}
Variable& Variable::copy_(const Variable& src) {
  return inplace("copy_", *this, false, {&src}, [&](const Variable& old) {
    Tensor out = empty_like(old.data());
    out.copy_(src.data());
    const Device source = src.device();
    return record("CopyBackwards", [](OpNode<CopyState>& n, const variable_list& g)
                                        -> variable_list {
      return {sum_to(g[0], n.state.src).to(n.state.src_device)};
    }, {&src}, std::move(out), [&](OpNode<CopyState>& n) {
      n.state = {InputMeta(src), source};
    });
  }, [&](Tensor& t) { t.copy_(src.data()); });
}

namespace {
// An in-place unary op whose backward reads the old value: `op` out of place
// on a copy of it, `raw` without recording.
Variable& unary_inplace(const char* name, Variable& self, Variable (Variable::*op)() const,
                        Tensor& (Tensor::*raw)()) {
  return inplace(name, self, true, {}, [&](const Variable& old) { return (old.*op)(); },
                 [&](Tensor& t) { (t.*raw)(); });
}
// An in-place unary op that needs no old value: written straight into self.
Variable& unary_direct(const char* name, Variable& self, const OutputOnlyUnary& spec,
                       Tensor& (Tensor::*raw)()) {
  return inplace_direct(name, self, {}, [&](Tensor& t) { (t.*raw)(); },
                        [&](const Variable& old, Tensor out) {
    return spec.record(old, std::move(out));
  });
}
}  // namespace

Variable& Variable::relu_() { return unary_direct("relu_", *this, kRelu, &Tensor::relu_); }
Variable& Variable::neg_() { return unary_direct("neg_", *this, kNeg, &Tensor::neg_); }
Variable& Variable::exp_() { return unary_direct("exp_", *this, kExp, &Tensor::exp_); }
Variable& Variable::sqrt_() { return unary_direct("sqrt_", *this, kSqrt, &Tensor::sqrt_); }
Variable& Variable::rsqrt_() { return unary_direct("rsqrt_", *this, kRsqrt, &Tensor::rsqrt_); }
Variable& Variable::sigmoid_() {
  return unary_direct("sigmoid_", *this, kSigmoid, &Tensor::sigmoid_);
}
Variable& Variable::tanh_() { return unary_direct("tanh_", *this, kTanh, &Tensor::tanh_); }
Variable& Variable::sign_() { return unary_direct("sign_", *this, kSign, &Tensor::sign_); }
Variable& Variable::floor_() { return unary_direct("floor_", *this, kFloor, &Tensor::floor_); }
Variable& Variable::ceil_() { return unary_direct("ceil_", *this, kCeil, &Tensor::ceil_); }
Variable& Variable::trunc_() { return unary_direct("trunc_", *this, kTrunc, &Tensor::trunc_); }
Variable& Variable::frac_() { return unary_direct("frac_", *this, kFrac, &Tensor::frac_); }
Variable& Variable::round_(int64_t decimals) {
  return inplace_direct("round_", *this, {}, [&](Tensor& t) { t.round_(decimals); },
                        [&](const Variable& old, Tensor out) {
    return (decimals == 0 ? kRound : kRoundDecimals).record(old, std::move(out));
  });
}
Variable& Variable::abs_() { return unary_inplace("abs_", *this, &Variable::abs, &Tensor::abs_); }
Variable& Variable::log_() { return unary_inplace("log_", *this, &Variable::log, &Tensor::log_); }
Variable& Variable::log1p_() {
  return unary_inplace("log1p_", *this, &Variable::log1p, &Tensor::log1p_);
}
Variable& Variable::sin_() { return unary_inplace("sin_", *this, &Variable::sin, &Tensor::sin_); }
Variable& Variable::cos_() { return unary_inplace("cos_", *this, &Variable::cos, &Tensor::cos_); }
Variable& Variable::erf_() { return unary_inplace("erf_", *this, &Variable::erf, &Tensor::erf_); }
Variable& Variable::pow_(Scalar exponent) {
  return inplace("pow_", *this, true, {}, [&](const Variable& old) { return old.pow(exponent); },
                 [&](Tensor& t) { t.pow_(exponent); });
}
Variable& Variable::nan_to_num_(double nan, std::optional<double> posinf,
                                std::optional<double> neginf) {
  // The mask of non-finite elements is taken from the old value before the write.
  return inplace("nan_to_num_", *this, false, {},
                 [&](const Variable& old) { return old.nan_to_num(nan, posinf, neginf); },
                 [&](Tensor& t) { t.nan_to_num_(nan, posinf, neginf); });
}

namespace {
// In-place division family: the old self is read by remainder's and fmod's
// gradient for `other`, so these compute out of place.
template <typename Op, typename Raw>
Variable& division_inplace(const char* name, Variable& self, const Variable* other, Op op,
                           Raw raw) {
  if (other == nullptr) return inplace(name, self, false, {}, op, raw);
  return inplace(name, self, other->requires_grad(), {other}, op, raw);
}
}  // namespace

Variable& Variable::floor_divide_(const Variable& other) {
  return division_inplace("floor_divide_", *this, &other,
                          [&](const Variable& old) { return old.floor_divide(other); },
                          [&](Tensor& t) { t.floor_divide_(other.data()); });
}
Variable& Variable::floor_divide_(Scalar other) {
  return division_inplace("floor_divide_", *this, nullptr,
                          [&](const Variable& old) { return old.floor_divide(other); },
                          [&](Tensor& t) { t.floor_divide_(other); });
}
Variable& Variable::remainder_(const Variable& other) {
  return division_inplace("remainder_", *this, &other,
                          [&](const Variable& old) { return old.remainder(other); },
                          [&](Tensor& t) { t.remainder_(other.data()); });
}
Variable& Variable::remainder_(Scalar other) {
  return division_inplace("remainder_", *this, nullptr,
                          [&](const Variable& old) { return old.remainder(other); },
                          [&](Tensor& t) { t.remainder_(other); });
}
Variable& Variable::fmod_(const Variable& other) {
  return division_inplace("fmod_", *this, &other,
                          [&](const Variable& old) { return old.fmod(other); },
                          [&](Tensor& t) { t.fmod_(other.data()); });
}
Variable& Variable::fmod_(Scalar other) {
  return division_inplace("fmod_", *this, nullptr,
                          [&](const Variable& old) { return old.fmod(other); },
                          [&](Tensor& t) { t.fmod_(other); });
}
Variable& Variable::atan2_(const Variable& other) {
  return inplace("atan2_", *this, true, {&other},
                 [&](const Variable& old) { return old.atan2(other); },
                 [&](Tensor& t) { t.atan2_(other.data()); });
}

// ---- Elementwise math -----------------------------------------------------------------------
// Formulas from PyTorch's derivatives.yaml, written with Variable ops so
// that they are differentiable in turn (digamma's polygamma(1, x) factor
// excepted: it is a constant).

namespace {
constexpr double kLn2 = 0.69314718055994530942;
constexpr double kLn10 = 2.30258509299404568402;
constexpr double kSqrtPi = 1.77245385090551602730;

// A unary op whose backward reads its input x = n.var(0).
using InputFormula = Variable (*)(const Variable& g, const Variable& x);

template <InputFormula F>
variable_list input_backward(PlainNode& n, const variable_list& g) {
  return {F(g[0], n.var(0))};
}

Variable sinh_grad(const Variable& g, const Variable& x) { return g * x.cosh(); }
Variable cosh_grad(const Variable& g, const Variable& x) { return g * x.sinh(); }
Variable asin_grad(const Variable& g, const Variable& x) { return g * (1.0 - x * x).rsqrt(); }
Variable acos_grad(const Variable& g, const Variable& x) { return -g * (1.0 - x * x).rsqrt(); }
Variable atan_grad(const Variable& g, const Variable& x) { return g / (x * x + 1.0); }
Variable asinh_grad(const Variable& g, const Variable& x) { return g * (x * x + 1.0).rsqrt(); }
Variable acosh_grad(const Variable& g, const Variable& x) { return g * (x * x - 1.0).rsqrt(); }
Variable atanh_grad(const Variable& g, const Variable& x) { return g / (1.0 - x * x); }
Variable log2_grad(const Variable& g, const Variable& x) { return g / (x * kLn2); }
Variable log10_grad(const Variable& g, const Variable& x) { return g / (x * kLn10); }
Variable erfc_grad(const Variable& g, const Variable& x) {
  return g * (x * x * -1.0).exp() * -M_2_SQRTPI;
}
Variable lgamma_grad(const Variable& g, const Variable& x) { return g * x.digamma(); }
Variable digamma_grad(const Variable& g, const Variable& x) {
  return g * constant(trigamma(x.data()));
}

Variable input_unary(const char* name, PlainNode::Formula f, const Variable& x, Tensor out) {
  return unary_op(name, f, x, std::move(out), true, false);
}

const OutputOnlyUnary kExpm1{"Expm1Backward0", [](PlainNode& n, const variable_list& g)
                                                   -> variable_list {
  return {g[0] * (n.var(0) + 1.0)};
}, true};
const OutputOnlyUnary kExp2{"Exp2Backward0", [](PlainNode& n, const variable_list& g)
                                                 -> variable_list {
  return {g[0] * n.var(0) * kLn2};
}, true};
const OutputOnlyUnary kErfinv{"ErfinvBackward0", [](PlainNode& n, const variable_list& g)
                                                     -> variable_list {
  const Variable y = n.var(0);
  return {g[0] * (y * y).exp() * (kSqrtPi / 2)};
}, true};
}  // namespace

#define TORCHLET_INPUT_UNARY(method, node)                                               \
  Variable Variable::method() const {                                                     \
    return input_unary(node, input_backward<method##_grad>, *this, data().method());       \
  }                                                                                       \
  Variable& Variable::method##_() {                                                        \
    return unary_inplace(#method "_", *this, &Variable::method, &Tensor::method##_);       \
  }
TORCHLET_INPUT_UNARY(sinh, "SinhBackward0")
TORCHLET_INPUT_UNARY(cosh, "CoshBackward0")
TORCHLET_INPUT_UNARY(asin, "AsinBackward0")
TORCHLET_INPUT_UNARY(acos, "AcosBackward0")
TORCHLET_INPUT_UNARY(atan, "AtanBackward0")
TORCHLET_INPUT_UNARY(asinh, "AsinhBackward0")
TORCHLET_INPUT_UNARY(acosh, "AcoshBackward0")
TORCHLET_INPUT_UNARY(atanh, "AtanhBackward0")
TORCHLET_INPUT_UNARY(log2, "Log2Backward0")
TORCHLET_INPUT_UNARY(log10, "Log10Backward0")
TORCHLET_INPUT_UNARY(erfc, "ErfcBackward0")
TORCHLET_INPUT_UNARY(lgamma, "LgammaBackward0")
TORCHLET_INPUT_UNARY(digamma, "DigammaBackward0")
#undef TORCHLET_INPUT_UNARY

Variable Variable::expm1() const { return kExpm1.record(*this, data().expm1()); }
Variable Variable::exp2() const { return kExp2.record(*this, data().exp2()); }
Variable Variable::erfinv() const { return kErfinv.record(*this, data().erfinv()); }
Variable& Variable::expm1_() { return unary_direct("expm1_", *this, kExpm1, &Tensor::expm1_); }
Variable& Variable::exp2_() { return unary_direct("exp2_", *this, kExp2, &Tensor::exp2_); }
Variable& Variable::erfinv_() {
  return unary_direct("erfinv_", *this, kErfinv, &Tensor::erfinv_);
}

namespace {
// A binary op saving its inputs (slots kSelf, kOther) and its output (slot 2).
Variable binary_saving_result(const char* name, BinaryNode::Formula f, const Variable& a,
                              const Variable& b, Tensor out) {
  auto node = autograd::record_op(name, f, {&a, &b}, out.device());
  if (node) {
    node->state = {InputMeta(a), InputMeta(b), 1};
    node->saved.emplace_back(a, false);
    node->saved.emplace_back(b, false);
  }
  Variable result = autograd::make_result(std::move(out), node);
  if (node) node->saved.emplace_back(result, true);
  return result;
}

variable_list hypot_backward(BinaryNode& n, const variable_list& g) {
  const Variable scale = g[0] / n.var(2);
  return {n.needs_input_grad(0) ? self_grad(n, scale * n.var(kSelf)) : Variable(),
          n.needs_input_grad(1) ? other_grad(n, scale * n.var(kOther)) : Variable()};
}

// d/da logaddexp(a, b) = 1 / (1 + e^(b - a)); base 2 alike.
template <bool Base2>
variable_list logaddexp_backward(BinaryNode& n, const variable_list& g) {
  const Variable a = n.var(kSelf), b = n.var(kOther);
  auto share = [&](const Variable& gap) { return g[0] / ((Base2 ? gap.exp2() : gap.exp()) + 1.0); };
  return {n.needs_input_grad(0) ? self_grad(n, share(b - a)) : Variable(),
          n.needs_input_grad(1) ? other_grad(n, share(a - b)) : Variable()};
}

// d/dx xlogy(x, y) = log(y) where x != 0, else 0: xlogy(x != 0, y).
Variable xlogy_self_factor(const Tensor& x, const Variable& y) {
  return constant(x.ne(0)).xlogy(y);
}

variable_list xlogy_backward(BinaryNode& n, const variable_list& g) {
  const Variable a = n.var(kSelf), b = n.var(kOther);
  return {n.needs_input_grad(0) ? self_grad(n, g[0] * xlogy_self_factor(a.data(), b)) : Variable(),
          n.needs_input_grad(1) ? other_grad(n, g[0] * a / b) : Variable()};
}

// d/da copysign(a, b) = copysign(a, b) / a, 0 at a == 0; nothing flows to b.
Tensor copysign_ratio(const Tensor& a, const Tensor& result) {
  return result.div(a).masked_fill(a.eq(0), 0);
}

variable_list copysign_backward(BinaryNode& n, const variable_list& g) {
  const Tensor a = n.var(kSelf).data();
  return {n.needs_input_grad(0)
              ? self_grad(n, g[0] * constant(copysign_ratio(a, a.copysign(n.var(kOther).data()))))
              : Variable(),
          n.needs_input_grad(1) ? other_grad(n, g[0] * 0.0) : Variable()};
}

variable_list lerp_scalar_backward(BinaryNode& n, const variable_list& g) {
  const double w = n.state.alpha;
  return {self_grad(n, g[0] * (1.0 - w)), other_grad(n, g[0] * w)};
}

// lerp with a tensor weight, addcmul and addcdiv: three inputs' metadata
// and (addc) the value.
struct TernaryState {
  InputMeta first, second, third;
  double value = 1;
};
using TernaryNode = OpNode<TernaryState>;

Variable ternary_grad(const TernaryNode& n, size_t input, const Variable& g) {
  const InputMeta* metas[] = {&n.state.first, &n.state.second, &n.state.third};
  return input_grad(n.needs_input_grad(input), *metas[input], g);
}

variable_list lerp_tensor_backward(TernaryNode& n, const variable_list& g) {
  const Variable start = n.var(0), end = n.var(1), weight = n.var(2);
  return {n.needs_input_grad(0) ? ternary_grad(n, 0, g[0] * (1.0 - weight)) : Variable(),
          n.needs_input_grad(1) ? ternary_grad(n, 1, g[0] * weight) : Variable(),
          n.needs_input_grad(2) ? ternary_grad(n, 2, g[0] * (end - start)) : Variable()};
}

variable_list addcmul_backward(TernaryNode& n, const variable_list& g) {
  const double value = n.state.value;
  return {ternary_grad(n, 0, g[0]),
          n.needs_input_grad(1) ? ternary_grad(n, 1, g[0] * n.var(1) * value) : Variable(),
          n.needs_input_grad(2) ? ternary_grad(n, 2, g[0] * n.var(0) * value) : Variable()};
}

variable_list addcdiv_backward(TernaryNode& n, const variable_list& g) {
  const double value = n.state.value;
  const Variable t1 = n.var(0), t2 = n.var(1);
  return {ternary_grad(n, 0, g[0]),
          n.needs_input_grad(1) ? ternary_grad(n, 1, g[0] * value / t2) : Variable(),
          n.needs_input_grad(2) ? ternary_grad(n, 2, -g[0] * value * t1 / (t2 * t2))
                                : Variable()};
}

// addcmul and addcdiv save tensor1 and tensor2 (slots 0 and 1).
Variable addc_op(const char* name, TernaryNode::Formula f, const Variable& self,
                 const Variable& tensor1, const Variable& tensor2, Scalar value, Tensor out) {
  return record(name, f, {&self, &tensor1, &tensor2}, std::move(out), [&](TernaryNode& n) {
    n.state = {InputMeta(self), InputMeta(tensor1), InputMeta(tensor2), value.to<double>()};
    n.saved.emplace_back(tensor1, false);
    n.saved.emplace_back(tensor2, false);
  });
}
}  // namespace

Variable Variable::hypot(const Variable& other) const {
  return binary_saving_result("HypotBackward0", hypot_backward, *this, other,
                              data().hypot(other.data()));
}
Variable Variable::logaddexp(const Variable& other) const {
  return binary_op("LogaddexpBackward0", logaddexp_backward<false>, *this, other,
                   data().logaddexp(other.data()), true);
}
Variable Variable::logaddexp2(const Variable& other) const {
  return binary_op("Logaddexp2Backward0", logaddexp_backward<true>, *this, other,
                   data().logaddexp2(other.data()), true);
}
Variable Variable::xlogy(const Variable& other) const {
  return binary_op("XlogyBackward0", xlogy_backward, *this, other, data().xlogy(other.data()),
                   true);
}
Variable Variable::xlogy(Scalar other) const {
  return scalar_op("XlogyBackward2", [](ScalarNode& n, const variable_list& g) -> variable_list {
    const Tensor factor = n.var(0).data().ne(0).xlogy(n.state.scalar);
    return {scalar_input_grad(n, g[0] * constant(factor))};
  }, *this, data().xlogy(other), other.to<double>(), /*save_input=*/true);
}
Variable xlogy(Scalar self, const Variable& other) {
  return scalar_op("XlogyBackward1", [](ScalarNode& n, const variable_list& g) -> variable_list {
    return {scalar_input_grad(n, g[0] * n.state.scalar / n.var(0))};
  }, other, xlogy(self, other.data()), self.to<double>(), /*save_input=*/true);
}
Variable Variable::copysign(const Variable& other) const {
  return binary_op("CopysignBackward0", copysign_backward, *this, other,
                   data().copysign(other.data()), true);
}
Variable Variable::copysign(Scalar other) const {
  return scalar_op("CopysignBackward1", [](ScalarNode& n, const variable_list& g)
                                            -> variable_list {
    const Tensor a = n.var(0).data();
    return {scalar_input_grad(n, g[0] * constant(copysign_ratio(a, a.copysign(n.state.scalar))))};
  }, *this, data().copysign(other), other.to<double>(), /*save_input=*/true);
}
Variable Variable::lerp(const Variable& end, Scalar weight) const {
  return binary_op("LerpBackward0", lerp_scalar_backward, *this, end,
                   data().lerp(end.data(), weight), false, weight.to<double>());
}
Variable Variable::lerp(const Variable& end, const Variable& weight) const {
  return record("LerpBackward1", lerp_tensor_backward, {this, &end, &weight},
                data().lerp(end.data(), weight.data()), [&](TernaryNode& n) {
    n.state = {InputMeta(*this), InputMeta(end), InputMeta(weight), 1};
    n.saved.emplace_back(*this, false);
    n.saved.emplace_back(end, false);
    n.saved.emplace_back(weight, false);
  });
}
Variable Variable::addcmul(const Variable& tensor1, const Variable& tensor2, Scalar value) const {
  return addc_op("AddcmulBackward0", addcmul_backward, *this, tensor1, tensor2, value,
                 data().addcmul(tensor1.data(), tensor2.data(), value));
}
Variable Variable::addcdiv(const Variable& tensor1, const Variable& tensor2, Scalar value) const {
  return addc_op("AddcdivBackward0", addcdiv_backward, *this, tensor1, tensor2, value,
                 data().addcdiv(tensor1.data(), tensor2.data(), value));
}

Variable& Variable::hypot_(const Variable& other) {
  return inplace("hypot_", *this, true, {&other}, [&](const Variable& old) { return old.hypot(other); },
                 [&](Tensor& t) { t.hypot_(other.data()); });
}
Variable& Variable::xlogy_(const Variable& other) {
  return inplace("xlogy_", *this, true, {&other}, [&](const Variable& old) { return old.xlogy(other); },
                 [&](Tensor& t) { t.xlogy_(other.data()); });
}
Variable& Variable::xlogy_(Scalar other) {
  return inplace("xlogy_", *this, true, {}, [&](const Variable& old) { return old.xlogy(other); },
                 [&](Tensor& t) { t.xlogy_(other); });
}
Variable& Variable::copysign_(const Variable& other) {
  return inplace("copysign_", *this, true, {&other},
                 [&](const Variable& old) { return old.copysign(other); },
                 [&](Tensor& t) { t.copysign_(other.data()); });
}
Variable& Variable::copysign_(Scalar other) {
  return inplace("copysign_", *this, true, {},
                 [&](const Variable& old) { return old.copysign(other); },
                 [&](Tensor& t) { t.copysign_(other); });
}
Variable& Variable::lerp_(const Variable& end, Scalar weight) {
  return inplace("lerp_", *this, false, {&end},
                 [&](const Variable& old) { return old.lerp(end, weight); },
                 [&](Tensor& t) { t.lerp_(end.data(), weight); });
}
Variable& Variable::lerp_(const Variable& end, const Variable& weight) {
  return inplace("lerp_", *this, true, {&end, &weight},
                 [&](const Variable& old) { return old.lerp(end, weight); },
                 [&](Tensor& t) { t.lerp_(end.data(), weight.data()); });
}
Variable& Variable::addcmul_(const Variable& tensor1, const Variable& tensor2, Scalar value) {
  return inplace("addcmul_", *this, false, {&tensor1, &tensor2},
                 [&](const Variable& old) { return old.addcmul(tensor1, tensor2, value); },
                 [&](Tensor& t) { t.addcmul_(tensor1.data(), tensor2.data(), value); });
}
Variable& Variable::addcdiv_(const Variable& tensor1, const Variable& tensor2, Scalar value) {
  return inplace("addcdiv_", *this, false, {&tensor1, &tensor2},
                 [&](const Variable& old) { return old.addcdiv(tensor1, tensor2, value); },
                 [&](Tensor& t) { t.addcdiv_(tensor1.data(), tensor2.data(), value); });
}

}  // namespace torchlet
