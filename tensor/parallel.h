#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

namespace torchlet {

// Note [Threading model]
// Every device has one executor thread (tensor/executor.h) that runs the work
// submitted for that device: DataParallel's replicas and the autograd
// engine's per-device backward passes. Inside an op, a CPU device splits
// large loops across an intra-op pool sized to its share of the cores:
// cores (those of the affinity mask: Note [Cores we may use]) /
// cpu_device_count(), at least 1, unless set_num_threads() overrides
// it. N devices x their threads therefore stay within the machine's cores.
// A pool serves one op at a time; a second caller that finds it busy (or a
// loop nested inside a parallel region) runs inline, so nothing deadlocks.
// Where a device's pool is its caller alone (one CPU device per core), a
// large loop on a thread that is not an executor also offers chunks to
// the executors of other CPU devices that are idle at that moment (Note
// [Idle devices lend their cores] in tensor/parallel.cc).
//
// Per-thread settings travel as one value, ThreadLocalState
// (tensor/thread_local_state.h): the current device, autograd's grad mode
// (autograd keeps it in that struct because tensor cannot see autograd),
// the warning handler and set_flush_denormal's setting. Each hand-off
// captures the state where work is submitted and installs it
// (ThreadLocalStateGuard) in the thread that runs it:
// - Executor::submit: the submitter's state, with the executor's device;
// - parallel_for: the caller's state, device included, in every pool worker;
// - the autograd engine: the state of the thread that called backward, with
//   each node's device and the pass's grad mode (create_graph).
// A setting added later is a new field of the struct and needs no new
// plumbing.

/// Work below this many elements runs on one thread.
constexpr int64_t kParallelGrain = 32768;

/// Loops of at least this many elements, on a device whose pool is its
/// caller alone, may split across other CPU devices' idle executors (Note
/// [Idle devices lend their cores] in tensor/parallel.cc).
constexpr int64_t kLendingMinRange = int64_t{1} << 18;

/// Intra-op threads the current device uses.
int get_num_threads();
/// Overrides the per-device share of cores (n >= 1); 0 restores the default.
void set_num_threads(int n);
/// torch.set_flush_denormal: with `on`, subnormal float and double values
/// are read and computed as zero on the CPU (x86's denormals-are-zero and
/// flush-to-zero), which keeps arithmetic on values that decay toward zero
/// (a momentum buffer whose gradient stays zero, a model trained on one
/// batch until its loss vanishes) at full speed, at the cost of results
/// that differ from IEEE arithmetic below 1.2e-38 (float). Off by default,
/// as in PyTorch. Returns whether the CPU supports it (every x86-64 CPU;
/// false elsewhere, where nothing changes). Like grad mode, the setting
/// belongs to the calling thread and travels with the work it hands over
/// (intra-op chunks, executors, the autograd engine: Note [Threading
/// model]).
bool set_flush_denormal(bool on);
/// The number of hardware threads this process may run on: the CPUs of its
/// affinity mask on Linux (taskset, cpusets), else
/// std::thread::hardware_concurrency().
int hardware_threads();

namespace detail {
void parallel_for_impl(int64_t begin, int64_t end, int64_t grain,
                       const std::function<void(int64_t, int64_t)>& fn);
bool in_parallel_region();
/// Whether a loop of `range` elements on the calling thread may run on
/// more than one thread: its device's pool has several, or idle devices
/// may lend theirs (Note [Idle devices lend their cores] in
/// tensor/parallel.cc).
bool may_split(int64_t range);

/// The threads an op on the calling thread plans its loops for: its
/// device's intra-op threads, or inside a ReplicaScope on a device whose
/// pool is the thread alone, one per core for the replicas that finish
/// first to help with (Note [Replicas that finish first help] in
/// tensor/parallel.cc). Kernels choose how to split from this, not from
/// get_num_threads().
int split_threads();
/// Whether split_threads() counts threads only for other replicas to help
/// with (Note [Replicas that finish first help]): the calling thread is a
/// replica's, on a device whose pool is the thread alone. A kernel that
/// would split one piece of work it could also run faster on one thread
/// should then run it on one thread.
bool splits_for_helpers_only();

/// Marks the calling thread, while it lives, as running one device's part
/// of work spread over several CPU devices (a DataParallel replica, a
/// device's nodes of a multi-device backward): its loops split for waiting
/// replicas to help (Note [Replicas that finish first help]).
class ReplicaScope {
 public:
  ReplicaScope();
  ~ReplicaScope();
  ReplicaScope(const ReplicaScope&) = delete;
  ReplicaScope& operator=(const ReplicaScope&) = delete;

 private:
  bool outer_;
};

/// Polls `done()` as spin_until does for up to `budget`, meanwhile running
/// the unclaimed chunks of loops that replicas posted (Note [Replicas that
/// finish first help]); each chunk it runs restarts the budget. True once
/// `done()` holds, false when the budget ran out first. `done` must only
/// read atomics.
bool spin_helping_until(const std::function<bool()>& done, std::chrono::microseconds budget);

/// For tests: the chunks that intra-op pool workers, not the threads that
/// called parallel_for, have run in this process, over every device's pool.
/// An op's results cannot show whether it split across threads; an increase
/// across the op can. The count is exact once the parallel_for returns.
int64_t pool_chunks_run();
/// For tests: the chunks that other devices' executors have run for
/// loops they were lent to (Note [Idle devices lend their cores]), in this
/// process. Exact once the parallel_for returns.
int64_t lent_chunks_run();
/// For benchmarks: turns lending (Note [Idle devices lend their cores]) off
/// or back on (the default) for the whole process.
void set_lending_enabled(bool enabled);
/// Whether replicas that finish first run chunks of the others' loops
/// (Note [Replicas that finish first help] in tensor/parallel.cc), for the
/// whole process. With `on` false, a replica's loops still split into the
/// same chunks, so results keep their bits, but run them all on the
/// replica's own thread. On by default; each DataParallel step sets it as
/// its StepPolicy chose (Note [Receivers copy] in parallel/device_tasks.h).
void set_replicas_help(bool on);
bool replicas_help_enabled();
}  // namespace detail

/// Runs `fn(b, e)` over disjoint subranges covering [begin, end), in
/// parallel on the current device's intra-op pool when the range exceeds
/// `grain` (or, for a large loop, on other devices' idle executors: Note
/// [Idle devices lend their cores]). The subranges do not depend on which
/// threads were free. If `fn` throws, the first exception is rethrown here
/// once every chunk has finished.
template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& fn) {
  if (end - begin <= grain || detail::in_parallel_region() ||
      !detail::may_split(end - begin)) {
    if (begin < end) fn(begin, end);
    return;
  }
  detail::parallel_for_impl(begin, end, grain, fn);
}

}  // namespace torchlet
