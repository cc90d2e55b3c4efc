#include "examples/lenet.h"

#include "nn/nn.h"

namespace torchlet::examples {

nn::Sequential make_lenet() {
  return nn::Sequential(
      nn::Conv2d(nn::Conv2dOptions(1, 6, 5).padding(2)), nn::ReLU(), nn::MaxPool2d(2),
      nn::Conv2d(6, 16, 5), nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(), nn::Linear(400, 120),
      nn::ReLU(), nn::Linear(120, 84), nn::ReLU(), nn::Linear(84, 10));
}

nn::Sequential make_mlp() {
  return nn::Sequential(nn::Flatten(), nn::Linear(784, 512), nn::ReLU(), nn::Linear(512, 512),
                        nn::ReLU(), nn::Linear(512, 10));
}

}  // namespace torchlet::examples
