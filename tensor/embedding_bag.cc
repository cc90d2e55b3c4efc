// Argument checks and layout for embedding_bag's kernels: indices and bag
// starts as contiguous int64, float16 and bfloat16 operands as float32
// copies, and the loops in cpu/embedding_bag_kernels.cc.
#include "tensor/embedding_bag.h"

#include <vector>

#include "tensor/cpu/embedding_bag_kernels.h"
#include "tensor/factories.h"
#include "tensor/index_ops.h"
#include "tensor/shape.h"

namespace torchlet {
namespace {

void check_index_dtype(const Tensor& t) {
  // PyTorch names the offsets 'indices' too.
  TORCHLET_CHECK(t.dtype() == kInt64 || t.dtype() == kInt32,
                 "Expected tensor for argument #1 'indices' to have one of the following scalar "
                 "types: Long, Int; but got ", legacy_tensor_type_name(t.dtype()),
                 " instead (while checking arguments for embedding_bag)");
}

void check_cpu(const char* name, const Tensor& t) {
  TORCHLET_CHECK(!t.defined() || t.device().is_cpu(),
                 "embedding_bag: the kernels run on the CPU, but ", name, " is on ", t.device());
}

bool is_reduced(DType dtype) { return dtype == kFloat16 || dtype == kBFloat16; }

// `t` contiguous, in the dtype the loops compute in (float32 for float16
// and bfloat16: Note [Reduced floating point]); undefined stays so.
Tensor operand(const Tensor& t) {
  if (!t.defined()) return t;
  const Tensor converted = is_reduced(t.dtype()) ? t.to(kFloat32) : t;
  return converted.contiguous();
}

// `result` rounded to `dtype` when the loops computed it in float32.
Tensor in_dtype(const Tensor& result, DType dtype) {
  return result.dtype() == dtype ? result : result.to(dtype);
}

int64_t num_bags(const EmbeddingBags& bags) { return bags.starts.numel() - 1; }

void check_bags(const EmbeddingBags& bags) {
  TORCHLET_CHECK(bags.indices.defined() && bags.indices.dtype() == kInt64 &&
                     bags.indices.dim() == 1 && bags.indices.is_contiguous() &&
                     bags.starts.defined() && bags.starts.dtype() == kInt64 &&
                     bags.starts.dim() == 1 && bags.starts.numel() >= 1 &&
                     bags.starts.is_contiguous(),
                 "embedding_bag: the bags must come from embedding_bag_bags");
  check_cpu("the indices", bags.indices);
  check_cpu("the offsets", bags.starts);
}

void check_weight(const Tensor& weight) {
  TORCHLET_CHECK(weight.defined(), "embedding_bag: weight is undefined");
  TORCHLET_CHECK(weight.dim() == 2, "embedding_bag: 'weight' must be 2-D, but got shape ",
                 shape_str(weight.sizes()));
  const DType dtype = weight.dtype();
  TORCHLET_CHECK(dtype == kFloat16 || dtype == kBFloat16 || dtype == kFloat32 ||
                     dtype == kFloat64,
                 "Expected tensor for argument #1 'weight' to have one of the following scalar "
                 "types: Half, BFloat16, Float, Double; but got ", legacy_tensor_type_name(dtype),
                 " instead (while checking arguments for embedding_bag)");
  check_cpu("weight", weight);
}

int64_t padding_or_none(std::optional<int64_t> padding_idx, int64_t num_embeddings) {
  if (!padding_idx) return -1;
  TORCHLET_CHECK(*padding_idx >= 0 && *padding_idx < num_embeddings,
                 "embedding_bag: padding_idx must be in [0, ", num_embeddings, "), but got ",
                 *padding_idx);
  return *padding_idx;
}

void check_per_sample_weights(const Tensor& psw, const Tensor& weight, const EmbeddingBags& bags,
                              EmbeddingBagMode mode) {
  if (!psw.defined()) return;
  TORCHLET_CHECK(mode == EmbeddingBagMode::kSum,
                 "embedding_bag: per_sample_weights is only supported for mode='sum'");
  TORCHLET_CHECK(psw.numel() == bags.indices.numel(),
                 "embedding_bag: expected per_sample_weights of ", bags.indices.numel(),
                 " elements, one per index, but got shape ", shape_str(psw.sizes()));
  TORCHLET_CHECK(psw.dtype() == weight.dtype(),
                 "Expected tensor for argument #1 'weight' to have the same type as tensor for "
                 "argument #1 'per_sample_weights'; but type ",
                 legacy_tensor_type_name(weight.dtype()), " does not equal ",
                 legacy_tensor_type_name(psw.dtype()),
                 " (while checking arguments for embedding_bag)");
  check_cpu("per_sample_weights", psw);
}

// grad [B, D] in the dtype the loops compute in.
Tensor grad_operand(const Tensor& grad, const EmbeddingBags& bags, int64_t dim) {
  TORCHLET_CHECK(grad.defined() && grad.dim() == 2 && grad.size(0) == num_bags(bags) &&
                     grad.size(1) == dim,
                 "embedding_bag: expected a gradient of shape [", num_bags(bags), ", ", dim,
                 "], but got ", grad.defined() ? shape_str(grad.sizes()) : std::string("none"));
  check_cpu("the gradient", grad);
  return operand(grad);
}

}  // namespace

EmbeddingBags embedding_bag_bags(const Tensor& input, const Tensor& offsets,
                                 bool include_last_offset, int64_t num_embeddings) {
  TORCHLET_CHECK(input.defined(), "embedding_bag: input is undefined");
  check_index_dtype(input);
  if (offsets.defined()) check_index_dtype(offsets);
  check_cpu("input", input);
  check_cpu("offsets", offsets);
  EmbeddingBags bags;
  bags.indices = input.to(kInt64).contiguous().view({-1});
  const int64_t n = bags.indices.numel();
  const TensorOptions options = bags.indices.options();
  if (input.dim() == 2) {
    TORCHLET_CHECK(!offsets.defined(),
                   "if input is 2D, then offsets has to be None, as input is treated is a "
                   "mini-batch of fixed length sequences. However, found offsets of type "
                   "<class 'torch.Tensor'>");
    bags.starts = arange(input.size(0) + 1, options).mul(input.size(1));
  } else {
    TORCHLET_CHECK(input.dim() == 1,
                   "input has to be 1D or 2D Tensor, but got Tensor of dimension ", input.dim());
    TORCHLET_CHECK(offsets.defined(), "offsets has to be a 1D Tensor but got None");
    TORCHLET_CHECK(offsets.dim() == 1, "offsets has to be a 1D Tensor");
    const Tensor offs = offsets.to(kInt64).contiguous();
    const int64_t count = offs.size(0);
    if (include_last_offset) {
      TORCHLET_CHECK(count >= 1, "include_last_offset: number of offset should be at least 1");
    }
    if (count > 0) {
      const int64_t* o = static_cast<const int64_t*>(offs.data_ptr());
      TORCHLET_CHECK(o[0] == 0,
                     "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to "
                     "start from position 0. However, got ", o[0]);
      TORCHLET_CHECK(o[count - 1] <= n, "offsets[-1] can not be greater than input's length ",
                     n, " but got offsets[-1] of ", o[count - 1]);
      const int64_t at = cpu::first_decreasing_offset(offs);
      TORCHLET_CHECK(at < 0, "embedding_bag: offsets has to be non-decreasing, but offsets[", at,
                     "] = ", at < 0 ? 0 : o[at], " is less than offsets[", at - 1, "] = ",
                     at < 0 ? 0 : o[at - 1]);
    }
    if (include_last_offset) {
      bags.starts = offs;
    } else if (count == 0) {
      bags.starts = zeros({1}, options);  // no bags
    } else {
      bags.starts = cat(std::vector<Tensor>{offs, full({1}, n, options)});
    }
  }
  const int64_t bad = cpu::first_index_out_of_range(bags.indices, num_embeddings);
  if (bad >= 0) {
    TORCHLET_CHECK(false,
                   "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be ",
                   static_cast<const int64_t*>(bags.indices.data_ptr())[bad]);
  }
  return bags;
}

EmbeddingBagForward embedding_bag_forward(const Tensor& weight, const EmbeddingBags& bags,
                                          EmbeddingBagMode mode,
                                          const Tensor& per_sample_weights,
                                          std::optional<int64_t> padding_idx) {
  check_weight(weight);
  check_bags(bags);
  check_per_sample_weights(per_sample_weights, weight, bags, mode);
  const int64_t pad = padding_or_none(padding_idx, weight.size(0));
  const Tensor w = operand(weight);
  const int64_t count = num_bags(bags), dim = weight.size(1);
  EmbeddingBagForward f;
  Tensor output = empty({count, dim}, w.options());
  f.bag_size = empty({count}, bags.indices.options());
  if (mode == EmbeddingBagMode::kMax) f.max_rows = empty({count, dim}, bags.indices.options());
  cpu::embedding_bag_forward_rows(output, f.bag_size, f.max_rows, w, bags.indices, bags.starts,
                                  mode, operand(per_sample_weights), pad);
  f.output = in_dtype(output, weight.dtype());
  return f;
}

Tensor embedding_bag_backward_weight(const Tensor& grad, const EmbeddingBags& bags,
                                     const EmbeddingBagForward& forward, int64_t num_embeddings,
                                     EmbeddingBagMode mode, const Tensor& per_sample_weights,
                                     std::optional<int64_t> padding_idx,
                                     bool scale_grad_by_freq) {
  check_bags(bags);
  TORCHLET_CHECK(grad.defined() && grad.dim() == 2,
                 "embedding_bag: expected a 2-D gradient of the bags");
  const Tensor g = grad_operand(grad, bags, grad.size(1));
  const int64_t pad = padding_or_none(padding_idx, num_embeddings);
  TORCHLET_CHECK(forward.bag_size.defined() && forward.bag_size.numel() == num_bags(bags) &&
                     (mode != EmbeddingBagMode::kMax ||
                      (forward.max_rows.defined() && forward.max_rows.sizes() == g.sizes())),
                 "embedding_bag: the backward needs the bag sizes (and, in max mode, the rows "
                 "of the maxima) of its forward");
  TORCHLET_CHECK(mode != EmbeddingBagMode::kMax || !scale_grad_by_freq,
                 "max mode does not support scaling the gradient by the frequency");
  if (per_sample_weights.defined()) {
    TORCHLET_CHECK(mode == EmbeddingBagMode::kSum &&
                       per_sample_weights.numel() == bags.indices.numel(),
                   "embedding_bag: expected per_sample_weights of ", bags.indices.numel(),
                   " elements in mode 'sum', but got shape ",
                   shape_str(per_sample_weights.sizes()));
    check_cpu("per_sample_weights", per_sample_weights);
  }
  Tensor grad_weight = empty({num_embeddings, g.size(1)}, g.options());
  const Tensor psw = per_sample_weights.defined() ? per_sample_weights.to(g.dtype()).contiguous()
                                                  : Tensor();
  cpu::embedding_bag_weight_grad_rows(grad_weight, g, bags.indices, bags.starts,
                                      forward.bag_size.contiguous(),
                                      forward.max_rows.defined() ? forward.max_rows.contiguous()
                                                                 : Tensor(),
                                      mode, psw, pad, scale_grad_by_freq);
  return in_dtype(grad_weight, grad.dtype());
}

Tensor embedding_bag_backward_per_sample_weights(const Tensor& grad, const Tensor& weight,
                                                 const EmbeddingBags& bags,
                                                 std::optional<int64_t> padding_idx) {
  check_weight(weight);
  check_bags(bags);
  const int64_t pad = padding_or_none(padding_idx, weight.size(0));
  const Tensor g = grad_operand(grad, bags, weight.size(1));
  const Tensor w = operand(weight).to(g.dtype());
  Tensor grad_psw = empty({bags.indices.numel()}, g.options());
  cpu::embedding_bag_per_sample_weights_grad(grad_psw, g, w, bags.indices, bags.starts, pad);
  return in_dtype(grad_psw, weight.dtype());
}

}  // namespace torchlet
