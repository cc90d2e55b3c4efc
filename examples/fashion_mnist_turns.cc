// The example's training step (load a batch, forward, cross-entropy,
// backward, SGD step, the running loss and accuracy) in two ways taking
// turns in one process: LeNet-5 through DataParallel over two CPU devices
// with one core each, and a second LeNet-5 on one device with both cores
// as intra-op threads. Separate epoch runs on a shared host drift by more
// than the difference between the two (tools/epoch_pairs.sh); here both
// ways train on the same shuffled Fashion-MNIST stream, 16 batches at a
// time each, the first two of each turn not timed, so that both see the
// same minutes of the host.
//
//   bazel run -c opt //examples:fashion_mnist_turns -- --epochs=2
//
// Prints each way's mean step, the epoch it makes (938 steps of 64), and
// the DataParallel step's time over the one-device step's.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "examples/lenet.h"
#include "examples/training.h"
#include "nn/nn.h"
#include "nn/optim/optim.h"
#include "parallel/parallel.h"
#include "tensor/error.h"
#include "tensor/parallel.h"

ABSL_FLAG(std::string, data, torchlet::data::kFashionMNISTRoot,
          "directory holding the Fashion-MNIST IDX files");
ABSL_FLAG(int, epochs, 1, "passes over the training set, shared between the two ways");
ABSL_FLAG(int, batch_size, 64, "training examples per SGD step");
ABSL_FLAG(int, turn, 16, "steps each way takes before the other's turn");

namespace {

using namespace torchlet;
namespace F = nn::functional;
using Clock = std::chrono::steady_clock;

// One way of training: its model, the module its steps call, its optimizer
// and what its timed steps took.
template <typename Forward>
struct Way {
  const char* name;
  nn::Sequential model;
  Forward forward;
  optim::SGD optimizer;
  double seconds = 0;
  int64_t timed = 0;
  double loss_sum = 0;
  int64_t steps = 0;
  int64_t correct = 0;
  int64_t seen = 0;
  // Seconds of the timed steps in their forward (with the loss), backward
  // and optimizer step; the rest is loading the batch and the metrics.
  double phases[3] = {0, 0, 0};

  void step(const data::Example& batch, bool timed) {
    const Clock::time_point start = Clock::now();
    optimizer.zero_grad();
    const Variable output = forward(Variable(batch.data));
    const Tensor target = batch.target.to(output.device());
    const Variable loss = F::cross_entropy(output, Variable(target));
    const Clock::time_point forwarded = Clock::now();
    loss.backward();
    const Clock::time_point backwarded = Clock::now();
    optimizer.step();
    if (timed) {
      const Clock::time_point stepped = Clock::now();
      phases[0] += std::chrono::duration<double>(forwarded - start).count();
      phases[1] += std::chrono::duration<double>(backwarded - forwarded).count();
      phases[2] += std::chrono::duration<double>(stepped - backwarded).count();
    }
    loss_sum += loss.item<double>();
    correct += output.data().argmax(1).eq(target).sum().item<int64_t>();
    seen += batch.target.numel();
    ++steps;
  }
};

void run() {
  const int turn = absl::GetFlag(FLAGS_turn);
  TORCHLET_CHECK(turn >= 3, "--turn must be at least 3 (the first two steps are not timed), got ",
                 turn);
  TORCHLET_CHECK(absl::GetFlag(FLAGS_epochs) >= 1, "--epochs must be at least 1, got ",
                 absl::GetFlag(FLAGS_epochs));
  set_cpu_device_count(2);
  const auto train_set =
      examples::load_fashion_mnist(absl::GetFlag(FLAGS_data), /*train=*/true);

  manual_seed(1);
  nn::Sequential replicated = examples::make_lenet();
  manual_seed(1);
  nn::Sequential plain = examples::make_lenet();
  parallel::DataParallel<nn::SequentialImpl> parallel_model(
      replicated.ptr(), std::vector<parallel::DeviceId>{Device(kCPU, 0), Device(kCPU, 1)});
  const auto call_parallel = [&parallel_model](const Variable& x) { return parallel_model(x); };
  const auto call_plain = [&plain](const Variable& x) { return plain->forward(x); };
  const optim::SGDOptions options = optim::SGDOptions(0.01).momentum(0.9);
  Way<decltype(call_parallel)> dp{"DataParallel on cpu:0,cpu:1", replicated, call_parallel,
                                  optim::SGD(replicated->parameters(), options)};
  Way<decltype(call_plain)> one{"one device, 2 intra-op threads", plain, call_plain,
                                optim::SGD(plain->parameters(), options)};

  int64_t step = 0;
  for (int epoch = 1; epoch <= absl::GetFlag(FLAGS_epochs); ++epoch) {
    data::DataLoaderOptions loader_options;
    loader_options.batch_size = absl::GetFlag(FLAGS_batch_size);
    loader_options.shuffle = true;
    loader_options.seed = (uint64_t{1} << 32) | static_cast<uint64_t>(epoch);
    examples::Loader train(train_set, loader_options);
    // Each step is timed from the moment the previous one ended, so that
    // loading its batch counts, as in the example's epoch.
    Clock::time_point start = Clock::now();
    for (const data::Example& batch : train) {
      const bool on_plain = (step / turn) % 2 == 1;
      // One device: cpu:0 with both cores as intra-op threads (a set thread
      // count turns lending and helping off); otherwise one core a device.
      set_num_threads(on_plain ? 2 : 0);
      const bool timed = step % turn >= 2;
      if (on_plain) {
        one.step(batch, timed);
      } else {
        dp.step(batch, timed);
      }
      const Clock::time_point end = Clock::now();
      if (timed) {
        const double took = std::chrono::duration<double>(end - start).count();
        if (on_plain) {
          one.seconds += took;
          ++one.timed;
        } else {
          dp.seconds += took;
          ++dp.timed;
        }
      }
      ++step;
      start = end;
    }
  }
  set_num_threads(0);
  TORCHLET_CHECK(dp.timed > 0 && one.timed > 0, "too few steps (", step,
                 ") for both ways to time one; lower --turn");
  const int64_t epoch_steps = (train_set->size() + absl::GetFlag(FLAGS_batch_size) - 1) /
                              absl::GetFlag(FLAGS_batch_size);
  const auto report = [epoch_steps](const auto& way) {
    const double timed = static_cast<double>(way.timed);
    const double mean = way.seconds / timed;
    std::printf("%s: %.3f ms a step (%.2f s an epoch), loss %.4f, train accuracy %.2f%%\n",
                way.name, mean * 1e3, mean * static_cast<double>(epoch_steps),
                way.loss_sum / static_cast<double>(way.steps),
                100.0 * static_cast<double>(way.correct) / static_cast<double>(way.seen));
    const double rest = way.seconds - way.phases[0] - way.phases[1] - way.phases[2];
    std::printf(
        "  forward %.0f us, backward %.0f us, optimizer %.0f us, batch and metrics %.0f us\n",
        way.phases[0] / timed * 1e6, way.phases[1] / timed * 1e6,
        way.phases[2] / timed * 1e6, rest / timed * 1e6);
    return mean;
  };
  const double dp_mean = report(dp);
  const double one_mean = report(one);
  std::printf("DataParallel over one device: %.3f (%lld and %lld timed steps)\n",
              dp_mean / one_mean, static_cast<long long>(dp.timed),
              static_cast<long long>(one.timed));
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  try {
    run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fashion_mnist_turns: %s\n", e.what());
    return 1;
  }
  return 0;
}
