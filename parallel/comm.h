#pragma once

// Collective copies between devices (torch.cuda.comm / torch.nn.parallel.comm)
// on raw Tensors: nothing here records a graph. The differentiable forms are
// the autograd functions in parallel/functions.h. On CPU devices, which share
// host memory, a copy between devices is a memcpy; the CUDA backend adds
// peer-copy and NCCL paths behind the same functions.

#include <cstdint>
#include <optional>
#include <vector>

#include "tensor/tensor.h"

namespace torchlet::parallel::comm {

/// `tensor` on each of `devices`, in order: the tensor itself on its own
/// device, a copy on every other.
std::vector<Tensor> broadcast(const Tensor& tensor, const std::vector<Device>& devices);

/// Every tensor on each of `devices`: result[d][i] is tensors[i] on
/// devices[d]. The tensors must be on devices[0], whose results are the
/// tensors themselves (sharing storage). Between distinct GPUs each dtype
/// moves as one flat buffer through one NCCL collective, of which the
/// results are views; onto CPU devices each tensor is copied into memory of
/// its own, so each result has its own version counter (an in-place change
/// to one does not invalidate another saved for backward).
std::vector<std::vector<Tensor>> broadcast_coalesced(const std::vector<Tensor>& tensors,
                                                     const std::vector<Device>& devices);

/// The sum of `inputs` (same shape, one per device) on `destination`, which
/// must be the device of one of them (default: the current device). A single
/// input is returned itself, not copied (as PyTorch's comm.reduce_add).
Tensor reduce_add(const std::vector<Tensor>& inputs,
                  std::optional<Device> destination = std::nullopt);

/// reduce_add of each column: inputs[d][i] is tensor i on device d; the
/// result's element i is the sum over d, on `destination`.
std::vector<Tensor> reduce_add_coalesced(const std::vector<std::vector<Tensor>>& inputs,
                                         std::optional<Device> destination = std::nullopt);

/// `tensor` split along `dim` and chunk i placed on devices[i]: into
/// `chunk_sizes` when given (one per device, summing to the size of `dim`),
/// else as tensor.chunk(devices.size(), dim) does, which may give fewer
/// chunks than devices (9 rows over 4 devices: 3, 3, 3). A chunk already on
/// its device is a view of `tensor`.
std::vector<Tensor> scatter(const Tensor& tensor, const std::vector<Device>& devices,
                            const std::optional<std::vector<int64_t>>& chunk_sizes = std::nullopt,
                            int64_t dim = 0);

/// `tensors` (from any devices) concatenated along `dim` on `destination`
/// (default: the current device). Every size but that of `dim` must match.
Tensor gather(const std::vector<Tensor>& tensors, int64_t dim = 0,
              std::optional<Device> destination = std::nullopt);

}  // namespace torchlet::parallel::comm
