// Exchanges LeNet-5 checkpoints with PyTorch (tools/lenet_interchange.py):
//
//   lenet_interchange save DIR   writes DIR/model.safetensors (a fresh
//                                LeNet's state_dict) and DIR/io.safetensors
//                                (an input batch "x" and the model's output "y")
//   lenet_interchange check DIR  loads DIR/model.safetensors into LeNet
//                                (strictly) and checks that it maps "x" of
//                                DIR/io.safetensors to "y"
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "examples/lenet.h"
#include "nn/nn.h"

using namespace torchlet;  // NOLINT: tool brevity

namespace {

Tensor forward(nn::Sequential& net, const Tensor& x) {
  NoGradGuard no_grad;
  net->eval();
  return net->forward(Variable(x)).data();
}

void save_lenet(const std::string& dir) {
  manual_seed(0);
  nn::Sequential net = examples::make_lenet();
  const Tensor x = randn({4, 1, 28, 28});
  save(net->state_dict(), dir + "/model.safetensors");
  save(StateDict{{"x", x}, {"y", forward(net, x)}}, dir + "/io.safetensors");
}

int check_lenet(const std::string& dir) {
  nn::Sequential net = examples::make_lenet();
  net->load_state_dict(load(dir + "/model.safetensors"));
  const StateDict io = load(dir + "/io.safetensors");
  const Tensor y = forward(net, io.at("x"));
  const double error = (y - io.at("y")).abs().max().item<double>();
  std::printf("LeNet loaded from %s/model.safetensors: max |y - expected| = %g\n", dir.c_str(),
              error);
  return error <= 1e-5 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || (std::strcmp(argv[1], "save") != 0 && std::strcmp(argv[1], "check") != 0)) {
    std::fprintf(stderr, "usage: %s save|check DIR\n", argv[0]);
    return 2;
  }
  try {
    if (std::strcmp(argv[1], "save") == 0) {
      save_lenet(argv[2]);
      return 0;
    }
    return check_lenet(argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lenet_interchange: %s\n", e.what());
    return 1;
  }
}
