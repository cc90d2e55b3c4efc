#pragma once

// Convolution layers: Conv1d/2d/3d and ConvTranspose1d/2d/3d
// (torch.nn.Conv2d, ...), with libtorch-style options.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "nn/cloneable.h"
#include "nn/expanding_array.h"
#include "nn/functional/conv.h"
#include "nn/module_holder.h"

namespace torchlet::nn {

/// The options of a D-dimensional convolution layer, plain or transposed
/// (libtorch's ConvOptions and ConvTransposeOptions): required in_channels,
/// out_channels and kernel_size; setters for the rest, PyTorch's defaults.
template <size_t D>
struct ConvOptions {
  ConvOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  ConvOptions& stride(ExpandingArray<D> v) { stride_ = v; return *this; }
  /// Numbers, or "valid" / "same" (plain convolutions only).
  ConvOptions& padding(functional::ConvPadding v) { padding_ = std::move(v); return *this; }
  /// Transposed convolutions only.
  ConvOptions& output_padding(ExpandingArray<D> v) { output_padding_ = v; return *this; }
  ConvOptions& dilation(ExpandingArray<D> v) { dilation_ = v; return *this; }
  ConvOptions& groups(int64_t v) { groups_ = v; return *this; }
  ConvOptions& bias(bool v) { bias_ = v; return *this; }
  /// "zeros", "reflect", "replicate" or "circular".
  ConvOptions& padding_mode(std::string v) { padding_mode_ = std::move(v); return *this; }

  int64_t in_channels_;
  int64_t out_channels_;
  ExpandingArray<D> kernel_size_;
  ExpandingArray<D> stride_ = 1;
  functional::ConvPadding padding_ = 0;
  ExpandingArray<D> output_padding_ = 0;
  ExpandingArray<D> dilation_ = 1;
  int64_t groups_ = 1;
  bool bias_ = true;
  std::string padding_mode_ = "zeros";
};

using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;
using ConvTranspose1dOptions = ConvOptions<1>;
using ConvTranspose2dOptions = ConvOptions<2>;
using ConvTranspose3dOptions = ConvOptions<3>;

/// What Conv1d..ConvTranspose3d share (PyTorch's _ConvNd): the checks of
/// the options, the parameters and their initialization, and the repr.
/// Weight [out, in / groups, *kernel] ([in, out / groups, *kernel] when
/// transposed) and bias [out] start as PyTorch's: kaiming_uniform_(a =
/// sqrt(5)) and uniform on ±1/sqrt(fan_in).
template <size_t D, typename Derived>
class ConvNdImpl : public Cloneable<Derived> {
 public:
  void reset() override;
  /// Draws new weights and bias (PyTorch's reset_parameters).
  void reset_parameters();
  std::string extra_repr() const override;
  const ConvOptions<D>& options() const { return options_; }

  Parameter weight;
  /// Undefined when constructed with bias(false).
  Parameter bias;

 protected:
  ConvNdImpl(ConvOptions<D> options, bool transposed);
  /// The parameters of the convolution the layer computes (padding as
  /// numbers; "same" and "valid" are resolved by forward).
  ConvOptions<D> options_;
  bool transposed_;
};

/// A convolution layer over D spatial dims (torch.nn.Conv1d/2d/3d); a
/// padding_mode other than "zeros" pads the input with F.pad first.
template <size_t D, typename Derived>
class ConvImpl : public ConvNdImpl<D, Derived> {
 public:
  explicit ConvImpl(ConvOptions<D> options) : ConvNdImpl<D, Derived>(std::move(options), false) {}
  ConvImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : ConvImpl(ConvOptions<D>(in_channels, out_channels, kernel_size)) {}
  /// input [N, C_in, *spatial] or [C_in, *spatial].
  Variable forward(const Variable& input);
};

/// A transposed convolution layer (torch.nn.ConvTranspose1d/2d/3d).
template <size_t D, typename Derived>
class ConvTransposeImpl : public ConvNdImpl<D, Derived> {
 public:
  explicit ConvTransposeImpl(ConvOptions<D> options)
      : ConvNdImpl<D, Derived>(std::move(options), true) {}
  ConvTransposeImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : ConvTransposeImpl(ConvOptions<D>(in_channels, out_channels, kernel_size)) {}
  /// input [N, C_in, *spatial] or [C_in, *spatial].
  Variable forward(const Variable& input);
  /// The same with the output_padding that makes the output's spatial size
  /// output_size (its spatial sizes, or the whole shape with the batch and
  /// channel dims, which are ignored), as PyTorch's forward(input,
  /// output_size): each must lie within [min, min + stride - 1], min being
  /// the size without output padding.
  Variable forward(const Variable& input, const std::vector<int64_t>& output_size);
};

#define TORCHLET_CONV_LAYER(Name, Base, D)            \
  class Name##Impl : public Base<D, Name##Impl> {     \
   public:                                            \
    using Base<D, Name##Impl>::Base;                  \
  };                                                  \
  TORCHLET_MODULE(Name)

/// torch.nn.Conv1d: input [N, C_in, L].
TORCHLET_CONV_LAYER(Conv1d, ConvImpl, 1);
/// torch.nn.Conv2d: input [N, C_in, H, W].
TORCHLET_CONV_LAYER(Conv2d, ConvImpl, 2);
/// torch.nn.Conv3d: input [N, C_in, D, H, W].
TORCHLET_CONV_LAYER(Conv3d, ConvImpl, 3);
/// torch.nn.ConvTranspose1d.
TORCHLET_CONV_LAYER(ConvTranspose1d, ConvTransposeImpl, 1);
/// torch.nn.ConvTranspose2d.
TORCHLET_CONV_LAYER(ConvTranspose2d, ConvTransposeImpl, 2);
/// torch.nn.ConvTranspose3d.
TORCHLET_CONV_LAYER(ConvTranspose3d, ConvTransposeImpl, 3);

#undef TORCHLET_CONV_LAYER

}  // namespace torchlet::nn
