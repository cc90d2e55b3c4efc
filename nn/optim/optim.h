#pragma once

// torchlet::optim: optimizers and learning-rate schedulers (torch.optim).

#include "nn/optim/adagrad.h"     // IWYU pragma: export
#include "nn/optim/adam.h"        // IWYU pragma: export
#include "nn/optim/lr_scheduler.h"  // IWYU pragma: export
#include "nn/optim/optimizer.h"   // IWYU pragma: export
#include "nn/optim/rmsprop.h"     // IWYU pragma: export
#include "nn/optim/sgd.h"         // IWYU pragma: export
