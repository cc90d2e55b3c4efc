#include "tensor/thread_local_state.h"

namespace torchlet::detail {

thread_local ThreadLocalState tls_state;

}  // namespace torchlet::detail
