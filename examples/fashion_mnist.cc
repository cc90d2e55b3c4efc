// Trains LeNet-5 (or the MLP) on Fashion-MNIST with the reference recipe:
// SGD with lr 0.01 and momentum 0.9, batches of 64, the training set
// reshuffled every epoch, through DataParallel over --devices. Prints test
// accuracy and time per epoch, keeps the best model as a checkpoint, and
// writes the whole training state (model, optimizer, epoch) after every
// epoch so that --resume continues bit-exactly.
//
//   bazel run //examples:fashion_mnist -- --epochs=3
//   bazel run //examples:fashion_mnist -- --devices=cpu:0,cpu:1
//   bazel run //examples:fashion_mnist -- --resume=fashion_mnist.state.safetensors
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "examples/lenet.h"
#include "examples/training.h"
#include "nn/nn.h"
#include "nn/optim/optim.h"
#include "nn/tensorboard/tensorboard.h"
#include "parallel/parallel.h"
#include "tensor/error.h"
#include "tensor/parallel.h"

ABSL_FLAG(std::string, model, "lenet", "lenet or mlp");
ABSL_FLAG(std::string, data, torchlet::data::kFashionMNISTRoot,
          "directory holding the Fashion-MNIST IDX files");
ABSL_FLAG(int, epochs, 3, "epoch to stop after (counting those a resumed run already did)");
ABSL_FLAG(int, batch_size, 64, "training examples per SGD step");
ABSL_FLAG(double, lr, 0.01, "SGD learning rate (momentum 0.9)");
ABSL_FLAG(int, seed, 1, "seed of the initial weights and of every epoch's shuffle");
ABSL_FLAG(int64_t, train_limit, 0, "train on the first N examples only (0: all 60000)");
ABSL_FLAG(std::string, checkpoint, "fashion_mnist.safetensors",
          "where the best model's state_dict is saved");
ABSL_FLAG(std::string, state, "fashion_mnist.state.safetensors",
          "where model, optimizer and epoch are saved after every epoch");
ABSL_FLAG(std::string, resume, "", "a --state file to continue training from");
ABSL_FLAG(std::string, devices, "",
          "comma-separated devices to train on through DataParallel, e.g. cpu:0,cpu:1 "
          "(default: every CUDA device, else one CPU device per core)");
ABSL_FLAG(std::string, logdir, "", "TensorBoard log directory (default runs/<date-time>)");

using namespace torchlet;  // NOLINT: example brevity
namespace F = nn::functional;
using examples::Clock;
using examples::Loader;

namespace {

nn::Sequential make_model(const std::string& name) {
  if (name == "lenet") return examples::make_lenet();
  TORCHLET_CHECK(name == "mlp", "--model must be lenet or mlp, got \"", name, "\"");
  return examples::make_mlp();
}

// The --devices to train on. For CPU devices, as many virtual ones are made
// as the highest index needs; each gets an equal share of the cores for its
// kernels.
std::vector<Device> training_devices() {
  std::vector<Device> devices;
  const std::string spec = absl::GetFlag(FLAGS_devices);
  if (spec.empty()) {
    const int cuda = cuda_device_count();
    for (int i = 0; i < cuda; ++i) devices.emplace_back(kCUDA, i);
    if (cuda == 0) {
      for (int i = 0; i < hardware_threads(); ++i) devices.emplace_back(kCPU, i);
    }
  } else {
    for (const absl::string_view name : absl::StrSplit(spec, ',')) {
      devices.emplace_back(std::string(name));
    }
  }
  int cpu_devices = 0;
  for (const Device& device : devices) {
    if (device.is_cpu()) cpu_devices = std::max(cpu_devices, device.index + 1);
  }
  if (cpu_devices > 0) set_cpu_device_count(cpu_devices);
  return devices;
}

std::string device_list(const std::vector<Device>& devices) {
  return absl::StrJoin(devices, ",", [](std::string* out, Device d) { out->append(d.str()); });
}

// Every epoch draws its order from its own seed, so a resumed run shuffles
// exactly as an uninterrupted one.
data::DataLoaderOptions train_options(int epoch) {
  data::DataLoaderOptions options;
  options.batch_size = absl::GetFlag(FLAGS_batch_size);
  options.shuffle = true;
  options.seed = (static_cast<uint64_t>(absl::GetFlag(FLAGS_seed)) << 32) | epoch;
  return options;
}

// The training state: the model's and the optimizer's state_dicts under
// prefixes, the last finished epoch and the best accuracy as metadata.
struct TrainingState {
  int epoch = 0;
  double best = -1;
};

void save_state(const std::string& path, const nn::Module& model,
                const optim::Optimizer& optimizer, const TrainingState& state) {
  char best[32];
  std::snprintf(best, sizeof(best), "%.17g", state.best);
  examples::save_training_state(path, model, optimizer,
                                {{"epoch", std::to_string(state.epoch)}, {"best_accuracy", best}});
}

TrainingState load_state(const std::string& path, nn::Module& model, optim::Optimizer& optimizer) {
  const SafetensorsMetadata progress = load_metadata(path);
  TORCHLET_CHECK(progress.count("epoch") && progress.count("best_accuracy"), "--resume: ", path,
                 " is not a training state written by this example (no epoch in its metadata)");
  examples::load_training_state(path, model, optimizer);
  return {std::stoi(progress.at("epoch")), std::stod(progress.at("best_accuracy"))};
}

void train() {
  const std::string model_name = absl::GetFlag(FLAGS_model);
  const std::string checkpoint = examples::resolve(absl::GetFlag(FLAGS_checkpoint));
  const std::string state_path = examples::resolve(absl::GetFlag(FLAGS_state));
  const std::string logdir = absl::GetFlag(FLAGS_logdir);
  TORCHLET_CHECK(absl::GetFlag(FLAGS_epochs) >= 1, "--epochs must be at least 1, got ",
                 absl::GetFlag(FLAGS_epochs));
  TORCHLET_CHECK(absl::GetFlag(FLAGS_train_limit) >= 0,
                 "--train_limit must be 0 (every example) or more, got ",
                 absl::GetFlag(FLAGS_train_limit));

  const std::vector<Device> devices = training_devices();
  manual_seed(absl::GetFlag(FLAGS_seed));
  const auto train_set = examples::load_fashion_mnist(absl::GetFlag(FLAGS_data), /*train=*/true,
                                                      absl::GetFlag(FLAGS_train_limit));
  data::DataLoaderOptions test_options;
  test_options.batch_size = 1000;
  Loader test(examples::load_fashion_mnist(absl::GetFlag(FLAGS_data), /*train=*/false),
              test_options);

  nn::Sequential model = make_model(model_name);
  model->to(devices.front());
  parallel::DataParallel<nn::SequentialImpl> parallel_model(
      model.ptr(), std::vector<parallel::DeviceId>(devices.begin(), devices.end()));
  std::printf("training %s on %s\n", model_name.c_str(), device_list(devices).c_str());
  const double lr = absl::GetFlag(FLAGS_lr);
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(lr).momentum(0.9));
  TrainingState state;
  if (!absl::GetFlag(FLAGS_resume).empty()) {
    state = load_state(examples::resolve(absl::GetFlag(FLAGS_resume)), *model, optimizer);
    std::printf("resumed after epoch %d (best test accuracy %.2f%%)\n", state.epoch, state.best);
  }
  SummaryWriter writer(examples::resolve(logdir.empty() ? examples::default_logdir() : logdir));
  const auto forward = [&parallel_model](const Variable& x) { return parallel_model(x); };

  for (int epoch = state.epoch + 1; epoch <= absl::GetFlag(FLAGS_epochs); ++epoch) {
    Loader train(train_set, train_options(epoch));
    examples::ProgressBar bar(epoch, train.size());
    const Clock::time_point start = Clock::now();
    double loss_sum = 0;
    int64_t batches = 0, examples_seen = 0, correct = 0;
    model->train();
    for (const data::Example& batch : train) {
      optimizer.zero_grad();
      const Variable output = parallel_model(Variable(batch.data));
      const Tensor target = batch.target.to(output.device());
      const Variable loss = F::cross_entropy(output, Variable(target));
      loss.backward();
      optimizer.step();
      loss_sum += loss.item<double>();
      correct += output.data().argmax(1).eq(target).sum().item<int64_t>();
      examples_seen += batch.target.numel();
      ++batches;
      bar.update(batches, loss_sum / batches, 100.0 * correct / examples_seen, examples_seen,
                 examples::seconds_since(start));
    }
    const double seconds = examples::seconds_since(start);
    model->eval();
    const double test_accuracy = examples::accuracy(forward, test);
    std::printf("epoch %d: train %.2f s (%.0f examples/s), test accuracy %.2f%%\n", epoch,
                seconds, examples_seen / seconds, test_accuracy);
    std::fflush(stdout);
    writer.add_scalar("loss/train", loss_sum / batches, epoch);
    writer.add_scalar("accuracy/test", test_accuracy, epoch);
    writer.add_scalar("examples_per_s", examples_seen / seconds, epoch);
    state.epoch = epoch;
    if (test_accuracy > state.best) {
      state.best = test_accuracy;
      save(model->state_dict(), checkpoint);
    }
    save_state(state_path, *model, optimizer, state);
  }
  std::printf("best test accuracy %.2f%% (model saved in %s)\n", state.best, checkpoint.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  try {
    train();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fashion_mnist: %s\n", e.what());
    return 1;
  }
  return 0;
}
