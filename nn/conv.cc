#include "nn/conv.h"

#include <cmath>
#include <string>

#include "nn/functional/conv.h"
#include "nn/functional/pad.h"
#include "nn/init.h"
#include "nn/repr.h"

namespace torchlet::nn {
namespace {

namespace F = functional;

bool all_equal(IntArrayRef values, int64_t v) {
  for (int64_t x : values) {
    if (x != v) return false;
  }
  return true;
}

// The layer's class name, as in PyTorch's messages.
std::string layer_name(size_t dims, bool transposed) {
  return std::string(transposed ? "ConvTranspose" : "Conv") + std::to_string(dims) + "d";
}

template <size_t D>
void check_padding(const ConvOptions<D>& o, bool transposed) {
  const F::ConvPadding& padding = o.padding_;
  if (padding.is_mode()) {
    TORCHLET_CHECK(!transposed, layer_name(D, transposed),
                   ": padding must be numbers, got padding='", padding.mode(), "'");
    TORCHLET_CHECK(padding.mode() == "valid" || padding.mode() == "same",
                   "Invalid padding string '", padding.mode(),
                   "', should be one of {'valid', 'same'}");
    TORCHLET_CHECK(padding.mode() == "valid" || all_equal(o.stride_.ref(), 1),
                   "padding='same' is not supported for strided convolutions");
    return;
  }
  TORCHLET_CHECK(padding.values().size() == 1 || padding.values().size() == D,
                 layer_name(D, transposed), ": expected padding to be a single integer value or a "
                                            "list of ", D, " values, but got padding=",
                 shape_str(padding.values()));
}

template <size_t D>
void check_options(const ConvOptions<D>& o, bool transposed) {
  TORCHLET_CHECK(o.groups_ > 0, "groups must be a positive integer");
  TORCHLET_CHECK(o.in_channels_ % o.groups_ == 0, "in_channels must be divisible by groups");
  TORCHLET_CHECK(o.out_channels_ % o.groups_ == 0, "out_channels must be divisible by groups");
  check_padding(o, transposed);
  const std::string& mode = o.padding_mode_;
  TORCHLET_CHECK(mode == "zeros" || mode == "reflect" || mode == "replicate" || mode == "circular",
                 "padding_mode must be one of {'reflect', 'circular', 'replicate', 'zeros'}, but "
                 "got padding_mode='",
                 mode, "'");
  TORCHLET_CHECK(!transposed || mode == "zeros", "Only \"zeros\" padding mode is supported for ",
                 layer_name(D, transposed));
}

template <size_t D>
SizeVec weight_shape(const ConvOptions<D>& o, bool transposed) {
  SizeVec shape = transposed ? SizeVec{o.in_channels_, o.out_channels_ / o.groups_}
                             : SizeVec{o.out_channels_, o.in_channels_ / o.groups_};
  for (size_t d = 0; d < D; ++d) shape.push_back(o.kernel_size_[d]);
  return shape;
}

// The padding as D numbers (zeros for "valid" and "same", which forward
// resolves).
template <size_t D>
SizeVec padding_values(const ConvOptions<D>& o) {
  if (o.padding_.is_mode()) return SizeVec(D, 0);
  const IntArrayRef values = o.padding_.values();
  return values.size() == 1 ? SizeVec(D, values[0]) : SizeVec(values.begin(), values.end());
}

// PyTorch's _reversed_padding_repeated_twice: F.pad's (left, right) amounts,
// last dim first, for padding_mode other than "zeros"; "same" puts the odd
// one out on the right.
template <size_t D>
SizeVec reversed_padding_repeated_twice(const ConvOptions<D>& o) {
  SizeVec pad;
  const SizeVec numbers = padding_values(o);
  for (size_t i = 0; i < D; ++i) {
    const size_t d = D - 1 - i;
    if (o.padding_.is_mode() && o.padding_.mode() == "same") {
      const int64_t total = o.dilation_[d] * (o.kernel_size_[d] - 1);
      pad.push_back(total / 2);
      pad.push_back(total - total / 2);
    } else {
      pad.push_back(numbers[d]);
      pad.push_back(numbers[d]);
    }
  }
  return pad;
}

template <size_t D>
Variable conv_nd(const Variable& input, const Variable& weight, const Variable& bias,
                 const ConvOptions<D>& o) {
  const F::ConvPadding& padding = o.padding_;
  switch (D) {
    case 1: return F::conv1d(input, weight, bias, o.stride_.ref(), padding, o.dilation_.ref(), o.groups_);
    case 2: return F::conv2d(input, weight, bias, o.stride_.ref(), padding, o.dilation_.ref(), o.groups_);
    default: return F::conv3d(input, weight, bias, o.stride_.ref(), padding, o.dilation_.ref(), o.groups_);
  }
}

template <size_t D>
Variable conv_transpose_nd(const Variable& input, const Variable& weight, const Variable& bias,
                           const ConvOptions<D>& o, IntArrayRef output_padding) {
  const SizeVec padding = padding_values(o);
  switch (D) {
    case 1:
      return F::conv_transpose1d(input, weight, bias, o.stride_.ref(), padding, output_padding,
                                 o.groups_, o.dilation_.ref());
    case 2:
      return F::conv_transpose2d(input, weight, bias, o.stride_.ref(), padding, output_padding,
                                 o.groups_, o.dilation_.ref());
    default:
      return F::conv_transpose3d(input, weight, bias, o.stride_.ref(), padding, output_padding,
                                 o.groups_, o.dilation_.ref());
  }
}

// "[6, 7]", Python's text of a list.
std::string list_text(IntArrayRef values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

// PyTorch's _ConvTransposeNd._output_padding: the output padding that gives
// the requested spatial output size, with its checks and messages.
template <size_t D>
SizeVec output_padding_for(const Variable& input, const std::vector<int64_t>& output_size,
                           const ConvOptions<D>& o) {
  const int64_t dims = static_cast<int64_t>(D);
  const int64_t non_spatial = input.dim() == dims + 2 ? 2 : 1;
  IntArrayRef requested(output_size);
  if (static_cast<int64_t>(requested.size()) == non_spatial + dims) {
    requested = requested.subspan(static_cast<size_t>(non_spatial));
  }
  TORCHLET_CHECK(static_cast<int64_t>(requested.size()) == dims, "ConvTranspose", dims, "D: for ",
                 input.dim(), "D input, output_size must have ", dims, " or ", non_spatial + dims,
                 " elements (got ", requested.size(), ")");
  const SizeVec padding = padding_values(o);
  SizeVec min_sizes, max_sizes;
  for (int64_t d = 0; d < dims; ++d) {
    const size_t i = static_cast<size_t>(d);
    min_sizes.push_back((input.size(d + non_spatial) - 1) * o.stride_.ref()[i] - 2 * padding[i] +
                        o.dilation_.ref()[i] * (o.kernel_size_.ref()[i] - 1) + 1);
    max_sizes.push_back(min_sizes[i] + o.stride_.ref()[i] - 1);
  }
  SizeVec result;
  for (size_t i = 0; i < requested.size(); ++i) {
    // PyTorch names the input's sizes from dim 2, batched or not.
    TORCHLET_CHECK(requested[i] >= min_sizes[i] && requested[i] <= max_sizes[i],
                   "requested an output size of ", list_text(requested),
                   ", but valid sizes range from ", list_text(min_sizes), " to ",
                   list_text(max_sizes), " (for an input of torch.Size(",
                   list_text(input.sizes().subspan(std::min<size_t>(2, input.sizes().size()))),
                   "))");
    result.push_back(requested[i] - min_sizes[i]);
  }
  return result;
}

}  // namespace

template <size_t D, typename Derived>
ConvNdImpl<D, Derived>::ConvNdImpl(ConvOptions<D> options, bool transposed)
    : options_(std::move(options)), transposed_(transposed) {
  check_options(options_, transposed_);
  reset();
}

template <size_t D, typename Derived>
void ConvNdImpl<D, Derived>::reset() {
  weight = this->register_parameter("weight", torchlet::empty(weight_shape(options_, transposed_)));
  const Tensor b = options_.bias_ ? torchlet::empty({options_.out_channels_}) : Tensor();
  bias = this->register_parameter("bias", b);
  reset_parameters();
}

template <size_t D, typename Derived>
void ConvNdImpl<D, Derived>::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (!bias.defined()) return;
  const int64_t fan_in = init::calculate_fan_in_and_fan_out(weight).first;
  const double bound = fan_in > 0 ? 1 / std::sqrt(static_cast<double>(fan_in)) : 0;
  init::uniform_(bias, -bound, bound);
}

template <size_t D, typename Derived>
std::string ConvNdImpl<D, Derived>::extra_repr() const {
  const ConvOptions<D>& o = options_;
  std::string s = std::to_string(o.in_channels_) + ", " + std::to_string(o.out_channels_) +
                  ", kernel_size=" + detail::tuple_repr(o.kernel_size_.ref()) +
                  ", stride=" + detail::tuple_repr(o.stride_.ref());
  if (o.padding_.is_mode()) {
    s += ", padding=" + o.padding_.mode();
  } else if (!all_equal(o.padding_.values(), 0)) {
    s += ", padding=" + detail::tuple_repr(padding_values(o));
  }
  if (!all_equal(o.dilation_.ref(), 1)) s += ", dilation=" + detail::tuple_repr(o.dilation_.ref());
  if (transposed_ && !all_equal(o.output_padding_.ref(), 0)) {
    s += ", output_padding=" + detail::tuple_repr(o.output_padding_.ref());
  }
  if (o.groups_ != 1) s += ", groups=" + std::to_string(o.groups_);
  if (!bias.defined()) s += ", bias=False";
  if (o.padding_mode_ != "zeros") s += ", padding_mode=" + o.padding_mode_;
  return s;
}

template <size_t D, typename Derived>
Variable ConvImpl<D, Derived>::forward(const Variable& input) {
  const ConvOptions<D>& o = this->options_;
  if (o.padding_mode_ == "zeros") return conv_nd(input, this->weight, this->bias, o);
  ConvOptions<D> unpadded = o;
  unpadded.padding(0);
  return conv_nd(F::pad(input, reversed_padding_repeated_twice(o), o.padding_mode_), this->weight,
                 this->bias, unpadded);
}

template <size_t D, typename Derived>
Variable ConvTransposeImpl<D, Derived>::forward(const Variable& input) {
  return conv_transpose_nd(input, this->weight, this->bias, this->options_,
                           this->options_.output_padding_.ref());
}

template <size_t D, typename Derived>
Variable ConvTransposeImpl<D, Derived>::forward(const Variable& input,
                                                const std::vector<int64_t>& output_size) {
  const SizeVec output_padding = output_padding_for(input, output_size, this->options_);
  return conv_transpose_nd(input, this->weight, this->bias, this->options_, output_padding);
}

template class ConvNdImpl<1, Conv1dImpl>;
template class ConvNdImpl<2, Conv2dImpl>;
template class ConvNdImpl<3, Conv3dImpl>;
template class ConvNdImpl<1, ConvTranspose1dImpl>;
template class ConvNdImpl<2, ConvTranspose2dImpl>;
template class ConvNdImpl<3, ConvTranspose3dImpl>;
template class ConvImpl<1, Conv1dImpl>;
template class ConvImpl<2, Conv2dImpl>;
template class ConvImpl<3, Conv3dImpl>;
template class ConvTransposeImpl<1, ConvTranspose1dImpl>;
template class ConvTransposeImpl<2, ConvTranspose2dImpl>;
template class ConvTransposeImpl<3, ConvTranspose3dImpl>;

}  // namespace torchlet::nn
