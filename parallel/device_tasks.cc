#include "parallel/device_tasks.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <utility>

#include "autograd/grad_mode.h"
#include "tensor/error.h"
#include "tensor/executor.h"
#include "tensor/parallel.h"
#include "tensor/spin_wait.h"

namespace torchlet::parallel::detail {
namespace {

/// The tasks still running, shared with every task so that the last one
/// can signal after the caller has stopped waiting.
struct Pending {
  explicit Pending(size_t n) : left(n), errors(n) {}
  std::atomic<size_t> left;
  std::vector<std::exception_ptr> errors;
  std::mutex mutex;
  std::condition_variable done;
};

/// Waits until `left` is 0; the thread that brings it to 0 notifies `done`
/// under `mutex`.
void wait_for_zero(const std::atomic<size_t>& left, std::mutex& mutex,
                   std::condition_variable& done) {
  const auto finished = [&left] { return left.load(std::memory_order_acquire) == 0; };
  if (Executor* executor = current_executor()) {
    executor->help_until(finished);
    return;
  }
  // Note [Spin before sleeping]: the other replicas usually finish within
  // microseconds of the caller's own, at worst a replica's imbalance later;
  // meanwhile the caller helps them (Note [Replicas that finish first help]
  // in tensor/parallel.cc).
  if (torchlet::detail::spin_helping_until(finished, kSpinBetweenTasks)) return;
  std::unique_lock<std::mutex> lock(mutex);
  done.wait(lock, finished);
}

void wait_for(Pending& pending) { wait_for_zero(pending.left, pending.mutex, pending.done); }

thread_local ReceiverCopies* tls_receiver_copies = nullptr;

}  // namespace

std::vector<std::exception_ptr> run_on_devices(const std::vector<Device>& devices,
                                               const std::function<void(size_t)>& task) {
  for (Device device : devices) check_device_exists(device, "run_on_devices");
  auto pending = std::make_shared<Pending>(devices.size());
  const auto run = [&pending, &task](size_t i) {
    try {
      task(i);
    } catch (...) {
      pending->errors[i] = std::current_exception();
    }
  };
  // Note [The caller runs its own device's task]: the task of the caller's
  // current device runs on the calling thread, as the engine runs that
  // device's backward nodes there. Handing it to the device's executor
  // instead would leave three threads (caller, two executors) taking turns
  // on two cores, and the scheduler, which places a woken thread beside the
  // one that woke it, then stacks two busy threads on one core for
  // milliseconds while the other idles.
  if (devices.size() == 1) {
    DeviceGuard guard(devices[0]);
    run(0);
    return pending->errors;
  }
  const auto here = std::find(devices.begin(), devices.end(), current_device());
  const size_t inline_index = static_cast<size_t>(here - devices.begin());
  Executor* const waiting = current_executor();
  for (size_t i = 0; i < devices.size(); ++i) {
    if (i == inline_index) continue;
    try {
      device_executor(devices[i]).submit([pending, &task, i, waiting] {
        try {
          torchlet::detail::ReplicaScope replica;
          task(i);
        } catch (...) {
          pending->errors[i] = std::current_exception();
        }
        if (pending->left.fetch_sub(1, std::memory_order_acq_rel) == 1) {
          { std::lock_guard<std::mutex> lock(pending->mutex); }
          pending->done.notify_all();
          if (waiting != nullptr) waiting->wake();
        }
      });
    } catch (...) {
      // Nothing was queued (a task that could not be allocated): the task
      // failed with that error, and the others, queued or not, still run
      // and are waited for before `task` goes out of scope.
      pending->errors[i] = std::current_exception();
      pending->left.fetch_sub(1, std::memory_order_acq_rel);
    }
  }
  if (inline_index < devices.size()) {
    torchlet::detail::ReplicaScope replica;
    run(inline_index);
    pending->left.fetch_sub(1, std::memory_order_acq_rel);
  }
  wait_for(*pending);
  // A GPU executor's task counts itself done above, before its executor
  // orders the submitter's stream after the work it queued (Note [Streams]
  // in tensor/cuda/stream.h); order it now, or the caller's next kernels
  // (gather's copies) could run before the replica's have finished.
  for (size_t i = 0; i < devices.size(); ++i) {
    if (i != inline_index && devices[i].is_cuda()) device_executor(devices[i]).join_stream();
  }
  // Take the exceptions out rather than copy them: a task's closure may
  // release `pending` after this returns, and must not hold the last
  // reference to an exception the caller is reading.
  return std::move(pending->errors);
}

double StepPolicy::Samples::median() const {
  const size_t n = std::min(count, kSamples);
  double sorted[kSamples];
  std::copy(seconds, seconds + n, sorted);
  std::sort(sorted, sorted + n);
  return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

StepPolicy::Kind& StepPolicy::find(uint64_t key) {
  ++clock_;
  Kind* oldest = nullptr;
  for (Kind& kind : kinds_) {
    if (kind.key == key) {
      kind.used = clock_;
      return kind;
    }
    if (oldest == nullptr || kind.used < oldest->used) oldest = &kind;
  }
  if (kinds_.size() < kKinds) oldest = &kinds_.emplace_back();
  *oldest = Kind{};
  oldest->key = key;
  oldest->used = clock_;
  return *oldest;
}

uint64_t StepPolicy::kind_of(const Tensor& first) {
  return static_cast<uint64_t>(first.numel()) * element_size(first.dtype()) * 2 +
         (is_grad_enabled() ? 1 : 0);
}

StepPolicy::Way StepPolicy::choose(uint64_t kind_key) {
  std::lock_guard<std::mutex> lock(mutex_);
  return choose_locked(kind_key);
}

StepPolicy::Way StepPolicy::choose_locked(uint64_t kind_key) {
  Kind& kind = find(kind_key);
  const uint64_t step = kind.steps++;
  for (Way way = 0; way < kWays; ++way) {
    if (kind.ways[way].count == 0) return way;
  }
  Way fastest = 0;  // the first of equals
  for (Way way = 1; way < kWays; ++way) {
    if (kind.ways[way].median() < kind.ways[fastest].median()) fastest = way;
  }
  if (step % kProbeEvery != kProbeEvery - 1) return fastest;
  // The other ways in turn.
  const Way other = static_cast<Way>(kind.probes++ % (kWays - 1));
  return other < fastest ? other : other + 1;
}

StepPolicy::Way StepPolicy::start(uint64_t kind) {
  const std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  if (last_counted_ && last_kind_ == kind) {
    record_locked(kind, last_way_, std::chrono::duration<double>(now - last_start_).count());
  }
  const Way way = choose_locked(kind);
  last_counted_ = true;
  last_kind_ = kind;
  last_way_ = way;
  last_start_ = now;
  return way;
}

void StepPolicy::uncount() {
  std::lock_guard<std::mutex> lock(mutex_);
  last_counted_ = false;
}

void StepPolicy::record(uint64_t kind, Way way, double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  record_locked(kind, way, seconds);
}

void StepPolicy::record_locked(uint64_t kind_key, Way way, double seconds) {
  Samples& samples = find(kind_key).ways[way];
  samples.seconds[samples.count % kSamples] = seconds;
  ++samples.count;
}

struct ReceiverCopies::State {
  std::atomic<size_t> left{0};
  std::mutex mutex;
  std::condition_variable done;
  std::exception_ptr error;  // the first copy's, under mutex
  Executor* waiting = nullptr;
};

ReceiverCopies::ReceiverCopies(StepPolicy& policy)
    : policy_(policy),
      state_(std::make_shared<State>()),
      previous_(tls_receiver_copies) {
  state_->waiting = current_executor();
  tls_receiver_copies = this;
}

ReceiverCopies::~ReceiverCopies() {
  if (!open_) return;
  try {
    finish();
  } catch (...) {  // NOLINT(bugprone-empty-catch): already unwinding, or
                   // the caller chose not to finish; the copies are done
  }
}

void ReceiverCopies::finish() {
  if (!open_) return;
  open_ = false;
  tls_receiver_copies = previous_;
  if (decided_ && !counted_) policy_.uncount();
  wait_for_zero(state_->left, state_->mutex, state_->done);
  std::exception_ptr error;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    error = std::exchange(state_->error, nullptr);
  }
  if (error) std::rethrow_exception(error);
}

ReceiverCopies* ReceiverCopies::current() { return tls_receiver_copies; }

bool ReceiverCopies::takes(Device device) const {
  return device.is_cpu() && device != current_device();
}

void ReceiverCopies::copy(Device device, std::vector<std::pair<Tensor, Tensor>> pairs) {
  if (pairs.empty()) return;
  if (!decided_) {
    // The kind of step: grad mode, and the first copy's bytes (the chunk
    // of the batch, which scatter sends before replicate's parameters).
    kind_ = StepPolicy::kind_of(pairs[0].second);
    const StepPolicy::Way way = policy_.start(kind_);
    pull_ = StepPolicy::pulls(way);
    torchlet::detail::set_replicas_help(StepPolicy::helps(way));
    decided_ = true;
  }
  if (!pull_) {
    for (auto& [dst, src] : pairs) dst.copy_(src);
    return;
  }
  // Held here as well as by the task, so that a submit that fails (a task
  // that could not be allocated) leaves the copies to make at once.
  auto queued = std::make_shared<std::vector<std::pair<Tensor, Tensor>>>(std::move(pairs));
  state_->left.fetch_add(1, std::memory_order_relaxed);
  try {
    device_executor(device).submit([state = state_, queued]() mutable {
      try {
        for (auto& [dst, src] : *queued) dst.copy_(src);
      } catch (...) {
        std::lock_guard<std::mutex> lock(state->mutex);
        if (!state->error) state->error = std::current_exception();
      }
      if (state->left.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        { std::lock_guard<std::mutex> lock(state->mutex); }
        state->done.notify_all();
        if (state->waiting != nullptr) state->waiting->wake();
      }
    });
  } catch (...) {
    state_->left.fetch_sub(1, std::memory_order_relaxed);
    for (auto& [dst, src] : *queued) dst.copy_(src);
  }
}

ReceiverCopies::Pause::Pause() : paused_(tls_receiver_copies) {
  if (paused_ != nullptr) paused_->counted_ = false;
  tls_receiver_copies = nullptr;
}

ReceiverCopies::Pause::~Pause() { tls_receiver_copies = paused_; }

}  // namespace torchlet::parallel::detail
