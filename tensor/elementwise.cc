// The op layer of elementwise operations: validation, broadcasting, type
// promotion and output allocation; the arithmetic is in cpu/.
#include "tensor/elementwise.h"

#include <optional>

#include "tensor/cpu/kernels.h"
#include "tensor/cuda/kernels.h"
#include "tensor/factories.h"
#include "tensor/op_utils.h"

namespace torchlet {
namespace {

// The kernels by the output's device.
void run_binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha) {
  if (out.is_cuda()) return cuda::binary(op, out, a, b, alpha);
  cpu::binary(op, out, a, b, alpha);
}
void run_unary(UnaryOp op, const Tensor& out, const Tensor& in) {
  if (out.is_cuda()) return cuda::unary(op, out, in);
  cpu::unary(op, out, in);
}
void run_where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  if (out.is_cuda()) return cuda::where(out, cond, a, b);
  cpu::where(out, cond, a, b);
}
void run_clamp(const Tensor& out, const Tensor& in, const Scalar* lo, const Scalar* hi) {
  if (out.is_cuda()) return cuda::clamp(out, in, lo, hi);
  cpu::clamp(out, in, lo, hi);
}

// Note [Wrapped numbers]
// A number given to a Tensor op (`t + 2`, `t * 0.5`) is what Python passes
// as a number, not a tensor, and PyTorch promotes it by its category only:
// int32 + 2 stays int32, float16 * 0.5 stays float16, while int32 + 0.5 is
// float32 (the default dtype), never float64. torchlet makes the number a
// 0-dim tensor flagged as a wrapped number (TensorImpl::is_wrapped_number)
// so that one op serves tensors and numbers. ResultTypeState ranks operands
// in three tiers, dimensioned tensors above 0-dim tensors above wrapped
// numbers; a lower tier changes the result only when its category (bool <
// integral < floating) is higher, and a floating wrapped number counts as
// the default float32 when it does. A wrapped number also never decides the
// device (it is made on the other operand's) and is exempt from the
// same-device check.
//
// A number as a 0-dim tensor, kept exact (float64 or int64) and marked so
// that promotion treats it as a Python number. It stays in host memory
// whatever the other operand's device: a GPU kernel takes it among its
// arguments (tensor/cuda/kernels.cc), so a number is never copied to a GPU
// (which would wait for the GPU's queued work).
Tensor wrap(Scalar value, std::optional<DType> as = std::nullopt) {
  const DType dtype = as ? *as
                         : value.is_floating_point() ? kFloat64
                         : value.is_integral()       ? kInt64
                                                     : kBool;
  Tensor t = scalar_tensor(value, TensorOptions(dtype));
  t.impl()->set_wrapped_number(true);
  return t;
}

// A number meeting `other` in arithmetic. Beside a floating tensor it always
// promotes to that tensor's dtype, so it is made in that dtype at once and
// the op needs no conversion.
Tensor wrap(Scalar value, const Tensor& other) {
  const DType dtype = other.dtype();
  return wrap(value, is_floating_point(dtype) ? std::optional<DType>(dtype) : std::nullopt);
}

// `t` if it has `dtype`, else a converted copy kept in `storage` (no
// reference-count traffic on the common path).
const Tensor& as_dtype(const Tensor& t, DType dtype, Tensor& storage) {
  if (t.dtype() == dtype) return t;
  storage = t.to(dtype);
  return storage;
}

// PyTorch's category rule: the higher-priority operand's dtype wins unless
// the lower one is of a higher category (bool < integral < floating).
bool higher_category(DType lower, DType than) {
  auto category = [](DType d) { return is_floating_point(d) ? 2 : d == kBool ? 0 : 1; };
  return category(lower) > category(than);
}

struct ResultTypeState {
  std::optional<DType> dims, zero_dim, wrapped;

  void add(const Tensor& t) {
    std::optional<DType>* slot = t.impl()->is_wrapped_number() ? &wrapped
                                 : t.dim() == 0                 ? &zero_dim
                                                                : &dims;
    DType d = t.dtype();
    if (t.impl()->is_wrapped_number() && is_floating_point(d)) d = kFloat32;
    *slot = *slot ? promote_types(**slot, d) : d;
  }

  static std::optional<DType> combine(std::optional<DType> higher, std::optional<DType> lower) {
    if (!higher) return lower;
    if (!lower) return higher;
    return higher_category(*lower, *higher) ? promote_types(*higher, *lower) : *higher;
  }

  DType result() const { return *combine(dims, combine(zero_dim, wrapped)); }
};

DType result_type_of(std::initializer_list<const Tensor*> tensors) {
  ResultTypeState state;
  for (const Tensor* t : tensors) state.add(*t);
  return state.result();
}

bool can_cast(DType from, DType to) {
  if (is_floating_point(from) && is_integral(to, true)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

void check_operands(const char* op, const Tensor& a, const Tensor& b) {
  check_defined(op, a);
  check_defined(op, b);
  if (!a.impl()->is_wrapped_number() && !b.impl()->is_wrapped_number()) {
    check_same_device(op, a, b);
  }
}

// kDivision: the ops whose integer inputs compute in float32 (true
// division, atan2, xlogy, copysign).
enum class Family { kArithmetic, kDivision, kComparison, kLogical };

Family family_of(BinaryOp op) {
  switch (op) {
    case BinaryOp::kDiv: case BinaryOp::kAtan2: case BinaryOp::kXlogy:
    case BinaryOp::kCopysign: return Family::kDivision;
    case BinaryOp::kEq: case BinaryOp::kNe: case BinaryOp::kLt:
    case BinaryOp::kLe: case BinaryOp::kGt: case BinaryOp::kGe: return Family::kComparison;
    case BinaryOp::kLogicalAnd: case BinaryOp::kLogicalOr: return Family::kLogical;
    default: return Family::kArithmetic;
  }
}

// The dtype the kernel computes in, given the promoted dtype.
DType compute_dtype(BinaryOp op, DType common) {
  switch (family_of(op)) {
    case Family::kDivision: return is_floating_point(common) ? common : kFloat32;
    case Family::kLogical: return kBool;
    default: return common;
  }
}

// The CPU kernel name PyTorch's errors give for the integer-division family
// (null for other ops).
const char* integer_division_kernel(BinaryOp op) {
  switch (op) {
    case BinaryOp::kFloorDivide: return "div_floor_cpu";
    case BinaryOp::kRemainder: return "remainder_cpu";
    case BinaryOp::kFmod: return "fmod_cpu";
    default: return nullptr;
  }
}

// floor_divide, remainder and fmod refuse bool, and integer division by zero.
void check_integer_division(BinaryOp op, const char* name, DType compute, const Tensor& b) {
  const char* kernel = integer_division_kernel(op);
  if (kernel == nullptr || is_floating_point(compute)) return;
  TORCHLET_CHECK(compute != kBool, name, ": \"", kernel, "\" not implemented for 'Bool'");
  TORCHLET_CHECK(!b.eq(0).any().item<bool>(), name, ": ZeroDivisionError");
}

// The kernel name PyTorch's errors give for the ops it defines on floating
// dtypes only (null for other ops).
const char* floating_only_kernel(BinaryOp op, bool cuda) {
  switch (op) {
    case BinaryOp::kHypot: return cuda ? "hypot_cuda" : "hypot_cpu";
    case BinaryOp::kLogAddExp: return cuda ? "logaddexp_cuda" : "logaddexp_cpu";
    case BinaryOp::kLogAddExp2: return cuda ? "logaddexp2_cuda" : "logaddexp2_cpu";
    case BinaryOp::kLerp: return "lerp_kernel_scalar";
    case BinaryOp::kGeluBackward: case BinaryOp::kGeluTanhBackward:
      return "GeluBackwardKernelImpl";
    default: return nullptr;
  }
}

void check_floating_only(BinaryOp op, const char* name, DType compute, bool cuda) {
  const char* kernel = floating_only_kernel(op, cuda);
  TORCHLET_CHECK(kernel == nullptr || is_floating_point(compute), name, ": \"", kernel,
                 "\" not implemented for '", scalar_type_name(compute), "'");
}

void check_binary_semantics(BinaryOp op, const char* name, DType common, const Scalar& alpha,
                            const Tensor& b) {
  if (op == BinaryOp::kSub) {
    TORCHLET_CHECK(common != kBool, name, ": Subtraction, the `-` operator, with two bool "
                   "tensors is not supported. Use the `^` or `logical_xor()` operator instead.");
  }
  if (op == BinaryOp::kAdd || op == BinaryOp::kSub) {
    TORCHLET_CHECK(!(is_integral(common, true) && alpha.is_floating_point()), name,
                   ": For integral input tensors, argument alpha must not be a floating point "
                   "number.");
  }
  if (op == BinaryOp::kPow && is_integral(common, true) && b.impl()->is_wrapped_number()) {
    TORCHLET_CHECK(b.item<int64_t>() >= 0, name,
                   ": Integers to negative integer powers are not allowed.");
  }
}

Tensor binary(BinaryOp op, const char* name, const Tensor& a, const Tensor& b, Scalar alpha = 1) {
  check_operands(name, a, b);
  const SizeVec shape = broadcast_shapes(a.sizes(), b.sizes(), name);
  const DType common = result_type_of({&a, &b});
  check_binary_semantics(op, name, common, alpha, b);
  const DType compute = compute_dtype(op, common);
  check_integer_division(op, name, compute, b);
  const Device device = a.impl()->is_wrapped_number() ? b.device() : a.device();
  check_floating_only(op, name, compute, device.is_cuda());
  const Family family = family_of(op);
  const DType out_dtype = family == Family::kComparison || family == Family::kLogical ? kBool
                                                                                       : compute;
  Tensor out = empty(shape, TensorOptions(out_dtype).device(device));
  Tensor a_converted, b_converted;  // only when a dtype differs
  run_binary(op, out, as_dtype(a, compute, a_converted), as_dtype(b, compute, b_converted),
             alpha);
  return out;
}

Tensor& binary_(BinaryOp op, const char* name, Tensor& self, const Tensor& other,
                Scalar alpha = 1) {
  check_operands(name, self, other);
  const SizeVec shape = broadcast_shapes(self.sizes(), other.sizes(), name);
  TORCHLET_CHECK(IntArrayRef(shape) == self.sizes(), name, ": output with shape ",
                 shape_str(self.sizes()), " doesn't match the broadcast shape ", shape_str(shape));
  check_no_internal_overlap(name, self);
  const DType common = result_type_of({&self, &other});
  check_binary_semantics(op, name, common, alpha, other);
  const DType compute = compute_dtype(op, common);
  TORCHLET_CHECK(can_cast(compute, self.dtype()), name, ": result type ",
                 scalar_type_name(compute), " can't be cast to the desired output type ",
                 scalar_type_name(self.dtype()));
  check_integer_division(op, name, compute, other);
  check_floating_only(op, name, compute, self.is_cuda());
  const Tensor b = unaliased_input(self, other.to(compute));
  if (compute == self.dtype()) {
    run_binary(op, self, self, b, alpha);
  } else {
    Tensor tmp = empty(shape, self.options().dtype(compute));
    run_binary(op, tmp, self.to(compute), b, alpha);
    if (self.is_cuda()) {
      cuda::copy(self, tmp);
    } else {
      cpu::copy(self, tmp);
    }
  }
  self.bump_version();
  return self;
}

// Ops that write bool whatever the input's dtype.
bool is_bool_valued(UnaryOp op) {
  switch (op) {
    case UnaryOp::kLogicalNot: case UnaryOp::kIsNan: case UnaryOp::kIsInf:
    case UnaryOp::kIsFinite: return true;
    default: return false;
  }
}

// Float-only math promotes integral inputs to float32; others keep dtype.
bool is_float_math(UnaryOp op) {
  switch (op) {
    case UnaryOp::kNeg: case UnaryOp::kAbs: case UnaryOp::kSign: case UnaryOp::kRelu:
    case UnaryOp::kLogicalNot: return false;
    default: return true;
  }
}

void check_unary_dtype(UnaryOp op, const char* name, DType dtype) {
  if (dtype != kBool) return;
  TORCHLET_CHECK(op != UnaryOp::kNeg, name, ": Negation, the `-` operator, on a bool tensor is "
                 "not supported. If you are trying to invert a mask, use the `~` or "
                 "`logical_not()` operator instead.");
  TORCHLET_CHECK(op != UnaryOp::kAbs && op != UnaryOp::kRelu, name,
                 ": not implemented for 'Bool' tensors");
}

Tensor unary(UnaryOp op, const char* name, const Tensor& t) {
  check_defined(name, t);
  check_unary_dtype(op, name, t.dtype());
  const bool boolean = is_bool_valued(op);
  const DType dtype = boolean                                       ? kBool
                      : is_float_math(op) && !t.is_floating_point() ? kFloat32
                                                                    : t.dtype();
  Tensor out = empty(t.sizes(), t.options().dtype(dtype));
  run_unary(op, out, boolean ? t : t.to(dtype));
  return out;
}

Tensor& unary_(UnaryOp op, const char* name, Tensor& t) {
  check_defined(name, t);
  check_unary_dtype(op, name, t.dtype());
  check_no_internal_overlap(name, t);
  TORCHLET_CHECK(!is_float_math(op) || t.is_floating_point(), name, ": result type Float can't "
                 "be cast to the desired output type ", scalar_type_name(t.dtype()));
  run_unary(op, t, t);
  t.bump_version();
  return t;
}

// floor, ceil, round and trunc: integers are already whole (PyTorch returns
// a copy); frac refuses them; bool is refused by all.
void check_rounding(UnaryOp op, const char* name, const Tensor& t) {
  check_defined(name, t);
  TORCHLET_CHECK(t.dtype() != kBool, name, ": \"", name, "\" not implemented for 'Bool'");
  TORCHLET_CHECK(op != UnaryOp::kFrac || t.is_floating_point(), name,
                 ": \"frac_cpu\" not implemented for '", scalar_type_name(t.dtype()), "'");
}

Tensor rounding(UnaryOp op, const char* name, const Tensor& t) {
  check_rounding(op, name, t);
  return t.is_floating_point() ? unary(op, name, t) : t.clone();
}

Tensor& rounding_(UnaryOp op, const char* name, Tensor& t) {
  check_rounding(op, name, t);
  return t.is_floating_point() ? unary_(op, name, t) : t;
}

void check_round_decimals(const char* name, const Tensor& t) {
  check_rounding(UnaryOp::kRound, name, t);
  TORCHLET_CHECK(t.is_floating_point(), name, ": \"", t.is_cuda() ? "round_cuda" : "round_cpu",
                 "\" not implemented for '",
                 scalar_type_name(t.dtype()), "'");
}

const double* bound(const std::optional<double>& value) { return value ? &*value : nullptr; }

UnaryOp gelu_op(const std::string& approximate) {
  TORCHLET_CHECK(approximate == "none" || approximate == "tanh",
                 "gelu: approximate argument must be either none or tanh, got '", approximate,
                 "'");
  return approximate == "none" ? UnaryOp::kGelu : UnaryOp::kGeluTanh;
}

// The dtype of clamp(t, min, max): bounds take part in promotion as numbers.
DType clamp_dtype(const Tensor& t, const std::optional<Scalar>& lo,
                  const std::optional<Scalar>& hi) {
  ResultTypeState state;
  state.add(t);
  for (const auto* bound : {&lo, &hi}) {
    if (*bound) state.add(wrap(**bound));
  }
  return state.result();
}

void check_clamp_args(const Tensor& t, const std::optional<Scalar>& lo,
                      const std::optional<Scalar>& hi) {
  check_defined("clamp", t);
  TORCHLET_CHECK(lo || hi, "clamp: At least one of 'min' or 'max' must not be None");
  TORCHLET_CHECK(t.dtype() != kBool, "clamp: not implemented for 'Bool' tensors");
}

Tensor where_impl(const Tensor& cond, const Tensor& a, const Tensor& b) {
  check_defined("where", cond);
  check_operands("where", a, b);
  TORCHLET_CHECK(cond.dtype() == kBool, "where: where expected condition to be a boolean tensor, "
                 "but got a tensor with dtype ", cond.dtype());
  if (!a.impl()->is_wrapped_number()) check_same_device("where", cond, a);
  if (!b.impl()->is_wrapped_number()) check_same_device("where", cond, b);
  const SizeVec shape =
      broadcast_shapes(broadcast_shapes(cond.sizes(), a.sizes(), "where"), b.sizes(), "where");
  const DType dtype = result_type_of({&a, &b});
  Tensor out = empty(shape, cond.options().dtype(dtype));
  run_where(out, cond, a.to(dtype), b.to(dtype));
  return out;
}

void check_mask(const char* op, const Tensor& t, const Tensor& mask) {
  check_defined(op, mask);
  check_same_device(op, t, mask);
  TORCHLET_CHECK(mask.dtype() == kBool, op, ": masked_fill_ only supports boolean masks, but got "
                 "mask with dtype ", mask.dtype());
}

Tensor& masked_fill_impl(Tensor& t, const Tensor& mask, const Tensor& value) {
  check_mask("masked_fill_", t, mask);
  TORCHLET_CHECK(value.dim() == 0, "masked_fill_: masked_fill_ only supports a 0-dimensional "
                 "value tensor, but got tensor with ", value.dim(), " dimension(s).");
  const SizeVec shape = broadcast_shapes(t.sizes(), mask.sizes(), "masked_fill_");
  TORCHLET_CHECK(IntArrayRef(shape) == t.sizes(), "masked_fill_: output with shape ",
                 shape_str(t.sizes()), " doesn't match the broadcast shape ", shape_str(shape));
  check_no_internal_overlap("masked_fill_", t);
  // A value in host memory (a number, or a 0-dim CPU tensor beside a GPU
  // tensor, as PyTorch allows) is read into the kernel's arguments.
  run_where(t, mask, value.device().is_cpu() ? value.to(t.dtype()) : value.to(t.device(), t.dtype()),
            t);
  t.bump_version();
  return t;
}

// The C++ type name PyTorch's dtype errors give ("float", "long int").
const char* cpp_type_name(DType dtype) {
  switch (dtype) {
    case kFloat32: return "float";
    case kFloat64: return "double";
    case kInt64: return "long int";
    case kInt32: return "int";
    case kUInt8: return "unsigned char";
    case kBool: return "bool";
    case kFloat16: return "c10::Half";
    case kBFloat16: return "c10::BFloat16";
  }
  return "unknown";
}

// lerp takes no type promotion: end (and a tensor weight) must have
// start's dtype, a floating one.
void check_lerp(const char* name, const Tensor& start, const Tensor& end, const Tensor* weight) {
  check_operands(name, start, end);
  TORCHLET_CHECK(end.dtype() == start.dtype(), name, ": expected dtype ",
                 cpp_type_name(start.dtype()), " for `end` but got dtype ",
                 cpp_type_name(end.dtype()));
  if (weight != nullptr) {
    check_operands(name, start, *weight);
    TORCHLET_CHECK(weight->dtype() == start.dtype(), name, ": expected dtype ",
                   cpp_type_name(start.dtype()), " for `weight` but got dtype ",
                   cpp_type_name(weight->dtype()));
  }
  TORCHLET_CHECK(start.is_floating_point(), name, ": \"",
                 weight != nullptr ? "lerp_kernel_tensor" : "lerp_kernel_scalar",
                 "\" not implemented for '", scalar_type_name(start.dtype()), "'");
}

// lerp with a tensor weight, composed of binary kernels: the two forms
// PyTorch's kernel picks between by |weight| < 0.5, selected by where.
Tensor lerp_tensor(const Tensor& start, const Tensor& end, const Tensor& weight) {
  const Tensor gap = end.sub(start);
  const Tensor from_start = start.add(weight.mul(gap));
  const Tensor from_end = end.sub(gap.mul(weight.neg().add(1)));
  return where(weight.abs().lt(0.5), from_start, from_end);
}

// Writes `result` (the op computed in a wider dtype) into `self`.
void store_into(const Tensor& self, const Tensor& result) {
  if (self.is_cuda()) {
    cuda::copy(self, result);
  } else {
    cpu::copy(self, result);
  }
}

// addcmul and addcdiv: the operands' checks, their broadcast shape and the
// promoted dtype of the three.
struct AddcPlan {
  SizeVec product_shape;
  SizeVec shape;
  DType dtype;
};

AddcPlan plan_addc(BinaryOp op, const char* name, const Tensor& self, const Tensor& tensor1,
                   const Tensor& tensor2) {
  check_operands(name, self, tensor1);
  check_operands(name, self, tensor2);
  if (op == BinaryOp::kDiv) {
    TORCHLET_CHECK(!(is_integral(tensor1.dtype(), true) && is_integral(tensor2.dtype(), true)),
                   name, ": Integer division with addcdiv is no longer supported, and in a "
                   "future  release addcdiv will perform a true division of tensor1 and tensor2. "
                   "The historic addcdiv behavior can be implemented as (input + value * "
                   "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
                   "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
                   "behavior is just the latter implementation: (input + value * tensor1 / "
                   "tensor2), for all dtypes.");
  }
  AddcPlan plan;
  plan.product_shape = broadcast_shapes(tensor1.sizes(), tensor2.sizes(), name);
  plan.shape = broadcast_shapes(self.sizes(), plan.product_shape, name);
  plan.dtype = result_type_of({&self, &tensor1, &tensor2});
  TORCHLET_CHECK(plan.dtype != kBool, name, ": \"", self.is_cuda() ? "addcmul_cuda" : "addcmul_cpu_out",
                 "\" not implemented for 'Bool'");
  return plan;
}

// tensor1 * tensor2 (or /) in the promoted dtype, the term addc adds.
// Integer dtypes take the value as an integer, as PyTorch's kernel does.
Tensor addc_term(BinaryOp op, const AddcPlan& plan, const Tensor& tensor1,
                 const Tensor& tensor2) {
  Tensor term = empty(plan.product_shape, tensor1.options().dtype(plan.dtype));
  Tensor a, b;
  run_binary(op, term, as_dtype(tensor1, plan.dtype, a), as_dtype(tensor2, plan.dtype, b), 1);
  return term;
}

Scalar addc_value(const AddcPlan& plan, const Scalar& value) {
  if (is_floating_point(plan.dtype)) return value;
  return Scalar(value.to<int64_t>());
}

Tensor addc(BinaryOp op, const char* name, const Tensor& self, const Tensor& tensor1,
            const Tensor& tensor2, const Scalar& value) {
  const AddcPlan plan = plan_addc(op, name, self, tensor1, tensor2);
  const Tensor term = addc_term(op, plan, tensor1, tensor2);
  Tensor out = empty(plan.shape, self.options().dtype(plan.dtype));
  Tensor converted;
  run_binary(BinaryOp::kAdd, out, as_dtype(self, plan.dtype, converted), term,
             addc_value(plan, value));
  return out;
}

Tensor& addc_(BinaryOp op, const char* name, Tensor& self, const Tensor& tensor1,
              const Tensor& tensor2, const Scalar& value) {
  const AddcPlan plan = plan_addc(op, name, self, tensor1, tensor2);
  TORCHLET_CHECK(IntArrayRef(plan.shape) == self.sizes(), name, ": output with shape ",
                 shape_str(self.sizes()), " doesn't match the broadcast shape ",
                 shape_str(plan.shape));
  check_no_internal_overlap(name, self);
  TORCHLET_CHECK(can_cast(plan.dtype, self.dtype()), name, ": result type ",
                 scalar_type_name(plan.dtype), " can't be cast to the desired output type ",
                 scalar_type_name(self.dtype()));
  const Tensor term = addc_term(op, plan, tensor1, tensor2);
  if (plan.dtype == self.dtype()) {
    run_binary(BinaryOp::kAdd, self, self, term, addc_value(plan, value));
  } else {
    Tensor result = empty(plan.shape, self.options().dtype(plan.dtype));
    run_binary(BinaryOp::kAdd, result, self.to(plan.dtype), term, addc_value(plan, value));
    store_into(self, result);
  }
  self.bump_version();
  return self;
}

}  // namespace

DType result_type(const Tensor& a, const Tensor& b) { return result_type_of({&a, &b}); }
DType result_type(const Tensor& a, Scalar b) {
  const Tensor w = wrap(b);
  return result_type_of({&a, &w});
}

Tensor add(const Tensor& a, const Tensor& b, Scalar alpha) {
  return binary(BinaryOp::kAdd, "add", a, b, alpha);
}
Tensor add(const Tensor& a, Scalar b, Scalar alpha) {
  return binary(BinaryOp::kAdd, "add", a, wrap(b, a), alpha);
}
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha) {
  return binary(BinaryOp::kSub, "sub", a, b, alpha);
}
Tensor sub(const Tensor& a, Scalar b, Scalar alpha) {
  return binary(BinaryOp::kSub, "sub", a, wrap(b, a), alpha);
}
Tensor mul(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kMul, "mul", a, b); }
Tensor mul(const Tensor& a, Scalar b) { return binary(BinaryOp::kMul, "mul", a, wrap(b, a)); }
Tensor div(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kDiv, "div", a, b); }
Tensor div(const Tensor& a, Scalar b) { return binary(BinaryOp::kDiv, "div", a, wrap(b, a)); }
Tensor pow(const Tensor& base, const Tensor& exponent) {
  return binary(BinaryOp::kPow, "pow", base, exponent);
}
Tensor pow(const Tensor& base, Scalar exponent) {
  return binary(BinaryOp::kPow, "pow", base, wrap(exponent, base));
}
Tensor pow(Scalar base, const Tensor& exponent) {
  return binary(BinaryOp::kPow, "pow", wrap(base, exponent), exponent);
}
Tensor maximum(const Tensor& a, const Tensor& b) {
  return binary(BinaryOp::kMaximum, "maximum", a, b);
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  return binary(BinaryOp::kMinimum, "minimum", a, b);
}
Tensor floor_divide(const Tensor& a, const Tensor& b) {
  return binary(BinaryOp::kFloorDivide, "floor_divide", a, b);
}
Tensor floor_divide(const Tensor& a, Scalar b) {
  return binary(BinaryOp::kFloorDivide, "floor_divide", a, wrap(b, a));
}
Tensor remainder(const Tensor& a, const Tensor& b) {
  return binary(BinaryOp::kRemainder, "remainder", a, b);
}
Tensor remainder(const Tensor& a, Scalar b) {
  return binary(BinaryOp::kRemainder, "remainder", a, wrap(b, a));
}
Tensor remainder(Scalar a, const Tensor& b) {
  return binary(BinaryOp::kRemainder, "remainder", wrap(a, b), b);
}
Tensor fmod(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kFmod, "fmod", a, b); }
Tensor fmod(const Tensor& a, Scalar b) { return binary(BinaryOp::kFmod, "fmod", a, wrap(b, a)); }
Tensor atan2(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kAtan2, "atan2", a, b); }
Tensor hypot(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kHypot, "hypot", a, b); }
Tensor logaddexp(const Tensor& a, const Tensor& b) {
  return binary(BinaryOp::kLogAddExp, "logaddexp", a, b);
}
Tensor logaddexp2(const Tensor& a, const Tensor& b) {
  return binary(BinaryOp::kLogAddExp2, "logaddexp2", a, b);
}
Tensor xlogy(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kXlogy, "xlogy", a, b); }
Tensor xlogy(const Tensor& a, Scalar b) {
  return binary(BinaryOp::kXlogy, "xlogy", a, wrap(b, a));
}
Tensor xlogy(Scalar a, const Tensor& b) {
  return binary(BinaryOp::kXlogy, "xlogy", wrap(a, b), b);
}
Tensor copysign(const Tensor& a, const Tensor& b) {
  return binary(BinaryOp::kCopysign, "copysign", a, b);
}
Tensor copysign(const Tensor& a, Scalar b) {
  return binary(BinaryOp::kCopysign, "copysign", a, wrap(b, a));
}
Tensor lerp(const Tensor& start, const Tensor& end, Scalar weight) {
  check_lerp("lerp", start, end, nullptr);
  return binary(BinaryOp::kLerp, "lerp", start, end, weight);
}
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight) {
  check_lerp("lerp", start, end, &weight);
  broadcast_shapes(broadcast_shapes(start.sizes(), end.sizes(), "lerp"), weight.sizes(), "lerp");
  return lerp_tensor(start, end, weight);
}
Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
  return addc(BinaryOp::kMul, "addcmul", self, tensor1, tensor2, value);
}
Tensor addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
  return addc(BinaryOp::kDiv, "addcdiv", self, tensor1, tensor2, value);
}

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  check_operands("isclose", a, b);
  TORCHLET_CHECK(a.dtype() == b.dtype(), "isclose: ", scalar_type_name(a.dtype()), " did not match ",
                 scalar_type_name(b.dtype()));
  TORCHLET_CHECK(rtol >= 0, "isclose: rtol must be greater than or equal to zero, but got ", rtol);
  TORCHLET_CHECK(atol >= 0, "isclose: atol must be greater than or equal to zero, but got ", atol);
  Tensor close = a.eq(b);
  if (equal_nan && a.is_floating_point()) close = close.logical_or(a.isnan().logical_and(b.isnan()));
  if (rtol == 0 && atol == 0) return close;
  // Bool operands are compared as float32 numbers; the error is taken
  // after the subtraction, in the operands' dtype.
  const Tensor x = a.dtype() == kBool ? a.to(kFloat32) : a;
  const Tensor y = b.dtype() == kBool ? b.to(kFloat32) : b;
  const Tensor allowed = y.mul(rtol).abs().add(atol);
  const Tensor actual = x.sub(y).abs();
  return close.logical_or(actual.isfinite().logical_and(actual.le(allowed)));
}
bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return isclose(a, b, rtol, atol, equal_nan).all().item<bool>();
}
bool equal(const Tensor& a, const Tensor& b) {
  check_operands("equal", a, b);
  if (!(a.sizes() == b.sizes())) return false;
  return a.eq(b).all().item<bool>();
}

Tensor gelu_backward(const Tensor& grad, const Tensor& self, const std::string& approximate) {
  TORCHLET_CHECK(approximate == "none" || approximate == "tanh",
                 "gelu_backward: approximate argument must be either none or tanh, got '",
                 approximate, "'");
  return binary(approximate == "none" ? BinaryOp::kGeluBackward : BinaryOp::kGeluTanhBackward,
                "gelu_backward", grad, self);
}

Tensor threshold_backward(const Tensor& grad, const Tensor& self, Scalar threshold) {
  return binary(BinaryOp::kThresholdBackward, "threshold_backward", grad, self, threshold);
}

#define TORCHLET_COMPARISON(name, op)                                       \
  Tensor name(const Tensor& a, const Tensor& b) {                           \
    return binary(BinaryOp::op, #name, a, b);                               \
  }                                                                         \
  Tensor name(const Tensor& a, Scalar b) {                                  \
    return binary(BinaryOp::op, #name, a, wrap(b, a));             \
  }                                                                         \
  Tensor Tensor::name(const Tensor& other) const { return torchlet::name(*this, other); } \
  Tensor Tensor::name(Scalar other) const { return torchlet::name(*this, other); }
TORCHLET_COMPARISON(eq, kEq)
TORCHLET_COMPARISON(ne, kNe)
TORCHLET_COMPARISON(lt, kLt)
TORCHLET_COMPARISON(le, kLe)
TORCHLET_COMPARISON(gt, kGt)
TORCHLET_COMPARISON(ge, kGe)
#undef TORCHLET_COMPARISON

Tensor logical_and(const Tensor& a, const Tensor& b) {
  return binary(BinaryOp::kLogicalAnd, "logical_and", a, b);
}
Tensor logical_or(const Tensor& a, const Tensor& b) {
  return binary(BinaryOp::kLogicalOr, "logical_or", a, b);
}
Tensor logical_not(const Tensor& t) { return unary(UnaryOp::kLogicalNot, "logical_not", t); }

#define TORCHLET_UNARY(name, op)                                                       \
  Tensor name(const Tensor& t) { return unary(UnaryOp::op, #name, t); }                \
  Tensor Tensor::name() const { return unary(UnaryOp::op, #name, *this); }             \
  Tensor& Tensor::name##_() { return unary_(UnaryOp::op, #name "_", *this); }
TORCHLET_UNARY(neg, kNeg)
TORCHLET_UNARY(abs, kAbs)
TORCHLET_UNARY(sign, kSign)
TORCHLET_UNARY(exp, kExp)
TORCHLET_UNARY(erf, kErf)
TORCHLET_UNARY(log, kLog)
TORCHLET_UNARY(log1p, kLog1p)
TORCHLET_UNARY(sqrt, kSqrt)
TORCHLET_UNARY(rsqrt, kRsqrt)
TORCHLET_UNARY(sin, kSin)
TORCHLET_UNARY(cos, kCos)
TORCHLET_UNARY(relu, kRelu)
TORCHLET_UNARY(sigmoid, kSigmoid)
TORCHLET_UNARY(tanh, kTanh)
TORCHLET_UNARY(sinh, kSinh)
TORCHLET_UNARY(cosh, kCosh)
TORCHLET_UNARY(asin, kAsin)
TORCHLET_UNARY(acos, kAcos)
TORCHLET_UNARY(atan, kAtan)
TORCHLET_UNARY(asinh, kAsinh)
TORCHLET_UNARY(acosh, kAcosh)
TORCHLET_UNARY(atanh, kAtanh)
TORCHLET_UNARY(expm1, kExpm1)
TORCHLET_UNARY(log2, kLog2)
TORCHLET_UNARY(log10, kLog10)
TORCHLET_UNARY(exp2, kExp2)
TORCHLET_UNARY(erfc, kErfc)
TORCHLET_UNARY(erfinv, kErfinv)
TORCHLET_UNARY(lgamma, kLgamma)
TORCHLET_UNARY(digamma, kDigamma)
#undef TORCHLET_UNARY

Tensor trigamma(const Tensor& t) { return unary(UnaryOp::kTrigamma, "trigamma", t); }

Tensor gelu(const Tensor& t, const std::string& approximate) {
  return unary(gelu_op(approximate), "gelu", t);
}

#define TORCHLET_ROUNDING(name, op)                                                   \
  Tensor name(const Tensor& t) { return rounding(UnaryOp::op, #name, t); }            \
  Tensor Tensor::name() const { return rounding(UnaryOp::op, #name, *this); }         \
  Tensor& Tensor::name##_() { return rounding_(UnaryOp::op, #name "_", *this); }
TORCHLET_ROUNDING(floor, kFloor)
TORCHLET_ROUNDING(ceil, kCeil)
TORCHLET_ROUNDING(trunc, kTrunc)
TORCHLET_ROUNDING(frac, kFrac)
#undef TORCHLET_ROUNDING

Tensor round(const Tensor& t, int64_t decimals) {
  if (decimals == 0) return rounding(UnaryOp::kRound, "round", t);
  check_round_decimals("round", t);
  Tensor out = empty_like(t);
  if (t.is_cuda()) {
    cuda::round_decimals(out, t, decimals);
  } else {
    cpu::round_decimals(out, t, decimals);
  }
  return out;
}
Tensor Tensor::round(int64_t decimals) const { return torchlet::round(*this, decimals); }
Tensor& Tensor::round_(int64_t decimals) {
  if (decimals == 0) return rounding_(UnaryOp::kRound, "round_", *this);
  check_round_decimals("round_", *this);
  check_no_internal_overlap("round_", *this);
  if (is_cuda()) {
    cuda::round_decimals(*this, *this, decimals);
  } else {
    cpu::round_decimals(*this, *this, decimals);
  }
  bump_version();
  return *this;
}

#define TORCHLET_TEST(name, op)                                                \
  Tensor name(const Tensor& t) { return unary(UnaryOp::op, #name, t); }        \
  Tensor Tensor::name() const { return unary(UnaryOp::op, #name, *this); }
TORCHLET_TEST(isnan, kIsNan)
TORCHLET_TEST(isinf, kIsInf)
TORCHLET_TEST(isfinite, kIsFinite)
#undef TORCHLET_TEST

Tensor nan_to_num(const Tensor& t, double nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  check_defined("nan_to_num", t);
  if (!t.is_floating_point()) return t.clone();
  Tensor out = empty_like(t);
  if (t.is_cuda()) {
    cuda::nan_to_num(out, t, nan, bound(posinf), bound(neginf));
  } else {
    cpu::nan_to_num(out, t, nan, bound(posinf), bound(neginf));
  }
  return out;
}
Tensor Tensor::nan_to_num(double nan, std::optional<double> posinf,
                          std::optional<double> neginf) const {
  return torchlet::nan_to_num(*this, nan, posinf, neginf);
}
Tensor& Tensor::nan_to_num_(double nan, std::optional<double> posinf,
                            std::optional<double> neginf) {
  check_defined("nan_to_num_", *this);
  if (!is_floating_point()) return *this;
  check_no_internal_overlap("nan_to_num_", *this);
  if (is_cuda()) {
    cuda::nan_to_num(*this, *this, nan, bound(posinf), bound(neginf));
  } else {
    cpu::nan_to_num(*this, *this, nan, bound(posinf), bound(neginf));
  }
  bump_version();
  return *this;
}

Tensor clamp(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max) {
  check_clamp_args(t, min, max);
  const DType dtype = clamp_dtype(t, min, max);
  Tensor out = empty(t.sizes(), t.options().dtype(dtype));
  run_clamp(out, t.to(dtype), min ? &*min : nullptr, max ? &*max : nullptr);
  return out;
}

Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
  return where_impl(condition, a, b);
}
Tensor where(const Tensor& condition, const Tensor& a, Scalar b) {
  return where_impl(condition, a, wrap(b));
}
Tensor where(const Tensor& condition, Scalar a, const Tensor& b) {
  return where_impl(condition, wrap(a), b);
}

Tensor masked_fill(const Tensor& t, const Tensor& mask, Scalar value) {
  return t.masked_fill(mask, value);
}
Tensor masked_fill(const Tensor& t, const Tensor& mask, const Tensor& value) {
  return t.masked_fill(mask, value);
}

// ---- Tensor methods -------------------------------------------------------------

Tensor Tensor::add(const Tensor& other, Scalar alpha) const { return torchlet::add(*this, other, alpha); }
Tensor Tensor::add(Scalar other, Scalar alpha) const { return torchlet::add(*this, other, alpha); }
Tensor Tensor::sub(const Tensor& other, Scalar alpha) const { return torchlet::sub(*this, other, alpha); }
Tensor Tensor::sub(Scalar other, Scalar alpha) const { return torchlet::sub(*this, other, alpha); }
Tensor Tensor::mul(const Tensor& other) const { return torchlet::mul(*this, other); }
Tensor Tensor::mul(Scalar other) const { return torchlet::mul(*this, other); }
Tensor Tensor::div(const Tensor& other) const { return torchlet::div(*this, other); }
Tensor Tensor::div(Scalar other) const { return torchlet::div(*this, other); }
Tensor Tensor::pow(const Tensor& exponent) const { return torchlet::pow(*this, exponent); }
Tensor Tensor::pow(Scalar exponent) const { return torchlet::pow(*this, exponent); }
Tensor Tensor::maximum(const Tensor& other) const { return torchlet::maximum(*this, other); }
Tensor Tensor::minimum(const Tensor& other) const { return torchlet::minimum(*this, other); }

Tensor Tensor::floor_divide(const Tensor& other) const {
  return torchlet::floor_divide(*this, other);
}
Tensor Tensor::floor_divide(Scalar other) const { return torchlet::floor_divide(*this, other); }
Tensor Tensor::remainder(const Tensor& other) const { return torchlet::remainder(*this, other); }
Tensor Tensor::remainder(Scalar other) const { return torchlet::remainder(*this, other); }
Tensor Tensor::fmod(const Tensor& other) const { return torchlet::fmod(*this, other); }
Tensor Tensor::fmod(Scalar other) const { return torchlet::fmod(*this, other); }
Tensor Tensor::atan2(const Tensor& other) const { return torchlet::atan2(*this, other); }
Tensor& Tensor::floor_divide_(const Tensor& other) {
  return binary_(BinaryOp::kFloorDivide, "floor_divide_", *this, other);
}
Tensor& Tensor::floor_divide_(Scalar other) {
  return binary_(BinaryOp::kFloorDivide, "floor_divide_", *this, wrap(other, *this));
}
Tensor& Tensor::remainder_(const Tensor& other) {
  return binary_(BinaryOp::kRemainder, "remainder_", *this, other);
}
Tensor& Tensor::remainder_(Scalar other) {
  return binary_(BinaryOp::kRemainder, "remainder_", *this, wrap(other, *this));
}
Tensor& Tensor::fmod_(const Tensor& other) { return binary_(BinaryOp::kFmod, "fmod_", *this, other); }
Tensor& Tensor::fmod_(Scalar other) {
  return binary_(BinaryOp::kFmod, "fmod_", *this, wrap(other, *this));
}
Tensor& Tensor::atan2_(const Tensor& other) {
  return binary_(BinaryOp::kAtan2, "atan2_", *this, other);
}
Tensor Tensor::hypot(const Tensor& other) const { return torchlet::hypot(*this, other); }
Tensor& Tensor::hypot_(const Tensor& other) {
  return binary_(BinaryOp::kHypot, "hypot_", *this, other);
}
Tensor Tensor::logaddexp(const Tensor& other) const { return torchlet::logaddexp(*this, other); }
Tensor Tensor::logaddexp2(const Tensor& other) const {
  return torchlet::logaddexp2(*this, other);
}
Tensor Tensor::xlogy(const Tensor& other) const { return torchlet::xlogy(*this, other); }
Tensor Tensor::xlogy(Scalar other) const { return torchlet::xlogy(*this, other); }
Tensor& Tensor::xlogy_(const Tensor& other) {
  return binary_(BinaryOp::kXlogy, "xlogy_", *this, other);
}
Tensor& Tensor::xlogy_(Scalar other) {
  return binary_(BinaryOp::kXlogy, "xlogy_", *this, wrap(other, *this));
}
Tensor Tensor::copysign(const Tensor& other) const { return torchlet::copysign(*this, other); }
Tensor Tensor::copysign(Scalar other) const { return torchlet::copysign(*this, other); }
Tensor& Tensor::copysign_(const Tensor& other) {
  return binary_(BinaryOp::kCopysign, "copysign_", *this, other);
}
Tensor& Tensor::copysign_(Scalar other) {
  return binary_(BinaryOp::kCopysign, "copysign_", *this, wrap(other, *this));
}
Tensor Tensor::lerp(const Tensor& end, Scalar weight) const {
  return torchlet::lerp(*this, end, weight);
}
Tensor Tensor::lerp(const Tensor& end, const Tensor& weight) const {
  return torchlet::lerp(*this, end, weight);
}
Tensor& Tensor::lerp_(const Tensor& end, Scalar weight) {
  check_lerp("lerp_", *this, end, nullptr);
  return binary_(BinaryOp::kLerp, "lerp_", *this, end, weight);
}
Tensor& Tensor::lerp_(const Tensor& end, const Tensor& weight) {
  check_lerp("lerp_", *this, end, &weight);
  const SizeVec shape = broadcast_shapes(
      broadcast_shapes(sizes(), end.sizes(), "lerp_"), weight.sizes(), "lerp_");
  TORCHLET_CHECK(IntArrayRef(shape) == sizes(), "lerp_: output with shape ", shape_str(sizes()),
                 " doesn't match the broadcast shape ", shape_str(shape));
  check_no_internal_overlap("lerp_", *this);
  store_into(*this, lerp_tensor(*this, end, weight));
  bump_version();
  return *this;
}
Tensor Tensor::addcmul(const Tensor& tensor1, const Tensor& tensor2, Scalar value) const {
  return torchlet::addcmul(*this, tensor1, tensor2, value);
}
Tensor& Tensor::addcmul_(const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
  return addc_(BinaryOp::kMul, "addcmul_", *this, tensor1, tensor2, value);
}
Tensor Tensor::addcdiv(const Tensor& tensor1, const Tensor& tensor2, Scalar value) const {
  return torchlet::addcdiv(*this, tensor1, tensor2, value);
}
Tensor& Tensor::addcdiv_(const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
  return addc_(BinaryOp::kDiv, "addcdiv_", *this, tensor1, tensor2, value);
}
Tensor Tensor::isclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return torchlet::isclose(*this, other, rtol, atol, equal_nan);
}
bool Tensor::allclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return torchlet::allclose(*this, other, rtol, atol, equal_nan);
}
bool Tensor::equal(const Tensor& other) const { return torchlet::equal(*this, other); }

Tensor& Tensor::add_(const Tensor& other, Scalar alpha) {
  return binary_(BinaryOp::kAdd, "add_", *this, other, alpha);
}
Tensor& Tensor::add_(Scalar other, Scalar alpha) {
  return binary_(BinaryOp::kAdd, "add_", *this, wrap(other, *this), alpha);
}
Tensor& Tensor::sub_(const Tensor& other, Scalar alpha) {
  return binary_(BinaryOp::kSub, "sub_", *this, other, alpha);
}
Tensor& Tensor::sub_(Scalar other, Scalar alpha) {
  return binary_(BinaryOp::kSub, "sub_", *this, wrap(other, *this), alpha);
}
Tensor& Tensor::mul_(const Tensor& other) { return binary_(BinaryOp::kMul, "mul_", *this, other); }
Tensor& Tensor::mul_(Scalar other) {
  return binary_(BinaryOp::kMul, "mul_", *this, wrap(other, *this));
}
Tensor& Tensor::div_(const Tensor& other) { return binary_(BinaryOp::kDiv, "div_", *this, other); }
Tensor& Tensor::div_(Scalar other) {
  return binary_(BinaryOp::kDiv, "div_", *this, wrap(other, *this));
}
Tensor& Tensor::pow_(const Tensor& exponent) {
  return binary_(BinaryOp::kPow, "pow_", *this, exponent);
}
Tensor& Tensor::pow_(Scalar exponent) {
  return binary_(BinaryOp::kPow, "pow_", *this, wrap(exponent, *this));
}

Tensor Tensor::gelu(const std::string& approximate) const {
  return torchlet::gelu(*this, approximate);
}
Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return torchlet::clamp(*this, min, max);
}
Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) {
  check_clamp_args(*this, min, max);
  check_no_internal_overlap("clamp_", *this);
  const DType dtype = clamp_dtype(*this, min, max);
  TORCHLET_CHECK(can_cast(dtype, this->dtype()), "clamp_: result type ",
                 scalar_type_name(dtype), " can't be cast to the desired output type ",
                 scalar_type_name(this->dtype()));
  run_clamp(*this, *this, min ? &*min : nullptr, max ? &*max : nullptr);
  bump_version();
  return *this;
}

Tensor Tensor::logical_and(const Tensor& other) const { return torchlet::logical_and(*this, other); }
Tensor Tensor::logical_or(const Tensor& other) const { return torchlet::logical_or(*this, other); }
Tensor Tensor::logical_not() const { return torchlet::logical_not(*this); }
Tensor Tensor::where(const Tensor& condition, const Tensor& other) const {
  return torchlet::where(condition, *this, other);
}

Tensor Tensor::masked_fill(const Tensor& mask, Scalar value) const {
  return masked_fill(mask, wrap(value));
}
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  check_defined("masked_fill", *this);
  check_mask("masked_fill", *this, mask);
  const SizeVec shape = broadcast_shapes(sizes(), mask.sizes(), "masked_fill");
  Tensor out = expand(shape).clone();
  return masked_fill_impl(out, mask, value);
}
Tensor& Tensor::masked_fill_(const Tensor& mask, Scalar value) {
  return masked_fill_impl(*this, mask, wrap(value));
}
Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) {
  return masked_fill_impl(*this, mask, value);
}

// ---- Operators ---------------------------------------------------------------------

Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator+(const Tensor& a, Scalar b) { return add(a, b); }
Tensor operator-(const Tensor& a, Scalar b) { return sub(a, b); }
Tensor operator*(const Tensor& a, Scalar b) { return mul(a, b); }
Tensor operator/(const Tensor& a, Scalar b) { return div(a, b); }
Tensor operator+(Scalar a, const Tensor& b) { return add(b, a); }
Tensor operator-(Scalar a, const Tensor& b) { return sub(wrap(a, b), b); }
Tensor operator*(Scalar a, const Tensor& b) { return mul(b, a); }
Tensor operator/(Scalar a, const Tensor& b) { return div(wrap(a, b), b); }
Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }
Tensor& operator+=(Tensor& a, Scalar b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, Scalar b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, Scalar b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, Scalar b) { return a.div_(b); }
Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor operator==(const Tensor& a, Scalar b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, Scalar b) { return ne(a, b); }
Tensor operator<(const Tensor& a, Scalar b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, Scalar b) { return le(a, b); }
Tensor operator>(const Tensor& a, Scalar b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, Scalar b) { return ge(a, b); }

}  // namespace torchlet
