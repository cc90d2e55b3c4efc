#include "nn/functional/upsampling.h"

#include <cmath>
#include <string>
#include <vector>

#include "autograd/pool_ops.h"
#include "nn/functional/pooling.h"
#include "nn/repr.h"

namespace torchlet::nn::functional {
namespace {

// input's leading (batch) dims, before the last three.
SizeVec batch_dims(const Variable& input) {
  return SizeVec(input.sizes().begin(), input.sizes().end() - 3);
}

// The permutation that applies `tail` to the last dims after `lead` dims.
std::vector<int64_t> permutation(int64_t lead, std::initializer_list<int64_t> tail) {
  std::vector<int64_t> order;
  for (int64_t d = 0; d < lead; ++d) order.push_back(d);
  for (int64_t d : tail) order.push_back(lead + d);
  return order;
}

SizeVec with_batch(const SizeVec& batch, std::initializer_list<int64_t> tail) {
  SizeVec shape = batch;
  shape.insert(shape.end(), tail.begin(), tail.end());
  return shape;
}

// Python's text of a sequence: "(2, 2, 2)" as a tuple, "[4, 4]" as a list.
template <typename T, typename Format>
std::string sequence(const std::vector<T>& values, bool tuple, Format format) {
  std::string text = tuple ? "(" : "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + format(values[i]);
  return text + (tuple ? (values.size() == 1 ? ",)" : ")") : "]");
}

std::string int_text(int64_t v) { return std::to_string(v); }
std::string float_text(double v) { return nn::detail::float_repr(v); }

// One value per spatial dim, a single value standing for all.
template <typename T>
std::vector<T> per_dim(const std::vector<T>& values, int64_t dims) {
  return values.size() == 1 ? std::vector<T>(static_cast<size_t>(dims), values[0]) : values;
}

bool interpolating(InterpolateMode mode) {
  return mode != InterpolateMode::kNearest && mode != InterpolateMode::kArea &&
         mode != InterpolateMode::kNearestExact;
}

// F.interpolate's checks of align_corners, size, scale_factor and
// recompute_scale_factor, in its order and words.
void check_interpolate(const Variable& input, const InterpolateFuncOptions& o, int64_t dims) {
  TORCHLET_CHECK(interpolating(o.mode_) || !o.align_corners_,
                 "align_corners option can only be set with the interpolating modes: linear | "
                 "bilinear | bicubic | trilinear");
  const std::vector<int64_t> spatial(input.sizes().begin() + std::min<int64_t>(2, input.dim()),
                                     input.sizes().end());
  TORCHLET_CHECK(!(o.size_ && o.scale_factor_), "only one of size or scale_factor should be defined");
  TORCHLET_CHECK(o.size_ || o.scale_factor_, "either size or scale_factor should be defined");
  if (o.size_) {
    TORCHLET_CHECK(o.size_->size() == 1 || static_cast<int64_t>(o.size_->size()) == dims,
                   "Input and output must have the same number of spatial dimensions, but got "
                   "input with spatial dimensions of ",
                   sequence(spatial, false, int_text), " and output size of ",
                   sequence(*o.size_, true, int_text),
                   ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and output "
                   "size in (o1, o2, ...,oK) format.");
  } else {
    TORCHLET_CHECK(o.scale_factor_->size() == 1 ||
                       static_cast<int64_t>(o.scale_factor_->size()) == dims,
                   "Input and scale_factor must have the same number of spatial dimensions, but "
                   "got input with spatial dimensions of ",
                   sequence(spatial, false, int_text), " and scale_factor of shape ",
                   sequence(*o.scale_factor_, true, float_text),
                   ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                   "scale_factor in (s1, s2, ...,sK) format.");
  }
  TORCHLET_CHECK(!(o.recompute_scale_factor_.value_or(false) && o.size_),
                 "recompute_scale_factor is not meaningful with an explicit size.");
}

// The input rank each mode takes (0: 3-D, 4-D and 5-D), and F.interpolate's
// error for any other.
void check_rank(const Variable& input, InterpolateMode mode) {
  const int64_t rank = input.dim();
  int64_t needs = 0;
  if (mode == InterpolateMode::kLinear) needs = 3;
  if (mode == InterpolateMode::kBilinear) needs = 4;
  if (mode == InterpolateMode::kTrilinear) needs = 5;
  if (needs != 0 && rank >= 3 && rank <= 5) {
    TORCHLET_CHECK(rank == needs, "Got ", rank, "D input, but ", interpolate_mode_name(mode),
                   " mode needs ", needs, "D input");
  }
  const bool supported = rank >= 3 && rank <= 5 && (mode != InterpolateMode::kBicubic || rank == 4);
  TORCHLET_CHECK(supported, "Input Error: Only 3D, 4D and 5D input Tensors supported (got ", rank,
                 "D) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                 "nearest-exact (got ",
                 interpolate_mode_name(mode), ")");
}

ResampleMode resample_mode(InterpolateMode mode) {
  switch (mode) {
    case InterpolateMode::kNearest: return ResampleMode::kNearest;
    case InterpolateMode::kNearestExact: return ResampleMode::kNearestExact;
    case InterpolateMode::kBilinear: return ResampleMode::kBilinear;
    case InterpolateMode::kBicubic: return ResampleMode::kBicubic;
    default: return ResampleMode::kLinear;
  }
}

}  // namespace

const char* interpolate_mode_name(InterpolateMode mode) {
  switch (mode) {
    case InterpolateMode::kNearest: return "nearest";
    case InterpolateMode::kLinear: return "linear";
    case InterpolateMode::kBilinear: return "bilinear";
    case InterpolateMode::kBicubic: return "bicubic";
    case InterpolateMode::kTrilinear: return "trilinear";
    case InterpolateMode::kArea: return "area";
    case InterpolateMode::kNearestExact: return "nearest-exact";
  }
  return "?";
}

Variable interpolate(const Variable& input, const InterpolateFuncOptions& options) {
  const int64_t dims = input.dim() - 2;
  check_interpolate(input, options, dims);
  check_rank(input, options.mode_);
  std::vector<double> scales(static_cast<size_t>(dims), 0.0);
  std::vector<int64_t> output_size;
  if (options.size_) {
    output_size = per_dim(*options.size_, dims);
  } else {
    const std::vector<double> factors = per_dim(*options.scale_factor_, dims);
    for (int64_t d = 0; d < dims; ++d) {
      output_size.push_back(static_cast<int64_t>(std::floor(
          static_cast<double>(input.size(d + 2)) * factors[static_cast<size_t>(d)])));
    }
    // area always maps by the sizes, as if recompute_scale_factor.
    if (!options.recompute_scale_factor_.value_or(false) &&
        options.mode_ != InterpolateMode::kArea) {
      scales = factors;
    }
  }
  if (options.mode_ == InterpolateMode::kArea) {
    if (dims == 1) return adaptive_avg_pool1d(input, IntOrTuple(output_size));
    if (dims == 2) return adaptive_avg_pool2d(input, IntOrTuple(output_size));
    return adaptive_avg_pool3d(input, IntOrTuple(output_size));
  }
  return resample(input, SizeVec(output_size.begin(), output_size.end()), scales,
                  resample_mode(options.mode_), options.align_corners_.value_or(false));
}

Variable pixel_shuffle(const Variable& input, int64_t upscale_factor) {
  TORCHLET_CHECK(input.dim() >= 3,
                 "pixel_shuffle expects input to have at least 3 dimensions, but got input with ",
                 input.dim(), " dimension(s)");
  TORCHLET_CHECK(upscale_factor > 0, "pixel_shuffle expects a positive upscale_factor, but got ",
                 upscale_factor);
  const int64_t r = upscale_factor, c = input.size(-3), h = input.size(-2), w = input.size(-1);
  TORCHLET_CHECK(c % (r * r) == 0,
                 "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
                 "square of upscale_factor, but input.size(-3)=",
                 c, " is not divisible by ", r * r);
  const SizeVec batch = batch_dims(input);
  const int64_t lead = static_cast<int64_t>(batch.size()), oc = c / (r * r);
  return input.reshape(with_batch(batch, {oc, r, r, h, w}))
      .permute(permutation(lead, {0, 3, 1, 4, 2}))
      .reshape(with_batch(batch, {oc, h * r, w * r}));
}

Variable pixel_unshuffle(const Variable& input, int64_t downscale_factor) {
  TORCHLET_CHECK(input.dim() >= 3,
                 "pixel_unshuffle expects input to have at least 3 dimensions, but got input "
                 "with ",
                 input.dim(), " dimension(s)");
  TORCHLET_CHECK(downscale_factor > 0,
                 "pixel_unshuffle expects a positive downscale_factor, but got ", downscale_factor);
  const int64_t r = downscale_factor, c = input.size(-3), h = input.size(-2), w = input.size(-1);
  TORCHLET_CHECK(h % r == 0, "pixel_unshuffle expects height to be divisible by downscale_factor, "
                 "but input.size(-2)=", h, " is not divisible by ", r);
  TORCHLET_CHECK(w % r == 0, "pixel_unshuffle expects width to be divisible by downscale_factor, "
                 "but input.size(-1)=", w, " is not divisible by ", r);
  const SizeVec batch = batch_dims(input);
  const int64_t lead = static_cast<int64_t>(batch.size());
  return input.reshape(with_batch(batch, {c, h / r, r, w / r, r}))
      .permute(permutation(lead, {0, 2, 4, 1, 3}))
      .reshape(with_batch(batch, {c * r * r, h / r, w / r}));
}

}  // namespace torchlet::nn::functional
