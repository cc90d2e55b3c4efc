#pragma once

#include <string>

#include "nn/data/dataset.h"

namespace torchlet::data {

/// Where Debian's `dataset-fashion-mnist` package installs Fashion-MNIST.
inline constexpr const char* kFashionMNISTRoot = "/usr/share/datasets/fashion-mnist";

/// MNIST or Fashion-MNIST (the same files, torchvision's `MNIST` and
/// `FashionMNIST`) read from `root`: `train-images-idx3-ubyte` and
/// `train-labels-idx1-ubyte` (train) or the `t10k-` pair, each plain or with
/// `.gz` (the plain one is read when both exist). data() is uint8
/// [N, 28, 28] as stored (0..255); targets() is int64 [N], as torchvision
/// returns them. Throws torchlet::Error naming the file that is missing or
/// malformed (see read_idx).
class MNIST : public TensorDataset {
 public:
  explicit MNIST(const std::string& root, bool train = true);

 private:
  explicit MNIST(Example images_and_labels);
};

/// Fashion-MNIST has MNIST's format and file names.
using FashionMNIST = MNIST;

}  // namespace torchlet::data
