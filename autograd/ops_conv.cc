// Differentiable convolution.
#include "autograd/conv_ops.h"

#include <vector>

#include "autograd/op_helpers.h"

namespace torchlet {

using autograd::OpNode;

// Note [Convolution backward is convolution]
// Convolution is bilinear in input and weight, and each gradient is again a
// convolution: grad_input is the transposed convolution of grad_output with
// the weight, grad_weight is convolution_backward_weight(input,
// grad_output); for a transposed convolution the roles swap (grad_input is
// the plain convolution of grad_output, grad_weight is
// convolution_backward_weight(grad_output, input)). convolution_backward_weight
// is bilinear too, and its gradients are the convolution and the transposed
// convolution of its inputs with the weight-shaped seed. Each backward
// formula is written with these Variable ops, so it records itself under
// create_graph and gradients of any order follow (PyTorch's
// _convolution_double_backward). Without create_graph the same calls run
// the kernels directly.

namespace {

// Convolution nodes keep the convolution's parameters as their state.
using ConvNode = OpNode<ConvParams>;

// Saved-variable slots: convolution saves its input and weight,
// convolution_backward_weight its input and grad_output.
enum Saved : size_t { kInput = 0, kWeight = 1, kGradOutput = 1 };

SizeVec to_sizes(IntArrayRef s) { return SizeVec(s.begin(), s.end()); }

// im2col and col2im: the block parameters, and the size the adjoint op
// needs (im2col's input shape, col2im's output size).
struct BlockState {
  SizeVec kernel_size;
  SizeVec dilation;
  SizeVec padding;
  SizeVec stride;
  SizeVec size;
};
using BlockNode = OpNode<BlockState>;

// The parameters of the transposed convolution that maps an output of
// `output_size` of the convolution `p` (not transposed) back to an input of
// `input_size`.
ConvParams adjoint_params(const ConvParams& p, IntArrayRef input_size, IntArrayRef weight_size,
                          IntArrayRef output_size) {
  ConvParams t = p;
  t.transposed = true;
  t.output_padding.clear();
  for (size_t d = 0; d + 2 < input_size.size(); ++d) {
    const int64_t extent = p.dilation[d] * (weight_size[d + 2] - 1) + 1;
    const int64_t reached = (output_size[d + 2] - 1) * p.stride[d] - 2 * p.padding[d] + extent;
    t.output_padding.push_back(input_size[d + 2] - reached);
  }
  return t;
}

ConvParams untransposed(const ConvParams& p) {
  ConvParams c = p;
  c.transposed = false;
  c.output_padding.clear();
  return c;
}

// `v` cut to `size` in its spatial dims. A transposed convolution whose
// output_padding is not below its stride (but below its dilation) extends
// its output beyond what the plain convolution with the same parameters
// reads back, so that convolution's output is larger than the transposed
// convolution's input: the extra positions are cut.
Variable narrow_to(Variable v, IntArrayRef size) {
  for (size_t d = 2; d < size.size(); ++d) {
    const int64_t dim = static_cast<int64_t>(d);
    if (v.size(dim) != size[d]) v = v.narrow(dim, 0, size[d]);
  }
  return v;
}

Variable bias_grad(const Variable& grad_output) {
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < grad_output.dim(); ++d) dims.push_back(d);
  return grad_output.sum(dims);
}

variable_list convolution_backward(ConvNode& n, const variable_list& grads) {
  const ConvParams& p = n.state;
  const Variable& g = grads[0];
  const Variable x = n.var(kInput), w = n.var(kWeight);
  Variable gx, gw, gb;
  if (!p.transposed) {
    if (n.needs_input_grad(0)) {
      gx = convolution(g, w, Variable(), adjoint_params(p, x.sizes(), w.sizes(), g.sizes()));
    }
    if (n.needs_input_grad(1)) gw = convolution_backward_weight(x, g, w.sizes(), p);
  } else {
    if (n.needs_input_grad(0)) {
      gx = narrow_to(convolution(g, w, Variable(), untransposed(p)), x.sizes());
    }
    if (n.needs_input_grad(1)) gw = convolution_backward_weight(g, x, w.sizes(), untransposed(p));
  }
  if (n.needs_input_grad(2)) gb = bias_grad(g);
  return {gx, gw, gb};
}

variable_list convolution_backward_weight_backward(ConvNode& n, const variable_list& grads) {
  const ConvParams& p = n.state;
  const Variable& v = grads[0];
  const Variable x = n.var(kInput), gy = n.var(kGradOutput);
  Variable gx, ggy;
  if (n.needs_input_grad(0)) {
    gx = convolution(gy, v, Variable(), adjoint_params(p, x.sizes(), v.sizes(), gy.sizes()));
  }
  if (n.needs_input_grad(1)) ggy = narrow_to(convolution(x, v, Variable(), p), gy.sizes());
  return {gx, ggy};
}

void save_blocks(BlockNode& n, IntArrayRef kernel_size, IntArrayRef dilation,
                 IntArrayRef padding, IntArrayRef stride, IntArrayRef size) {
  n.state = {to_sizes(kernel_size), to_sizes(dilation), to_sizes(padding), to_sizes(stride),
             to_sizes(size)};
}

variable_list im2col_backward(BlockNode& n, const variable_list& grads) {
  const BlockState& s = n.state;
  const SizeVec& in = s.size;
  return {col2im(grads[0], {in[2], in[3]}, s.kernel_size, s.dilation, s.padding, s.stride)};
}

variable_list col2im_backward(BlockNode& n, const variable_list& grads) {
  const BlockState& s = n.state;
  return {im2col(grads[0], s.kernel_size, s.dilation, s.padding, s.stride)};
}

}  // namespace

Variable im2col(const Variable& input, IntArrayRef kernel_size, IntArrayRef dilation,
                IntArrayRef padding, IntArrayRef stride) {
  Tensor out = im2col(input.data(), kernel_size, dilation, padding, stride);
  return autograd::record("Im2ColBackward0", im2col_backward, {&input}, std::move(out),
                          [&](BlockNode& n) {
                            save_blocks(n, kernel_size, dilation, padding, stride, input.sizes());
                          });
}

Variable col2im(const Variable& columns, IntArrayRef output_size, IntArrayRef kernel_size,
                IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  Tensor out = col2im(columns.data(), output_size, kernel_size, dilation, padding, stride);
  return autograd::record("Col2ImBackward0", col2im_backward, {&columns}, std::move(out),
                          [&](BlockNode& n) {
                            save_blocks(n, kernel_size, dilation, padding, stride, output_size);
                          });
}

Variable convolution(const Variable& input, const Variable& weight, const Variable& bias,
                     const ConvParams& params) {
  Tensor out = convolution(input.data(), weight.data(), bias.defined() ? bias.data() : Tensor(),
                           params);
  return autograd::record("ConvolutionBackward0", convolution_backward,
                          {&input, &weight, &bias}, std::move(out), [&](ConvNode& n) {
                            n.saved.emplace_back(input, false);
                            n.saved.emplace_back(weight, false);
                            n.state = params;
                          });
}

Variable convolution_backward_weight(const Variable& input, const Variable& grad_output,
                                     IntArrayRef weight_size, const ConvParams& params) {
  Tensor out = convolution_backward_weight(input.data(), grad_output.data(), weight_size, params);
  return autograd::record("ConvolutionBackwardBackward0", convolution_backward_weight_backward,
                          {&input, &grad_output}, std::move(out), [&](ConvNode& n) {
                            n.saved.emplace_back(input, false);
                            n.saved.emplace_back(grad_output, false);
                            n.state = params;
                          });
}

}  // namespace torchlet
