#include "tensor/executor.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "tensor/spin_wait.h"
#include "tensor/thread_local_state.h"

namespace torchlet {
namespace {

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
  explicit ThreadExecutor(Device device) : device_(device), thread_([this] { run(); }) {}

  std::future<void> submit(std::function<void()> fn) override {
    ThreadLocalState state = thread_local_state();
    state.device = device_;
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

  void help_until(const std::function<bool()>& done) override {
    std::unique_lock<std::mutex> lock(mu_);
    while (!done()) {
      if (queue_.empty()) {
        // Note [Spin before sleeping]: what we wait for, or a task, usually
        // comes within microseconds.
        lock.unlock();
        spin_until([&] { return done() || queued_.load(std::memory_order_acquire) > 0; });
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

 private:
  std::packaged_task<void()> pop_locked() {
    std::packaged_task<void()> task = std::move(queue_.front());
    queue_.pop_front();
    queued_.fetch_sub(1, std::memory_order_relaxed);
    return task;
  }

  void run() {
    tls_current_executor = this;
    DeviceGuard guard(device_);
    while (true) {
      std::packaged_task<void()> task;
      // Note [Spin before sleeping]: the next task of a training step (the
      // next replica forward, the backward after it) usually arrives within
      // microseconds of the last one.
      spin_until([this] { return queued_.load(std::memory_order_acquire) > 0; });
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
  std::thread thread_;  // last: starts after the queue exists
};

}  // namespace

Executor& device_executor(Device device) {
  check_device_exists(device, "device_executor");
  static std::mutex mu;
  // Executors live for the whole process: their threads wait for work
  // until exit, so they are never destroyed.
  static auto* executors = new std::map<std::pair<int, int>, ThreadExecutor*>();
  std::lock_guard<std::mutex> lock(mu);
  ThreadExecutor*& slot = (*executors)[{static_cast<int>(device.type), device.index}];
  if (slot == nullptr) slot = new ThreadExecutor(device);
  return *slot;
}

Executor* current_executor() { return tls_current_executor; }

}  // namespace torchlet
