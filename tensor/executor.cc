#include "tensor/executor.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

namespace torchlet {
namespace {

class ThreadExecutor final : public Executor {
 public:
  explicit ThreadExecutor(Device device) : thread_([this, device] { run(device); }) {}

  std::future<void> submit(std::function<void()> fn) override {
    std::packaged_task<void()> task(std::move(fn));
    std::future<void> done = task.get_future();
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(std::move(task));
    }
    ready_.notify_one();
    return done;
  }

  bool is_current_thread() const override { return std::this_thread::get_id() == thread_.get_id(); }

 private:
  void run(Device device) {
    DeviceGuard guard(device);
    while (true) {
      std::packaged_task<void()> task;
      {
        std::unique_lock<std::mutex> lock(mu_);
        ready_.wait(lock, [this] { return !queue_.empty(); });
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      task();
    }
  }

  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<std::packaged_task<void()>> queue_;
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

}  // namespace torchlet
