#pragma once

// Test helpers (testonly) for nn's layer and loss modules: their golden
// cases and reprs from PyTorch (tools/gen_nn_modules_golden.py).

#include <fstream>
#include <map>
#include <string>

#include "autograd/golden_case.h"
#include "gtest/gtest.h"
#include "nn/module.h"
#include "tensor/test_util.h"

namespace torchlet::testing {

/// A case of nn/testdata/modules_golden.txt, compared in float64.
class ModuleCase : public GoldenCase {
 public:
  explicit ModuleCase(std::string name)
      : GoldenCase(golden_file("nn/testdata/modules_golden.txt"),
                   std::move(name), kFloat64, {1e-10, 1e-12}) {}
};

/// repr() of the module PyTorch built for `name` in
/// nn/testdata/modules_repr.txt; a missing name is a test failure.
inline std::string pytorch_repr(const std::string& name) {
  static const auto* reprs = [] {
    auto* out = new std::map<std::string, std::string>();
    std::ifstream in("nn/testdata/modules_repr.txt");
    for (std::string line; std::getline(in, line);) {
      const size_t bar = line.find('|');
      (*out)[line.substr(0, bar)] = line.substr(bar + 1);
    }
    return out;
  }();
  const auto it = reprs->find(name);
  if (it == reprs->end()) {
    ADD_FAILURE() << "no PyTorch repr for " << name;
    return "";
  }
  return it->second;
}

}  // namespace torchlet::testing
