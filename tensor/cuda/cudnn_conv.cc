// Convolutions on GPUs through cuDNN (built under --config=cuda only).
#include "tensor/cuda/cudnn_conv.h"

#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <dlfcn.h>

#include <atomic>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "tensor/cuda/cuda_runtime.h"
#include "tensor/cuda/device_scope.h"
#include "tensor/cuda/stream_state.h"
#include "tensor/error.h"

#define TORCHLET_STRINGIFY_(x) #x
#define TORCHLET_STRINGIFY(x) TORCHLET_STRINGIFY_(x)
#define TORCHLET_CUDNN_MAJOR_STRING TORCHLET_STRINGIFY(CUDNN_MAJOR)

namespace torchlet::cuda {
namespace {

// Note [cuDNN convolutions]
// libcudnn is loaded at run time (dlopen of libcudnn.so.<the headers' major
// version>), so no binary needs it to start. Where it was found and
// cuda::set_cudnn_enabled (on by default), float32 and float64 convolutions
// on GPUs of at least cuda::cudnn_min_macs() multiply-adds a pass and their
// two gradients run as cuDNN's legacy convolution calls
// (cudnnConvolutionForward, ...BackwardData, ...BackwardFilter), as
// PyTorch's own do, instead of im2col + strided-batched cuBLAS, which holds
// a column matrix of the whole batch (in_channels x kernel x output plane
// per sample). The 3-d geometry of tensor/cpu/conv_kernels.h is passed as a
// 2-d convolution (4-d tensors) when its first spatial dim is trivial, as a
// 3-d one otherwise. The algorithm is cuDNN's first choice by its
// heuristics (cudnnGet...Algorithm_v7, PyTorch's default without
// cudnn.benchmark) whose status is success, that is deterministic where
// cuda::set_cudnn_deterministic asks for it, that uses no TF32 tensor cores
// for float32 unless cuda::set_cudnn_allow_tf32 allows them (on by default,
// as PyTorch's torch.backends.cudnn.allow_tf32), and whose workspace can be
// allocated; the choice is remembered per geometry, dtype and settings.
// Workspaces come from the caching allocator and go back to it after the
// call (the next user of the block is ordered after it on the same stream).
// Every call runs on the calling thread's current stream of the GPU (Note
// [Streams] in tensor/cuda/stream.h), as the other kernels do.

// The cuDNN functions used here, resolved from libcudnn at run time: cuDNN
// is optional (convolutions fall back to im2col + cuBLAS without it), so
// no binary needs it to start.
#define TORCHLET_CUDNN_FUNCTIONS(X)                 \
  X(cudnnGetVersion)                                \
  X(cudnnGetErrorString)                            \
  X(cudnnCreate)                                    \
  X(cudnnSetStream)                                 \
  X(cudnnCreateTensorDescriptor)                    \
  X(cudnnDestroyTensorDescriptor)                   \
  X(cudnnSetTensorNdDescriptor)                     \
  X(cudnnCreateFilterDescriptor)                    \
  X(cudnnDestroyFilterDescriptor)                   \
  X(cudnnSetFilterNdDescriptor)                     \
  X(cudnnCreateConvolutionDescriptor)               \
  X(cudnnDestroyConvolutionDescriptor)              \
  X(cudnnSetConvolutionNdDescriptor)                \
  X(cudnnSetConvolutionGroupCount)                  \
  X(cudnnSetConvolutionMathType)                    \
  X(cudnnGetConvolutionNdForwardOutputDim)          \
  X(cudnnGetConvolutionForwardAlgorithm_v7)         \
  X(cudnnGetConvolutionBackwardDataAlgorithm_v7)    \
  X(cudnnGetConvolutionBackwardFilterAlgorithm_v7)  \
  X(cudnnGetConvolutionForwardWorkspaceSize)        \
  X(cudnnGetConvolutionBackwardDataWorkspaceSize)   \
  X(cudnnGetConvolutionBackwardFilterWorkspaceSize) \
  X(cudnnConvolutionForward)                        \
  X(cudnnConvolutionBackwardData)                   \
  X(cudnnConvolutionBackwardFilter)

struct Api {
#define TORCHLET_CUDNN_POINTER(name) decltype(&::name) name = nullptr;
  TORCHLET_CUDNN_FUNCTIONS(TORCHLET_CUDNN_POINTER)
#undef TORCHLET_CUDNN_POINTER
};

// libcudnn of the major version these declarations come from, or null.
const Api* load_api() {
  void* lib = dlopen("libcudnn.so." TORCHLET_CUDNN_MAJOR_STRING, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return nullptr;
  auto api = std::make_unique<Api>();
#define TORCHLET_CUDNN_RESOLVE(name)                                  \
  api->name = reinterpret_cast<decltype(&::name)>(dlsym(lib, #name)); \
  if (api->name == nullptr) return nullptr;
  TORCHLET_CUDNN_FUNCTIONS(TORCHLET_CUDNN_RESOLVE)
#undef TORCHLET_CUDNN_RESOLVE
  if (api->cudnnGetVersion() / 10000 != CUDNN_MAJOR) return nullptr;
  return api.release();  // kept for the process, as the library is
}

const Api* api() {
  static const Api* const loaded = load_api();
  return loaded;
}

// The loaded API; only called once api() is known to be non-null.
const Api& cudnn() { return *api(); }

void check(cudnnStatus_t status, const char* what) {
  TORCHLET_CHECK(status == CUDNN_STATUS_SUCCESS, what,
                 ": cuDNN error: ", cudnn().cudnnGetErrorString(status));
}

// One handle per thread and GPU, kept for the process (as the cuBLAS
// handles in kernels.cc, for the same reasons), queueing on the thread's
// current stream of the GPU (Note [Streams]). Workspaces come from the
// caching allocator on that stream, so a handle needs none of its own.
cudnnHandle_t handle(int device) {
  struct Handle {
    cudnnHandle_t handle = nullptr;
    cudaStream_t stream = nullptr;
  };
  thread_local std::vector<Handle> handles;
  if (handles.size() <= static_cast<size_t>(device)) handles.resize(device + 1);
  Handle& h = handles[device];
  if (h.handle == nullptr) check(cudnn().cudnnCreate(&h.handle), "cudnnCreate");
  const cudaStream_t stream = current_stream_handle(device);
  if (h.stream != stream) {
    check(cudnn().cudnnSetStream(h.handle, stream), "cudnnSetStream");
    h.stream = stream;
  }
  return h.handle;
}

template <typename T, auto Api::*kCreate, auto Api::*kDestroy>
class Descriptor {
 public:
  Descriptor() { check((cudnn().*kCreate)(&desc_), "cuDNN descriptor"); }
  ~Descriptor() { (cudnn().*kDestroy)(desc_); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  T get() const { return desc_; }

 private:
  T desc_ = nullptr;
};
using TensorDesc = Descriptor<cudnnTensorDescriptor_t, &Api::cudnnCreateTensorDescriptor,
                              &Api::cudnnDestroyTensorDescriptor>;
using FilterDesc = Descriptor<cudnnFilterDescriptor_t, &Api::cudnnCreateFilterDescriptor,
                              &Api::cudnnDestroyFilterDescriptor>;
using ConvDesc = Descriptor<cudnnConvolutionDescriptor_t, &Api::cudnnCreateConvolutionDescriptor,
                            &Api::cudnnDestroyConvolutionDescriptor>;

enum class Pass { kForward, kBackwardData, kBackwardFilter };

// One convolution's sizes as cuDNN takes them (2 spatial dims where the
// first is trivial, else 3), and what identifies its algorithm: those and
// the settings that choose it.
struct Shape {
  Shape(const cpu::ConvGeometry& g, DType dtype) {
    const int first = g.input[0] == 1 && g.output[0] == 1 && g.kernel[0] == 1 &&
                              g.padding[0] == 0 && g.stride[0] == 1 && g.dilation[0] == 1
                          ? 1
                          : 0;
    spatial = 3 - first;
    groups = g.groups;
    in = {static_cast<int>(g.batch), static_cast<int>(g.in_channels)};
    out = {static_cast<int>(g.batch), static_cast<int>(g.out_channels)};
    w = {static_cast<int>(g.out_channels), static_cast<int>(g.in_channels / g.groups)};
    for (int d = first; d < 3; ++d) {
      in.push_back(static_cast<int>(g.input[d]));
      out.push_back(static_cast<int>(g.output[d]));
      w.push_back(static_cast<int>(g.kernel[d]));
      pad.push_back(static_cast<int>(g.padding[d]));
      stride.push_back(static_cast<int>(g.stride[d]));
      dilation.push_back(static_cast<int>(g.dilation[d]));
    }
    data_type = dtype == kFloat64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    allow_tensor_cores = dtype == kFloat32 && cudnn_allow_tf32();
    deterministic = cudnn_deterministic();
    key = {static_cast<int64_t>(dtype), allow_tensor_cores, deterministic, g.groups};
    for (const auto* dims : {&in, &out, &w, &pad, &stride, &dilation}) {
      key.push_back(static_cast<int64_t>(dims->size()));
      key.insert(key.end(), dims->begin(), dims->end());
    }
  }

  int spatial = 2;
  int64_t groups = 1;
  std::vector<int> in, out, w, pad, stride, dilation;
  cudnnDataType_t data_type;
  bool allow_tensor_cores = false;
  bool deterministic = false;
  std::vector<int64_t> key;
};

// The descriptors of one convolution.
struct Problem {
  explicit Problem(const Shape& sh)
      : data_type(sh.data_type),
        allow_tensor_cores(sh.allow_tensor_cores),
        deterministic(sh.deterministic) {
    set_contiguous(input.get(), sh.data_type, sh.in);
    set_contiguous(output.get(), sh.data_type, sh.out);
    check(cudnn().cudnnSetFilterNdDescriptor(weight.get(), sh.data_type, CUDNN_TENSOR_NCHW,
                                             static_cast<int>(sh.w.size()), sh.w.data()),
          "cudnnSetFilterNdDescriptor");
    check(cudnn().cudnnSetConvolutionNdDescriptor(conv.get(), sh.spatial, sh.pad.data(),
                                                  sh.stride.data(), sh.dilation.data(),
                                                  CUDNN_CROSS_CORRELATION, sh.data_type),
          "cudnnSetConvolutionNdDescriptor");
    check(cudnn().cudnnSetConvolutionGroupCount(conv.get(), static_cast<int>(sh.groups)),
          "cudnnSetConvolutionGroupCount");
    check(cudnn().cudnnSetConvolutionMathType(
              conv.get(), allow_tensor_cores ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH),
          "cudnnSetConvolutionMathType");
  }

  static void set_contiguous(cudnnTensorDescriptor_t desc, cudnnDataType_t type,
                             const std::vector<int>& dims) {
    std::vector<int> strides(dims.size(), 1);
    for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) {
      strides[i] = strides[i + 1] * dims[i + 1];
    }
    check(cudnn().cudnnSetTensorNdDescriptor(desc, type, static_cast<int>(dims.size()), dims.data(),
                                             strides.data()),
          "cudnnSetTensorNdDescriptor");
  }

  cudnnDataType_t data_type;
  TensorDesc input, output;
  FilterDesc weight;
  ConvDesc conv;
  bool allow_tensor_cores = false;
  bool deterministic = false;
};

// What was chosen for a problem, pass and device: its algorithm, the
// descriptors set for it and its workspace size. A call that finds it
// makes no descriptor and asks cuDNN nothing before running (each cuDNN 9
// query costs host time comparable to a small convolution's).
struct Plan {
  int algo = 0;
  std::shared_ptr<const Problem> problem;  // math type set for algo
  size_t workspace = 0;
};
struct AlgorithmCache {
  std::mutex mu;
  std::map<std::pair<std::vector<int64_t>, std::pair<int, int>>, Plan> chosen;
};
AlgorithmCache& algorithm_cache() {
  static auto* cache = new AlgorithmCache;  // never destroyed: used until exit
  return *cache;
}

// A workspace from the caching allocator, returned on scope exit.
class Workspace {
 public:
  Workspace(size_t bytes, int device) : bytes_(bytes), device_(device) {
    if (bytes_ > 0) data_ = allocate(bytes_, device_);
  }
  ~Workspace() {
    if (data_ != nullptr) deallocate(data_, device_);
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  void* data() const { return data_; }
  size_t size() const { return bytes_; }

 private:
  size_t bytes_;
  int device_;
  void* data_ = nullptr;
};

// What cudnnGet...Algorithm_v7 reports of one candidate, whatever the pass.
struct Candidate {
  int algo;
  cudnnStatus_t status;
  size_t memory;
  cudnnDeterminism_t determinism;
  cudnnMathType_t math;
};

template <typename Perf>
std::vector<Candidate> candidates_from(const Perf* perf, int count) {
  std::vector<Candidate> out;
  for (int i = 0; i < count; ++i) {
    out.push_back({static_cast<int>(perf[i].algo), perf[i].status, perf[i].memory,
                   perf[i].determinism, perf[i].mathType});
  }
  return out;
}

std::vector<Candidate> candidates(cudnnHandle_t h, const Problem& p, Pass pass) {
  constexpr int kMax = 16;
  int count = 0;
  switch (pass) {
    case Pass::kForward: {
      cudnnConvolutionFwdAlgoPerf_t perf[kMax];
      check(cudnn().cudnnGetConvolutionForwardAlgorithm_v7(
                h, p.input.get(), p.weight.get(), p.conv.get(), p.output.get(), kMax, &count, perf),
            "cudnnGetConvolutionForwardAlgorithm_v7");
      return candidates_from(perf, count);
    }
    case Pass::kBackwardData: {
      cudnnConvolutionBwdDataAlgoPerf_t perf[kMax];
      check(cudnn().cudnnGetConvolutionBackwardDataAlgorithm_v7(
                h, p.weight.get(), p.output.get(), p.conv.get(), p.input.get(), kMax, &count, perf),
            "cudnnGetConvolutionBackwardDataAlgorithm_v7");
      return candidates_from(perf, count);
    }
    case Pass::kBackwardFilter: {
      cudnnConvolutionBwdFilterAlgoPerf_t perf[kMax];
      check(cudnn().cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                h, p.input.get(), p.output.get(), p.conv.get(), p.weight.get(), kMax, &count, perf),
            "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
      return candidates_from(perf, count);
    }
  }
  return {};
}

size_t workspace_size(cudnnHandle_t h, const Problem& p, Pass pass, int algo) {
  size_t bytes = 0;
  switch (pass) {
    case Pass::kForward:
      check(cudnn().cudnnGetConvolutionForwardWorkspaceSize(
                h, p.input.get(), p.weight.get(), p.conv.get(), p.output.get(),
                static_cast<cudnnConvolutionFwdAlgo_t>(algo), &bytes),
            "cudnnGetConvolutionForwardWorkspaceSize");
      break;
    case Pass::kBackwardData:
      check(cudnn().cudnnGetConvolutionBackwardDataWorkspaceSize(
                h, p.weight.get(), p.output.get(), p.conv.get(), p.input.get(),
                static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), &bytes),
            "cudnnGetConvolutionBackwardDataWorkspaceSize");
      break;
    case Pass::kBackwardFilter:
      check(cudnn().cudnnGetConvolutionBackwardFilterWorkspaceSize(
                h, p.input.get(), p.output.get(), p.conv.get(), p.weight.get(),
                static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), &bytes),
            "cudnnGetConvolutionBackwardFilterWorkspaceSize");
      break;
  }
  return bytes;
}

cudnnStatus_t run(cudnnHandle_t h, const Problem& p, Pass pass, int algo, const Workspace& ws,
                  void* out, const void* a, const void* b) {
  const double one64 = 1, zero64 = 0;
  const float one32 = 1, zero32 = 0;
  const bool f64 = p.data_type == CUDNN_DATA_DOUBLE;
  const void* one = f64 ? static_cast<const void*>(&one64) : &one32;
  const void* zero = f64 ? static_cast<const void*>(&zero64) : &zero32;
  switch (pass) {
    case Pass::kForward:  // a = input, b = weight
      return cudnn().cudnnConvolutionForward(h, one, p.input.get(), a, p.weight.get(), b,
                                             p.conv.get(),
                                             static_cast<cudnnConvolutionFwdAlgo_t>(algo),
                                             ws.data(), ws.size(), zero, p.output.get(), out);
    case Pass::kBackwardData:  // a = weight, b = grad_out
      return cudnn().cudnnConvolutionBackwardData(h, one, p.weight.get(), a, p.output.get(), b,
                                                  p.conv.get(),
                                                  static_cast<cudnnConvolutionBwdDataAlgo_t>(algo),
                                                  ws.data(), ws.size(), zero, p.input.get(), out);
    case Pass::kBackwardFilter:  // a = input, b = grad_out
      return cudnn().cudnnConvolutionBackwardFilter(
          h, one, p.input.get(), a, p.output.get(), b, p.conv.get(),
          static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), ws.data(), ws.size(), zero,
          p.weight.get(), out);
  }
  return CUDNN_STATUS_NOT_SUPPORTED;
}

const char* pass_name(Pass pass) {
  switch (pass) {
    case Pass::kForward:
      return "convolution (cuDNN forward)";
    case Pass::kBackwardData:
      return "convolution_backward (cuDNN data)";
    case Pass::kBackwardFilter:
      return "convolution_backward (cuDNN filter)";
  }
  return "convolution";
}

// The multiply-adds of one pass of g (each pass has the same count).
int64_t multiply_adds(const cpu::ConvGeometry& g) {
  int64_t n = g.batch * g.out_channels * (g.in_channels / g.groups);
  for (int d = 0; d < 3; ++d) n *= g.output[d] * g.kernel[d];
  return n;
}

std::atomic<int64_t> passes_run{0};

// Runs one pass with the remembered algorithm, or chooses one first.
// Returns false where no algorithm takes the problem.
bool convolve(Pass pass, const Tensor& out, const Tensor& a, const Tensor& b,
              const cpu::ConvGeometry& g) {
  if (!cudnn_enabled() || api() == nullptr) return false;
  if (multiply_adds(g) < cudnn_min_macs()) return false;
  const DType dtype = out.dtype();
  if (dtype != kFloat32 && dtype != kFloat64) return false;
  // cuDNN's descriptors count in int.
  constexpr int64_t kMaxInt = std::numeric_limits<int>::max();
  if (out.numel() > kMaxInt || a.numel() > kMaxInt || b.numel() > kMaxInt) return false;
  const int device = out.device().index;
  DeviceScope scope(device);
  const cudnnHandle_t h = handle(device);
  const Shape shape(g, dtype);
  AlgorithmCache& cache = algorithm_cache();
  const auto key = std::make_pair(shape.key, std::make_pair(static_cast<int>(pass), device));
  std::optional<Plan> remembered;
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    const auto it = cache.chosen.find(key);
    if (it != cache.chosen.end()) remembered = it->second;
  }
  if (remembered) {
    Workspace ws(remembered->workspace, device);
    check(run(h, *remembered->problem, pass, remembered->algo, ws, out.data_ptr(), a.data_ptr(),
              b.data_ptr()),
          pass_name(pass));
    passes_run.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  auto p = std::make_shared<Problem>(shape);
  for (const Candidate& c : candidates(h, *p, pass)) {
    if (c.status != CUDNN_STATUS_SUCCESS) continue;
    if (p->deterministic && c.determinism != CUDNN_DETERMINISTIC) continue;
    if (!p->allow_tensor_cores && c.math != CUDNN_FMA_MATH) continue;
    check(cudnn().cudnnSetConvolutionMathType(p->conv.get(), c.math),
          "cudnnSetConvolutionMathType");
    std::optional<Workspace> ws;
    size_t bytes = 0;
    try {
      bytes = workspace_size(h, *p, pass, c.algo);
      ws.emplace(bytes, device);
    } catch (const Error&) {
      continue;  // its workspace does not fit: the next candidate
    }
    const cudnnStatus_t status =
        run(h, *p, pass, c.algo, *ws, out.data_ptr(), a.data_ptr(), b.data_ptr());
    if (status == CUDNN_STATUS_NOT_SUPPORTED) continue;
    check(status, pass_name(pass));
    std::lock_guard<std::mutex> lock(cache.mu);
    cache.chosen.emplace(key, Plan{c.algo, std::move(p), bytes});
    passes_run.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  return false;
}

}  // namespace

int64_t cudnn_passes_run() { return passes_run.load(std::memory_order_relaxed); }

bool cudnn_conv_forward(const Tensor& out, const Tensor& input, const Tensor& weight,
                        const cpu::ConvGeometry& g) {
  return convolve(Pass::kForward, out, input, weight, g);
}

bool cudnn_conv_backward_input(const Tensor& grad_input, const Tensor& grad_out,
                               const Tensor& weight, const cpu::ConvGeometry& g) {
  return convolve(Pass::kBackwardData, grad_input, weight, grad_out, g);
}

bool cudnn_conv_backward_weight(const Tensor& grad_weight, const Tensor& grad_out,
                                const Tensor& input, const cpu::ConvGeometry& g) {
  return convolve(Pass::kBackwardFilter, grad_weight, input, grad_out, g);
}

std::vector<int64_t> cudnn_output_shape(const cpu::ConvGeometry& g, DType dtype) {
  if (api() == nullptr) return {};
  const Shape shape(g, dtype);
  const Problem p(shape);
  int dims[5] = {};
  const int rank = shape.spatial + 2;
  check(cudnn().cudnnGetConvolutionNdForwardOutputDim(p.conv.get(), p.input.get(), p.weight.get(),
                                                      rank, dims),
        "cudnnGetConvolutionNdForwardOutputDim");
  return std::vector<int64_t>(dims, dims + rank);
}

bool cudnn_is_available() { return api() != nullptr; }

int cudnn_version() { return api() == nullptr ? 0 : static_cast<int>(cudnn().cudnnGetVersion()); }

}  // namespace torchlet::cuda
