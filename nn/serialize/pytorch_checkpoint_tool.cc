// A command-line twin of torch.save and torch.load for state_dicts, for the
// round trip with PyTorch (tools/pytorch_checkpoint_roundtrip.sh):
//
//   pytorch_checkpoint_tool write PATH    writes the fixture below to PATH
//                                         with save_pytorch
//   pytorch_checkpoint_tool print PATH    loads PATH with load_pytorch and
//                                         prints one line per tensor,
//                                         `name<TAB>dtype<TAB>d0,d1<TAB>hex bytes`
//   pytorch_checkpoint_tool net-save DIR  writes DIR/net.pt (the state_dict of
//                                         the small net below, its batch norm
//                                         having seen two batches) and
//                                         DIR/io.pt (an input "x" and the
//                                         net's output "y" in eval mode)
//   pytorch_checkpoint_tool net-check DIR loads DIR/net.pt into the small net
//                                         (strictly) and checks that it maps
//                                         "x" of DIR/io.pt to "y"
//
// The raw bytes in hex make the comparison exact for every dtype (NaN and -0 included).

#include <cstdint>
#include <iostream>
#include <string>

#include "nn/nn.h"
#include "nn/serialize/every_dtype.h"
#include "tensor/tensor.h"

namespace torchlet {
namespace {

/// Every dtype torchlet has, non-contiguous, 0-dim and empty tensors and two
/// entries of one tensor, in an order that is not sorted (the round-trip
/// script holds the same).
StateDict fixture() {
  StateDict sd = testing::every_dtype();
  sd.insert("f16_transposed", arange(6, kFloat16).view({2, 3}).t());
  sd.insert("expanded", arange(3, kInt32).unsqueeze(0).expand({2, 3}));
  sd.insert("row", arange(12, kFloat64).view({3, 4}).select(0, 2));
  sd.insert("scalar", scalar_tensor(42, kInt64));
  sd.insert("empty", zeros({0, 3}));
  const Tensor tied = arange(4, kBFloat16);
  sd.insert("tied_a", tied);
  sd.insert("tied_b", tied);
  return sd;
}

/// nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(),
/// nn.Flatten(), nn.Linear(8, 3)) for 1x4x4 images, as the script builds it.
nn::Sequential small_net() {
  return nn::Sequential(nn::Conv2d(1, 2, 3), nn::BatchNorm2d(2), nn::ReLU(), nn::Flatten(),
                        nn::Linear(8, 3));
}

Tensor forward(nn::Sequential& net, const Tensor& x) {
  NoGradGuard no_grad;
  return net->forward(Variable(x)).data();
}

void net_save(const std::string& dir) {
  manual_seed(0);
  nn::Sequential net = small_net();
  for (int i = 0; i < 2; ++i) forward(net, randn({4, 1, 4, 4}));  // moves the running stats
  net->eval();
  const Tensor x = randn({2, 1, 4, 4});
  save_pytorch(net->state_dict(), dir + "/net.pt");
  save_pytorch({{"x", x}, {"y", forward(net, x)}}, dir + "/io.pt");
}

int net_check(const std::string& dir) {
  nn::Sequential net = small_net();
  net->load_state_dict(load_pytorch(dir + "/net.pt"));
  net->eval();
  const StateDict io = load_pytorch(dir + "/io.pt");
  const double error = (forward(net, io.at("x")) - io.at("y")).abs().max().item<double>();
  std::cout << "torchlet loaded " << dir << "/net.pt: max |y - expected| = " << error << "\n";
  return error <= 1e-5 ? 0 : 1;
}

void print(const std::string& path) {
  for (const auto& [name, t] : load_pytorch(path)) {
    std::cout << testing::tensor_line(name, t) << "\n";
  }
}

}  // namespace
}  // namespace torchlet

int main(int argc, char** argv) {
  const std::string mode = argc == 3 ? argv[1] : "";
  if (mode != "write" && mode != "print" && mode != "net-save" && mode != "net-check") {
    std::cerr << "usage: pytorch_checkpoint_tool write|print PATH, or net-save|net-check DIR\n";
    return 2;
  }
  try {
    if (mode == "write") torchlet::save_pytorch(torchlet::fixture(), argv[2]);
    if (mode == "print") torchlet::print(argv[2]);
    if (mode == "net-save") torchlet::net_save(argv[2]);
    if (mode == "net-check") return torchlet::net_check(argv[2]);
  } catch (const torchlet::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
