#pragma once

// The plans and checks that the products' Tensor ops (tensor/linalg.cc) and
// Variable ops (autograd/ops_linalg.cc) share: einsum, tensordot, kron,
// multi_dot, cross and the norms. Internal to the two.

// Note [einsum plan]
// torchlet::einsum on Tensors and on Variables share one parser and planner:
// plan_einsum() reads the equation against the operands' shapes, checks it
// (PyTorch's error texts) and gives each operand's dims a slot in one aligned
// layout, the output's dims first and then the summed ones. apply_einsum()
// then takes diagonals for repeated subscripts, permutes each operand into
// that layout (size 1 where it lacks a subscript) and contracts the operands
// left to right as PyTorch does: each pair is one bmm over the dims both
// keep (the batch), the dims only one keeps and the dims summed now
// (plan_einsum_pair()), and a dim that only one side still holds is summed
// first. It uses only ops that Tensor and Variable share, so the Variable
// version needs no backward of its own.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor_body.h"

namespace torchlet {

struct EinsumPlan {
  /// The aligned layout's rank: output dims, then summed dims.
  int64_t num_slots = 0;
  /// The output's rank (its dims are slots [0, out_dims)).
  int64_t out_dims = 0;
  /// For each operand, the slot of each of its dims (a repeated subscript
  /// gives several dims one slot).
  std::vector<SizeVec> operand_slots;
  /// For each slot, how many operands have it with a size other than 1.
  SizeVec dim_counts;
};

/// Parses and checks `equation` for operands of these shapes.
EinsumPlan plan_einsum(const std::string& equation, const std::vector<SizeVec>& shapes);

/// One operand's diagonal (when a subscript repeats) and alignment: the
/// as_strided geometry over its dims (when `diagonal`), then the permutation
/// of the remaining dims into slot order and the aligned shape.
struct EinsumAlign {
  bool diagonal = false;
  SizeVec diag_sizes, diag_strides;
  SizeVec permutation;
  SizeVec aligned_shape;
};
EinsumAlign plan_einsum_align(IntArrayRef slots, IntArrayRef sizes, IntArrayRef strides,
                              int64_t num_slots);

/// One pairwise contraction of two aligned operands: each first summed over
/// `a_sum`/`b_sum` (keepdim), then permuted and reshaped to [B, M, K] and
/// [B, K, N] for a bmm whose result is viewed as `out_view` and permuted by
/// `out_permutation` back to the aligned layout. Without `use_bmm` the pair
/// is simply multiplied (nothing summed now).
struct EinsumPair {
  bool use_bmm = false;
  SizeVec a_sum, b_sum;
  SizeVec a_permutation, b_permutation;
  SizeVec a_shape, b_shape;
  SizeVec out_view, out_permutation;
};
/// Plans the contraction of aligned operands of shapes `a` and `b`, updating
/// `plan.dim_counts` as PyTorch does (a slot is summed once no later operand
/// holds it).
EinsumPair plan_einsum_pair(EinsumPlan& plan, IntArrayRef a, IntArrayRef b);

/// The output's shape: the aligned result without its summed slots.
SizeVec einsum_output_shape(const EinsumPlan& plan, IntArrayRef aligned);

/// tensordot's plan (PyTorch's): sum each operand over its contracted dims
/// that the other has as size 1, permute and reshape both to matrices, mm,
/// and reshape to `result_shape`.
struct TensordotPlan {
  SizeVec a_sum, b_sum;
  SizeVec a_permutation, b_permutation;
  SizeVec a_shape, b_shape;
  SizeVec result_shape;
};
TensordotPlan plan_tensordot(IntArrayRef a, IntArrayRef b, IntArrayRef dims_a,
                             IntArrayRef dims_b);
/// tensordot's dims as a count: the last `dims` of a and the first of b.
std::pair<SizeVec, SizeVec> tensordot_dims(int64_t dims);

/// kron's plan: a viewed as [a0, 1, a1, 1, ...] times b viewed as
/// [1, b0, 1, b1, ...], the product viewed as `result_shape`.
struct KronPlan {
  SizeVec a_shape, b_shape, result_shape;
};
KronPlan plan_kron(IntArrayRef a, IntArrayRef b);

/// multi_dot's checks (PyTorch's texts) and its cheapest order: `split[i][j]`
/// is where the chain i..j splits (matrix_chain_order), from the operands'
/// shapes as matrices (a 1-D first operand is a row, a 1-D last a column).
struct MultiDotPlan {
  std::vector<SizeVec> split;
  /// The result's shape.
  SizeVec result_shape;
};
MultiDotPlan plan_multi_dot(const std::vector<SizeVec>& shapes, const std::vector<DType>& dtypes,
                            const std::vector<Device>& devices);

/// Multiplies matrices i..j in `plan`'s order.
template <typename T>
T apply_multi_dot(const MultiDotPlan& plan, const std::vector<T>& mats, size_t i, size_t j) {
  if (i == j) return mats[i];
  const size_t k = static_cast<size_t>(plan.split[i][j]);
  return apply_multi_dot(plan, mats, i, k).mm(apply_multi_dot(plan, mats, k + 1, j));
}

// ---- Checks shared by the Tensor and Variable ops (PyTorch's texts) --------------

/// torch.cross's dim: the given one, else the first of size 3.
int64_t default_cross_dim(std::optional<int64_t> dim, IntArrayRef sizes);
/// linalg.cross's checks; returns `dim` wrapped.
int64_t check_cross(const Tensor& a, const Tensor& b, int64_t dim);
void check_vecdot(const Tensor& x, const Tensor& y);
void check_vector_norm(const Tensor& x, double ord, IntArrayRef dim, std::optional<DType> dtype);
/// linalg.matrix_norm's checks of the input, dims and dtype; returns the
/// dims wrapped.
std::pair<int64_t, int64_t> check_matrix_norm(const Tensor& a, IntArrayRef dim,
                                              std::optional<DType> dtype);
void check_matrix_norm_order(double ord);
void check_matrix_norm_order(const std::string& ord);
/// The permutation that moves dims d0 and d1 (in that order) to the end.
SizeVec matrix_last_permutation(int64_t ndim, int64_t d0, int64_t d1);
/// linalg.norm's choice: a matrix norm over `dim`, or a vector norm over
/// `dim` (every dim when empty).
struct LinalgNormPlan {
  bool matrix = false;
  SizeVec dim;
};
LinalgNormPlan plan_linalg_norm(const Tensor& a, bool has_ord, bool string_ord,
                                const std::optional<std::vector<int64_t>>& dim);

inline const Tensor& einsum_data(const Tensor& t) { return t; }

/// Whether `permutation` leaves every dim in place.
bool is_identity_permutation(IntArrayRef permutation);

/// x.permute(permutation).reshape(shape), skipping the steps that would not
/// change x (each view op costs a little on small products).
template <typename T>
T einsum_permute_reshape(const T& x, IntArrayRef permutation, IntArrayRef shape) {
  const T p = is_identity_permutation(permutation) ? x : x.permute(permutation);
  return einsum_data(p).sizes() == shape ? p : p.reshape(shape);
}

/// Runs `plan` on Tensors or Variables (Note [einsum plan]). `einsum_data(x)`
/// gives an operand's Tensor (found by argument-dependent lookup).
template <typename T>
T apply_einsum(EinsumPlan& plan, const std::vector<T>& operands) {
  std::vector<T> ops;
  ops.reserve(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    const Tensor& data = einsum_data(operands[i]);
    const EinsumAlign align = plan_einsum_align(plan.operand_slots[i], data.sizes(),
                                                data.strides(), plan.num_slots);
    T op = align.diagonal ? operands[i].as_strided(align.diag_sizes, align.diag_strides,
                                                   data.storage_offset())
                          : operands[i];
    ops.push_back(einsum_permute_reshape(op, align.permutation, align.aligned_shape));
  }
  if (ops.size() == 1) {
    if (plan.num_slots == plan.out_dims) return ops[0];
    SizeVec sum_dims;
    for (int64_t d = plan.out_dims; d < plan.num_slots; ++d) sum_dims.push_back(d);
    return ops[0].sum(sum_dims, false);
  }
  T result = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) {
    T a = result, b = ops[i];
    const EinsumPair pair = plan_einsum_pair(plan, einsum_data(a).sizes(), einsum_data(b).sizes());
    if (!pair.a_sum.empty()) a = a.sum(pair.a_sum, true);
    if (!pair.b_sum.empty()) b = b.sum(pair.b_sum, true);
    if (!pair.use_bmm) {
      result = a.mul(b);
      continue;
    }
    const T product = einsum_permute_reshape(a, pair.a_permutation, pair.a_shape)
                          .bmm(einsum_permute_reshape(b, pair.b_permutation, pair.b_shape))
                          .view(pair.out_view);
    result = is_identity_permutation(pair.out_permutation)
                 ? product
                 : product.permute(pair.out_permutation);
  }
  if (plan.num_slots == plan.out_dims) return result;
  return result.reshape(einsum_output_shape(plan, einsum_data(result).sizes()));
}

}  // namespace torchlet
