#pragma once

// torchlet::nn::functional: the stateless ops behind torchlet's layers and
// losses, on Variables, with PyTorch 1.13's semantics (torch.nn.functional).

#include "nn/functional/activation.h"     // IWYU pragma: export
#include "nn/functional/attention.h"      // IWYU pragma: export
#include "nn/functional/batchnorm.h"      // IWYU pragma: export
#include "nn/functional/conv.h"           // IWYU pragma: export
#include "nn/functional/distance.h"       // IWYU pragma: export
#include "nn/functional/dropout.h"        // IWYU pragma: export
#include "nn/functional/embedding.h"      // IWYU pragma: export
#include "nn/functional/linear.h"         // IWYU pragma: export
#include "nn/functional/loss.h"           // IWYU pragma: export
#include "nn/functional/normalization.h"  // IWYU pragma: export
#include "nn/functional/pad.h"            // IWYU pragma: export
#include "nn/functional/pooling.h"        // IWYU pragma: export
#include "nn/functional/upsampling.h"     // IWYU pragma: export
