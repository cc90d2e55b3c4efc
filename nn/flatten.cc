#include "nn/flatten.h"

namespace torchlet::nn {

std::string FlattenImpl::extra_repr() const {
  return "start_dim=" + std::to_string(start_dim_) + ", end_dim=" + std::to_string(end_dim_);
}

std::string UnflattenImpl::extra_repr() const {
  std::string sizes;
  for (size_t i = 0; i < sizes_.size(); ++i) sizes += (i ? ", " : "") + std::to_string(sizes_[i]);
  if (sizes_.size() == 1) sizes += ",";
  return "dim=" + std::to_string(dim_) + ", unflattened_size=(" + sizes + ")";
}

}  // namespace torchlet::nn
