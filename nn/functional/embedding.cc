#include "nn/functional/embedding.h"

#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "autograd/functions.h"
#include "autograd/grad_mode.h"
#include "autograd/nn_ops.h"
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

// embedding_bag is built from differentiable ops (embedding, index_put,
// max over a padded layout), so its gradients, per_sample_weights' included,
// come from theirs.

namespace {

enum class BagMode { kSum, kMean, kMax };

BagMode parse_bag_mode(const std::string& mode) {
  if (mode == "sum") return BagMode::kSum;
  if (mode == "mean") return BagMode::kMean;
  TORCHLET_CHECK(mode == "max", "mode has to be one of sum, mean or max");
  return BagMode::kMax;
}

void check_index_dtype(const Tensor& t) {
  // PyTorch names the offsets 'indices' too.
  TORCHLET_CHECK(t.dtype() == kInt64 || t.dtype() == kInt32,
                 "Expected tensor for argument #1 'indices' to have one of the following scalar "
                 "types: Long, Int; but got ", legacy_tensor_type_name(t.dtype()),
                 " instead (while checking arguments for embedding_bag)");
}

// The bag of every position of the flattened 1-D input (int64 [N]) cut at
// offsets (int64 [num_bags (+1)], already checked): the number of bag
// starts after the first that are <= the position.
Tensor bag_of_positions(const Tensor& offsets, int64_t num_bags, int64_t n) {
  Tensor starts = zeros({n + 1}, offsets.options());
  if (num_bags > 1) {
    const Tensor later = offsets.slice(0, 1, num_bags);
    starts.scatter_add_(0, later, ones_like(later));
  }
  return starts.cumsum(0).slice(0, 0, n);
}

// Where each bag starts among the entries, from the bags' sizes.
Tensor firsts_of(const Tensor& sizes) { return sizes.cumsum(0).sub(sizes); }

// For bags of very different lengths, where padding them all to the
// longest would take too much memory: a tournament within each bag, on the
// entries still in the running (their bag, place in the bag, value and
// entry). At step s, the entry at each even multiple of s takes the larger
// of itself and the entry s further on in its bag (an equal later entry
// never wins), and only the even multiples stay; the work halves at every
// step. Returns, for each bag with entries in bag order, the entry holding
// the first maximum of each coordinate ([bags with entries, D]).
Tensor tournament(Tensor value, Tensor owner, const Tensor& firsts, int64_t longest) {
  const int64_t kept = value.size(0), dim = value.size(1);
  Tensor from = arange(kept, owner.options()).unsqueeze(1).expand({kept, dim});
  Tensor place = arange(kept, owner.options()).sub(firsts.index_select(0, owner));
  for (int64_t step = 1; step < longest; step *= 2) {
    const int64_t count = owner.numel();
    const Tensor pairs = owner.slice(0, 0, count - 1).eq(owner.slice(0, 1)).unsqueeze(1);
    const Tensor head = value.slice(0, 0, count - 1), tail = value.slice(0, 1);
    const Tensor later = pairs.logical_and(tail.gt(head));
    value = torchlet::cat(
        std::vector<Tensor>{where(later, tail, head), value.slice(0, count - 1)});
    from = torchlet::cat(std::vector<Tensor>{
        where(later, from.slice(0, 1), from.slice(0, 0, count - 1)), from.slice(0, count - 1)});
    const Tensor stays =
        place.floor_divide(step).eq(place.floor_divide(2 * step).mul(2)).nonzero().view({-1});
    value = value.index_select(0, stays);
    from = from.index_select(0, stays);
    owner = owner.index_select(0, stays);
    place = place.index_select(0, stays);
  }
  return from;
}

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
  const BagMode bag_mode = parse_bag_mode(mode);
  if (bag_mode == BagMode::kMax) {
    TORCHLET_CHECK(!scale_grad_by_freq,
                   "max mode does not support scaling the gradient by the frequency");
    TORCHLET_CHECK(!sparse, "max mode does not support sparse weights");
  }
  TORCHLET_CHECK(!sparse,
                 "embedding_bag: sparse=True is not supported: torchlet has no sparse gradients; "
                 "pass sparse=False for a dense weight gradient");
  TORCHLET_CHECK(!weighted || bag_mode == BagMode::kSum,
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

  const Tensor indices = input.reshape({-1}).to(kInt64);
  const int64_t n = indices.numel();
  // Bags and the bag of every position; positions from `end` on are in none.
  int64_t num_bags = 0;
  int64_t end = n;
  Tensor bag;
  if (input.dim() == 2) {
    num_bags = input.size(0);
    bag = n == 0 ? indices : arange(n, indices.options()).floor_divide(input.size(1));
  } else {
    const Tensor offs = offsets.to(kInt64);
    const int64_t count = offs.size(0);
    if (include_last_offset) {
      TORCHLET_CHECK(count >= 1, "include_last_offset: number of offset should be at least 1");
    }
    num_bags = include_last_offset ? count - 1 : count;
    if (count > 0) {
      const int64_t first = offs[0].item<int64_t>();
      TORCHLET_CHECK(first == 0,
                     "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to "
                     "start from position 0. However, got ", first);
      const int64_t last = offs[count - 1].item<int64_t>();
      TORCHLET_CHECK(last <= n, "offsets[-1] can not be greater than input's length ", n,
                     " but got offsets[-1] of ", last);
      if (include_last_offset) end = last;
      const Tensor falls = offs.slice(0, 1).lt(offs.slice(0, 0, count - 1));
      if (falls.any().item<bool>()) {
        const int64_t at = falls.nonzero()[0][0].item<int64_t>() + 1;
        TORCHLET_CHECK(false, "embedding_bag: offsets has to be non-decreasing, but offsets[", at,
                       "] = ", offs[at].item<int64_t>(), " is less than offsets[", at - 1,
                       "] = ", offs[at - 1].item<int64_t>());
      }
    }
    if (num_bags == 0) end = 0;
    bag = bag_of_positions(offs, num_bags, n);
  }
  const Tensor out_of_range = indices.lt(0).logical_or(indices.ge(num_embeddings));
  if (out_of_range.any().item<bool>()) {
    TORCHLET_CHECK(false,
                   "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be ",
                   indices.masked_select(out_of_range)[0].item<int64_t>());
  }
  if (max_norm) {
    NoGradGuard no_grad;
    embedding_renorm_(weight.data(), indices, *max_norm, norm_type);
  }

  // The entries that count: in a bag and not padding.
  Tensor kept_indices = indices, kept_bag = bag;
  Variable scale = weighted ? per_sample_weights.reshape({-1}) : Variable();
  Tensor keep = arange(n, indices.options()).lt(end);
  if (padding_idx) keep = keep.logical_and(indices.ne(*padding_idx));
  if (!keep.all().item<bool>()) {
    const Tensor positions = keep.nonzero().view({-1});
    kept_indices = indices.index_select(0, positions);
    kept_bag = bag.index_select(0, positions);
    if (weighted) scale = scale.index_select(0, positions);
  }
  const int64_t kept = kept_indices.numel();
  const int64_t dim = weight.size(1);

  const Variable empty_out(zeros({num_bags, dim}, weight.data().options()));
  if (bag_mode != BagMode::kMax) {
    Variable rows = torchlet::embedding(weight, kept_indices, std::nullopt, scale_grad_by_freq);
    if (weighted) rows = rows * scale.unsqueeze(1);
    Variable out = empty_out.index_put({kept_bag}, rows, /*accumulate=*/true);
    if (bag_mode == BagMode::kSum) return out;
    Tensor sizes = zeros({num_bags}, weight.data().options());
    sizes.scatter_add_(0, kept_bag, ones({kept}, weight.data().options()));
    return out / Variable(sizes.clamp_min(1).unsqueeze(1));
  }

  // max: find, per bag and coordinate, the entry holding the first maximum
  // (no gradient needed), then gather those weights: the gather's backward
  // sends each output's gradient to its row.
  const Tensor sizes = zeros({num_bags}, kept_bag.options()).scatter_add(
      0, kept_bag, ones_like(kept_bag));
  const Tensor filled = sizes.gt(0).nonzero().view({-1});
  const int64_t longest = kept == 0 ? 0 : sizes.max().item<int64_t>();
  const Tensor firsts = firsts_of(sizes);
  const Tensor value = weight.data().index_select(0, kept_indices);
  Tensor winner;  // [bags with entries, D]: the entry holding the maximum
  if (kept == 0) {
    winner = zeros({0, dim}, kept_bag.options());
  } else if (num_bags * longest <= 2 * kept) {
    // The bags laid out as [num_bags, longest, D], padded with -inf: max
    // over the middle dim gives the first maximum's place in its bag.
    const Tensor place = arange(kept, kept_bag.options()).sub(firsts.index_select(0, kept_bag));
    Tensor dense = full({num_bags * longest, dim}, -std::numeric_limits<double>::infinity(),
                        value.options());
    dense.index_put_({kept_bag.mul(longest).add(place)}, value);
    winner = std::get<1>(dense.view({num_bags, longest, dim}).max(1))
                 .index_select(0, filled)
                 .add(firsts.index_select(0, filled).unsqueeze(1));
  } else {
    winner = tournament(value, kept_bag, firsts, longest);
  }
  const Tensor winner_rows =
      kept_indices.index_select(0, winner.reshape({-1})).view(winner.sizes());
  return empty_out.index_put({filled}, weight.gather(0, winner_rows));
}

}  // namespace torchlet::nn::functional
