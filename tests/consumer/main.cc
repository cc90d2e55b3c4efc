#include <iostream>

#include "tensor/tensor.h"

int main() {
  std::cout << torchlet::arange(6, torchlet::kFloat32).view({2, 3}).exp() << "\n";
  return 0;
}
