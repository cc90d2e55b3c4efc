#include "examples/training.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <utility>
#include <vector>

#include "autograd/grad_mode.h"
#include "tensor/factories.h"

namespace torchlet::examples {

namespace {

// Note [Fashion-MNIST stays uint8]
// The split is kept as read from the IDX file, one byte a pixel (47 MB for
// the training set instead of 188 MB as float32), and each batch is made
// float and normalized when it is gathered. A pixel can only take 256
// values, so the 256 results of the normalizing ops (to(kFloat), /255,
// -mean, /std, in that order) are computed once through those very ops, and
// a batch is normalized by looking its pixels up: every value, and hence
// training, is bit-identical to normalizing the split up front, and a batch
// of 64 takes one pass instead of four, two of them divisions: 15 us
// instead of 28.
class NormalizedImages : public data::Dataset<data::Example> {
 public:
  explicit NormalizedImages(data::TensorDataset raw) : raw_(std::move(raw)) {}

  int64_t size() const override { return raw_.size(); }
  data::Example get(int64_t index) const override { return normalized(raw_.get(index)); }
  std::optional<data::Example> get_batch(const std::vector<int64_t>& indices) const override {
    return normalized(*raw_.get_batch(indices));
  }

 private:
  static data::Example normalized(data::Example example) {
    example.data = normalize_fashion_mnist(example.data);
    return example;
  }

  data::TensorDataset raw_;
};

}  // namespace

Tensor normalize_fashion_mnist(const Tensor& images) {
  TORCHLET_CHECK(images.dtype() == kUInt8, "normalize_fashion_mnist: expected uint8 images, got ",
                 images.dtype());
  TORCHLET_CHECK(images.device().is_cpu(), "normalize_fashion_mnist: expected images on the CPU, got ",
                 images.device());
  // Note [Fashion-MNIST stays uint8]: each value a pixel can take, through
  // the normalizing ops.
  static const Tensor table = arange(0, 256)
                                  .to(kUInt8)
                                  .to(kFloat)
                                  .div_(255)
                                  .sub_(kFashionMNISTMean)
                                  .div_(kFashionMNISTStd);
  const Tensor pixels = images.contiguous();
  Tensor out = empty(pixels.sizes(), TensorOptions(kFloat).device(pixels.device()));
  const uint8_t* in = static_cast<const uint8_t*>(pixels.data_ptr());
  const float* value = static_cast<const float*>(table.data_ptr());
  float* o = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0, n = pixels.numel(); i < n; ++i) o[i] = value[in[i]];
  return out;
}

std::shared_ptr<data::Dataset<data::Example>> load_fashion_mnist(const std::string& root,
                                                                 bool train, int64_t limit) {
  const data::FashionMNIST raw(root, train);
  Tensor images = raw.data();
  Tensor targets = raw.targets();
  if (limit > 0 && limit < images.size(0)) {
    images = images.narrow(0, 0, limit);
    targets = targets.narrow(0, 0, limit);
  }
  return std::make_shared<NormalizedImages>(
      data::TensorDataset(images.unsqueeze(1).contiguous(), targets.contiguous()));
}

std::string resolve(const std::string& path) {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path[0] == '/' || cwd == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

std::string default_logdir() {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof(stamp), "runs/%Y%m%d-%H%M%S", std::localtime(&now));
  return stamp;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double accuracy(const std::function<Variable(const Variable&)>& forward, Loader& test) {
  NoGradGuard no_grad;
  int64_t correct = 0, seen = 0;
  for (const data::Example& batch : test) {
    const Tensor predicted = forward(Variable(batch.data)).data().argmax(1);
    correct += predicted.eq(batch.target.to(predicted.device())).sum().item<int64_t>();
    seen += batch.target.numel();
  }
  return 100.0 * correct / seen;
}

namespace {

constexpr char kModelPrefix[] = "model.";
constexpr char kOptimizerPrefix[] = "optimizer.";

// The entries of `all` under `prefix`, without it.
StateDict with_prefix(const StateDict& all, const std::string& prefix) {
  StateDict out;
  for (const auto& [key, value] : all) {
    if (key.compare(0, prefix.size(), prefix) == 0) out.insert(key.substr(prefix.size()), value);
  }
  return out;
}

}  // namespace

void save_training_state(const std::string& path, const nn::Module& model,
                         const optim::Optimizer& optimizer, const SafetensorsMetadata& progress) {
  StateDict all;
  for (const auto& [key, value] : model.state_dict()) all.insert(kModelPrefix + key, value);
  for (const auto& [key, value] : optimizer.state_dict()) {
    all.insert(kOptimizerPrefix + key, value);
  }
  save(all, path, progress);
}

SafetensorsMetadata load_training_state(const std::string& path, nn::Module& model,
                                        optim::Optimizer& optimizer) {
  SafetensorsMetadata progress = load_metadata(path);
  const StateDict all = load(path);
  model.load_state_dict(with_prefix(all, kModelPrefix));
  optimizer.load_state_dict(with_prefix(all, kOptimizerPrefix));
  return progress;
}

ProgressBar::ProgressBar(int epoch, int64_t total)
    : epoch_(epoch), total_(total), tty_(isatty(2)) {}

void ProgressBar::update(int64_t done, double loss, double accuracy, int64_t examples,
                         double seconds) {
  if (!tty_ && done < total_) return;
  const int width = 30;
  const int filled = static_cast<int>(width * done / total_);
  const double rate = examples / seconds;
  const double left = seconds / done * (total_ - done);
  std::fprintf(stderr, "%sepoch %d [%s%s] %lld/%lld loss %.4f acc %.2f%% %.0f ex/s %.1f s left%s",
               tty_ ? "\r\033[K" : "", epoch_, std::string(filled, '#').c_str(),
               std::string(width - filled, '.').c_str(), static_cast<long long>(done),
               static_cast<long long>(total_), loss, accuracy, rate, left,
               done == total_ ? "\n" : "");
  std::fflush(stderr);
}

}  // namespace torchlet::examples
