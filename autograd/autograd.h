#pragma once

// torchlet's autograd package: include this to use it.

#include "autograd/custom_function.h"  // IWYU pragma: export
#include "autograd/engine.h"           // IWYU pragma: export
#include "autograd/functions.h"        // IWYU pragma: export
#include "autograd/grad_mode.h"        // IWYU pragma: export
#include "autograd/node.h"             // IWYU pragma: export
#include "autograd/variable.h"         // IWYU pragma: export
#include "tensor/tensor.h"             // IWYU pragma: export
