#pragma once

// Distance layers (torch.nn.CosineSimilarity, PairwiseDistance): the
// functional forms of nn/functional/distance.h. Both print no options, as
// PyTorch's.

#include <cstdint>

#include "nn/module_holder.h"
#include "nn/options.h"
#include "nn/stateless.h"

namespace torchlet::nn {

/// torch.nn.CosineSimilarity's arguments.
struct CosineSimilarityOptions {
  TORCHLET_ARG(int64_t, dim) = 1;
  TORCHLET_ARG(double, eps) = 1e-8;
};

/// torch.nn.PairwiseDistance's arguments.
struct PairwiseDistanceOptions {
  PairwiseDistanceOptions(double p = 2.0) : p_(p) {}  // NOLINT: implicit, as libtorch's
  TORCHLET_ARG(double, p);
  TORCHLET_ARG(double, eps) = 1e-6;
  TORCHLET_ARG(bool, keepdim) = false;
};

/// The cosine of the angle between x1 and x2 along dim
/// (torch.nn.CosineSimilarity).
class CosineSimilarityImpl : public StatelessModule<CosineSimilarityImpl, CosineSimilarityOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& x1, const Variable& x2);
};
TORCHLET_MODULE(CosineSimilarity);

/// ||x1 - x2 + eps||_p along the last dim (torch.nn.PairwiseDistance).
class PairwiseDistanceImpl : public StatelessModule<PairwiseDistanceImpl, PairwiseDistanceOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& x1, const Variable& x2);
};
TORCHLET_MODULE(PairwiseDistance);

}  // namespace torchlet::nn
