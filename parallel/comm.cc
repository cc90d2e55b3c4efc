#include "parallel/comm.h"

#include <map>
#include <utility>

namespace torchlet::parallel::comm {
namespace {

void check_devices(const std::vector<Device>& devices, const char* op) {
  TORCHLET_CHECK(!devices.empty(), op, ": Expected at least one device");
  for (Device device : devices) check_device_exists(device, op);
}

/// Copies of `tensors` on `device`, as views of one buffer per dtype.
std::vector<Tensor> coalesced_copies(const std::vector<Tensor>& tensors, Device device) {
  std::map<DType, int64_t> total;
  for (const Tensor& t : tensors) total[t.dtype()] += t.numel();
  std::map<DType, Tensor> buffers;
  for (const auto& [dtype, numel] : total) {
    buffers[dtype] = empty({numel}, TensorOptions(dtype).device(device));
  }
  std::map<DType, int64_t> offset;
  std::vector<Tensor> copies;
  copies.reserve(tensors.size());
  for (const Tensor& t : tensors) {
    int64_t& at = offset[t.dtype()];
    Tensor copy = buffers[t.dtype()].narrow(0, at, t.numel()).view(t.sizes());
    copy.copy_(t);
    at += t.numel();
    copies.push_back(std::move(copy));
  }
  return copies;
}

/// The index of the input on `destination`; throws if there is none.
size_t root_index(const std::vector<Tensor>& inputs, Device destination) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].device() == destination) return i;
  }
  detail::throw_error(detail::str_cat(
      "reduce_add expects destination to be on the same GPU with one of the tensors (destination ",
      destination, ")"));
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
  std::vector<std::vector<Tensor>> out;
  out.reserve(devices.size());
  out.push_back(tensors);
  for (size_t d = 1; d < devices.size(); ++d) {
    out.push_back(devices[d] == devices[0] ? tensors : coalesced_copies(tensors, devices[d]));
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
  if (inputs.size() == 1) return inputs[0].clone();
  Tensor result;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i == root) continue;
    if (!result.defined()) {
      result = inputs[i].to(dest);
      if (result.shares_storage(inputs[i])) result = result.clone();
      result.add_(inputs[root]);
    } else {
      result.add_(inputs[i].to(dest));
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
  std::vector<Tensor> out;
  out.reserve(n);
  std::vector<Tensor> column(inputs.size());
  for (size_t i = 0; i < n; ++i) {
    for (size_t d = 0; d < inputs.size(); ++d) column[d] = inputs[d][i];
    out.push_back(reduce_add(column, destination));
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
  for (size_t i = 0; i < chunks.size(); ++i) chunks[i] = chunks[i].to(devices[i]);
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
