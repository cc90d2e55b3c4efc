#pragma once

#include "nn/sequential.h"

namespace torchlet::examples {

/// LeNet-5 for 1x28x28 images, the models' reference definition (PyTorch's
/// script and the anchors build the same Sequential, so state_dict keys
/// match: "0.weight", "3.weight", "7.weight", "9.weight", "11.weight"):
/// Conv2d(1, 6, 5, padding=2)-ReLU-MaxPool2d(2)-Conv2d(6, 16, 5)-ReLU-
/// MaxPool2d(2)-Flatten-Linear(400, 120)-ReLU-Linear(120, 84)-ReLU-
/// Linear(84, 10).
nn::Sequential make_lenet();

/// The 784-512-512-10 ReLU MLP, Flatten first.
nn::Sequential make_mlp();

}  // namespace torchlet::examples
