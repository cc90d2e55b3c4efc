#include "nn/functional/dropout.h"

#include <cmath>
#include <string>

#include "tensor/warning.h"

namespace torchlet::nn::functional {
namespace {

void check_probability(double p) {
  TORCHLET_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
}

// Note [Dropout noise]
// As PyTorch's _dropout_impl: the noise is drawn per element, or for
// feature dropout once per (sample, channel), shaped [N, C, 1, ...] and
// broadcast over the rest; survivors are kept with probability 1 - p.
// Plain dropout scales them by 1 / (1 - p); alpha dropout maps a dropped
// element to SELU's saturation -alpha' and applies the affine map
// a * x + b that restores zero mean and unit variance.
Tensor keep_mask(const Variable& input, double p, bool feature) {
  SizeVec shape(input.sizes().begin(), input.sizes().end());
  if (feature) {
    TORCHLET_CHECK(input.dim() >= 2, "Feature dropout requires at least 2 dimensions in the input");
    for (size_t d = 2; d < shape.size(); ++d) shape[d] = 1;
  }
  return bernoulli(shape, 1 - p, input.options());
}

Variable multiply(const Variable& input, const Variable& factor, bool inplace) {
  if (!inplace) return input * factor;
  Variable out = input;
  out.mul_(factor);
  return out;
}

Variable add(const Variable& input, const Variable& term, bool inplace) {
  if (!inplace) return input + term;
  Variable out = input;
  out.add_(term);
  return out;
}

Variable dropout_impl(const Variable& input, double p, bool training, bool inplace, bool feature,
                      bool alpha) {
  check_probability(p);
  if (p == 0 || !training || input.numel() == 0) return input;
  if (p == 1) {
    return multiply(input, Variable(zeros({}, input.options())),
                    inplace);
  }
  Tensor noise = keep_mask(input, p, feature);
  if (!alpha) return multiply(input, Variable(noise.div_(1 - p)), inplace);
  constexpr double kSeluAlpha = 1.7580993408473766;  // SELU's scale * alpha
  const double a = 1 / std::sqrt((kSeluAlpha * kSeluAlpha * p + 1) * (1 - p));
  const Tensor b = noise.sub(1).mul(kSeluAlpha * a).add(kSeluAlpha * a * p);
  return add(multiply(input, Variable(noise.mul_(a)), inplace), Variable(b), inplace);
}

std::string deprecated_rank(const char* op, int64_t dim, const char* spatial,
                            const char* ranks) {
  return std::string(op) + ": Received a " + std::to_string(dim) + "-D input to " + op +
         ", which is deprecated and will result in an error in a future release. To retain the "
         "behavior and silence this warning, please use dropout instead. Note that " + op +
         " exists to provide channel-wise dropout on inputs with " + spatial +
         " spatial dimensions, a channel dimension, and an optional batch dimension (i.e. " +
         ranks + " inputs).";
}

}  // namespace

Variable dropout(const Variable& input, double p, bool training, bool inplace) {
  return dropout_impl(input, p, training, inplace, /*feature=*/false, /*alpha=*/false);
}

Variable dropout1d(const Variable& input, double p, bool training, bool inplace) {
  check_probability(p);
  const int64_t dim = input.dim();
  TORCHLET_CHECK(dim == 2 || dim == 3, "dropout1d: Expected 2D or 3D input, but received a ", dim,
                 "D input. Note that dropout1d exists to provide channel-wise dropout on inputs "
                 "with 1 spatial dimension, a channel dimension, and an optional batch dimension "
                 "(i.e. 2D or 3D inputs).");
  if (dim == 3) return dropout_impl(input, p, training, inplace, true, false);
  // Unbatched: [C, L] as [1, C, L] (a view, so inplace writes input's own
  // storage).
  return dropout_impl(input.unsqueeze(0), p, training, inplace, true, false).squeeze(0);
}

Variable dropout2d(const Variable& input, double p, bool training, bool inplace) {
  check_probability(p);
  const int64_t dim = input.dim();
  if (dim != 3 && dim != 4) warn(deprecated_rank("dropout2d", dim, "2", "3D or 4D"));
  if (dim == 3) {
    warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
         "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel "
         "dim. This behavior will change in a future release to interpret the input as one "
         "without a batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise "
         "dropout behavior, please switch to using dropout1d instead.");
  }
  return dropout_impl(input, p, training, inplace, /*feature=*/true, /*alpha=*/false);
}

Variable dropout3d(const Variable& input, double p, bool training, bool inplace) {
  check_probability(p);
  const int64_t dim = input.dim();
  if (dim != 4 && dim != 5) warn(deprecated_rank("dropout3d", dim, "3", "4D or 5D"));
  if (dim == 5) return dropout_impl(input, p, training, inplace, true, false);
  // Unbatched: [C, D, H, W] as [1, C, D, H, W] (a view, so inplace writes
  // input's own storage).
  return dropout_impl(input.unsqueeze(0), p, training, inplace, true, false).squeeze(0);
}

Variable alpha_dropout(const Variable& input, double p, bool training, bool inplace) {
  return dropout_impl(input, p, training, inplace, /*feature=*/false, /*alpha=*/true);
}

Variable feature_alpha_dropout(const Variable& input, double p, bool training, bool inplace) {
  return dropout_impl(input, p, training, inplace, /*feature=*/true, /*alpha=*/true);
}

}  // namespace torchlet::nn::functional
