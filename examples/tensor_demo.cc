// A tour of torchlet's tensor package: factories, views, broadcasting,
// type promotion, indexing, and virtual CPU devices.
//
//   bazel run //examples:tensor_demo
#include <iostream>

#include "tensor/tensor.h"

int main() {
  using namespace torchlet;
  using namespace torchlet::indexing;

  manual_seed(0);
  Tensor x = arange(12, kFloat32).view({3, 4});
  std::cout << "x = arange(12).view({3, 4}):\n" << x << "\n\n";

  std::cout << "x.t() (a view, no copy):\n" << x.t() << "\n\n";
  std::cout << "x.index({Slice(), Slice(1, None, 2)}):\n" << x.index({Slice(), Slice(1, None, 2)})
            << "\n\n";

  Tensor bias = tensor({0.5, -0.5, 1.0, -1.0});
  std::cout << "x * 2 + bias (broadcast over rows):\n" << x * 2 + bias << "\n\n";

  std::cout << "tensor({1, 2}) + 0.5 promotes int64 to float32:\n"
            << tensor({1, 2}) + 0.5 << "\n\n";

  std::cout << "where(x > 5, x, -1):\n" << where(x > 5, x, -1.0) << "\n\n";

  std::cout << "randn({2, 3}).sigmoid():\n" << randn({2, 3}).sigmoid() << "\n\n";

  // Two virtual CPU devices: separate devices in one address space.
  set_cpu_device_count(2);
  Tensor y = x.to(Device("cpu:1"));
  std::cout << "x on cpu:1:\n" << y.narrow(0, 0, 1) << "\n\n";
  try {
    std::cout << x + y;
  } catch (const Error& e) {
    std::cout << "mixing devices is an error:\n  " << e.what() << "\n";
  }
  return 0;
}
