#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options.h"

namespace torchlet::nn {

/// torch.nn.LayerNorm's arguments.
struct LayerNormOptions {
  LayerNormOptions(std::vector<int64_t> normalized_shape)  // NOLINT: implicit, as libtorch's
      : normalized_shape_(std::move(normalized_shape)) {}
  /// The trailing dims normalized over.
  TORCHLET_ARG(std::vector<int64_t>, normalized_shape);
  TORCHLET_ARG(double, eps) = 1e-5;
  /// Learn a weight and a bias of normalized_shape.
  TORCHLET_ARG(bool, elementwise_affine) = true;
};

/// (x - mean) / sqrt(var + eps) * weight + bias over the trailing
/// normalized_shape dims (torch.nn.LayerNorm). Weight starts at ones and
/// bias at zeros; both are undefined without elementwise_affine.
class LayerNormImpl : public Cloneable<LayerNormImpl> {
 public:
  explicit LayerNormImpl(LayerNormOptions options);
  void reset() override;
  /// Ones into weight, zeros into bias (PyTorch's reset_parameters).
  void reset_parameters();
  Variable forward(const Variable& input);
  std::string extra_repr() const override;

  LayerNormOptions options;
  Parameter weight;
  Parameter bias;
};
TORCHLET_MODULE(LayerNorm);

}  // namespace torchlet::nn
