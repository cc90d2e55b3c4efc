// tensor/cuda/nccl.h in a build without --config=cuda: no NCCL.
#include "tensor/cuda/nccl.h"

namespace torchlet::cuda::nccl {

bool is_available(const std::vector<Tensor>&, bool) { return false; }

void broadcast(const std::vector<Tensor>&, int) {
  TORCHLET_CHECK(false, "nccl::broadcast: torchlet was built without CUDA support; rebuild with "
                        "--config=cuda");
}

void reduce(const std::vector<Tensor>&, const Tensor&, int) {
  TORCHLET_CHECK(false, "nccl::reduce: torchlet was built without CUDA support; rebuild with "
                        "--config=cuda");
}

int version() { return 0; }

}  // namespace torchlet::cuda::nccl
