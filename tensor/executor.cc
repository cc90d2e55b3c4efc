#include "tensor/executor.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <thread>

#include "tensor/cuda/stream.h"
#include "tensor/parallel.h"
#include "tensor/spin_wait.h"
#include "tensor/thread_local_state.h"

namespace torchlet {
namespace {

/// Submits still to fail (detail::fail_next_submits_for_testing).
std::atomic<int> failing_submits{0};

/// True, counting it, if this submit is to fail.
bool take_failing_submit() {
  int left = failing_submits.load(std::memory_order_relaxed);
  while (left > 0 && !failing_submits.compare_exchange_weak(left, left - 1)) {
  }
  return left > 0;
}

thread_local Executor* tls_current_executor = nullptr;

// Note [Waiting executors help]
// A task on executor A may block until work queued on executor B is done
// (a backward started on A whose graph has nodes on B). If B's task is
// itself blocked on work queued behind A's task, neither queue moves. So a
// task never blocks an executor outright: it waits in help_until(), which
// keeps running the executor's queued tasks (PyTorch's re-entrant backward
// lets a waiting worker process its device's ready queue the same way).
class ThreadExecutor final : public Executor {
 public:
  explicit ThreadExecutor(Device device)
      : device_(device),
        stream_(device.is_cuda() ? cuda::detail::create_executor_stream(device.index)
                                 : cuda::Stream()),
        thread_([this] { run(); }) {}

  std::future<void> submit(std::function<void()> fn) override {
    if (take_failing_submit()) throw std::bad_alloc();
    ThreadLocalState state = thread_local_state();
    state.device = device_;
    if (device_.is_cuda()) fn = ordered_on_streams(std::move(fn));
    std::packaged_task<void()> task([state, fn = std::move(fn)] {
      ThreadLocalStateGuard guard(state);
      fn();
    });
    std::future<void> done = task.get_future();
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(std::move(task));
      queued_.fetch_add(1, std::memory_order_release);
    }
    ready_.notify_one();
    return done;
  }

  bool is_current_thread() const override { return std::this_thread::get_id() == thread_.get_id(); }

  /// Queues `task` if this executor's thread is polling for work with
  /// nothing queued (Note [Idle devices lend their cores] in
  /// tensor/parallel.cc), claiming the poll so that one lender gets it;
  /// false, queuing nothing, if it is busy, sleeping or already lent.
  bool lend(std::function<void()> task) {
    bool polling = true;
    if (!polling_.compare_exchange_strong(polling, false, std::memory_order_acq_rel)) return false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!queue_.empty()) return false;
      queue_.emplace_back(std::move(task));
      queued_.fetch_add(1, std::memory_order_release);
    }
    ready_.notify_one();
    return true;
  }

  Device device() const { return device_; }

  void help_until(const std::function<bool()>& done) override {
    std::unique_lock<std::mutex> lock(mu_);
    while (!done()) {
      if (queue_.empty()) {
        // Note [Spin before sleeping]: what we wait for, or a task, usually
        // comes within microseconds.
        lock.unlock();
        detail::spin_helping_until(
            [&] { return done() || queued_.load(std::memory_order_acquire) > 0; },
            kSpinBetweenTasks);
        lock.lock();
        if (queue_.empty() && !done()) ready_.wait(lock);
        continue;
      }
      std::packaged_task<void()> task = pop_locked();
      lock.unlock();
      task();
      lock.lock();
    }
  }

  void wake() override {
    std::lock_guard<std::mutex> lock(mu_);
    ready_.notify_all();
  }

  void join_stream() override {
    if (!device_.is_cuda()) return;
    cuda::current_stream(device_.index).wait_stream(stream());
  }

 private:
  const cuda::Stream& stream() const { return stream_; }

  // Note [Streams] (tensor/cuda/stream.h): `fn` runs on this executor's
  // stream after the work the submitting thread queued on this GPU so far,
  // and the submitter's stream waits for what `fn` queued before the
  // task's future is ready.
  std::function<void()> ordered_on_streams(std::function<void()> fn) {
    const cuda::Stream caller = cuda::current_stream(device_.index);
    auto queued = std::make_shared<cuda::Event>();
    queued->record(caller);
    return [this, caller, queued, fn = std::move(fn)] {
      const cuda::Stream& mine = stream();
      queued->wait(mine);
      struct Join {
        const cuda::Stream& mine;
        const cuda::Stream& caller;
        ~Join() {
          try {
            caller.wait_stream(mine);
          } catch (...) {
            // A GPU fault makes this fail as well; the task's own error
            // (or the next synchronizing call) reports it.
          }
        }
      } join{mine, caller};
      fn();
    };
  }

  std::packaged_task<void()> pop_locked() {
    std::packaged_task<void()> task = std::move(queue_.front());
    queue_.pop_front();
    queued_.fetch_sub(1, std::memory_order_relaxed);
    return task;
  }

  void run() {
    tls_current_executor = this;
    DeviceGuard guard(device_);
    std::optional<cuda::StreamGuard> stream_guard;
    if (device_.is_cuda()) stream_guard.emplace(stream_);
    while (true) {
      std::packaged_task<void()> task;
      // Note [Spin before sleeping]: the next task of a training step (the
      // next replica forward, the backward after it) usually arrives within
      // microseconds of the last one, or after the step's serial part.
      polling_.store(true, std::memory_order_release);
      detail::spin_helping_until(
          [this] { return queued_.load(std::memory_order_acquire) > 0; }, kSpinBetweenTasks);
      polling_.store(false, std::memory_order_release);
      {
        std::unique_lock<std::mutex> lock(mu_);
        ready_.wait(lock, [this] { return !queue_.empty(); });
        task = pop_locked();
      }
      task();
    }
  }

  const Device device_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<std::packaged_task<void()>> queue_;
  std::atomic<size_t> queued_{0};  // queue_.size(), readable without mu_
  // True while run() polls for a task (not while it sleeps or runs one);
  // lend() claims it.
  std::atomic<bool> polling_{false};
  // A GPU executor's own stream, current on its thread (Note [Streams]).
  const cuda::Stream stream_;
  std::thread thread_;  // last: starts after the queue exists
};

std::mutex executors_mu;

// Executors live for the whole process: their threads wait for work until
// exit, so they are never destroyed. Guarded by executors_mu.
std::map<std::pair<int, int>, ThreadExecutor*>& executors() {
  static auto* executors = new std::map<std::pair<int, int>, ThreadExecutor*>();
  return *executors;
}

}  // namespace

Executor& device_executor(Device device) {
  check_device_exists(device, "device_executor");
  std::lock_guard<std::mutex> lock(executors_mu);
  ThreadExecutor*& slot = executors()[{static_cast<int>(device.type), device.index}];
  if (slot == nullptr) slot = new ThreadExecutor(device);
  return *slot;
}

Executor* current_executor() { return tls_current_executor; }

namespace detail {
int lend_to_idle_cpu_executors(Device except, int most, const std::function<void()>& task) {
  int lent = 0;
  std::lock_guard<std::mutex> lock(executors_mu);
  for (const auto& [key, executor] : executors()) {
    if (lent >= most) break;
    const Device device = executor->device();
    if (!device.is_cpu() || device == except || device.index >= cpu_device_count()) continue;
    if (executor->lend(task)) ++lent;
  }
  return lent;
}

void fail_next_submits_for_testing(int count) {
  failing_submits.store(count, std::memory_order_relaxed);
}
}  // namespace detail

}  // namespace torchlet
