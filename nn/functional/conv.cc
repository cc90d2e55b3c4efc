#include "nn/functional/conv.h"

#include <string>

#include "autograd/conv_ops.h"
#include "tensor/error.h"

namespace torchlet::nn::functional {
namespace {

// One number repeated for every spatial dim; otherwise as given (the tensor
// op checks the count with PyTorch's message).
SizeVec expand(IntArrayRef values, int64_t spatial) {
  if (values.size() == 1) return SizeVec(static_cast<size_t>(spatial), values[0]);
  return SizeVec(values.begin(), values.end());
}

// A batch of one for unbatched input, with PyTorch's check of the rank.
Variable batched(const Variable& input, int64_t spatial, const char* op) {
  TORCHLET_CHECK(input.dim() == spatial + 1 || input.dim() == spatial + 2, "Expected ",
                 spatial + 1, "D (unbatched) or ", spatial + 2, "D (batched) input to ", op,
                 ", but got input of size: ", shape_str(input.sizes()));
  return input.dim() == spatial + 1 ? input.unsqueeze(0) : input;
}

Variable unbatched_like(const Variable& output, const Variable& input, int64_t spatial) {
  return input.dim() == spatial + 1 ? output.squeeze(0) : output;
}

// Note [padding='same']
// The total padding of dim d is dilation * (kernel - 1); PyTorch puts half
// on the left and the rest (one more, when odd) on the right. Padding both
// sides with the right's amount gives the same output plus one extra first
// element in each odd dim, which is cut off: no padded copy of the input.
Variable conv_same(const Variable& input, const Variable& weight, const Variable& bias,
                   ConvParams params) {
  const int64_t spatial = weight.dim() - 2;
  SizeVec extra;
  for (int64_t d = 0; d < spatial; ++d) {
    const int64_t total = params.dilation[d] * (weight.size(d + 2) - 1);
    params.padding.push_back(total - total / 2);
    extra.push_back(total % 2);
  }
  Variable out = convolution(input, weight, bias, params);
  for (int64_t d = 0; d < spatial; ++d) {
    if (extra[d] != 0) out = out.narrow(d + 2, extra[d], out.size(d + 2) - extra[d]);
  }
  return out;
}

Variable conv_nd(const Variable& input, const Variable& weight, const Variable& bias,
                 IntArrayRef stride, const ConvPadding& padding, IntArrayRef dilation,
                 int64_t groups, int64_t spatial, const char* op) {
  const Variable x = batched(input, spatial, op);
  ConvParams params;
  params.stride = expand(stride, spatial);
  params.dilation = expand(dilation, spatial);
  params.groups = groups;
  Variable out;
  if (!padding.is_mode()) {
    params.padding = expand(padding.values(), spatial);
    out = convolution(x, weight, bias, params);
  } else if (padding.mode() == "valid") {
    params.padding = SizeVec(static_cast<size_t>(spatial), 0);
    out = convolution(x, weight, bias, params);
  } else {
    TORCHLET_CHECK(padding.mode() == "same", "Invalid padding string: '", padding.mode(), "'");
    for (int64_t s : params.stride) {
      TORCHLET_CHECK(s == 1, "padding='same' is not supported for strided convolutions");
    }
    if (static_cast<int64_t>(params.dilation.size()) != spatial || weight.dim() != spatial + 2) {
      params.padding = SizeVec(static_cast<size_t>(spatial), 0);
      out = convolution(x, weight, bias, params);  // throws PyTorch's message
    } else {
      out = conv_same(x, weight, bias, params);
    }
  }
  return unbatched_like(out, input, spatial);
}

// PyTorch's check that output_padding fits the stride or the dilation.
void check_output_padding(const ConvParams& p) {
  static const char* const kAxes[][3] = {{"width"}, {"height", "width"}, {"depth", "height", "width"}};
  const size_t spatial = p.output_padding.size();
  if (spatial == 0 || spatial > 3 || p.stride.size() != spatial || p.dilation.size() != spatial) {
    return;  // the tensor op reports the count
  }
  bool fits = true;
  for (size_t d = 0; d < spatial; ++d) {
    fits = fits && (p.output_padding[d] < p.stride[d] || p.output_padding[d] < p.dilation[d]);
  }
  if (fits) return;
  std::string message = "output padding must be smaller than either stride or dilation, but got";
  const auto list = [&](const char* what, const SizeVec& values) {
    for (size_t d = 0; d < spatial; ++d) {
      message += std::string(" ") + what + "_" + kAxes[spatial - 1][d] + ": " +
                 std::to_string(values[d]);
    }
  };
  list("output_padding", p.output_padding);
  list("stride", p.stride);
  list("dilation", p.dilation);
  TORCHLET_CHECK(false, message);
}

Variable conv_transpose_nd(const Variable& input, const Variable& weight, const Variable& bias,
                           IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                           int64_t groups, IntArrayRef dilation, int64_t spatial, const char* op) {
  const Variable x = batched(input, spatial, op);
  ConvParams params;
  params.stride = expand(stride, spatial);
  params.padding = expand(padding, spatial);
  params.dilation = expand(dilation, spatial);
  params.output_padding = expand(output_padding, spatial);
  params.groups = groups;
  params.transposed = true;
  check_output_padding(params);
  return unbatched_like(convolution(x, weight, bias, params), input, spatial);
}

}  // namespace

Variable conv1d(const Variable& input, const Variable& weight, const Variable& bias,
                IntArrayRef stride, const ConvPadding& padding, IntArrayRef dilation,
                int64_t groups) {
  return conv_nd(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d");
}

Variable conv2d(const Variable& input, const Variable& weight, const Variable& bias,
                IntArrayRef stride, const ConvPadding& padding, IntArrayRef dilation,
                int64_t groups) {
  return conv_nd(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d");
}

Variable conv3d(const Variable& input, const Variable& weight, const Variable& bias,
                IntArrayRef stride, const ConvPadding& padding, IntArrayRef dilation,
                int64_t groups) {
  return conv_nd(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d");
}

Variable conv_transpose1d(const Variable& input, const Variable& weight, const Variable& bias,
                          IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                          int64_t groups, IntArrayRef dilation) {
  return conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation,
                           1, "conv_transpose1d");
}

Variable conv_transpose2d(const Variable& input, const Variable& weight, const Variable& bias,
                          IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                          int64_t groups, IntArrayRef dilation) {
  return conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation,
                           2, "conv_transpose2d");
}

Variable conv_transpose3d(const Variable& input, const Variable& weight, const Variable& bias,
                          IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                          int64_t groups, IntArrayRef dilation) {
  return conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation,
                           3, "conv_transpose3d");
}

}  // namespace torchlet::nn::functional
