#include "nn/functional/embedding.h"

#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "autograd/custom_function.h"
#include "autograd/grad_mode.h"
#include "autograd/nn_ops.h"
#include "tensor/embedding_bag.h"
#include "tensor/nn_kernels.h"

namespace torchlet::nn::functional {

Variable embedding(const Tensor& input, const Variable& weight, std::optional<int64_t> padding_idx,
                   std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq) {
  TORCHLET_CHECK(input.dtype() == kInt64 || input.dtype() == kInt32,
                 "Expected tensor for argument #1 'indices' to have one of the following scalar "
                 "types: Long, Int; but got ", legacy_tensor_type_name(input.dtype()),
                 " instead (while checking arguments for embedding)");
  TORCHLET_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  const int64_t num_embeddings = weight.size(0);
  if (padding_idx) {
    TORCHLET_CHECK(*padding_idx >= -num_embeddings && *padding_idx < num_embeddings,
                   "Padding_idx must be within num_embeddings");
    if (*padding_idx < 0) *padding_idx += num_embeddings;
  }
  const Tensor indices = input.to(kInt64);
  TORCHLET_CHECK(!indices.lt(0).logical_or(indices.ge(num_embeddings)).any().item<bool>(),
                 "index out of range in self");
  if (max_norm) {
    NoGradGuard no_grad;
    embedding_renorm_(weight.data(), indices, *max_norm, norm_type);
  }
  return torchlet::embedding(weight, indices, padding_idx, scale_grad_by_freq);
}

// embedding_bag runs the fused kernels of tensor/embedding_bag.h as one
// autograd node, EmbeddingBagBackward0: the forward reduces each bag's rows
// straight into its output row, and the backward scatters the bags'
// gradients into a dense weight gradient (and dots them with the rows for
// per_sample_weights). Under create_graph, the backward is built from
// differentiable ops instead, so that it can itself be differentiated.

namespace {

EmbeddingBagMode parse_bag_mode(const std::string& mode) {
  if (mode == "sum") return EmbeddingBagMode::kSum;
  if (mode == "mean") return EmbeddingBagMode::kMean;
  TORCHLET_CHECK(mode == "max", "mode has to be one of sum, mean or max");
  return EmbeddingBagMode::kMax;
}

void check_index_dtype(const Tensor& t) {
  // PyTorch names the offsets 'indices' too.
  TORCHLET_CHECK(t.dtype() == kInt64 || t.dtype() == kInt32,
                 "Expected tensor for argument #1 'indices' to have one of the following scalar "
                 "types: Long, Int; but got ", legacy_tensor_type_name(t.dtype()),
                 " instead (while checking arguments for embedding_bag)");
}

// What the backward needs of the forward, besides the saved Variables
// (weight, when per_sample_weights needs a gradient, and per_sample_weights).
struct BagState {
  EmbeddingBags bags;
  EmbeddingBagForward forward;  // bag sizes and the maxima's rows; no output
  EmbeddingBagMode mode = EmbeddingBagMode::kMean;
  std::optional<int64_t> padding_idx;
  bool scale_grad_by_freq = false;
  int64_t num_embeddings = 0;
};

// The bag of every entry (int64 [N]): the number of bag starts after the
// first that are <= its position. Entries in no bag get the last bag, or
// the first; callers leave them out.
Tensor entry_bags(const EmbeddingBags& bags) {
  const int64_t n = bags.indices.numel(), count = bags.starts.numel() - 1;
  Tensor marks = zeros({n + 1}, bags.indices.options());
  if (count > 1) {
    const Tensor later = bags.starts.slice(0, 1, count);
    marks.scatter_add_(0, later, ones_like(later));
  }
  return marks.cumsum(0).slice(0, 0, n);
}

// The backward of EmbeddingBagFunction from differentiable ops (under
// create_graph): each kept entry's bag row of grad, scaled, accumulated
// into its weight row; in "max", each bag and column into the row of its
// maximum.
std::pair<Variable, Variable> differentiable_bag_backward(const BagState& s, const Variable& grad,
                                          const Variable& weight, const Variable& psw,
                                          bool weight_grad, bool psw_grad) {
  const EmbeddingBags& bags = s.bags;
  const int64_t dim = grad.size(1);
  const TensorOptions options = grad.data().options();
  Variable grad_weight, grad_psw;
  if (s.mode == EmbeddingBagMode::kMax) {
    const Tensor& rows = s.forward.max_rows;
    const Tensor filled = rows.ge(0).reshape({-1});
    const Tensor target =
        rows.mul(dim).add(arange(dim, rows.options())).reshape({-1}).masked_select(filled);
    grad_weight = Variable(zeros({s.num_embeddings * dim}, options))
                      .index_put({target}, grad.reshape({-1}).masked_select(filled), true)
                      .view({s.num_embeddings, dim});
    return {grad_weight, grad_psw};
  }
  const int64_t n = bags.indices.numel(), count = bags.starts.numel() - 1;
  const Tensor positions = arange(n, bags.indices.options());
  Tensor keep = positions.ge(bags.starts[0].item<int64_t>())
                    .logical_and(positions.lt(bags.starts[count].item<int64_t>()));
  if (s.padding_idx) keep = keep.logical_and(bags.indices.ne(*s.padding_idx));
  const Tensor kept = keep.nonzero().view({-1});
  const Tensor kept_indices = bags.indices.index_select(0, kept);
  const Tensor kept_bags = entry_bags(bags).index_select(0, kept);
  const Variable bag_rows = grad.index_select(0, kept_bags);
  if (weight_grad) {
    Tensor scale = ones({kept.numel()}, options);
    if (s.mode == EmbeddingBagMode::kMean) {
      scale = scale.div(s.forward.bag_size.to(grad.dtype()).index_select(0, kept_bags));
    }
    if (s.scale_grad_by_freq) {
      const Tensor counts = zeros({s.num_embeddings}, options)
                                .scatter_add(0, kept_indices, ones({kept.numel()}, options));
      scale = scale.div(counts.index_select(0, kept_indices));
    }
    Variable factor(scale);
    if (psw.defined()) factor = factor * psw.reshape({-1}).index_select(0, kept);
    grad_weight = Variable(zeros({s.num_embeddings, dim}, options))
                      .index_put({kept_indices}, bag_rows * factor.unsqueeze(1), true);
  }
  if (psw_grad) {
    const Variable dots = (bag_rows * weight.index_select(0, kept_indices)).sum({1});
    grad_psw = Variable(zeros({n}, options)).index_put({kept}, dots).view(psw.sizes());
  }
  return {grad_weight, grad_psw};
}

struct EmbeddingBagFunction : autograd::Function<EmbeddingBagFunction> {
  static constexpr const char* name = "EmbeddingBagBackward0";

  static Variable forward(autograd::AutogradContext* ctx, const Variable& weight,
                          const Variable& per_sample_weights, const EmbeddingBags& bags,
                          EmbeddingBagMode mode, std::optional<int64_t> padding_idx,
                          bool scale_grad_by_freq) {
    const bool weighted = per_sample_weights.defined();
    BagState s;
    s.forward = embedding_bag_forward(weight.data(), bags, mode,
                                      weighted ? per_sample_weights.data() : Tensor(),
                                      padding_idx);
    const Variable out(std::move(s.forward.output));
    s.forward.output = Tensor();
    s.bags = bags;
    s.mode = mode;
    s.padding_idx = padding_idx;
    s.scale_grad_by_freq = scale_grad_by_freq;
    s.num_embeddings = weight.size(0);
    ctx->saved_data["state"] = std::move(s);
    ctx->save_for_backward({ctx->needs_input_grad(1) ? weight : Variable(), per_sample_weights});
    return out;
  }

  static variable_list backward(autograd::AutogradContext* ctx, variable_list grads) {
    const BagState& s = ctx->get<BagState>("state");
    const variable_list saved = ctx->get_saved_variables();
    const Variable& weight = saved[0];
    const Variable& psw = saved[1];
    const bool weight_grad = ctx->needs_input_grad(0), psw_grad = ctx->needs_input_grad(1);
    // One gradient per argument: weight, per_sample_weights and the four
    // that are not Variables.
    variable_list out(6);
    Variable& grad_weight = out[0];
    Variable& grad_psw = out[1];
    if (is_grad_enabled()) {
      std::tie(grad_weight, grad_psw) =
          differentiable_bag_backward(s, grads[0], weight, psw, weight_grad, psw_grad);
      return out;
    }
    const Tensor grad = grads[0].data();
    if (weight_grad) {
      grad_weight = Variable(embedding_bag_backward_weight(
          grad, s.bags, s.forward, s.num_embeddings, s.mode,
          psw.defined() ? psw.data() : Tensor(), s.padding_idx, s.scale_grad_by_freq));
    }
    if (psw_grad) {
      grad_psw = Variable(embedding_bag_backward_per_sample_weights(grad, weight.data(), s.bags,
                                                                    s.padding_idx)
                              .view(psw.sizes()));
    }
    return out;
  }
};

}  // namespace

Variable embedding_bag(const Tensor& input, const Variable& weight, const Tensor& offsets,
                       std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq,
                       const std::string& mode, bool sparse,
                       const Variable& per_sample_weights, bool include_last_offset,
                       std::optional<int64_t> padding_idx) {
  TORCHLET_CHECK(input.defined(), "embedding_bag: input is undefined");
  TORCHLET_CHECK(weight.defined(), "embedding_bag: weight is undefined");
  const bool weighted = per_sample_weights.defined();
  TORCHLET_CHECK(!weighted || per_sample_weights.sizes() == input.sizes(),
                 "embedding_bag: If per_sample_weights (torch.Size(",
                 weighted ? shape_str(per_sample_weights.sizes()) : std::string(),
                 ")) is not None, then it must have the same shape as the input (torch.Size(",
                 shape_str(input.sizes()), "))");
  if (input.dim() == 2) {
    TORCHLET_CHECK(!offsets.defined(),
                   "if input is 2D, then offsets has to be None, as input is treated is a "
                   "mini-batch of fixed length sequences. However, found offsets of type "
                   "<class 'torch.Tensor'>");
  } else {
    TORCHLET_CHECK(input.dim() == 1,
                   "input has to be 1D or 2D Tensor, but got Tensor of dimension ", input.dim());
    TORCHLET_CHECK(offsets.defined(), "offsets has to be a 1D Tensor but got None");
    TORCHLET_CHECK(offsets.dim() == 1, "offsets has to be a 1D Tensor");
  }
  const EmbeddingBagMode bag_mode = parse_bag_mode(mode);
  if (bag_mode == EmbeddingBagMode::kMax) {
    TORCHLET_CHECK(!scale_grad_by_freq,
                   "max mode does not support scaling the gradient by the frequency");
    TORCHLET_CHECK(!sparse, "max mode does not support sparse weights");
  }
  TORCHLET_CHECK(!sparse,
                 "embedding_bag: sparse=True is not supported: torchlet has no sparse gradients; "
                 "pass sparse=False for a dense weight gradient");
  TORCHLET_CHECK(!weighted || bag_mode == EmbeddingBagMode::kSum,
                 "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                 "supported for mode='sum' (got mode='", mode,
                 "'). Please open a feature request on GitHub.");
  check_index_dtype(input);
  if (offsets.defined()) check_index_dtype(offsets);
  const DType wtype = weight.dtype();
  TORCHLET_CHECK(wtype == kFloat16 || wtype == kFloat32 || wtype == kFloat64,
                 "Expected tensor for argument #1 'weight' to have one of the following scalar "
                 "types: Half, Float, Double; but got ", legacy_tensor_type_name(wtype),
                 " instead (while checking arguments for embedding_bag)");
  TORCHLET_CHECK(weight.dim() == 2, "embedding_bag: 'weight' must be 2-D, but got shape ",
                 shape_str(weight.sizes()));
  TORCHLET_CHECK(!weighted || per_sample_weights.dtype() == wtype,
                 "Expected tensor for argument #1 'weight' to have the same type as tensor for "
                 "argument #1 'per_sample_weights'; but type ", legacy_tensor_type_name(wtype),
                 " does not equal ", legacy_tensor_type_name(per_sample_weights.dtype()),
                 " (while checking arguments for embedding_bag)");
  const int64_t num_embeddings = weight.size(0);
  if (padding_idx) {
    TORCHLET_CHECK(*padding_idx >= -num_embeddings && *padding_idx < num_embeddings,
                   "padding_idx must be within the number of embeddings, -", num_embeddings,
                   " through ", num_embeddings - 1, ", but got ", *padding_idx);
    if (*padding_idx < 0) *padding_idx += num_embeddings;
  }

  // Every operand on the weight's device, as PyTorch requires (virtual CPU
  // devices included: a replica's input must be on its own device).
  const Device weight_device = weight.data().device();
  auto check_device = [&](const Tensor& t) {
    TORCHLET_CHECK(t.device() == weight_device,
                   "embedding_bag: Expected all tensors to be on the same device, but found at "
                   "least two devices, ", weight_device, " and ", t.device(), "!");
  };
  check_device(input);
  if (offsets.defined()) check_device(offsets);
  if (weighted) check_device(per_sample_weights.data());
  // Bags and the checks of the indices and offsets, on the CPU, where the
  // kernels run: a weight elsewhere is computed on a CPU copy (its gradient
  // flows back through the copy).
  const Device device = weight.data().device();
  const bool on_cpu = device.is_cpu();
  const Device cpu(kCPU);
  const EmbeddingBags bags =
      embedding_bag_bags(on_cpu ? input : input.to(cpu),
                         on_cpu || !offsets.defined() ? offsets : offsets.to(cpu),
                         include_last_offset, num_embeddings);
  if (max_norm) {
    NoGradGuard no_grad;
    embedding_renorm_(weight.data(), on_cpu ? bags.indices : bags.indices.to(device), *max_norm,
                      norm_type);
  }
  if (!on_cpu) {
    const Variable out = EmbeddingBagFunction::apply(
        weight.to(cpu), weighted ? per_sample_weights.to(cpu) : Variable(), bags, bag_mode,
        padding_idx, scale_grad_by_freq);
    return out.to(device);
  }
  return EmbeddingBagFunction::apply(weight, per_sample_weights, bags, bag_mode, padding_idx,
                                     scale_grad_by_freq);
}

}  // namespace torchlet::nn::functional
