#include "nn/functional/linear.h"

#include <algorithm>

#include "autograd/functions.h"

namespace torchlet::nn::functional {
namespace {

void check_bilinear(const Variable& input1, const Variable& input2, const Variable& weight,
                    const Variable& bias) {
  TORCHLET_CHECK(input1.dim() == input2.dim(), "bilinear(): input dimensions do not match: got ",
                 input1.dim(), " and ", input2.dim());
  TORCHLET_CHECK(input1.dim() >= 1, "bilinear(): expected inputs with at least one dimension");
  for (int64_t d = 0; d + 1 < input1.dim(); ++d) {
    TORCHLET_CHECK(input1.size(d) == input2.size(d),
                   "bilinear(): input batch dimensions do not match at dim ", d, ": got ",
                   input1.size(d), " and ", input2.size(d));
  }
  TORCHLET_CHECK(weight.dim() == 3, "bilinear(): expected a 3-D weight [out, in1, in2], got ",
                 shape_str(weight.sizes()));
  TORCHLET_CHECK(input1.size(-1) == weight.size(1),
                 "bilinear(): input1 size does not match weight size: got ", input1.size(-1),
                 " but expected ", weight.size(1));
  TORCHLET_CHECK(input2.size(-1) == weight.size(2),
                 "bilinear(): input2 size does not match weight size: got ", input2.size(-1),
                 " but expected ", weight.size(2));
  TORCHLET_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == weight.size(0)),
                 "bilinear(): bias size does not match weight size: got ",
                 bias.defined() && bias.dim() > 0 ? bias.size(0) : 0, " but expected ",
                 weight.size(0));
}

/// PyTorch's message for an input whose last dim is not weight's in_features,
/// naming the operands as the matrix product sees them: input flattened to
/// 2-D, and weight transposed.
void check_linear(const Variable& input, const Variable& weight) {
  if (weight.dim() != 2 || (input.dim() >= 1 && input.size(-1) == weight.size(1))) return;
  const int64_t cols = input.dim() >= 1 ? input.size(-1) : input.numel();
  const int64_t rows = input.dim() >= 1 ? input.numel() / std::max<int64_t>(cols, 1) : 1;
  TORCHLET_CHECK(false, "mat1 and mat2 shapes cannot be multiplied (", rows, "x", cols, " and ",
                 weight.size(1), "x", weight.size(0), ")");
}

/// PyTorch 1.13's CPU dtype messages: addmm's where it takes that path (a
/// 2-D input, or a contiguous 3-D one, with a bias), else matmul's.
void check_linear_dtypes(const Variable& input, const Variable& weight, const Variable& bias) {
  if (input.data().is_cuda()) return;
  const bool addmm = bias.defined() && (input.dim() == 2 ||
                                        (input.dim() == 3 && input.data().is_contiguous()));
  if (addmm) {
    TORCHLET_CHECK(bias.dtype() == weight.dtype(), "self and mat2 must have the same dtype");
    TORCHLET_CHECK(input.dtype() == weight.dtype(), "mat1 and mat2 must have the same dtype");
  }
  TORCHLET_CHECK(input.dtype() == weight.dtype(), "expected scalar type ",
                 scalar_type_name(input.dtype()), " but found ", scalar_type_name(weight.dtype()));
}

}  // namespace

Variable linear(const Variable& input, const Variable& weight, const Variable& bias) {
  check_linear(input, weight);
  check_linear_dtypes(input, weight, bias);
  if (input.dim() == 2 && weight.dim() == 2 && bias.defined() && bias.dim() == 1 &&
      bias.size(0) == weight.size(0)) {
    return torchlet::linear(input, weight, bias);
  }
  const Variable out = input.matmul(weight.t());
  return bias.defined() ? out + bias : out;
}

Variable bilinear(const Variable& input1, const Variable& input2, const Variable& weight,
                  const Variable& bias) {
  check_bilinear(input1, input2, weight, bias);
  const int64_t out_features = weight.size(0), in1 = weight.size(1), in2 = weight.size(2);
  const Variable x1 = input1.reshape({-1, in1});
  const Variable x2 = input2.reshape({-1, in2});
  // x1 @ W[k] for every k at once, then the dot with x2.
  const Variable left =
      x1.mm(weight.permute({1, 0, 2}).reshape({in1, out_features * in2})).view({-1, out_features, in2});
  Variable out = (left * x2.unsqueeze(1)).sum({2});
  if (bias.defined()) out = out + bias;
  SizeVec shape(input1.sizes().begin(), input1.sizes().end());
  shape.back() = out_features;
  return out.view(shape);
}

}  // namespace torchlet::nn::functional
