#include "tensor/parallel.h"

#if defined(__linux__)
#include <sched.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "tensor/device.h"
#include "tensor/spin_wait.h"
#include "tensor/thread_local_state.h"

namespace torchlet {
namespace {

std::atomic<int> num_threads_override{0};
// detail::pool_chunks_run(). Relaxed: a count, not a hand-off; the caller
// reads it after run() has synchronized with the workers through pending_.
std::atomic<int64_t> worker_chunks_run{0};
thread_local bool tls_in_parallel_region = false;

// Marks the thread as inside a parallel region for its lifetime.
class ParallelRegion {
 public:
  ParallelRegion() { tls_in_parallel_region = true; }
  ~ParallelRegion() { tls_in_parallel_region = false; }
  ParallelRegion(const ParallelRegion&) = delete;
  ParallelRegion& operator=(const ParallelRegion&) = delete;
};

// A fixed set of workers that split one range at a time with the caller.
// Workers run their chunk with the caller's ThreadLocalState; the first
// exception a chunk throws is kept and rethrown to the caller after all
// chunks finished (the others still run: they may write to the same
// output, which must outlive them).
class IntraOpPool {
 public:
  explicit IntraOpPool(int threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
  }
  ~IntraOpPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
  }

  int size() const { return static_cast<int>(workers_.size()) + 1; }
  std::mutex& busy() { return busy_; }

  // Caller holds busy().
  void run(int64_t begin, int64_t end, int64_t grain,
           const std::function<void(int64_t, int64_t)>& fn) {
    const int64_t max_chunks = (end - begin + grain - 1) / grain;
    const int chunks = static_cast<int>(std::min<int64_t>(size(), max_chunks));
    {
      std::lock_guard<std::mutex> lock(mu_);
      fn_ = &fn;
      state_ = thread_local_state();
      error_ = nullptr;
      begin_ = begin;
      end_ = end;
      chunks_ = chunks;
      pending_ = chunks - 1;
      ++generation_;
    }
    wake_.notify_all();
    run_chunk(0);
    spin_until([this] { return pending_.load(std::memory_order_acquire) == 0; });
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [this] { return pending_ == 0; });
    fn_ = nullptr;
    if (error_ != nullptr) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  void run_chunk(int chunk) {
    const int64_t n = end_ - begin_;
    const int64_t b = begin_ + n * chunk / chunks_;
    const int64_t e = begin_ + n * (chunk + 1) / chunks_;
    if (b >= e) return;
    ParallelRegion region;
    try {
      (*fn_)(b, e);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu_);
      if (error_ == nullptr) error_ = std::current_exception();
    }
  }

  // Note [Pool threads spin before they sleep]: a worker that finished its
  // chunk polls for the next range for up to kSpinBetweenTasks (through a
  // step's serial part) before it sleeps, and the caller polls for the
  // workers' chunks for kSpinBeforeSleep, so back-to-back ops (a backward
  // pass) hand over without a system call (Note [Spin before sleeping] in
  // tensor/spin_wait.h).
  void work(int index) {
    uint64_t seen = 0;
    while (true) {
      const auto woken = [&] {
        return stop_.load(std::memory_order_relaxed) ||
               generation_.load(std::memory_order_acquire) != seen;
      };
      spin_until(woken, kSpinBetweenTasks);
      {
        std::unique_lock<std::mutex> lock(mu_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        if (index >= chunks_) continue;
      }
      {
        ThreadLocalStateGuard state(state_);
        run_chunk(index);
      }
      worker_chunks_run.fetch_add(1, std::memory_order_relaxed);
      std::lock_guard<std::mutex> lock(mu_);
      if (--pending_ == 0) done_.notify_one();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex busy_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> generation_{0};
  const std::function<void(int64_t, int64_t)>* fn_ = nullptr;
  ThreadLocalState state_;
  std::exception_ptr error_;
  int64_t begin_ = 0;
  int64_t end_ = 0;
  int chunks_ = 0;
  std::atomic<int> pending_{0};
};

std::mutex pools_mu;
std::map<int, std::shared_ptr<IntraOpPool>>& pools() {
  static auto* p = new std::map<int, std::shared_ptr<IntraOpPool>>();
  return *p;
}

// The pool for the current CPU device, (re)made at the size it should have.
std::shared_ptr<IntraOpPool> current_pool(int threads) {
  const int index = current_device().is_cpu() ? current_device().index : 0;
  std::lock_guard<std::mutex> lock(pools_mu);
  auto& slot = pools()[index];
  if (!slot || slot->size() != threads) slot = std::make_shared<IntraOpPool>(threads);
  return slot;
}

}  // namespace

int hardware_threads() {
  // Note [Cores we may use]: a process confined to some CPUs (taskset, a
  // container's cpuset, a batch scheduler) must size its pools to those,
  // not to the machine: glibc's count behind hardware_concurrency() is
  // every online CPU, and N devices x (all cores / N) threads on fewer
  // cores would oversubscribe them. PyTorch's OpenMP default follows the
  // affinity mask the same way.
  static const int n = [] {
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) {
      return CPU_COUNT(&set);
    }
#endif
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }();
  return n;
}

int get_num_threads() {
  const int forced = num_threads_override.load(std::memory_order_relaxed);
  if (forced > 0) return forced;
  return std::max(1, hardware_threads() / cpu_device_count());
}

void set_num_threads(int n) { num_threads_override.store(std::max(0, n)); }

namespace detail {

bool in_parallel_region() { return tls_in_parallel_region; }

int64_t pool_chunks_run() { return worker_chunks_run.load(std::memory_order_relaxed); }

void parallel_for_impl(int64_t begin, int64_t end, int64_t grain,
                       const std::function<void(int64_t, int64_t)>& fn) {
  std::shared_ptr<IntraOpPool> pool = current_pool(get_num_threads());
  std::unique_lock<std::mutex> busy(pool->busy(), std::try_to_lock);
  if (!busy.owns_lock()) {
    fn(begin, end);
    return;
  }
  pool->run(begin, end, std::max<int64_t>(grain, 1), fn);
}

}  // namespace detail
}  // namespace torchlet
