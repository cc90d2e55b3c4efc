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
// (which pulling raises: 14 against 19 us on the idle host). Whether the
// replicas that finish first should help the others (Note [Replicas that
// finish first help] in tensor/parallel.cc) depends on the host the same
// way: on an Intel Xeon it took 1-2.4% off LeNet's step at batch 64 and
// 10-15% off the MLP's, on a busy AMD EPYC (Zen 4) it added 8-14% to
// LeNet's. So a StepPolicy chooses both for each step among four ways
// (pull or push, with or without help), timing whole steps, from one
// step's first copy to the next's, per kind of step (grad mode, and the
// bytes of the first copy: the batch's chunk): it tries each way once,
// keeps the median of the last kSamples steps of each, takes the fastest,
// and every kProbeEvery steps tries one of the other three in turn, to
// follow the host. A step that built replicas, or that another kind of
// step followed, is not counted; a pause between steps (an evaluation, a
// checkpoint) makes one long sample, which the median ignores. Neither
// choice changes a result's bits: the copies are the same, and a loop
// nobody helps runs the same chunks on one thread.

/// How one DataParallel sends its copies and whether its replicas help one
/// another (Note [Receivers copy]). Thread-safe.
class StepPolicy {
 public:
  /// A way of taking a step: bit 0 set pushes (else pulls), bit 1 set
  /// leaves each replica alone (else replicas help). Way 0, pulling with
  /// help, is tried first.
  using Way = int;
  static constexpr int kWays = 4;
  static constexpr bool pulls(Way way) { return (way & 1) == 0; }
  static constexpr bool helps(Way way) { return (way & 2) == 0; }

  static constexpr uint64_t kProbeEvery = 32;
  static constexpr size_t kSamples = 5;
  static constexpr size_t kKinds = 8;  // the least recently used goes

  /// The kind of a step whose first copy reads `first` (the batch's chunk),
  /// under the calling thread's grad mode.
  static uint64_t kind_of(const Tensor& first);

  /// The way a step of kind `kind` should take.
  Way choose(uint64_t kind);
  /// Starts a step of kind `kind` now: the way it takes (as choose()). The
  /// time since the last step started is that step's, if it was of the
  /// same kind and counted.
  Way start(uint64_t kind);
  /// The step last started is not to be counted.
  void uncount();
  /// What a step of kind `kind` that took `way` took.
  void record(uint64_t kind, Way way, double seconds);

 private:
  struct Samples {
    double seconds[kSamples] = {};
    size_t count = 0;  // samples taken, at most kSamples kept
    double median() const;
  };
  struct Kind {
    uint64_t key = 0;
    uint64_t steps = 0;
    uint64_t probes = 0;
    uint64_t used = 0;
    Samples ways[kWays];
  };
  Kind& find(uint64_t key);

  Way choose_locked(uint64_t kind);
  void record_locked(uint64_t kind, Way way, double seconds);

  std::mutex mutex_;
  std::vector<Kind> kinds_;
  uint64_t clock_ = 0;
  // The step last started.
  bool last_counted_ = false;
  uint64_t last_kind_ = 0;
  Way last_way_ = 0;
  std::chrono::steady_clock::time_point last_start_;
};

class ReceiverCopies {
 public:
  /// Opens the calling thread's scope; `policy` (kept by the caller)
  /// decides at the first copy whether this step pulls and whether its
  /// replicas help one another (detail::set_replicas_help, in effect until
  /// a step decides otherwise), and learns from the next step how long
  /// this one took.
  explicit ReceiverCopies(StepPolicy& policy);
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
  StepPolicy& policy_;
  bool decided_ = false;
  bool pull_ = false;
  bool counted_ = true;
  uint64_t kind_ = 0;
  std::shared_ptr<State> state_;
  ReceiverCopies* previous_;
  bool open_ = true;
};

}  // namespace torchlet::parallel::detail
