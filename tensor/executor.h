#pragma once

#include <functional>
#include <future>

#include "tensor/device.h"

namespace torchlet {

/// One thread per device that runs the work submitted for that device, in
/// submission order, with the device as its current device (DeviceGuard).
/// DataParallel's replicas and the autograd engine's per-device backward
/// passes run on these, so work for different devices runs at once while
/// each device's intra-op pool splits large ops (Note [Threading model]).
class Executor {
 public:
  virtual ~Executor() = default;
  /// Queues `fn`; the future becomes ready when it has run and carries any
  /// exception it threw. `fn` runs with the submitting thread's
  /// ThreadLocalState (grad mode, ...), its current device set to this
  /// executor's device. On a GPU, `fn`'s work goes to the executor's own
  /// stream, ordered after the submitter's work on that GPU, and the
  /// submitter's later work is ordered after `fn`'s (Note [Streams]).
  virtual std::future<void> submit(std::function<void()> fn) = 0;
  /// True on this executor's own thread.
  virtual bool is_current_thread() const = 0;
  /// On this executor's own thread, from inside a task that must wait for
  /// other work: runs the tasks queued behind it until `done()` holds,
  /// polling briefly and then sleeping while the queue is empty (Note [Spin
  /// before sleeping]). `done` is evaluated both with and without the
  /// executor's lock held, so it must only read atomics; whoever makes it
  /// true calls wake() afterwards. See Note [Waiting executors help].
  virtual void help_until(const std::function<bool()>& done) = 0;
  /// Wakes a help_until() so it re-evaluates its condition.
  virtual void wake() = 0;
  /// For a GPU's executor: makes the work the calling thread queues on
  /// that GPU from now on wait for the GPU work this executor's tasks have
  /// queued so far (an event on its stream, Note [Streams] in
  /// tensor/cuda/stream.h). Nothing for a CPU device, whose work is done
  /// when its task is.
  virtual void join_stream() = 0;
};

/// The executor of `device` (created on first use, kept for the process).
Executor& device_executor(Device device);

/// The executor whose thread is calling, or null on any other thread.
Executor* current_executor();

namespace detail {
/// Queues `task` on at most `most` executors of CPU devices other than
/// `except` whose threads are idle, polling for work (Note [Idle devices
/// lend their cores] in tensor/parallel.cc); returns how many. `task` runs
/// as given, with no ThreadLocalState installed for it, and must not throw.
int lend_to_idle_cpu_executors(Device except, int most, const std::function<void()>& task);

/// For tests: the next `count` calls of any executor's submit() throw
/// std::bad_alloc before queuing anything, as a failed allocation of the
/// task would (submit queues `fn` entirely or not at all).
void fail_next_submits_for_testing(int count);
}  // namespace detail

}  // namespace torchlet
