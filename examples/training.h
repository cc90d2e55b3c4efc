#pragma once

// What the Fashion-MNIST examples share: loading a normalized split, the
// progress bar, test accuracy and paths typed under `bazel run`.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "autograd/variable.h"
#include "nn/data/data.h"
#include "nn/module.h"
#include "nn/optim/optimizer.h"
#include "nn/serialize/safetensors.h"

namespace torchlet::examples {

using Clock = std::chrono::steady_clock;
using Loader = data::DataLoader<data::Example>;

/// Fashion-MNIST's mean and standard deviation over the training images
/// scaled to [0, 1] (the reference recipe's Normalize).
constexpr double kFashionMNISTMean = 0.2860;
constexpr double kFashionMNISTStd = 0.3530;

/// uint8 images as float32, scaled to [0, 1] and normalized with the mean
/// and standard deviation above: the same values as
/// `images.to(kFloat).div_(255).sub_(kFashionMNISTMean).div_(kFashionMNISTStd)`,
/// in one pass (Note [Fashion-MNIST stays uint8]).
Tensor normalize_fashion_mnist(const Tensor& images);

/// A split of Fashion-MNIST whose examples are [1, 28, 28] float images
/// scaled to [0, 1] and normalized, with int64 targets. `limit` > 0 keeps the
/// first `limit` examples. See Note [Fashion-MNIST stays uint8].
std::shared_ptr<data::Dataset<data::Example>> load_fashion_mnist(const std::string& root,
                                                                 bool train, int64_t limit = 0);

/// Under `bazel run` the program runs inside the runfiles tree; relative paths
/// the user typed mean the directory they typed them in.
std::string resolve(const std::string& path);

/// "runs/<date>-<time>": the default TensorBoard log directory.
std::string default_logdir();

double seconds_since(Clock::time_point start);

/// The percentage of `test`'s examples whose arg-max of `forward` is the
/// target, computed without gradients.
double accuracy(const std::function<Variable(const Variable&)>& forward, Loader& test);

/// Saves a training state to `path`: `model`'s state_dict under "model.",
/// `optimizer`'s under "optimizer.", and `progress` as the file's metadata.
void save_training_state(const std::string& path, const nn::Module& model,
                         const optim::Optimizer& optimizer, const SafetensorsMetadata& progress);

/// Loads what save_training_state wrote into `model` and `optimizer` and
/// returns its progress metadata.
SafetensorsMetadata load_training_state(const std::string& path, nn::Module& model,
                                        optim::Optimizer& optimizer);

/// The training pass's progress on stderr: redrawn in place on a terminal,
/// one line at the end of the epoch otherwise.
class ProgressBar {
 public:
  ProgressBar(int epoch, int64_t total);
  /// `done` of `total` batches; the mean loss, accuracy (percent) and
  /// examples seen so far this epoch.
  void update(int64_t done, double loss, double accuracy, int64_t examples, double seconds);

 private:
  int epoch_;
  int64_t total_;
  bool tty_;
};

}  // namespace torchlet::examples
