#include "parallel/comm.h"

#include <algorithm>
#include <exception>
#include <map>
#include <utility>

#include "parallel/device_tasks.h"
#include "tensor/cuda/nccl.h"

namespace torchlet::parallel::comm {
namespace {

void check_devices(const std::vector<Device>& devices, const char* op) {
  TORCHLET_CHECK(!devices.empty(), op, ": Expected at least one device");
  for (Device device : devices) check_device_exists(device, op);
}

// Note [Reading across CPU devices]
// Virtual CPU devices share host memory, so a collective that only reads
// another device's tensor (reduce_add) reads it in place through an alias
// labelled with the destination device, instead of copying it over first:
// the reduction of the replicas' gradients is one pass. Results and the
// copies broadcast and scatter make are still new memory on their device,
// so replicas share nothing.

/// Copies of `tensors` on `device`, each in memory of its own: one buffer
/// with views of it would give them one version counter (it lives in the
/// storage), so an in-place change to one copy (a buffer a replica updates
/// in forward, an Embedding's max_norm renormalizing its weight) would make
/// backward reject every other copy saved for it (PyTorch's comm gives each
/// output a counter of its own for the same reason).
std::vector<Tensor> copies_on(const std::vector<Tensor>& tensors, Device device) {
  std::vector<Tensor> copies;
  copies.reserve(tensors.size());
  // Note [Receivers copy]: inside DataParallel's step the receiving core
  // fills the copies.
  parallel::detail::ReceiverCopies* const receiver = parallel::detail::ReceiverCopies::current();
  std::vector<std::pair<Tensor, Tensor>> queued;
  for (const Tensor& t : tensors) {
    Tensor copy = empty(t.sizes(), TensorOptions(t.dtype()).device(device));
    if (receiver != nullptr && receiver->takes(device) && t.device().is_cpu()) {
      queued.emplace_back(copy, t);
    } else {
      copy.copy_(t);
    }
    copies.push_back(std::move(copy));
  }
  if (!queued.empty()) receiver->copy(device, std::move(queued));
  return copies;
}

/// `t` as a tensor of `device` for reading: CPU devices share host memory,
/// so there it is the same memory (kept alive by the result), not a copy.
Tensor readable_on(const Tensor& t, Device device) {
  if (t.device() == device || !t.device().is_cpu() || !device.is_cpu()) return t.to(device);
  return from_blob(t.data_ptr(), t.sizes(), t.strides(), TensorOptions(t.dtype()).device(device),
                   [keep = t](void*) {});
}

/// The index of the input on `destination`; throws if there is none.
size_t root_index(const std::vector<Tensor>& inputs, Device destination) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].device() == destination) return i;
  }
  ::torchlet::detail::throw_error(::torchlet::detail::str_cat(
      "reduce_add expects destination to be on the same GPU with one of the tensors (destination ",
      destination, ")"));
}

// Note [Parallel reduction]
// reduce_add_coalesced runs in backward after every replica's backward (it
// is the backward of the parameters' Broadcast), so it is on the critical
// path of a step while the devices' executors are idle. When the inputs
// are large and on several CPU devices, the tensors are split into
// contiguous groups of about equal size, one per input device, and each
// group is reduced on that device's executor at once.

/// The input devices that reduce a group each (Note [Parallel reduction]):
/// none when the work is too small to split or not on CPU devices.
std::vector<Device> reducing_devices(const std::vector<std::vector<Tensor>>& inputs) {
  int64_t numel = 0;
  for (const Tensor& t : inputs[0]) numel += t.defined() ? t.numel() : 0;
  std::vector<Device> devices;
  if (numel < kParallelGrain || inputs.size() < 2) return devices;
  for (const std::vector<Tensor>& on_device : inputs) {
    if (on_device.empty() || !on_device[0].defined()) return {};
    const Device device = on_device[0].device();
    if (!device.is_cpu()) return {};
    if (std::find(devices.begin(), devices.end(), device) == devices.end()) devices.push_back(device);
  }
  return devices;
}

/// Bounds of `groups` contiguous runs of `tensors` of about equal numel.
std::vector<size_t> balanced_groups(const std::vector<Tensor>& tensors, size_t groups) {
  int64_t total = 0;
  for (const Tensor& t : tensors) total += t.numel();
  std::vector<size_t> bounds{0};
  int64_t seen = 0;
  for (size_t i = 0; i < tensors.size() && bounds.size() < groups; ++i) {
    seen += tensors[i].numel();
    if (seen * static_cast<int64_t>(groups) >= total * static_cast<int64_t>(bounds.size())) {
      bounds.push_back(i + 1);
    }
  }
  while (bounds.size() <= groups) bounds.push_back(tensors.size());
  return bounds;
}

// Note [NCCL paths]
// Between different GPUs, broadcast_coalesced and reduce_add_coalesced move
// each dtype's tensors as one flat buffer per GPU through one NCCL
// collective (tensor/cuda/nccl.h), as torch.nn.parallel.comm does; the
// results are views of those buffers. Anything else (CPU devices, a device
// listed twice, a dtype NCCL cannot sum) takes the copies above.

bool distinct_gpus(const std::vector<Device>& devices) {
  if (devices.size() < 2) return false;
  for (size_t i = 0; i < devices.size(); ++i) {
    if (!devices[i].is_cuda()) return false;
    for (size_t j = 0; j < i; ++j) {
      if (devices[j] == devices[i]) return false;
    }
  }
  return true;
}

// The tensors of each dtype, in order: dtype -> their indices.
std::map<DType, std::vector<size_t>> by_dtype(const std::vector<Tensor>& tensors) {
  std::map<DType, std::vector<size_t>> groups;
  for (size_t i = 0; i < tensors.size(); ++i) groups[tensors[i].dtype()].push_back(i);
  return groups;
}

Tensor flat_concat(const std::vector<Tensor>& tensors, const std::vector<size_t>& indices) {
  std::vector<Tensor> flat;
  flat.reserve(indices.size());
  for (size_t i : indices) flat.push_back(tensors[i].reshape({-1}));
  return cat(flat);
}

// Puts views of `buffer` shaped as tensors[indices] into out[indices].
void unflatten_into(const Tensor& buffer, const std::vector<Tensor>& tensors,
                    const std::vector<size_t>& indices, std::vector<Tensor>& out) {
  int64_t at = 0;
  for (size_t i : indices) {
    out[i] = buffer.narrow(0, at, tensors[i].numel()).view(tensors[i].sizes());
    at += tensors[i].numel();
  }
}

std::vector<std::vector<Tensor>> nccl_broadcast_coalesced(const std::vector<Tensor>& tensors,
                                                          const std::vector<Device>& devices) {
  std::vector<std::vector<Tensor>> out(devices.size(), std::vector<Tensor>(tensors.size()));
  out[0] = tensors;
  for (const auto& [dtype, indices] : by_dtype(tensors)) {
    std::vector<Tensor> buffers{flat_concat(tensors, indices)};
    for (size_t d = 1; d < devices.size(); ++d) {
      buffers.push_back(empty({buffers[0].numel()}, TensorOptions(dtype).device(devices[d])));
    }
    cuda::nccl::broadcast(buffers, 0);
    for (size_t d = 1; d < devices.size(); ++d) unflatten_into(buffers[d], tensors, indices, out[d]);
  }
  return out;
}

// reduce_add_coalesced through NCCL, or nullopt where it does not apply.
std::optional<std::vector<Tensor>> nccl_reduce_add_coalesced(
    const std::vector<std::vector<Tensor>>& inputs, Device dest) {
  std::vector<Device> devices;
  for (const std::vector<Tensor>& on_device : inputs) {
    if (on_device.empty() || !on_device[0].defined()) return std::nullopt;
    devices.push_back(on_device[0].device());
  }
  if (!distinct_gpus(devices)) return std::nullopt;
  const auto root = std::find(devices.begin(), devices.end(), dest);
  if (root == devices.end()) return std::nullopt;
  for (size_t d = 0; d < inputs.size(); ++d) {
    for (size_t i = 0; i < inputs[d].size(); ++i) {
      const Tensor& t = inputs[d][i];
      if (!t.defined() || t.device() != devices[d] || t.dtype() == kBool ||
          t.dtype() != inputs[0][i].dtype() || t.sizes() != inputs[0][i].sizes()) {
        return std::nullopt;
      }
    }
  }
  const std::vector<Tensor>& first = inputs[0];
  std::vector<Tensor> out(first.size());
  for (const auto& [dtype, indices] : by_dtype(first)) {
    std::vector<Tensor> buffers;
    for (const std::vector<Tensor>& on_device : inputs) {
      buffers.push_back(flat_concat(on_device, indices));
    }
    const int r = static_cast<int>(root - devices.begin());
    const Tensor sum = empty({buffers[0].numel()}, TensorOptions(dtype).device(dest));
    cuda::nccl::reduce(buffers, sum, r);
    unflatten_into(sum, first, indices, out);
  }
  return out;
}

}  // namespace

std::vector<Tensor> broadcast(const Tensor& tensor, const std::vector<Device>& devices) {
  TORCHLET_CHECK(tensor.defined(), "broadcast: the tensor is undefined");
  check_devices(devices, "broadcast");
  std::vector<Tensor> out;
  out.reserve(devices.size());
  for (Device device : devices) out.push_back(tensor.to(device));
  return out;
}

std::vector<std::vector<Tensor>> broadcast_coalesced(const std::vector<Tensor>& tensors,
                                                     const std::vector<Device>& devices) {
  check_devices(devices, "broadcast_coalesced");
  for (size_t i = 0; i < tensors.size(); ++i) {
    TORCHLET_CHECK(tensors[i].defined(), "broadcast_coalesced: tensor ", i, " is undefined");
    TORCHLET_CHECK(tensors[i].device() == devices[0],
                   "broadcast_coalesced: All tensors must be on devices[0]: ", devices[0],
                   ", but tensor ", i, " is on ", tensors[i].device());
  }
  if (distinct_gpus(devices) && !tensors.empty()) {
    return nccl_broadcast_coalesced(tensors, devices);  // Note [NCCL paths]
  }
  std::vector<std::vector<Tensor>> out;
  out.reserve(devices.size());
  out.push_back(tensors);
  for (size_t d = 1; d < devices.size(); ++d) {
    out.push_back(devices[d] == devices[0] ? tensors : copies_on(tensors, devices[d]));
  }
  return out;
}

Tensor reduce_add(const std::vector<Tensor>& inputs, std::optional<Device> destination) {
  TORCHLET_CHECK(!inputs.empty(), "reduce_add: Expected at least one tensor to reduce");
  const Device dest = destination.value_or(current_device());
  for (size_t i = 0; i < inputs.size(); ++i) {
    TORCHLET_CHECK(inputs[i].defined(), "reduce_add: input ", i, " is undefined");
    TORCHLET_CHECK(inputs[i].sizes() == inputs[0].sizes(), "reduce_add: input ", i,
                   " has invalid size: got ", shape_str(inputs[i].sizes()), ", but expected ",
                   shape_str(inputs[0].sizes()));
    TORCHLET_CHECK(inputs[i].dtype() == inputs[0].dtype(), "reduce_add: input ", i,
                   " has dtype ", inputs[i].dtype(), ", but expected ", inputs[0].dtype());
  }
  const size_t root = root_index(inputs, dest);
  if (inputs.size() == 1) return inputs[0];  // PyTorch returns the input itself
  Tensor result;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i == root) continue;
    const Tensor other = readable_on(inputs[i], dest);
    if (result.defined()) {
      result.add_(other);
    } else {
      result = inputs[root] + other;
    }
  }
  return result;
}

std::vector<Tensor> reduce_add_coalesced(const std::vector<std::vector<Tensor>>& inputs,
                                         std::optional<Device> destination) {
  TORCHLET_CHECK(!inputs.empty(), "reduce_add_coalesced: Expected at least one device's tensors");
  const size_t n = inputs[0].size();
  for (size_t d = 0; d < inputs.size(); ++d) {
    TORCHLET_CHECK(inputs[d].size() == n, "reduce_add_coalesced: device ", d, " has ",
                   inputs[d].size(), " tensors, but device 0 has ", n);
  }
  const Device dest = destination.value_or(current_device());
  if (std::optional<std::vector<Tensor>> reduced = nccl_reduce_add_coalesced(inputs, dest)) {
    return *std::move(reduced);  // Note [NCCL paths]
  }
  std::vector<Tensor> out(n);
  const auto reduce_group = [&](size_t begin, size_t end) {
    std::vector<Tensor> column(inputs.size());
    for (size_t i = begin; i < end; ++i) {
      for (size_t d = 0; d < inputs.size(); ++d) column[d] = inputs[d][i];
      out[i] = reduce_add(column, dest);
    }
  };
  const std::vector<Device> workers = reducing_devices(inputs);
  if (workers.size() < 2) {
    reduce_group(0, n);
    return out;
  }
  const std::vector<size_t> bounds = balanced_groups(inputs[0], workers.size());
  const std::vector<std::exception_ptr> errors = parallel::detail::run_on_devices(
      workers, [&](size_t g) { reduce_group(bounds[g], bounds[g + 1]); });
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  return out;
}

std::vector<Tensor> scatter(const Tensor& tensor, const std::vector<Device>& devices,
                            const std::optional<std::vector<int64_t>>& chunk_sizes, int64_t dim) {
  TORCHLET_CHECK(tensor.defined(), "scatter: the tensor is undefined");
  TORCHLET_CHECK(!devices.empty(), "scatter: Expected at least one device to scatter to");
  for (Device device : devices) check_device_exists(device, "scatter");
  if (chunk_sizes) {
    TORCHLET_CHECK(chunk_sizes->size() == devices.size(),
                   "scatter: Expected devices and chunk_sizes to be of same length, but got "
                   "len(devices) = ",
                   devices.size(), " and len(chunk_sizes) = ", chunk_sizes->size());
  }
  dim = wrap_dim(dim, tensor.dim(), "scatter");
  std::vector<Tensor> chunks =
      chunk_sizes ? tensor.split_with_sizes(*chunk_sizes, dim)
                  : tensor.chunk(static_cast<int64_t>(devices.size()), dim);
  parallel::detail::ReceiverCopies* const receiver = parallel::detail::ReceiverCopies::current();
  for (size_t i = 0; i < chunks.size(); ++i) {
    const Tensor& chunk = chunks[i];
    if (receiver != nullptr && receiver->takes(devices[i]) && chunk.device().is_cpu() &&
        chunk.is_contiguous()) {
      // Note [Receivers copy]: the receiving core fills its chunk.
      Tensor copy = empty(chunk.sizes(), TensorOptions(chunk.dtype()).device(devices[i]));
      receiver->copy(devices[i], {{copy, chunk}});
      chunks[i] = std::move(copy);
    } else {
      chunks[i] = chunk.to(devices[i]);
    }
  }
  return chunks;
}

Tensor gather(const std::vector<Tensor>& tensors, int64_t dim, std::optional<Device> destination) {
  TORCHLET_CHECK(!tensors.empty(), "gather: Expected at least one tensor to gather from");
  const Device dest = destination.value_or(current_device());
  check_device_exists(dest, "gather");
  const Tensor& first = tensors[0];
  TORCHLET_CHECK(first.defined(), "gather: tensor 0 is undefined");
  dim = wrap_dim(dim, first.dim(), "gather");
  SizeVec expected(first.sizes().begin(), first.sizes().end());
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    TORCHLET_CHECK(t.defined(), "gather: tensor ", i, " is undefined");
    TORCHLET_CHECK(t.dim() == first.dim(),
                   "gather: Expected all input tensors to have the same number of dimensions, "
                   "but tensor at index ", i, " has ", t.dim(), " dimensions, (expected ",
                   first.dim(), ")");
    TORCHLET_CHECK(t.dtype() == first.dtype(), "gather: Expected all input tensors to have the "
                   "same dtype, but tensor at index ", i, " has ", t.dtype(), " (expected ",
                   first.dtype(), ")");
    expected[dim] = t.size(dim);
    TORCHLET_CHECK(t.sizes() == IntArrayRef(expected), "gather: Input tensor at index ", i,
                   " has invalid shape ", shape_str(t.sizes()), ", but expected ",
                   shape_str(expected));
    total += t.size(dim);
  }
  expected[dim] = total;
  Tensor out = empty(expected, TensorOptions(first.dtype()).device(dest));
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    out.narrow(dim, offset, t.size(dim)).copy_(t);
    offset += t.size(dim);
  }
  return out;
}

}  // namespace torchlet::parallel::comm
