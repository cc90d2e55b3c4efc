#pragma once

// Test-only entry into the PyTorch checkpoint reader
// (nn/serialize/pytorch_checkpoint.cc), past the zip container.

#include <string>
#include <utility>
#include <vector>

#include "nn/serialize/state_dict.h"

namespace torchlet::detail {

/// `load_pytorch` of an archive holding `records` (entry name, bytes), in
/// this order, without the zip container around them: tests and the fuzzer
/// give the unpickler a data.pkl of their own without fixing up CRCs.
/// Errors name the file "<records>".
StateDict load_pytorch_records(const std::vector<std::pair<std::string, std::string>>& records);

}  // namespace torchlet::detail
