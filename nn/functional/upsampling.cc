#include "nn/functional/upsampling.h"

#include <vector>

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

}  // namespace

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
