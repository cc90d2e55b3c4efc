#include "nn/data/mnist.h"

#include <sys/stat.h>

#include "nn/data/idx.h"
#include "tensor/error.h"
#include "tensor/shape.h"

namespace torchlet::data {
namespace {

bool exists(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}

// `root/name`, or `root/name.gz` when only that exists (read_idx then names
// the missing compressed file).
std::string locate(const std::string& root, const std::string& name) {
  const std::string plain = root + "/" + name;
  return exists(plain) ? plain : plain + ".gz";
}

Tensor read_images(const std::string& path) {
  Tensor images = read_idx(path);
  TORCHLET_CHECK(images.dim() == 3 && images.dtype() == kUInt8, "MNIST: '", path,
                 "' should hold uint8 images [N, rows, cols], but holds ", images.dtype(), " ",
                 shape_str(images.sizes()));
  return images;
}

Tensor read_labels(const std::string& path, int64_t num_images) {
  Tensor labels = read_idx(path);
  TORCHLET_CHECK(labels.dim() == 1 && labels.dtype() == kUInt8, "MNIST: '", path,
                 "' should hold uint8 labels [N], but holds ", labels.dtype(), " ",
                 shape_str(labels.sizes()));
  TORCHLET_CHECK(labels.size(0) == num_images, "MNIST: '", path, "' has ", labels.size(0),
                 " labels for ", num_images, " images");
  return labels.to(kInt64);
}

Example load(const std::string& root, bool train) {
  const std::string prefix = train ? "train" : "t10k";
  Tensor images = read_images(locate(root, prefix + "-images-idx3-ubyte"));
  Tensor labels = read_labels(locate(root, prefix + "-labels-idx1-ubyte"), images.size(0));
  return {std::move(images), std::move(labels)};
}

}  // namespace

MNIST::MNIST(const std::string& root, bool train) : MNIST(load(root, train)) {}

MNIST::MNIST(Example images_and_labels)
    : TensorDataset(std::move(images_and_labels.data), std::move(images_and_labels.target)) {}

}  // namespace torchlet::data
