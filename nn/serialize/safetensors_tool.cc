// A command-line twin of Python's safetensors, for the round trip between the
// two (tools/safetensors_roundtrip.py):
//
//   safetensors_tool write PATH   writes the fixture below to PATH
//   safetensors_tool print PATH   loads PATH and prints one line per tensor,
//                                 `tensor<TAB>name<TAB>dtype<TAB>d0,d1<TAB>hex bytes`,
//                                 and per metadata entry, `metadata<TAB>key<TAB>value`
//
// The raw bytes in hex make the comparison exact for every dtype (NaN and -0 included).

#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <string>

#include "nn/serialize/every_dtype.h"
#include "nn/serialize/safetensors.h"
#include "tensor/tensor.h"

namespace torchlet {
namespace {

/// Every dtype torchlet has, 0-dim, empty and non-contiguous tensors, in an
/// order that is not sorted (tools/safetensors_roundtrip.py holds the same).
StateDict fixture() {
  StateDict sd = testing::every_dtype();
  sd.insert("f16_transposed", arange(6, kFloat16).view({2, 3}).t());
  sd.insert("transposed", arange(6, kFloat64).view({2, 3}).t());
  sd.insert("scalar", scalar_tensor(42, kInt64));
  sd.insert("empty", zeros({0, 3}));
  return sd;
}

void print(const std::string& path) {
  for (const auto& [name, t] : load(path)) {
    std::cout << "tensor\t" << testing::tensor_line(name, t) << "\n";
  }
  for (const auto& [key, value] : load_metadata(path)) {
    std::cout << "metadata\t" << key << "\t" << value << "\n";
  }
}

}  // namespace
}  // namespace torchlet

int main(int argc, char** argv) {
  const std::string mode = argc == 3 ? argv[1] : "";
  if (mode != "write" && mode != "print") {
    std::cerr << "usage: safetensors_tool write|print PATH\n";
    return 2;
  }
  try {
    if (mode == "write") {
      torchlet::save(torchlet::fixture(), argv[2], {{"format", "pt"}, {"writer", "torchlet"}});
    } else {
      torchlet::print(argv[2]);
    }
  } catch (const torchlet::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
