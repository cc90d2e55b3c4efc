#pragma once

// Distances and normalization along a dim (torch.nn.functional.normalize,
// cosine_similarity, pairwise_distance), with PyTorch 1.13's formulas and
// gradients.

#include <cstdint>

#include "autograd/variable.h"

namespace torchlet::nn::functional {

/// input / max(||input||_p, eps), the p-norm taken along dim; where the
/// norm is below eps the divisor is eps and no gradient passes through it.
Variable normalize(const Variable& input, double p = 2.0, int64_t dim = 1, double eps = 1e-12);

/// sum(x1 / n1 * x2 / n2) along dim, x1 and x2 broadcast together, n the
/// 2-norms each clamped below at eps (as PyTorch 1.13: the squared norm is
/// clamped at eps * eps without recording the clamp, so the gradient flows
/// as if unclamped; a zero vector gives 0). The common dtype must be
/// floating.
Variable cosine_similarity(const Variable& x1, const Variable& x2, int64_t dim = 1,
                           double eps = 1e-8);

/// ||x1 - x2 + eps||_p along the last dim of the broadcast shape.
Variable pairwise_distance(const Variable& x1, const Variable& x2, double p = 2.0,
                           double eps = 1e-6, bool keepdim = false);

}  // namespace torchlet::nn::functional
