// The C interface tools/gemm_turns calls in a peer library (loaded with
// dlopen), so that a GEMM built against another framework runs in
// torchlet's process, turn about with torchlet's own: n x n float32
// operands, and one product C = A @ B into a fresh C per call, as BM_Gemm
// makes it.
#ifndef TORCHLET_TOOLS_GEMM_PEER_H_
#define TORCHLET_TOOLS_GEMM_PEER_H_

#include <cstdint>

extern "C" {
/// The peer's name, for the report (e.g. "PyTorch 2.5.1").
const char* gemm_peer_name();
/// Random operands of n x n; returns a handle for the calls below.
void* gemm_peer_prepare(int64_t n);
/// One product of the handle's operands into a new C.
void gemm_peer_run(void* handle);
void gemm_peer_release(void* handle);
}

#endif  // TORCHLET_TOOLS_GEMM_PEER_H_
