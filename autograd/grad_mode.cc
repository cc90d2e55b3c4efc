#include "autograd/grad_mode.h"

#include "tensor/thread_local_state.h"

namespace torchlet {

// Grad mode is a field of the thread's ThreadLocalState, so every worker
// that runs submitted work sees the submitter's mode (Note [Threading model]).
bool is_grad_enabled() { return thread_local_state().grad_enabled; }
void set_grad_enabled(bool enabled) { thread_local_state().grad_enabled = enabled; }

}  // namespace torchlet
