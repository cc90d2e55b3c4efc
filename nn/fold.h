#pragma once

// torch.nn.Unfold and torch.nn.Fold: im2col and col2im with fixed
// parameters.

#include <string>

#include "nn/cloneable.h"
#include "nn/conv.h"
#include "nn/module_holder.h"

namespace torchlet::nn {

/// The options of Unfold (libtorch's UnfoldOptions): each one number or two.
struct UnfoldOptions {
  UnfoldOptions(ExpandingArray<2> kernel_size) : kernel_size_(kernel_size) {}  // NOLINT
  UnfoldOptions& dilation(ExpandingArray<2> v) { dilation_ = v; return *this; }
  UnfoldOptions& padding(ExpandingArray<2> v) { padding_ = v; return *this; }
  UnfoldOptions& stride(ExpandingArray<2> v) { stride_ = v; return *this; }

  ExpandingArray<2> kernel_size_;
  ExpandingArray<2> dilation_ = 1;
  ExpandingArray<2> padding_ = 0;
  ExpandingArray<2> stride_ = 1;
};

/// The options of Fold (libtorch's FoldOptions).
struct FoldOptions {
  FoldOptions(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : output_size_(output_size), kernel_size_(kernel_size) {}
  FoldOptions& dilation(ExpandingArray<2> v) { dilation_ = v; return *this; }
  FoldOptions& padding(ExpandingArray<2> v) { padding_ = v; return *this; }
  FoldOptions& stride(ExpandingArray<2> v) { stride_ = v; return *this; }

  ExpandingArray<2> output_size_;
  ExpandingArray<2> kernel_size_;
  ExpandingArray<2> dilation_ = 1;
  ExpandingArray<2> padding_ = 0;
  ExpandingArray<2> stride_ = 1;
};

/// Sliding blocks of [N, C, H, W] as columns [N, C * kH * kW, L]
/// (torch.nn.Unfold).
class UnfoldImpl : public Cloneable<UnfoldImpl> {
 public:
  explicit UnfoldImpl(UnfoldOptions options) : options_(options) {}
  explicit UnfoldImpl(ExpandingArray<2> kernel_size) : UnfoldImpl(UnfoldOptions(kernel_size)) {}
  void reset() override {}
  Variable forward(const Variable& input);
  std::string extra_repr() const override;
  const UnfoldOptions& options() const { return options_; }

 private:
  UnfoldOptions options_;
};
TORCHLET_MODULE(Unfold);

/// Columns [N, C * kH * kW, L] summed into [N, C, *output_size]
/// (torch.nn.Fold).
class FoldImpl : public Cloneable<FoldImpl> {
 public:
  explicit FoldImpl(FoldOptions options) : options_(options) {}
  void reset() override {}
  Variable forward(const Variable& input);
  std::string extra_repr() const override;
  const FoldOptions& options() const { return options_; }

 private:
  FoldOptions options_;
};
TORCHLET_MODULE(Fold);

}  // namespace torchlet::nn
