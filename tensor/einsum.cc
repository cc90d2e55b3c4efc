// The einsum planner (Note [einsum plan] in tensor/einsum.h): PyTorch 1.13's
// parsing, checks and left-to-right contraction order.
#include "tensor/einsum.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "absl/strings/str_join.h"
#include "tensor/op_utils.h"

namespace torchlet {
namespace {

constexpr int kNumLabels = 52;
constexpr int kEllipsis = kNumLabels;

bool is_label(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Upper case first, as PyTorch orders an implicit output.
int label_index(unsigned char c) { return c <= 'Z' ? c - 'A' : 26 + (c - 'a'); }

std::string label_char(int index) {
  return std::string(1, static_cast<char>(index < 26 ? 'A' + index : 'a' + index - 26));
}

// Each operand's subscripts (kEllipsis for "...") from the equation's left side.
std::vector<std::vector<int>> parse_inputs(const std::string& lhs, size_t num_ops) {
  std::vector<std::vector<int>> labels(num_ops);
  bool found_ellipsis = false;
  size_t op = 0;
  for (size_t i = 0; i < lhs.size(); ++i) {
    const unsigned char c = lhs[i];
    if (c == ' ') continue;
    if (c == '.') {
      TORCHLET_CHECK(!found_ellipsis, "einsum(): found '.' for operand ", op,
                     " for which an ellipsis was already found");
      TORCHLET_CHECK(i + 2 < lhs.size() && lhs[i + 1] == '.' && lhs[i + 2] == '.',
                     "einsum(): found '.' for operand ", op,
                     " that is not part of any ellipsis");
      i += 2;
      labels[op].push_back(kEllipsis);
      found_ellipsis = true;
    } else if (c == ',') {
      ++op;
      TORCHLET_CHECK(op < num_ops,
                     "einsum(): fewer operands were provided than specified in the equation");
      found_ellipsis = false;
    } else {
      TORCHLET_CHECK(is_label(c), "einsum(): invalid subscript given at index ", i,
                     " in the equation string, subscripts must be in [a-zA-Z]");
      labels[op].push_back(label_index(c));
    }
  }
  TORCHLET_CHECK(op == num_ops - 1,
                 "einsum(): more operands were provided than specified in the equation");
  return labels;
}

}  // namespace

EinsumPlan plan_einsum(const std::string& equation, const std::vector<SizeVec>& shapes) {
  const size_t num_ops = shapes.size();
  TORCHLET_CHECK(num_ops > 0, "einsum(): must provide at least one operand");
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  const std::vector<std::vector<int>> labels = parse_inputs(lhs, num_ops);

  std::array<int64_t, kNumLabels> label_count{};
  int64_t ell_dims = 0;
  for (size_t i = 0; i < num_ops; ++i) {
    const int64_t ndim = static_cast<int64_t>(shapes[i].size());
    int64_t nlabels = static_cast<int64_t>(labels[i].size());
    bool has_ellipsis = false;
    for (int label : labels[i]) {
      if (label == kEllipsis) {
        --nlabels;
        has_ellipsis = true;
        ell_dims = std::max(ell_dims, ndim - nlabels);
      } else {
        ++label_count[label];
      }
    }
    if (has_ellipsis) {
      TORCHLET_CHECK(nlabels <= ndim, "einsum(): the number of subscripts in the equation (",
                     nlabels, ") is more than the number of dimensions (", ndim,
                     ") for operand ", i);
    } else {
      TORCHLET_CHECK(nlabels == ndim, "einsum(): the number of subscripts in the equation (",
                     nlabels, ") does not match the number of dimensions (", ndim,
                     ") for operand ", i, " and no ellipsis was given");
    }
  }

  // Each subscript's slot in the aligned layout: the output's first.
  std::array<int64_t, kNumLabels> slot;
  slot.fill(-1);
  int64_t next = 0, ell_slot = 0;
  bool ellipsis_out = false;
  if (arrow == std::string::npos) {
    // Implicit output: the ellipsis dims, then the subscripts seen once.
    next = ell_dims;
    ellipsis_out = true;
    for (int label = 0; label < kNumLabels; ++label) {
      if (label_count[label] == 1) slot[label] = next++;
    }
  } else {
    const std::string rhs = equation.substr(arrow + 2);
    for (size_t i = 0; i < rhs.size(); ++i) {
      const unsigned char c = rhs[i];
      if (c == ' ') continue;
      if (c == '.') {
        TORCHLET_CHECK(!ellipsis_out,
                       "einsum(): found '.' for output but an ellipsis (...) was already found");
        TORCHLET_CHECK(i + 2 < rhs.size() && rhs[i + 1] == '.' && rhs[i + 2] == '.',
                       "einsum(): found '.' for output that is not part of any ellipsis (...)");
        i += 2;
        ell_slot = next;
        next += ell_dims;
        ellipsis_out = true;
        continue;
      }
      TORCHLET_CHECK(is_label(c), "einsum(): invalid subscript given at index ",
                     lhs.size() + 2 + i,
                     " in the equation string, subscripts must be in [a-zA-Z]");
      const int label = label_index(c);
      TORCHLET_CHECK(label_count[label] > 0 && slot[label] == -1, "einsum(): output subscript ",
                     std::string(1, static_cast<char>(c)), slot[label] > -1 ? " appears more than once in the output"
                                         : " does not appear in the equation for any input "
                                           "operand");
      slot[label] = next++;
    }
  }
  EinsumPlan plan;
  plan.out_dims = next;
  if (!ellipsis_out) {
    ell_slot = next;
    next += ell_dims;
  }
  for (int label = 0; label < kNumLabels; ++label) {
    if (label_count[label] > 0 && slot[label] == -1) slot[label] = next++;
  }
  plan.num_slots = next;
  plan.dim_counts.assign(next, 0);

  // Slots of each operand's dims, and the sizes' agreement.
  std::vector<int64_t> label_size(kNumLabels, 1);
  std::vector<int64_t> ell_size(ell_dims, 1);
  plan.operand_slots.resize(num_ops);
  for (size_t i = 0; i < num_ops; ++i) {
    const SizeVec& shape = shapes[i];
    SizeVec& slots = plan.operand_slots[i];
    // Whether this operand already counted a slot (a repeated subscript).
    std::vector<bool> seen(next, false);
    int64_t d = 0;
    for (int label : labels[i]) {
      if (label == kEllipsis) {
        const int64_t covered =
            static_cast<int64_t>(shape.size()) - (static_cast<int64_t>(labels[i].size()) - 1);
        for (int64_t j = ell_dims - covered; j < ell_dims; ++j, ++d) {
          if (shape[d] != 1) {
            TORCHLET_CHECK(ell_size[j] == 1 || ell_size[j] == shape[d], "einsum(): dimension ",
                           d, " covered by ellipsis in operand ", i, "has size ", shape[d],
                           " which does not broadcast with previously seen ellipsis with size ",
                           ell_size[j], " for the respective dimension");
            ell_size[j] = shape[d];
            ++plan.dim_counts[ell_slot + j];
          }
          slots.push_back(ell_slot + j);
        }
        continue;
      }
      const int64_t s = slot[label];
      if (seen[s]) {
        const int64_t prev = std::find(slots.begin(), slots.end(), s) - slots.begin();
        TORCHLET_CHECK(shape[d] == shape[prev], "einsum(): subscript ", label_char(label),
                       " is repeated for operand ", i, " but the sizes don't match, ", shape[d],
                       " != ", shape[prev]);
      } else if (shape[d] != 1) {
        TORCHLET_CHECK(label_size[label] == 1 || label_size[label] == shape[d],
                       "einsum(): subscript ", label_char(label), " has size ", shape[d],
                       " for operand ", i, " which does not broadcast with previously seen size ",
                       label_size[label]);
        label_size[label] = shape[d];
        ++plan.dim_counts[s];
      }
      seen[s] = true;
      slots.push_back(s);
      ++d;
    }
  }
  return plan;
}

EinsumAlign plan_einsum_align(IntArrayRef slots, IntArrayRef sizes, IntArrayRef strides,
                              int64_t num_slots) {
  EinsumAlign align;
  // The operand's distinct slots in order of first appearance, each with its
  // dims' size and summed strides (the diagonal of a repeated subscript).
  SizeVec distinct;
  for (size_t d = 0; d < slots.size(); ++d) {
    const auto it = std::find(distinct.begin(), distinct.end(), slots[d]);
    if (it == distinct.end()) {
      distinct.push_back(slots[d]);
      align.diag_sizes.push_back(sizes[d]);
      align.diag_strides.push_back(strides[d]);
    } else {
      align.diagonal = true;
      align.diag_strides[it - distinct.begin()] += strides[d];
    }
  }
  // The held slots in slot order; the missing ones become dims of size 1.
  align.aligned_shape.assign(num_slots, 1);
  for (int64_t s = 0; s < num_slots; ++s) {
    const auto it = std::find(distinct.begin(), distinct.end(), s);
    if (it == distinct.end()) continue;
    const int64_t d = it - distinct.begin();
    align.permutation.push_back(d);
    align.aligned_shape[s] = align.diag_sizes[d];
  }
  return align;
}

EinsumPair plan_einsum_pair(EinsumPlan& plan, IntArrayRef a, IntArrayRef b) {
  EinsumPair pair;
  const int64_t n = plan.num_slots;
  // Slots summed now: held (size > 1) by both and by no later operand; a
  // slot only one side still holds is summed there first.
  SizeVec sum_dims;
  for (int64_t d = plan.out_dims; d < n; ++d) {
    if (a[d] != 1 && b[d] != 1) {
      if (--plan.dim_counts[d] == 1) {
        sum_dims.push_back(d);
        plan.dim_counts[d] = 0;
      }
    } else if (plan.dim_counts[d] == 1) {
      if (a[d] != 1) {
        pair.a_sum.push_back(d);
        plan.dim_counts[d] = 0;
      } else if (b[d] != 1) {
        pair.b_sum.push_back(d);
        plan.dim_counts[d] = 0;
      }
    }
  }
  if (sum_dims.empty()) return pair;
  pair.use_bmm = true;
  SizeVec sa(a.begin(), a.end()), sb(b.begin(), b.end());
  for (int64_t d : pair.a_sum) sa[d] = 1;
  for (int64_t d : pair.b_sum) sb[d] = 1;
  // Dims both keep (the bmm's batch), only the left keeps, only the right.
  SizeVec lro, lo, ro;
  int64_t lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
  for (int64_t d = 0; d < n; ++d) {
    if (std::find(sum_dims.begin(), sum_dims.end(), d) != sum_dims.end()) {
      sum_size *= sa[d];
    } else if (sa[d] != 1 && sb[d] != 1) {
      lro.push_back(d);
      lro_size *= sa[d];
    } else if (sa[d] != 1) {
      lo.push_back(d);
      lo_size *= sa[d];
    } else {
      ro.push_back(d);
      ro_size *= sb[d];
    }
  }
  auto append = [](SizeVec& v, const SizeVec& more) { v.insert(v.end(), more.begin(), more.end()); };
  pair.a_permutation = lro;
  append(pair.a_permutation, lo);
  append(pair.a_permutation, sum_dims);
  append(pair.a_permutation, ro);
  pair.b_permutation = lro;
  append(pair.b_permutation, sum_dims);
  append(pair.b_permutation, ro);
  append(pair.b_permutation, lo);
  pair.a_shape = {lro_size, lo_size, sum_size};
  pair.b_shape = {lro_size, sum_size, ro_size};
  for (int64_t d : lro) pair.out_view.push_back(sa[d]);
  for (int64_t d : lo) pair.out_view.push_back(sa[d]);
  for (size_t i = 0; i < sum_dims.size(); ++i) pair.out_view.push_back(1);
  for (int64_t d : ro) pair.out_view.push_back(sb[d]);
  pair.out_permutation.assign(n, 0);
  int64_t pos = 0;
  for (const SizeVec* group : {&lro, &lo, &sum_dims, &ro}) {
    for (int64_t d : *group) pair.out_permutation[d] = pos++;
  }
  return pair;
}

bool is_identity_permutation(IntArrayRef permutation) {
  for (size_t i = 0; i < permutation.size(); ++i) {
    if (permutation[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

SizeVec einsum_output_shape(const EinsumPlan& plan, IntArrayRef aligned) {
  return SizeVec(aligned.begin(), aligned.begin() + plan.out_dims);
}

std::pair<SizeVec, SizeVec> tensordot_dims(int64_t dims) {
  TORCHLET_CHECK(dims >= 0, "tensordot expects dims >= 0, but got dims=", dims);
  SizeVec dims_a, dims_b;
  for (int64_t i = 0; i < dims; ++i) {
    dims_a.push_back(i - dims);
    dims_b.push_back(i);
  }
  return {dims_a, dims_b};
}

namespace {
// A dtype as PyTorch's TypeMeta names it ("float", "double", ...).
const char* type_meta_name(DType dtype) {
  switch (dtype) {
    case kFloat32: return "float";
    case kFloat64: return "double";
    case kFloat16: return "c10::Half";
    case kBFloat16: return "c10::BFloat16";
    case kInt64: return "long int";
    case kInt32: return "int";
    case kBool: return "bool";
    case kUInt8: return "unsigned char";
    default: return scalar_type_name(dtype);
  }
}

// Wraps `dims` against rank `ndim`, as a bitset; a dim listed twice throws.
std::vector<bool> dim_set(IntArrayRef dims, int64_t ndim, const char* op) {
  std::vector<bool> set(ndim, false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, ndim, op);
    TORCHLET_CHECK(!set[w], "dim ", w, " appears multiple times in the list of dims");
    set[w] = true;
  }
  return set;
}
}  // namespace

TensordotPlan plan_tensordot(IntArrayRef a, IntArrayRef b, IntArrayRef dims_a,
                             IntArrayRef dims_b) {
  TORCHLET_CHECK(dims_a.size() == dims_b.size(),
                 "both dimension lists should have same length");
  const int64_t na = static_cast<int64_t>(a.size()), nb = static_cast<int64_t>(b.size());
  TensordotPlan plan;
  SizeVec sa(a.begin(), a.end()), sb(b.begin(), b.end());
  int64_t csize = 1;
  for (size_t i = 0; i < dims_a.size(); ++i) {
    const int64_t da = wrap_dim(dims_a[i], na, "tensordot");
    const int64_t db = wrap_dim(dims_b[i], nb, "tensordot");
    const int64_t s1 = a[da], s2 = b[db];
    if (s2 == 1) {  // a broadcast dim: summed right away
      plan.a_sum.push_back(da);
      sa[da] = 1;
    } else if (s1 == 1) {
      plan.b_sum.push_back(db);
      sb[db] = 1;
    } else {
      TORCHLET_CHECK(s1 == s2, "contracted dimensions need to match, but first has size ", s1,
                     " in dim ", dims_a[i], " and second has size ", s2, " in dim ", dims_b[i]);
      csize *= s1;
    }
  }
  const std::vector<bool> ca = dim_set(dims_a, na, "tensordot");
  const std::vector<bool> cb = dim_set(dims_b, nb, "tensordot");
  int64_t size_a = 1, size_b = 1;
  for (int64_t d = 0; d < na; ++d) {
    if (ca[d]) continue;
    plan.a_permutation.push_back(d);
    size_a *= sa[d];
    plan.result_shape.push_back(sa[d]);
  }
  for (int64_t d : dims_a) plan.a_permutation.push_back(wrap_dim(d, na, "tensordot"));
  for (int64_t d : dims_b) plan.b_permutation.push_back(wrap_dim(d, nb, "tensordot"));
  for (int64_t d = 0; d < nb; ++d) {
    if (cb[d]) continue;
    plan.b_permutation.push_back(d);
    size_b *= sb[d];
    plan.result_shape.push_back(sb[d]);
  }
  plan.a_shape = {size_a, csize};
  plan.b_shape = {csize, size_b};
  return plan;
}

KronPlan plan_kron(IntArrayRef a, IntArrayRef b) {
  const size_t n = std::max(a.size(), b.size());
  const size_t pad_a = n - a.size(), pad_b = n - b.size();
  KronPlan plan;
  for (size_t i = 0; i < n; ++i) {
    const int64_t sa = i >= pad_a ? a[i - pad_a] : 1;
    const int64_t sb = i >= pad_b ? b[i - pad_b] : 1;
    plan.a_shape.insert(plan.a_shape.end(), {sa, 1});
    plan.b_shape.insert(plan.b_shape.end(), {1, sb});
    plan.result_shape.push_back(sa * sb);
  }
  return plan;
}

MultiDotPlan plan_multi_dot(const std::vector<SizeVec>& shapes, const std::vector<DType>& dtypes,
                            const std::vector<Device>& devices) {
  const size_t n = shapes.size();
  TORCHLET_CHECK(n >= 2, "multi_dot(): expected at least 2 tensors but got ", n);
  MultiDotPlan plan;
  // Each operand as a matrix: rows[i] x rows[i + 1].
  std::vector<int64_t> rows(n + 1);
  const SizeVec& first = shapes[0];
  const SizeVec& last = shapes[n - 1];
  TORCHLET_CHECK(first.size() == 1 || first.size() == 2,
                 "multi_dot(): the first tensor must be 1D or 2D but got ", first.size(), "D");
  TORCHLET_CHECK(last.size() == 1 || last.size() == 2,
                 "multi_dot(): the last tensor must be 1D or 2D but got ", last.size(), "D");
  for (size_t i = 1; i + 1 < n; ++i) {
    TORCHLET_CHECK(shapes[i].size() == 2, "multi_dot(): tensor ", i, " must be 2D but got ",
                   shapes[i].size(), "D");
  }
  if (first.size() == 2) plan.result_shape.push_back(first[0]);
  if (last.size() == 2) plan.result_shape.push_back(last[1]);
  auto matrix = [&](size_t i) -> std::pair<int64_t, int64_t> {
    const SizeVec& s = shapes[i];
    if (s.size() == 2) return {s[0], s[1]};
    return i == 0 ? std::make_pair(int64_t{1}, s[0]) : std::make_pair(s[0], int64_t{1});
  };
  for (size_t i = 1; i < n; ++i) {
    TORCHLET_CHECK(dtypes[i] == dtypes[0], "multi_dot(): all tensors must have be the same dtype "
                   "but tensor 0 is ", type_meta_name(dtypes[0]), " and tensor ", i, " ",
                   type_meta_name(dtypes[i]));
    TORCHLET_CHECK(devices[i] == devices[0], "multi_dot(): all tensors must be on the same "
                   "device but tensor 0 is on ", devices[0], " and tensor ", i, " on ",
                   devices[i]);
    TORCHLET_CHECK(matrix(i - 1).second == matrix(i).first, "multi_dot(): tensors ", i - 1,
                   " and ", i, " with shapes ", shape_str(shapes[i - 1]), " and ",
                   shape_str(shapes[i]), " cannot be multiplied");
  }
  for (size_t i = 0; i < n; ++i) rows[i] = matrix(i).first;
  rows[n] = matrix(n - 1).second;
  plan.split.assign(n, SizeVec(n, 0));
  for (size_t i = 0; i + 1 < n; ++i) plan.split[i][i + 1] = static_cast<int64_t>(i);
  if (n == 3) {
    // PyTorch compares the two orders directly: (AB)C unless A(BC) is cheaper.
    const int64_t a = rows[0], b = rows[1], c = rows[2], d = rows[3];
    plan.split[0][2] = (a * c) * (b + d) > (b * d) * (a + c) ? 0 : 1;
    return plan;
  }
  // cost[i][j]: the fewest multiplications for the chain i..j.
  std::vector<std::vector<int64_t>> cost(n, std::vector<int64_t>(n, 0));
  for (size_t len = 1; len < n; ++len) {
    for (size_t i = 0; i + len < n; ++i) {
      const size_t j = i + len;
      cost[i][j] = std::numeric_limits<int64_t>::max();
      for (size_t k = i; k < j; ++k) {
        const int64_t q = cost[i][k] + cost[k + 1][j] + rows[i] * rows[k + 1] * rows[j + 1];
        if (q < cost[i][j]) {
          cost[i][j] = q;
          plan.split[i][j] = static_cast<int64_t>(k);
        }
      }
    }
  }
  return plan;
}

// ---- Checks shared by the Tensor and Variable ops ---------------------------------

int64_t default_cross_dim(std::optional<int64_t> dim, IntArrayRef sizes) {
  if (dim) return *dim;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 3) return static_cast<int64_t>(i);
  }
  TORCHLET_CHECK(false, "no dimension of size 3 in input");
  return 0;
}

int64_t check_cross(const Tensor& a, const Tensor& b, int64_t dim) {
  check_defined("linalg.cross", a);
  check_defined("linalg.cross", b);
  TORCHLET_CHECK(a.dim() == b.dim(),
                 "linalg.cross: inputs must have the same number of dimensions.");
  TORCHLET_CHECK(a.size(dim) == 3 && b.size(dim) == 3, "linalg.cross: inputs dimension ", dim,
                 " must have length 3. Got ", a.size(dim), " and ", b.size(dim));
  TORCHLET_CHECK(a.dtype() == b.dtype(), "linalg.cross: expected scalar type ",
                 scalar_type_name(a.dtype()), " but found ", scalar_type_name(b.dtype()));
  check_same_device("linalg.cross", a, b);
  return wrap_dim(dim, a.dim(), "linalg.cross");
}

void check_vecdot(const Tensor& x, const Tensor& y) {
  check_defined("linalg.vecdot", x);
  check_defined("linalg.vecdot", y);
  TORCHLET_CHECK(x.is_floating_point(), "linalg.vecdot: Expected a floating point or complex "
                 "tensor as input. Got ", scalar_type_name(x.dtype()));
  TORCHLET_CHECK(x.dtype() == y.dtype(), "linalg.vecdot: Expected x and y to have the same "
                 "dtype, but found x of type ", scalar_type_name(x.dtype()), " and y of type ",
                 scalar_type_name(y.dtype()), " instead");
}

namespace {

void check_floating_input(const char* op, const Tensor& t) {
  check_defined(op, t);
  TORCHLET_CHECK(t.is_floating_point(), op, ": Expected a floating point or complex tensor as "
                 "input. Got ", scalar_type_name(t.dtype()));
}

// PyTorch's check_linalg_norm_dtype.
void check_norm_dtype(const char* op, std::optional<DType> dtype, DType input) {
  if (!dtype) return;
  TORCHLET_CHECK(is_floating_point(*dtype), op, ": dtype should be floating point or complex, "
                 "but got ", scalar_type_name(*dtype));
  TORCHLET_CHECK(promote_types(input, *dtype) == *dtype, op, ": the dtype of the input (",
                 scalar_type_name(input), ") should be convertible without narrowing to the "
                 "specified dtype (", scalar_type_name(*dtype), ")");
}

}  // namespace

void check_vector_norm(const Tensor& x, double ord, IntArrayRef dim,
                       std::optional<DType> dtype) {
  check_floating_input("linalg.vector_norm", x);
  check_norm_dtype("linalg.vector_norm", dtype, x.dtype());
  if (x.numel() == 0 && (ord < 0 || ord == std::numeric_limits<double>::infinity())) {
    TORCHLET_CHECK(!dim.empty(), "linalg.vector_norm cannot compute the ", ord, " norm on an "
                   "empty tensor because the operation does not have an identity");
    for (int64_t d : dim) {
      TORCHLET_CHECK(x.size(d) != 0, "linalg.vector_norm cannot compute the ", ord,
                     " norm on the dimension ", d, "because this dimension is empty and the "
                     "operation does not have an identity");
    }
  }
}

SizeVec matrix_last_permutation(int64_t ndim, int64_t d0, int64_t d1) {
  SizeVec permutation;
  for (int64_t d = 0; d < ndim; ++d) {
    if (d != d0 && d != d1) permutation.push_back(d);
  }
  permutation.insert(permutation.end(), {d0, d1});
  return permutation;
}

std::pair<int64_t, int64_t> check_matrix_norm(const Tensor& a, IntArrayRef dim,
                                              std::optional<DType> dtype) {
  check_defined("linalg.matrix_norm", a);
  TORCHLET_CHECK(a.dim() >= 2, "linalg.matrix_norm: The input tensor A must have at least 2 "
                 "dimensions.");
  check_floating_input("linalg.matrix_norm", a);
  TORCHLET_CHECK(dim.size() == 2, "linalg.matrix_norm: dim must be a 2-tuple. Got ",
                 absl::StrJoin(dim, " "));
  const int64_t d0 = wrap_dim(dim[0], a.dim(), "linalg.matrix_norm");
  const int64_t d1 = wrap_dim(dim[1], a.dim(), "linalg.matrix_norm");
  TORCHLET_CHECK(d0 != d1, "linalg.matrix_norm: dims must be different. Got (", d0, ", ", d1,
                 ")");
  check_norm_dtype("linalg.matrix_norm", dtype, a.dtype());
  return {d0, d1};
}

void check_matrix_norm_order(double ord) {
  const double abs_ord = std::abs(ord);
  TORCHLET_CHECK(abs_ord == 2 || abs_ord == 1 || std::isinf(abs_ord),
                 "linalg.matrix_norm: Order ", ord, " not supported.");
}

void check_matrix_norm_order(const std::string& ord) {
  TORCHLET_CHECK(ord == "fro" || ord == "nuc", "linalg.matrix_norm: Order ", ord,
                 " not supported.");
}

LinalgNormPlan plan_linalg_norm(const Tensor& a, bool has_ord, bool string_ord,
                                const std::optional<std::vector<int64_t>>& dim) {
  check_defined("linalg.norm", a);
  if (dim) {
    // PyTorch's own words, its typo included for a string ord.
    TORCHLET_CHECK(dim->size() == 1 || dim->size() == 2, "linalg.norm: If dim is specified, it ",
                   string_ord ? "mut" : "must", " be of length 1 or 2. Got [",
                   absl::StrJoin(*dim, ", "), "]");
  } else if (has_ord) {
    TORCHLET_CHECK(a.dim() == 1 || a.dim() == 2, "linalg.norm: If dim is not specified but ord "
                   "is, the input must be 1D or 2D. Got ", a.dim(), "D.");
  }
  LinalgNormPlan plan;
  plan.matrix = string_ord || (has_ord && ((dim && dim->size() == 2) || (!dim && a.dim() == 2)));
  if (dim) {
    plan.dim.assign(dim->begin(), dim->end());
  } else if (plan.matrix) {
    plan.dim = {-2, -1};
  }
  return plan;
}

}  // namespace torchlet
