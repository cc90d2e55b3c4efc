// Trains a 784-512-512-10 ReLU MLP on Fashion-MNIST with SGD and momentum,
// the recipe of PyTorch's reference script, keeps the best checkpoint and
// reloads it into a fresh model at the end. After every epoch it saves the
// training state (model, optimizer, progress), from which --resume continues
// exactly as if the run had not stopped.
//
//   bazel run //examples:mlp -- --epochs=3 --logdir=runs/mlp
//   bazel run //examples:mlp -- --epochs=5 --resume   # two more epochs
//   tensorboard --logdir runs
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "examples/lenet.h"
#include "examples/training.h"
#include "nn/data/data.h"
#include "nn/functional/functional.h"
#include "nn/nn.h"
#include "nn/optim/optim.h"
#include "nn/serialize/safetensors.h"
#include "nn/tensorboard/tensorboard.h"
#include "tensor/error.h"

ABSL_FLAG(std::string, data, torchlet::data::kFashionMNISTRoot,
          "directory holding the Fashion-MNIST IDX files");
ABSL_FLAG(int, epochs, 3, "passes over the training set");
ABSL_FLAG(int, batch_size, 64, "training examples per SGD step");
ABSL_FLAG(double, lr, 0.01, "SGD learning rate (momentum 0.9)");
ABSL_FLAG(int, seed, 1, "seed of the initial weights and of the shuffling");
ABSL_FLAG(std::string, checkpoint, "mlp.safetensors", "where the best model is saved");
ABSL_FLAG(std::string, logdir, "", "TensorBoard log directory (default runs/<date-time>)");
ABSL_FLAG(std::string, state, "mlp_state.safetensors",
          "where the training state (model, optimizer, progress) is saved after every epoch");
ABSL_FLAG(bool, resume, false, "continue the run whose training state is at --state");

using namespace torchlet;  // NOLINT: example brevity
namespace F = nn::functional;

namespace {

using examples::Clock;
using examples::Loader;

// Note [Resuming training]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// A resumed run must compute what the uninterrupted run would have, bit for
// bit. The state file holds everything training reads that changes as it
// goes: the model's state_dict under "model.", the optimizer's (SGD's
// momentum buffers and options) under "optimizer.", and the progress (epochs
// done, steps taken, best accuracy) as metadata. The initial weights, drawn
// from the global generator, are overwritten by the loaded ones; the
// training loader's shuffling generator, seeded by --seed, is brought to
// where it was by drawing the orders of the epochs already done.

struct Progress {
  int epochs_done = 0;
  int64_t step = 0;
  double best = 0;
};

void save_state(const nn::Sequential& model, const optim::Optimizer& optimizer,
                const Progress& progress, const std::string& path) {
  examples::save_training_state(path, *model, optimizer,
                                {{"epochs_done", std::to_string(progress.epochs_done)},
                                 {"step", std::to_string(progress.step)},
                                 {"best", absl::StrFormat("%.17g", progress.best)}});
}

const std::string& metadata_entry(const SafetensorsMetadata& metadata, const std::string& key,
                                  const std::string& path) {
  const auto it = metadata.find(key);
  TORCHLET_CHECK(it != metadata.end(), "--resume: ", path, " is not a training state (no ", key,
                 ")");
  return it->second;
}

Progress load_state(nn::Sequential& model, optim::Optimizer& optimizer,
                    const std::string& path) {
  const SafetensorsMetadata metadata = load_metadata(path);
  Progress progress;
  const bool parsed =
      absl::SimpleAtoi(metadata_entry(metadata, "epochs_done", path), &progress.epochs_done) &&
      absl::SimpleAtoi(metadata_entry(metadata, "step", path), &progress.step) &&
      absl::SimpleAtod(metadata_entry(metadata, "best", path), &progress.best);
  TORCHLET_CHECK(parsed, "--resume: ", path, " has malformed progress metadata");
  examples::load_training_state(path, *model, optimizer);
  return progress;
}

double accuracy(nn::Sequential& model, Loader& test) {
  model->eval();
  const double percent =
      examples::accuracy([&model](const Variable& x) { return model->forward(x); }, test);
  model->train();
  return percent;
}

void train_and_reload() {
  TORCHLET_CHECK(absl::GetFlag(FLAGS_epochs) >= 1, "--epochs must be at least 1, got ",
                 absl::GetFlag(FLAGS_epochs));
  const std::string checkpoint = examples::resolve(absl::GetFlag(FLAGS_checkpoint));
  const std::string state = examples::resolve(absl::GetFlag(FLAGS_state));
  const std::string logdir = absl::GetFlag(FLAGS_logdir);
  SummaryWriter writer(examples::resolve(logdir.empty() ? examples::default_logdir() : logdir));

  manual_seed(absl::GetFlag(FLAGS_seed));
  const auto train_set = examples::load_fashion_mnist(absl::GetFlag(FLAGS_data), /*train=*/true);
  const auto test_set = examples::load_fashion_mnist(absl::GetFlag(FLAGS_data), /*train=*/false);
  data::DataLoaderOptions train_options;
  train_options.batch_size = absl::GetFlag(FLAGS_batch_size);
  train_options.shuffle = true;
  train_options.seed = absl::GetFlag(FLAGS_seed);
  data::DataLoaderOptions test_options;
  test_options.batch_size = 1000;
  Loader train(train_set, train_options);
  Loader test(test_set, test_options);

  nn::Sequential model = examples::make_mlp();
  const double lr = absl::GetFlag(FLAGS_lr);
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(lr).momentum(0.9));

  Progress progress;
  if (absl::GetFlag(FLAGS_resume)) {
    progress = load_state(model, optimizer, state);
    TORCHLET_CHECK(progress.epochs_done < absl::GetFlag(FLAGS_epochs), "--resume: ", state,
                   " has already trained ", progress.epochs_done, " epochs; --epochs is ",
                   absl::GetFlag(FLAGS_epochs));
    // Draws the orders of the epochs done (Note [Resuming training]).
    for (int epoch = 1; epoch <= progress.epochs_done; ++epoch) train.begin();
    std::printf("resuming from %s after epoch %d\n", state.c_str(), progress.epochs_done);
  }
  double& best = progress.best;
  int64_t& step = progress.step;
  for (int epoch = progress.epochs_done + 1; epoch <= absl::GetFlag(FLAGS_epochs); ++epoch) {
    examples::ProgressBar bar(epoch, train.size());
    const Clock::time_point start = Clock::now();
    double loss_sum = 0;
    int64_t batches = 0, seen = 0, correct = 0;
    for (const data::Example& batch : train) {
      optimizer.zero_grad();
      const Variable output = model->forward(Variable(batch.data));
      const Variable loss = F::cross_entropy(output, Variable(batch.target));
      loss.backward();
      optimizer.step();
      loss_sum += loss.item<double>();
      seen += batch.target.numel();
      correct += output.data().argmax(1).eq(batch.target).sum().item<int64_t>();
      ++batches;
      if (++step % 100 == 0) writer.add_scalar("loss/train", loss.item<double>(), step);
      bar.update(batches, loss_sum / batches, 100.0 * correct / seen, seen,
                 examples::seconds_since(start));
    }
    const double seconds = examples::seconds_since(start);
    const double test_accuracy = accuracy(model, test);
    std::printf("epoch %d: train %.1f s, test accuracy %.2f%%\n", epoch, seconds, test_accuracy);
    std::fflush(stdout);
    writer.add_scalar("accuracy/test", test_accuracy, epoch);
    writer.add_scalar("lr", lr, epoch);
    writer.add_scalar("examples_per_s", seen / seconds, epoch);
    if (test_accuracy > best) {
      best = test_accuracy;
      save(model->state_dict(), checkpoint);
    }
    progress.epochs_done = epoch;
    save_state(model, optimizer, progress, state);
  }

  nn::Sequential reloaded = examples::make_mlp();
  reloaded->load_state_dict(load(checkpoint));
  std::printf("best test accuracy %.2f%%, reloaded from %s: %.2f%%\n", best, checkpoint.c_str(),
              accuracy(reloaded, test));
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  try {
    train_and_reload();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mlp: %s\n", e.what());
    return 1;
  }
  return 0;
}
