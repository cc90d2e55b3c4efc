#include "nn/distance.h"

#include "nn/functional/distance.h"

namespace torchlet::nn {

Variable CosineSimilarityImpl::forward(const Variable& x1, const Variable& x2) {
  return functional::cosine_similarity(x1, x2, options.dim(), options.eps());
}

Variable PairwiseDistanceImpl::forward(const Variable& x1, const Variable& x2) {
  return functional::pairwise_distance(x1, x2, options.p(), options.eps(), options.keepdim());
}

}  // namespace torchlet::nn
