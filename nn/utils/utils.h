#pragma once

// torchlet::nn::utils (torch.nn.utils): gradient clipping and parameter
// vectors.

#include "nn/utils/clip_grad.h"           // IWYU pragma: export
#include "nn/utils/convert_parameters.h"  // IWYU pragma: export
