#include "autograd/gradcheck.h"

#include <cmath>
#include <sstream>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"

namespace torchlet::testing {
namespace {

// Jacobians as [output element][input element] for one input.
using Matrix = std::vector<std::vector<double>>;

// Element `flat` (row-major) of `t`, as a 0-dim view.
Tensor element(const Tensor& t, int64_t flat) {
  Tensor cell = t;
  std::vector<int64_t> coords(t.dim());
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    coords[d] = flat % t.size(d);
    flat /= t.size(d);
  }
  for (int64_t c : coords) cell = cell.select(0, c);
  return cell;
}

// Central differences, perturbing the input's storage in place (any layout).
Matrix numerical(const VariableFn& fn, const variable_list& inputs, size_t which, double eps,
                 int64_t out_numel) {
  const Tensor x = inputs[which].data();
  const int64_t n = x.numel();
  Matrix jac(out_numel, std::vector<double>(n));
  for (int64_t i = 0; i < n; ++i) {
    Tensor cell = element(x, i);
    const double orig = cell.item<double>();
    cell.fill_(orig + eps);
    const std::vector<double> plus = fn(inputs).data().to(kFloat64).to_vector<double>();
    cell.fill_(orig - eps);
    const std::vector<double> minus = fn(inputs).data().to(kFloat64).to_vector<double>();
    cell.fill_(orig);
    for (int64_t o = 0; o < out_numel; ++o) jac[o][i] = (plus[o] - minus[o]) / (2 * eps);
  }
  return jac;
}

}  // namespace

::testing::AssertionResult gradcheck_impl(const VariableFn& fn, const variable_list& inputs,
                                          double eps, double atol, double rtol) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dtype() != kFloat64) {
      return ::testing::AssertionFailure() << "gradcheck: input " << i << " is not float64";
    }
  }
  const Variable out = fn(inputs);
  const int64_t out_numel = out.numel();
  for (size_t which = 0; which < inputs.size(); ++which) {
    if (!inputs[which].requires_grad()) continue;
    const Matrix num = numerical(fn, inputs, which, eps, out_numel);
    for (int64_t o = 0; o < out_numel; ++o) {
      Tensor seed = zeros({out_numel}, kFloat64);
      seed.narrow(0, o, 1).fill_(1);
      const Variable y = fn(inputs);
      const variable_list g = autograd::grad({y}, {inputs[which]},
                                             {Variable(seed.view(y.sizes()).to(y.dtype()))},
                                             false, false, /*allow_unused=*/true);
      const std::vector<double> analytic =
          g[0].defined() ? g[0].data().to(kFloat64).to_vector<double>()
                         : std::vector<double>(num[o].size(), 0.0);
      for (size_t i = 0; i < analytic.size(); ++i) {
        if (std::abs(analytic[i] - num[o][i]) > atol + rtol * std::abs(num[o][i])) {
          return ::testing::AssertionFailure()
                 << "Jacobian mismatch for output element " << o << " with respect to input "
                 << which << " element " << i << ": analytic " << analytic[i] << ", numerical "
                 << num[o][i];
        }
      }
    }
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult gradcheck(const VariableFn& fn, const variable_list& inputs, double eps,
                                     double atol, double rtol) {
  try {
    return gradcheck_impl(fn, inputs, eps, atol, rtol);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "gradcheck: threw " << e.what();
  }
}

::testing::AssertionResult gradgradcheck(const VariableFn& fn, const variable_list& inputs,
                                         double eps, double atol, double rtol) {
  const Variable out = fn(inputs);
  // A fixed, non-trivial output gradient v (itself differentiated).
  Tensor v_data = linspace(-1, 1, out.numel(), kFloat64).view(out.sizes());
  if (out.numel() == 1) v_data.fill_(0.7);
  variable_list all = inputs;
  all.push_back(Variable(v_data, true));
  std::vector<size_t> diff;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].requires_grad()) diff.push_back(i);
  }
  // One scalar-ized second-order function per differentiable input.
  for (size_t k : diff) {
    const VariableFn first = [&fn, &inputs, k](const variable_list& xs) {
      const variable_list ins(xs.begin(), xs.begin() + static_cast<int64_t>(inputs.size()));
      const Variable y = fn(ins);
      const variable_list g =
          autograd::grad({y}, {ins[k]}, {xs.back()}, true, true, /*allow_unused=*/true);
      return g[0].defined() ? g[0] : Variable(zeros_like(ins[k].data()));
    };
    ::testing::AssertionResult r = gradcheck(first, all, eps, atol, rtol);
    if (!r) return r << " (second derivative, gradient of input " << k << ")";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace torchlet::testing
