#pragma once

// Finite-difference checks of backward formulas (testonly), as
// torch.autograd.gradcheck: inputs are float64; each analytic Jacobian column
// (from autograd::grad) is compared with central differences.

#include <functional>

#include "autograd/variable.h"
#include "gtest/gtest.h"

namespace torchlet::testing {

using VariableFn = std::function<Variable(const variable_list&)>;

/// First derivatives of `fn` at `inputs` (float64 leaves requiring grad).
::testing::AssertionResult gradcheck(const VariableFn& fn, const variable_list& inputs,
                                     double eps = 1e-6, double atol = 1e-5, double rtol = 1e-3);
/// Second derivatives: gradcheck of the map (inputs, v) -> grad(fn(inputs), inputs, v)
/// with create_graph, for a fixed random v.
::testing::AssertionResult gradgradcheck(const VariableFn& fn, const variable_list& inputs,
                                         double eps = 1e-6, double atol = 1e-5,
                                         double rtol = 1e-3);

}  // namespace torchlet::testing
