#pragma once

// PyTorch's own checkpoint files: what `torch.save(model.state_dict(), path)`
// writes and `torch.load(path)` reads (the zip format of PyTorch 1.6 and
// later, `.pt` or `.pth` by custom).
//
//   nn::Sequential net = examples::make_lenet();
//   net->load_state_dict(load_pytorch("lenet.pt"));       // saved by PyTorch
//   save_pytorch(net->state_dict(), "lenet_trained.pt");  // for torch.load
//
// Only state_dicts travel: a dict (or OrderedDict) of names to tensors. The
// file's pickle is read by a restricted unpickler that knows the handful of
// opcodes and globals such a dict uses and refuses everything else, so a
// hostile file cannot run code, and a corrupt one throws `torchlet::Error`
// naming the file and the problem.

#include <string>
#include <string_view>

#include "nn/serialize/state_dict.h"

namespace torchlet {

/// Reads the checkpoint at `path` written by `torch.save` of a state_dict
/// (Python's `torch.load(path, map_location=...)` restricted to tensors): its
/// tensors in the dict's order, on the current device, with their dtypes,
/// sizes, strides and storage offsets. Tensors that shared a storage in
/// PyTorch share one here too (tied weights stay tied). The OrderedDict's
/// `_metadata` (module versions) and each tensor's `requires_grad` are
/// ignored. Throws `torchlet::Error` naming the file and the problem when it
/// is not such a checkpoint (a TorchScript archive, the pre-1.6 format, a
/// dict holding something other than tensors, a tensor of a dtype torchlet
/// lacks: int16, int8, complex, quantized) or is corrupt, truncated or hostile.
StateDict load_pytorch(const std::string& path);

/// `load_pytorch` for a checkpoint already in memory (Python's
/// `torch.load(io.BytesIO(bytes))`); errors name the file "<buffer>".
StateDict load_pytorch_buffer(std::string_view bytes);

/// Writes `tensors` to `path` as `torch.save(state_dict, path)` of PyTorch
/// 1.13 does, so that `torch.load(path)` returns an OrderedDict of tensors
/// with the same names, order, dtypes, shapes and values (on the CPU), and
/// `model.load_state_dict(torch.load(path))` works. Each tensor's values are
/// written contiguously; entries that are the same view of the same data
/// (tied weights) are written once and load tied. The write is atomic: a
/// crash never leaves a partial file under `path` nor damages the file
/// already there. Throws `torchlet::Error` naming the file and the OS error
/// when it cannot write, or naming the tensor when it is undefined or its
/// name is not valid UTF-8.
void save_pytorch(const StateDict& tensors, const std::string& path);

}  // namespace torchlet
