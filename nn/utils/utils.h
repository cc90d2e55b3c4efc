#pragma once

// torchlet::nn::utils (torch.nn.utils): gradient clipping, parameter
// vectors and packed sequences (nn::utils::rnn).

#include "nn/utils/clip_grad.h"           // IWYU pragma: export
#include "nn/utils/convert_parameters.h"  // IWYU pragma: export
#include "nn/utils/rnn.h"                 // IWYU pragma: export
