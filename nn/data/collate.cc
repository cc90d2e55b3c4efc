#include "nn/data/collate.h"

#include "tensor/error.h"
#include "tensor/index_ops.h"

namespace torchlet::data {

Tensor default_collate(const std::vector<Tensor>& examples) {
  TORCHLET_CHECK(!examples.empty(), "default_collate: expected at least one example");
  return stack(examples, 0);
}

Example default_collate(const std::vector<Example>& examples) {
  TORCHLET_CHECK(!examples.empty(), "default_collate: expected at least one example");
  std::vector<Tensor> data, target;
  data.reserve(examples.size());
  target.reserve(examples.size());
  for (const Example& e : examples) {
    data.push_back(e.data);
    target.push_back(e.target);
  }
  return {stack(data, 0), stack(target, 0)};
}

}  // namespace torchlet::data
