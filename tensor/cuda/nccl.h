#pragma once

// NCCL collectives over one process's GPUs, for parallel::comm's CUDA paths
// (torch.cuda.nccl): a communicator per ordered set of GPUs, created on
// first use and kept; every call queues one collective per GPU in one NCCL
// group on each GPU's current stream (Note [Streams] in tensor/cuda/
// stream.h), after the work already queued there.

#include <vector>

#include "tensor/tensor.h"

namespace torchlet::cuda::nccl {

/// Whether this build has NCCL (--config=cuda) and `tensors` can be its
/// operands: each on a different GPU, contiguous, of one dtype NCCL
/// carries (bool only for broadcast) and one numel.
bool is_available(const std::vector<Tensor>& tensors, bool reducing = false);

/// Copies tensors[root] into every other of `tensors` (ncclBroadcast).
void broadcast(const std::vector<Tensor>& tensors, int root = 0);

/// output = the sum of `inputs` (ncclReduce to the GPU of inputs[root]);
/// output is on that GPU, of the inputs' shape and dtype, and may be
/// inputs[root] itself.
void reduce(const std::vector<Tensor>& inputs, const Tensor& output, int root = 0);

/// NCCL's version as an integer (e.g. 22703 for 2.27.3); 0 without NCCL.
int version();

}  // namespace torchlet::cuda::nccl
