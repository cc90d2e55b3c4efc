#pragma once

#include <string>

#include "tensor/tensor_body.h"

namespace torchlet::data {

/// Reads an IDX file (the format of MNIST and Fashion-MNIST), gzip-compressed
/// or plain (told apart by the gzip magic bytes). The tensor has the file's
/// shape and element type: uint8 (MNIST images [N, 28, 28] and labels [N]),
/// int32, float32 or float64; big-endian values are converted to the host's
/// order. Throws torchlet::Error naming `path` when the file is missing, is
/// not IDX (wrong magic number), is truncated (the gzip stream or the
/// payload), or holds more data than its header promises.
Tensor read_idx(const std::string& path);

}  // namespace torchlet::data
