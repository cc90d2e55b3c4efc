#pragma once

// torchlet's TensorBoard writer (torch.utils.tensorboard): include this to use it.

#include "nn/tensorboard/summary_writer.h"  // IWYU pragma: export
