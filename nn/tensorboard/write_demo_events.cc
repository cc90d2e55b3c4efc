// Writes a fixed set of events under the log directory given as the only
// argument, for tools/check_tensorboard_events.py to read back with
// tensorboard's own reader. Keep the two in step.
#include <cstdio>

#include "nn/tensorboard/summary_writer.h"
#include "tensor/tensor.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s LOGDIR\n", argv[0]);
    return 2;
  }
  torchlet::SummaryWriter writer(argv[1]);
  for (int step = 0; step < 5; ++step) {
    writer.add_scalar("loss", 1.0 / (step + 1), step);
    writer.add_scalar("train/lr", 0.01 * step, step);
  }
  for (int step = 0; step < 3; ++step) {
    writer.add_scalars("accuracy", {{"train", 0.5 + 0.1 * step}, {"test", 0.4 + 0.1 * step}}, step);
  }
  for (int step = 0; step < 2; ++step) {
    writer.add_histogram("weights",
                         torchlet::arange(-5, 6, 1, torchlet::kFloat64) * (0.1 * (step + 1)), step);
  }
  writer.flush();
  std::printf("%s\n", writer.path().c_str());
  return 0;
}
