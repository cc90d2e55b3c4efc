#pragma once

// torchlet's tensor package: include this to use it.

#include "tensor/device.h"        // IWYU pragma: export
#include "tensor/dtype.h"         // IWYU pragma: export
#include "tensor/elementwise.h"   // IWYU pragma: export
#include "tensor/error.h"         // IWYU pragma: export
#include "tensor/executor.h"      // IWYU pragma: export
#include "tensor/factories.h"     // IWYU pragma: export
#include "tensor/index_ops.h"     // IWYU pragma: export
#include "tensor/indexing.h"      // IWYU pragma: export
#include "tensor/linalg.h"        // IWYU pragma: export
#include "tensor/linalg_decompositions.h"  // IWYU pragma: export
#include "tensor/parallel.h"      // IWYU pragma: export
#include "tensor/random.h"        // IWYU pragma: export
#include "tensor/reduction.h"     // IWYU pragma: export
#include "tensor/scalar.h"        // IWYU pragma: export
#include "tensor/search.h"        // IWYU pragma: export
#include "tensor/shape_ops.h"     // IWYU pragma: export
#include "tensor/sorting.h"       // IWYU pragma: export
#include "tensor/tensor_body.h"   // IWYU pragma: export
