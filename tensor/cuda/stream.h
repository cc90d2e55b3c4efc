#pragma once

#include <cstdint>

// Streams and events on GPUs (torch.cuda.Stream, torch.cuda.Event,
// torch.cuda.current_stream, torch.cuda.stream(...)). Plain C++: under
// --config=cuda they wrap cudaStream_t and cudaEvent_t (cuda_runtime.cc);
// otherwise there are no GPUs and making one throws torchlet::Error.
//
// Note [Streams]
// Every kernel, copy, cuBLAS/cuDNN call and NCCL collective that torchlet
// queues on a GPU goes to the calling thread's current stream of that GPU:
// the GPU's default stream, unless a StreamGuard chose another. Each GPU's
// executor (tensor/executor.h) makes its own stream current on its thread,
// so DataParallel's replicas and the backward passes the engine runs there
// are queued apart from the caller's work. Work handed between threads is
// ordered by events, never by waiting on the host:
// - Executor::submit records an event on the submitter's current stream of
//   the executor's GPU; the task's stream waits for it before the task
//   runs, and the submitter's stream waits for the task's stream when the
//   task is done (before its future is ready).
// - The autograd engine records an event where a gradient made on one GPU
//   is handed to a node of another device, and the consumer waits for it;
//   at the end of a backward pass the caller's streams wait for the work
//   the executors queued.
// - A copy between two GPUs waits for the source GPU's current stream.
// Memory follows the stream it was allocated on (Note [CUDA caching
// allocator]); these hand-offs are what make it safe to free a tensor on
// another thread than the one that made it.
namespace torchlet::cuda {

class Stream {
 public:
  /// The default stream of GPU 0 (no GPU is touched until it is used).
  Stream() = default;
  /// A new stream on GPU `device` that does not wait for the default
  /// stream's work, as PyTorch's streams (cudaStreamNonBlocking); order it
  /// with wait_stream() or events. Throws torchlet::Error without that GPU.
  static Stream create(int device);
  /// A stream made elsewhere (a cudaStream_t, e.g. another library's),
  /// not owned (torch.cuda.ExternalStream); null is the default stream.
  static Stream from_handle(int device, void* handle) { return Stream(device, handle); }

  int device_index() const { return device_; }
  /// The cudaStream_t (null for the default stream).
  void* handle() const { return handle_; }
  bool is_default() const { return handle_ == nullptr; }
  /// Whether everything queued on it so far has finished.
  bool query() const;
  /// Waits on the host until everything queued on it so far has finished;
  /// reports an error a kernel raised meanwhile.
  void synchronize() const;
  /// Work queued on this stream from now on waits for the work queued on
  /// `other` so far (torch.cuda.Stream.wait_stream).
  void wait_stream(const Stream& other) const;

  bool operator==(const Stream& o) const { return device_ == o.device_ && handle_ == o.handle_; }
  bool operator!=(const Stream& o) const { return !(*this == o); }

 private:
  Stream(int device, void* handle) : device_(device), handle_(handle) {}
  int device_ = 0;
  void* handle_ = nullptr;
};

/// GPU `device`'s default stream (torch.cuda.default_stream).
Stream default_stream(int device);
/// The calling thread's current stream on GPU `device`
/// (torch.cuda.current_stream): its default stream unless a StreamGuard or
/// the executor the thread belongs to chose another.
Stream current_stream(int device);

/// Makes `stream` the calling thread's current stream of its GPU for the
/// guard's lifetime, then restores the previous one (torch.cuda.stream(s)).
class StreamGuard {
 public:
  explicit StreamGuard(const Stream& stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  Stream previous_;
};

/// A marker in a stream's work (torch.cuda.Event): record() places it
/// after the work queued so far; wait() makes another stream's later work
/// wait for it; query() and synchronize() ask the host. Created on the GPU
/// of its first record().
class Event {
 public:
  /// With `enable_timing`, elapsed_time() can measure between two events.
  explicit Event(bool enable_timing = false) : timing_(enable_timing) {}
  ~Event();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  /// Records the event on `stream`; throws if it was recorded on another
  /// GPU before.
  void record(const Stream& stream);
  /// Work queued on `stream` from now on waits until the recorded work has
  /// finished; a never-recorded event makes it wait for nothing.
  void wait(const Stream& stream) const;
  /// Whether the recorded work has finished (true if never recorded).
  bool query() const;
  /// Waits on the host until the recorded work has finished.
  void synchronize() const;
  /// Milliseconds from this event's recorded point to `end`'s; both must
  /// have been made with enable_timing and have finished.
  float elapsed_time(const Event& end) const;

 private:
  bool timing_ = false;
  // Unused where the CUDA backend is not built (tensor/cuda/no_cuda.cc).
  [[maybe_unused]] int device_ = -1;
  [[maybe_unused]] void* handle_ = nullptr;  // cudaEvent_t, made on first record
};

namespace detail {
/// For tensor/executor.cc: a GPU executor's own stream, made once. Unlike
/// Stream::create's it is also ordered with the legacy default stream.
Stream create_executor_stream(int device);
}  // namespace detail

/// Queues a kernel on the calling thread's current stream of GPU `device`
/// that spins for about `cycles` GPU clock cycles (torch.cuda._sleep):
/// lets tests show that work on other streams is ordered after it.
void sleep_cycles(int device, int64_t cycles);

}  // namespace torchlet::cuda
