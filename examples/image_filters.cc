#include "examples/image_filters.h"

#include "autograd/grad_mode.h"
#include "nn/nn.h"
#include "tensor/error.h"

namespace torchlet::examples {
namespace {

void check_image(const Tensor& image, const char* filter) {
  TORCHLET_CHECK(image.dim() == 4 && image.size(0) == 1, filter,
                 ": expected a [1, C, H, W] image, got shape ", shape_str(image.sizes()));
}

}  // namespace

Tensor sharpen(const Tensor& image) {
  check_image(image, "sharpen");
  NoGradGuard no_grad;
  nn::Conv2d conv(nn::Conv2dOptions(1, 1, 3).bias(false));
  Tensor kernel = full({3, 3}, -1.0 / 9);
  kernel.select(0, 1).select(0, 1).fill_(1);
  conv->weight.set_data(kernel.view({1, 1, 3, 3}));
  // Each channel is an image of its own: channels become the batch.
  const int64_t channels = image.size(1), height = image.size(2), width = image.size(3);
  const Variable out = conv(Variable(image.reshape({channels, 1, height, width})));
  return out.data().reshape({1, channels, out.data().size(2), out.data().size(3)});
}

Tensor average_pool(const Tensor& image) {
  check_image(image, "average_pool");
  NoGradGuard no_grad;
  nn::AvgPool2d pool(nn::AvgPool2dOptions(2).stride(2));
  return pool(Variable(image)).data();
}

Tensor max_pool(const Tensor& image) {
  check_image(image, "max_pool");
  NoGradGuard no_grad;
  nn::MaxPool2d pool(2);
  return pool(Variable(image)).data();
}

}  // namespace torchlet::examples
