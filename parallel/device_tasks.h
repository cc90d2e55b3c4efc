#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "tensor/device.h"
#include "tensor/tensor.h"

namespace torchlet::parallel::detail {

/// Runs task(i) for every i at once, each on the kept executor of
/// devices[i] except the task of the caller's current device, which runs on
/// the calling thread (as does a single task, with devices[0] current;
/// Note [The caller runs its own device's task]), and returns when all have finished: the exception each threw,
/// null where none did. A caller that is itself an executor's thread helps
/// that executor while it waits (Note [Waiting executors help]), so tasks
/// queued there, or nested calls, cannot deadlock.
std::vector<std::exception_ptr> run_on_devices(const std::vector<Device>& devices,
                                               const std::function<void(size_t)>& task);

// Note [Receivers copy]
// ~~~~~~~~~~~~~~~~~~~~~
// DataParallel's step sends the other CPU devices their chunks of the
// batch and copies of every parameter. Made by the caller, those copies
// sit on the caller's critical path while the other cores wait, and land
// in memory (Note [Copies for another core]) that the receiving core's
// forward then reads back. Inside a ReceiverCopies scope (data_parallel_call's
// scatter and replicate), comm's scatter and broadcast_coalesced allocate
// each copy on the caller but may queue its filling on the receiving
// device's executor ("pull"), so the receiving core copies into its own
// cache while the caller goes on with the step's bookkeeping. finish()
// waits for every queued copy; the scope's destructor does too. Nothing in
// the scope reads a copy or writes what is being copied, and every copy is
// done before any replica runs, so results, and what a replica's forward
// may change in place (BatchNorm's statistics, its input), are as without
// the scope. Copies onto the caller's own device, onto GPUs, and those the
// scope is paused for (a replica being built) are made at once.
//
// Which is faster depends on the host, not the model: pulling reads every
// line out of the caller's cache, one cross-core transfer each, and on a
// host whose cores are slow to hand lines over (round trips of 300+ ns,
// where //tools:core_latency reads 50-90 ns on an idle one) that took a
// LeNet step at batch 64 from 1.46 to 1.6 ms, while on an idle host it
// took the step from 1.27 to 1.21 ms. What pulling saves shows in the
// receivers' forward and after it, not in the caller's copying time
// (which pulling raises: 14 against 19 us on the idle host). So a
// CopyPolicy times whole steps, from one step's first copy to the next's,
// per kind of step (grad mode, and the bytes of the first copy: the
// batch's chunk), keeps the median of the last kSamples of each way, takes
// the faster way, and tries the other once every kProbeEvery steps to
// follow the host. A step that built replicas, or that another kind of
// step followed, is not counted; a pause between steps (an evaluation, a
// checkpoint) makes one long sample, which the median ignores.

/// How one DataParallel sends its copies (Note [Receivers copy]).
/// Thread-safe.
class CopyPolicy {
 public:
  static constexpr uint64_t kProbeEvery = 64;
  static constexpr size_t kSamples = 5;
  static constexpr size_t kKinds = 8;  // the least recently used goes

  /// The kind of a step whose first copy reads `first` (the batch's chunk),
  /// under the calling thread's grad mode.
  static uint64_t kind_of(const Tensor& first);

  /// Whether a step of kind `kind` should pull.
  bool choose(uint64_t kind);
  /// Starts a step of kind `kind` now: whether it pulls (as choose()). The
  /// time since the last step started is that step's, if it was of the
  /// same kind and counted.
  bool start(uint64_t kind);
  /// The step last started is not to be counted.
  void uncount();
  /// What a step of kind `kind` took.
  void record(uint64_t kind, bool pulled, double seconds);

 private:
  struct Way {
    double samples[kSamples] = {};
    size_t count = 0;  // samples taken, at most kSamples kept
    double median() const;
  };
  struct Kind {
    uint64_t key = 0;
    uint64_t steps = 0;
    uint64_t used = 0;
    Way ways[2];  // [push, pull]
  };
  Kind& find(uint64_t key);

  bool choose_locked(uint64_t kind);
  void record_locked(uint64_t kind, bool pulled, double seconds);

  std::mutex mutex_;
  std::vector<Kind> kinds_;
  uint64_t clock_ = 0;
  // The step last started.
  bool last_counted_ = false;
  uint64_t last_kind_ = 0;
  bool last_pulled_ = false;
  std::chrono::steady_clock::time_point last_start_;
};

class ReceiverCopies {
 public:
  /// Opens the calling thread's scope; `policy` (kept by the caller)
  /// decides at the first copy whether this step pulls, and learns from
  /// the next step how long this one took.
  explicit ReceiverCopies(CopyPolicy& policy);
  ~ReceiverCopies();
  ReceiverCopies(const ReceiverCopies&) = delete;
  ReceiverCopies& operator=(const ReceiverCopies&) = delete;

  /// Waits for every queued copy and leaves the scope; rethrows the first
  /// copy's error.
  void finish();

  /// The calling thread's open scope, or null.
  static ReceiverCopies* current();

  /// Whether a copy of CPU tensor data onto `device` goes through copy().
  bool takes(Device device) const;

  /// dst[i].copy_(src[i]) for every pair, in order (every dst is on
  /// `device`): queued on its executor when this step pulls, else now.
  void copy(Device device, std::vector<std::pair<Tensor, Tensor>> pairs);

  /// Makes copies at once while alive (a replica's construction reads the
  /// parameters it copies); the step is then not counted.
  class Pause {
   public:
    Pause();
    ~Pause();
    Pause(const Pause&) = delete;
    Pause& operator=(const Pause&) = delete;

   private:
    ReceiverCopies* paused_;
  };

 private:
  struct State;
  CopyPolicy& policy_;
  bool decided_ = false;
  bool pull_ = false;
  bool counted_ = true;
  uint64_t kind_ = 0;
  std::shared_ptr<State> state_;
  ReceiverCopies* previous_;
  bool open_ = true;
};

}  // namespace torchlet::parallel::detail
