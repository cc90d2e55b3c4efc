// F.pad as ops on Variables: constant padding concatenates constant blocks
// (and narrows for negative amounts); the other modes gather each padded
// dim through an index (index_select), whose backward sums the gradient of
// every copy of an element back into it.
#include "nn/functional/pad.h"

#include <string>
#include <vector>

#include "autograd/functions.h"
#include "tensor/error.h"

namespace torchlet::nn::functional {
namespace {

// The dim that pad[2 * i] and pad[2 * i + 1] apply to.
int64_t padded_dim(const Variable& input, size_t i) {
  return input.dim() - 1 - static_cast<int64_t>(i);
}

Variable constant_block(const Variable& input, int64_t dim, int64_t length, double value) {
  SizeVec shape(input.sizes().begin(), input.sizes().end());
  shape[static_cast<size_t>(dim)] = length;
  return Variable(full(shape, value, input.options()));
}

Variable constant_pad(const Variable& input, IntArrayRef pad, double value) {
  Variable out = input;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const int64_t dim = padded_dim(input, i), left = pad[2 * i], right = pad[2 * i + 1];
    const int64_t size = out.size(dim), kept = size + std::min<int64_t>(left, 0) +
                                                   std::min<int64_t>(right, 0);
    TORCHLET_CHECK(kept + std::max<int64_t>(left, 0) + std::max<int64_t>(right, 0) >= 0,
                   "The input size ", size, ", plus negative padding ", left, " and ", right,
                   " resulted in a negative output size, which is invalid. Check dimension ", dim,
                   " of your input.");
    if (kept < size) out = out.narrow(dim, -std::min<int64_t>(left, 0), std::max<int64_t>(kept, 0));
    std::vector<Variable> parts;
    if (left > 0) parts.push_back(constant_block(out, dim, left, value));
    parts.push_back(out);
    if (right > 0) parts.push_back(constant_block(out, dim, right, value));
    if (parts.size() > 1) out = cat(parts, dim);
  }
  return out;
}

// Where output position o of a dim padded by `left` reads from an input of
// `size` positions, for each mode.
int64_t source_index(const std::string& mode, int64_t o, int64_t left, int64_t size) {
  int64_t i = o - left;
  if (mode == "reflect") {
    if (i < 0) i = -i;
    if (i >= size) i = 2 * (size - 1) - i;
    return i;
  }
  if (mode == "replicate") return std::min(std::max<int64_t>(i, 0), size - 1);
  return ((i % size) + size) % size;  // circular
}

Variable index_pad(const Variable& input, IntArrayRef pad, const std::string& mode) {
  Variable out = input;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const int64_t dim = padded_dim(input, i);
    int64_t left = pad[2 * i], right = pad[2 * i + 1];
    TORCHLET_CHECK(out.size(dim) + left + right >= 0, "pad: padding (", left, ", ", right,
                   ") of dimension ", dim, " of input ", shape_str(input.sizes()),
                   " leaves a negative size");
    if (mode == "circular") {
      // PyTorch cuts first, then wraps around what is left.
      out = out.narrow(dim, std::max<int64_t>(-left, 0),
                       out.size(dim) + std::min<int64_t>(left, 0) + std::min<int64_t>(right, 0));
      left = std::max<int64_t>(left, 0);
      right = std::max<int64_t>(right, 0);
    }
    const int64_t size = out.size(dim), length = size + left + right;
    TORCHLET_CHECK(mode != "circular" || length == 0 || (left <= size && right <= size),
                   "Padding value causes wrapping around more than once.");
    std::vector<int64_t> index(static_cast<size_t>(length));
    for (int64_t o = 0; o < length; ++o) index[o] = source_index(mode, o, left, size);
    out = out.index_select(dim, from_vector(index, {length}).to(kInt64));
  }
  return out;
}

// PyTorch's reflection_pad{1,2,3}d: the padding of the dim that pad[2 * i]
// and pad[2 * i + 1] apply to is argument #(2 * i + 4); the 2-D kernel
// names the input by its rank, the others by its shape.
void check_reflect(const Variable& input, IntArrayRef pad) {
  const size_t dims = pad.size() / 2;
  for (size_t i = 0; i < dims; ++i) {
    const int64_t dim = padded_dim(input, i), size = input.size(dim);
    const int64_t left = pad[2 * i], right = pad[2 * i + 1];
    TORCHLET_CHECK(left < size && right < size, "Argument #", 2 * i + 4,
                   ": Padding size should be less than the corresponding input dimension, but "
                   "got: padding (",
                   left, ", ", right, ") at dimension ", dim, " of input ",
                   dims == 2 ? std::to_string(input.dim()) : shape_str(input.sizes()));
  }
}

// Every dim but a batch dim holds elements, with the message of PyTorch's
// replication pads and 3-D reflection pad (which count a zero-size first dim
// only in batch mode) or of its 1-D and 2-D reflection pads (which never
// check the first dim).
void check_non_empty(const Variable& input, int64_t dims, const std::string& mode) {
  const bool old_reflect = mode == "reflect" && dims <= 2;
  const int64_t first = old_reflect || input.dim() == dims + 2 ? 1 : 0;
  for (int64_t d = first; d < input.dim(); ++d) {
    if (input.size(d) != 0) continue;
    if (old_reflect) {
      std::string sizes;
      for (int64_t k = 0; k < input.dim(); ++k) sizes += (k ? "," : "") + std::to_string(input.size(k));
      TORCHLET_CHECK(false, dims + 1, "D or ", dims + 2,
                     "D (batch mode) tensor expected for input, but got: [ ",
                     legacy_tensor_type_name(input.dtype()), "{", sizes, "} ]");
    }
    TORCHLET_CHECK(false, "Expected ", dims + 1, "D or ", dims + 2,
                   "D (batch mode) tensor with possibly 0 batch size and other non-zero "
                   "dimensions for input, but got: ",
                   shape_str(input.sizes()));
  }
}

// PyTorch's CPU reflection and replication pads compute float32 and float64
// (and bfloat16 in 3-D reflection); circular padding takes every dtype.
void check_dtype(const Variable& input, int64_t dims, const std::string& mode) {
  if (mode == "circular" || input.data().is_cuda()) return;
  const DType dtype = input.dtype();
  const bool ok = dtype == kFloat32 || dtype == kFloat64 ||
                  (dtype == kBFloat16 && mode == "reflect" && dims == 3);
  const std::string kernel = mode == "reflect"
                                 ? "reflection_pad" + std::to_string(dims) + "d" + (dims == 3 ? "_cpu" : "")
                                 : "replication_pad" + std::to_string(dims) + "d_cpu";
  TORCHLET_CHECK(ok, "\"", kernel, "\" not implemented for '", scalar_type_name(dtype), "'");
}

void check_circular(const Variable& input, IntArrayRef pad) {
  TORCHLET_CHECK(static_cast<int64_t>(pad.size()) == 2 * (input.dim() - 2),
                 "Invalid padding size, expected ", 2 * (input.dim() - 2), " but got ",
                 pad.size());
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const int64_t size = input.size(padded_dim(input, i));
    TORCHLET_CHECK(pad[2 * i] <= size && pad[2 * i + 1] <= size,
                   "Padding value causes wrapping around more than once.");
  }
}

void check_non_constant(const Variable& input, IntArrayRef pad, const std::string& mode,
                        double value) {
  TORCHLET_CHECK(mode == "reflect" || mode == "replicate" || mode == "circular",
                 "Unrecognised padding mode ", mode);
  TORCHLET_CHECK(value == 0, "Padding mode \"", mode, "\" doesn't take in value argument");
  const int64_t dims = static_cast<int64_t>(pad.size() / 2);
  TORCHLET_CHECK(dims >= 1 && dims <= 3 && (input.dim() == dims + 1 || input.dim() == dims + 2),
                 "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
  if (mode != "circular") check_non_empty(input, dims, mode);
  if (mode == "reflect") check_reflect(input, pad);
  if (mode == "circular") check_circular(input, pad);
  check_dtype(input, dims, mode);
}

}  // namespace

Variable pad(const Variable& input, IntArrayRef pad, const std::string& mode, double value) {
  TORCHLET_CHECK(pad.size() % 2 == 0, "Padding length must be divisible by 2");
  TORCHLET_CHECK(static_cast<int64_t>(pad.size() / 2) <= input.dim(), "Padding length too large");
  if (mode == "constant") return constant_pad(input, pad, value);
  check_non_constant(input, pad, mode, value);
  return index_pad(input, pad, mode);
}

}  // namespace torchlet::nn::functional
