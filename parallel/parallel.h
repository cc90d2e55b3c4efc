#pragma once

// torchlet's data parallelism (torch.nn.parallel): include this to use it.

#include "nn/nn.h"                       // IWYU pragma: export
#include "parallel/comm.h"               // IWYU pragma: export
#include "parallel/data_parallel.h"      // IWYU pragma: export
#include "parallel/functions.h"          // IWYU pragma: export
#include "parallel/parallel_apply.h"     // IWYU pragma: export
#include "parallel/replicate.h"          // IWYU pragma: export
#include "parallel/scatter_gather.h"     // IWYU pragma: export
#include "tensor/warning.h"              // IWYU pragma: export
