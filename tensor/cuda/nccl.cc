#include "tensor/cuda/nccl.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <map>
#include <memory>
#include <mutex>

#include "tensor/cuda/stream_state.h"

namespace torchlet::cuda::nccl {
namespace {

void check_nccl(ncclResult_t result, const char* what) {
  TORCHLET_CHECK(result == ncclSuccess, what, ": NCCL error: ", ncclGetErrorString(result));
}

// The communicators of one ordered set of GPUs (rank i on devices[i]),
// made together by ncclCommInitAll and kept for the process, as PyTorch's
// torch.cuda.nccl caches them: creating one costs milliseconds.
struct Communicators {
  std::vector<ncclComm_t> comms;
  std::mutex mutex;  // one collective at a time on a communicator set
};

Communicators& communicators(const std::vector<int>& devices) {
  static std::mutex cache_mutex;
  static auto* cache = new std::map<std::vector<int>, std::unique_ptr<Communicators>>();
  std::lock_guard<std::mutex> lock(cache_mutex);
  std::unique_ptr<Communicators>& entry = (*cache)[devices];
  if (!entry) {
    auto made = std::make_unique<Communicators>();
    made->comms.resize(devices.size());
    check_nccl(ncclCommInitAll(made->comms.data(), static_cast<int>(devices.size()),
                               devices.data()),
               "ncclCommInitAll");
    entry = std::move(made);
  }
  return *entry;
}

bool nccl_type(DType dtype, bool reducing, ncclDataType_t* out) {
  switch (dtype) {
    case kFloat32: *out = ncclFloat32; return true;
    case kFloat64: *out = ncclFloat64; return true;
    case kFloat16: *out = ncclFloat16; return true;
    case kBFloat16: *out = ncclBfloat16; return true;
    case kInt64: *out = ncclInt64; return true;
    case kInt32: *out = ncclInt32; return true;
    case kUInt8: *out = ncclUint8; return true;
    case kBool: *out = ncclUint8; return !reducing;  // a sum of bools is not a bool
  }
  return false;
}

std::vector<int> device_indices(const std::vector<Tensor>& tensors) {
  std::vector<int> devices;
  devices.reserve(tensors.size());
  for (const Tensor& t : tensors) devices.push_back(t.device().index);
  return devices;
}

void check_operands(const std::vector<Tensor>& tensors, bool reducing, const char* op) {
  TORCHLET_CHECK(!tensors.empty(), op, ": expected at least one tensor");
  std::vector<int> seen;
  for (const Tensor& t : tensors) {
    TORCHLET_CHECK(t.defined() && t.is_cuda(), op, ": expected CUDA tensors, got one on ",
                   t.defined() ? t.device().str() : std::string("(undefined)"));
    TORCHLET_CHECK(t.is_contiguous(), op, ": expected contiguous tensors");
    TORCHLET_CHECK(t.dtype() == tensors[0].dtype() && t.numel() == tensors[0].numel(), op,
                   ": expected tensors of one dtype and number of elements, got ", t.dtype(),
                   " [", t.numel(), "] and ", tensors[0].dtype(), " [", tensors[0].numel(), "]");
    for (int d : seen) {
      TORCHLET_CHECK(d != t.device().index, op, ": expected each tensor on a different GPU, got "
                     "two on cuda:", d);
    }
    seen.push_back(t.device().index);
  }
  ncclDataType_t type = ncclUint8;
  TORCHLET_CHECK(nccl_type(tensors[0].dtype(), reducing, &type), op, ": NCCL cannot ",
                 reducing ? "sum" : "copy", " ", tensors[0].dtype(), " tensors");
}

// Restores the calling thread's current GPU.
class CurrentDevice {
 public:
  CurrentDevice() { (void)cudaGetDevice(&device_); }
  ~CurrentDevice() { (void)cudaSetDevice(device_); }
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;

 private:
  int device_ = 0;
};

}  // namespace

bool is_available(const std::vector<Tensor>& tensors, bool reducing) {
  try {
    check_operands(tensors, reducing, "nccl");
  } catch (const Error&) {
    return false;
  }
  return true;
}

void broadcast(const std::vector<Tensor>& tensors, int root) {
  check_operands(tensors, false, "nccl::broadcast");
  TORCHLET_CHECK(root >= 0 && root < static_cast<int>(tensors.size()),
                 "nccl::broadcast: root ", root, " out of range for ", tensors.size(), " tensors");
  ncclDataType_t type = ncclUint8;
  nccl_type(tensors[0].dtype(), false, &type);
  const size_t count = static_cast<size_t>(tensors[0].numel());
  Communicators& c = communicators(device_indices(tensors));
  std::lock_guard<std::mutex> lock(c.mutex);
  CurrentDevice restore;
  check_nccl(ncclGroupStart(), "ncclGroupStart");
  for (size_t i = 0; i < tensors.size(); ++i) {
    (void)cudaSetDevice(tensors[i].device().index);
    check_nccl(ncclBroadcast(tensors[root].device() == tensors[i].device()
                                 ? tensors[i].data_ptr()
                                 : nullptr,
                             tensors[i].data_ptr(), count, type, root, c.comms[i],
                             current_stream_handle(tensors[i].device().index)),
               "ncclBroadcast");
  }
  check_nccl(ncclGroupEnd(), "ncclGroupEnd");
}

void reduce(const std::vector<Tensor>& inputs, const Tensor& output, int root) {
  check_operands(inputs, true, "nccl::reduce");
  TORCHLET_CHECK(root >= 0 && root < static_cast<int>(inputs.size()), "nccl::reduce: root ", root,
                 " out of range for ", inputs.size(), " tensors");
  TORCHLET_CHECK(output.defined() && output.device() == inputs[root].device() &&
                     output.dtype() == inputs[root].dtype() &&
                     output.numel() == inputs[root].numel() && output.is_contiguous(),
                 "nccl::reduce: the output must be a contiguous ", inputs[root].dtype(),
                 " tensor of ", inputs[root].numel(), " elements on ", inputs[root].device());
  ncclDataType_t type = ncclUint8;
  nccl_type(inputs[0].dtype(), true, &type);
  const size_t count = static_cast<size_t>(inputs[0].numel());
  Communicators& c = communicators(device_indices(inputs));
  std::lock_guard<std::mutex> lock(c.mutex);
  CurrentDevice restore;
  check_nccl(ncclGroupStart(), "ncclGroupStart");
  for (size_t i = 0; i < inputs.size(); ++i) {
    (void)cudaSetDevice(inputs[i].device().index);
    check_nccl(ncclReduce(inputs[i].data_ptr(),
                          static_cast<int>(i) == root ? output.data_ptr() : nullptr, count, type,
                          ncclSum, root, c.comms[i],
                          current_stream_handle(inputs[i].device().index)),
               "ncclReduce");
  }
  check_nccl(ncclGroupEnd(), "ncclGroupEnd");
}

int version() {
  int v = 0;
  return ncclGetVersion(&v) == ncclSuccess ? v : 0;
}

}  // namespace torchlet::cuda::nccl
