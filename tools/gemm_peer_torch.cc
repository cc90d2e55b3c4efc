// The GEMM peer (tools/gemm_peer.h) over a libtorch: torch::mm, as the
// anchors' BM_Gemm calls it. Built by tools/gemm_turns.sh against the
// torch it is given, outside Bazel.
#include <torch/torch.h>

#include <string>

#include "tools/gemm_peer.h"

namespace {

struct Operands {
  torch::Tensor a, b;
};

}  // namespace

extern "C" {

const char* gemm_peer_name() {
  static const std::string name = std::string("PyTorch ") + TORCH_VERSION;
  return name.c_str();
}

void* gemm_peer_prepare(int64_t n) {
  return new Operands{torch::randn({n, n}), torch::randn({n, n})};
}

void gemm_peer_run(void* handle) {
  const auto* operands = static_cast<const Operands*>(handle);
  torch::Tensor c = torch::mm(operands->a, operands->b);
  asm volatile("" : : "r"(c.data_ptr<float>()) : "memory");
}

void gemm_peer_release(void* handle) { delete static_cast<Operands*>(handle); }
}
