// Searching and counting: searchsorted, bucketize, bincount, histc.
// Argument checks and output dtypes here; the loops are in
// tensor/cpu/sort_kernels.cc. Each is a serial or per-element search with
// no kernel on GPUs yet, so a GPU's tensors go through the CPU and back,
// as Tensor::nonzero does.
#include "tensor/search.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "tensor/cpu/kernels.h"
#include "tensor/factories.h"
#include "tensor/op_utils.h"
#include "tensor/reduction.h"

namespace torchlet {
namespace {

const Device kHost(kCPU, 0);

Tensor to_host(const Tensor& t) { return t.defined() && t.is_cuda() ? t.to(kHost) : t; }

[[noreturn]] void not_implemented(const char* kernel, DType dtype) {
  detail::throw_error(
      detail::str_cat("\"", kernel, "\" not implemented for '", scalar_type_name(dtype), "'"));
}

// The leading dims of a batched sorted sequence match those of the values.
bool leading_dims_match(const Tensor& seq, const Tensor& values) {
  if (seq.dim() != values.dim()) return false;
  for (int64_t d = 0; d + 1 < seq.dim(); ++d) {
    if (seq.size(d) != values.size(d)) return false;
  }
  return true;
}

void check_searchsorted(const Tensor& seq, const Tensor& values, bool right,
                        const std::optional<std::string>& side, const Tensor& sorter) {
  check_defined("searchsorted", seq);
  check_defined("searchsorted", values);
  if (side) {
    TORCHLET_CHECK(*side == "left" || *side == "right",
                   "torch.searchsorted(): side can only be 'left' or 'right' but got ", *side);
    TORCHLET_CHECK(!right || *side == "right",
                   "torch.searchsorted(): side and right can't be set to opposites, got side of ",
                   *side, " while right was True");
  }
  TORCHLET_CHECK(seq.device() == values.device(),
                 "torch.searchsorted(): boundaries and input value tensors should have same "
                 "device type, but got boundaries tensor device type ", seq.device(),
                 " and input value tensor device type ", values.device());
  if (sorter.defined()) {
    TORCHLET_CHECK(sorter.device() == seq.device(),
                   "torch.searchsorted(): sorter and boundary tensors should have same device "
                   "type, but got sorter tensor device type ", sorter.device(),
                   " and input value tensor device type ", seq.device());
    TORCHLET_CHECK(sorter.sizes() == seq.sizes(),
                   "torch.searchsorted(): boundary and sorter must have the same size, but got "
                   "boundary tensor ", shape_str(seq.sizes()), "and got sorter tensor ",
                   shape_str(sorter.sizes()));
    TORCHLET_CHECK(sorter.dtype() == kInt64,
                   "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype ",
                   scalar_type_name(sorter.dtype()));
  }
  TORCHLET_CHECK(values.dim() > 0 || seq.dim() == 1,
                 "torch.searchsorted(): input value can be a scalar only when boundaries tensor "
                 "dimension is 1, but we got boundaries tensor dim(", seq.dim(),
                 ") and input value's dim(", values.dim(), ") numel(", values.numel(), ")");
  TORCHLET_CHECK(seq.dim() != 0,
                 "torch.searchsorted(): boundaries tensor should have positive dimension, but "
                 "got 0 dimension");
  TORCHLET_CHECK(seq.dim() == 1 || leading_dims_match(seq, values),
                 "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                 "dimensions of boundaries tensor and input value tensor must match, but we got "
                 "boundaries tensor ", shape_str(seq.sizes()), " and input value tensor ",
                 shape_str(values.sizes()));
}

}  // namespace

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool out_int32,
                    bool right, std::optional<std::string> side, const Tensor& sorter) {
  check_searchsorted(sorted_sequence, values, right, side, sorter);
  if (side) right = *side == "right";
  if (values.is_cuda()) {
    return searchsorted(to_host(sorted_sequence), to_host(values), out_int32, right,
                        std::nullopt, to_host(sorter))
        .to(values.device());
  }
  DType common = promote_types(sorted_sequence.dtype(), values.dtype());
  if (common == kBool) not_implemented("searchsorted_out_cpu", common);
  if (is_reduced_floating_point(common)) common = kFloat32;  // exact
  const int64_t n = sorted_sequence.size(-1);
  int64_t batch = 1;
  for (int64_t d = 0; d + 1 < sorted_sequence.dim(); ++d) batch *= sorted_sequence.size(d);
  const Tensor seq = sorted_sequence.to(common).contiguous().reshape({batch, n});
  Tensor order;
  if (sorter.defined()) {
    order = sorter.contiguous().reshape({batch, n});
    TORCHLET_CHECK(!cpu::find_index_outside(order, 0, n),
                   "torch.searchsorted(): sorter index out of range for a sequence of ", n,
                   " elements");
  }
  Tensor out = empty(values.sizes(), values.options().dtype(out_int32 ? kInt32 : kInt64));
  if (values.numel() == 0) return out;
  const int64_t m = values.dim() == 0 ? 1 : values.size(-1);
  const Tensor v = values.to(common).contiguous().reshape({values.numel() / m, m});
  cpu::searchsorted(out, seq, v, order, right);
  return out;
}

Tensor searchsorted(const Tensor& sorted_sequence, Scalar value, bool out_int32, bool right,
                    std::optional<std::string> side, const Tensor& sorter) {
  check_defined("searchsorted", sorted_sequence);
  // A Python number becomes a 0-dim tensor of its own dtype (float64 for a
  // floating one), as in PyTorch.
  const DType dtype = value.is_floating_point() ? kFloat64 : value.default_dtype();
  return searchsorted(sorted_sequence,
                      scalar_tensor(value, TensorOptions(dtype).device(sorted_sequence.device())),
                      out_int32, right, std::move(side), sorter);
}

Tensor bucketize(const Tensor& input, const Tensor& boundaries, bool out_int32, bool right) {
  check_defined("bucketize", boundaries);
  TORCHLET_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(",
                 boundaries.dim(), ")");
  return searchsorted(boundaries, input, out_int32, right);
}

Tensor bucketize(Scalar input, const Tensor& boundaries, bool out_int32, bool right) {
  check_defined("bucketize", boundaries);
  TORCHLET_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(",
                 boundaries.dim(), ")");
  return searchsorted(boundaries, input, out_int32, right);
}

Tensor bincount(const Tensor& input, const Tensor& weights, int64_t minlength) {
  check_defined("bincount", input);
  if (input.is_cuda()) {
    return bincount(input.to(kHost), to_host(weights), minlength).to(input.device());
  }
  if (!is_integral(input.dtype(), /*include_bool=*/false)) {
    not_implemented("bincount_cpu", input.dtype());
  }
  TORCHLET_CHECK(minlength >= 0, "minlength should be >= 0");
  if (input.dim() == 1 && input.numel() == 0) return zeros({minlength}, input.options().dtype(kInt64));
  TORCHLET_CHECK(input.dim() == 1 && input.min().item<int64_t>() >= 0,
                 "bincount only supports 1-d non-negative integral inputs.");
  TORCHLET_CHECK(!weights.defined() || (weights.dim() == 1 && weights.size(0) == input.size(0)),
                 "weights should be 1-d and have the same length as input");
  const int64_t bins = std::max(input.max().item<int64_t>() + 1, minlength);
  const DType out_dtype = !weights.defined()            ? kInt64
                          : weights.dtype() == kFloat32 ? kFloat32
                                                        : kFloat64;
  Tensor out = zeros({bins}, input.options().dtype(out_dtype));
  cpu::bincount(out, input.to(kInt64).contiguous(),
                weights.defined() ? weights.to(out_dtype).contiguous() : Tensor());
  return out;
}

Tensor histc(const Tensor& input, int64_t bins, Scalar min, Scalar max) {
  check_defined("histc", input);
  if (input.is_cuda()) return histc(input.to(kHost), bins, min, max).to(input.device());
  if (input.dtype() != kFloat32 && input.dtype() != kFloat64) {
    not_implemented("histogram_cpu", input.dtype());
  }
  TORCHLET_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins,
                 " for dimension 0");
  double lo = min.to<double>(), hi = max.to<double>();
  if (lo == hi && input.numel() > 0) {  // the data's range
    const auto [low, high] = aminmax(input);
    lo = low.item<double>();
    hi = high.item<double>();
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  TORCHLET_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histc: range of [", lo, ", ", hi,
                 "] is not finite");
  TORCHLET_CHECK(lo < hi, "torch.histc: max must be larger than min");
  Tensor out = zeros({bins}, input.options());
  cpu::histc(out, input.contiguous(), lo, hi);
  return out;
}

Tensor Tensor::bincount(const Tensor& weights, int64_t minlength) const {
  return torchlet::bincount(*this, weights, minlength);
}

Tensor Tensor::histc(int64_t bins, Scalar min, Scalar max) const {
  return torchlet::histc(*this, bins, min, max);
}

}  // namespace torchlet
