#include "tensor/op_utils.h"

namespace torchlet {

void check_defined(const char* op, const Tensor& t) {
  TORCHLET_CHECK(t.defined(), op, ": expected a defined tensor but got an undefined one");
}

void check_same_device(const char* op, const Tensor& a, const Tensor& b) {
  TORCHLET_CHECK(a.device() == b.device(), op,
                 ": Expected all tensors to be on the same device, but found at least two "
                 "devices, ",
                 a.device(), " and ", b.device(), "!");
}

void check_no_internal_overlap(const char* op, const Tensor& t) {
  for (int64_t d = 0; d < t.dim(); ++d) {
    TORCHLET_CHECK(t.stride(d) != 0 || t.size(d) <= 1, op,
                   ": unsupported operation: more than one element of the written-to tensor "
                   "refers to a single memory location. Please clone() the tensor before "
                   "performing the operation.");
  }
}

Tensor unaliased_input(const Tensor& out, const Tensor& in) {
  if (!out.shares_storage(in)) return in;
  const bool identical = out.storage_offset() == in.storage_offset() &&
                         out.sizes() == in.sizes() && out.strides() == in.strides() &&
                         out.dtype() == in.dtype();
  return identical ? in : in.clone();
}

std::vector<int64_t> element_offsets(IntArrayRef sizes, IntArrayRef strides) {
  std::vector<int64_t> offsets{0};
  for (size_t d = 0; d < sizes.size(); ++d) {
    std::vector<int64_t> next;
    next.reserve(offsets.size() * static_cast<size_t>(sizes[d]));
    for (int64_t base : offsets) {
      for (int64_t i = 0; i < sizes[d]; ++i) next.push_back(base + i * strides[d]);
    }
    offsets.swap(next);
  }
  return offsets;
}

}  // namespace torchlet
