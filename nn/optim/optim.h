#pragma once

// torchlet::optim: optimizers and learning-rate schedulers (torch.optim).

#include "nn/optim/adadelta.h"    // IWYU pragma: export
#include "nn/optim/adagrad.h"     // IWYU pragma: export
#include "nn/optim/adam.h"        // IWYU pragma: export
#include "nn/optim/adamax.h"      // IWYU pragma: export
#include "nn/optim/asgd.h"        // IWYU pragma: export
#include "nn/optim/lbfgs.h"       // IWYU pragma: export
#include "nn/optim/lr_scheduler.h"  // IWYU pragma: export
#include "nn/optim/nadam.h"       // IWYU pragma: export
#include "nn/optim/optimizer.h"   // IWYU pragma: export
#include "nn/optim/radam.h"       // IWYU pragma: export
#include "nn/optim/rmsprop.h"     // IWYU pragma: export
#include "nn/optim/rprop.h"       // IWYU pragma: export
#include "nn/optim/sgd.h"         // IWYU pragma: export
