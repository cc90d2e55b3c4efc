#pragma once

// torchlet's data package (torch.utils.data): include this to use it.

#include "nn/data/collate.h"      // IWYU pragma: export
#include "nn/data/data_loader.h"  // IWYU pragma: export
#include "nn/data/dataset.h"      // IWYU pragma: export
#include "nn/data/generator.h"    // IWYU pragma: export
#include "nn/data/idx.h"          // IWYU pragma: export
#include "nn/data/mnist.h"        // IWYU pragma: export
#include "nn/data/sampler.h"      // IWYU pragma: export
#include "tensor/warning.h"        // IWYU pragma: export
