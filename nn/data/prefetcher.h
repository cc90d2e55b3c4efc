#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "tensor/error.h"
#include "tensor/thread_local_state.h"

namespace torchlet::data::detail {

// Note [DataLoader threading]
// An epoch with num_workers == 0 makes each batch on the consuming thread when
// it is asked for. With num_workers = W > 0 it starts W threads that claim
// batch numbers in order and make them ahead of the consumer, at most
// W * prefetch_factor batches beyond the last one handed out (PyTorch's
// bound). Results wait in a map keyed by batch number, so the consumer gets
// batches in order whichever worker finished first; an exception thrown while
// making batch i is stored in its place and rethrown when the consumer reaches
// batch i (PyTorch reraises at the batch that failed).
// Stopping: destroying the epoch (the range-for's iterator going out of scope
// on break, on an exception, or at the end) or destroying its DataLoader sets
// a flag under the lock and wakes every waiter; a worker finishes the batch it
// is making, sees the flag and returns, and the stopping thread joins them
// all. Nothing is left running and nothing waits on a timer.
// Thread state: the epoch captures the ThreadLocalState of the thread that
// starts it (current device, grad mode, warning handler) and every worker
// installs it, so a collate allocates on the loop's device, runs under its
// grad mode and warns through its handler, as it would with num_workers = 0
// (Note [Threading model] in tensor/parallel.h).
// Cores: a worker's tensor ops (one index_select per tensor for a
// TensorDataset) use the device's intra-op pool only when it is free and run
// their chunks in turn on the worker otherwise, as do the training loop's ops
// while a worker holds the pool (Note [Chunks do not depend on free threads]
// in tensor/parallel.cc), so W workers add at most W busy threads beside the
// training loop's. On a machine with few cores use
// num_workers = 1: it overlaps batch making with the step without competing
// with the step's own intra-op threads for long.

/// Makes batches 0..num_batches-1 with `make_batch`, in order, on the
/// calling thread or ahead of it on worker threads (see the Note).
template <typename Batch>
class Prefetcher {
 public:
  using MakeBatch = std::function<Batch(int64_t)>;

  Prefetcher(MakeBatch make_batch, int64_t num_batches, int64_t num_workers,
             int64_t prefetch_factor)
      : make_batch_(std::move(make_batch)),
        num_batches_(num_batches),
        capacity_(num_workers * prefetch_factor),
        caller_state_(thread_local_state()) {
    for (int64_t w = 0; w < num_workers && w < num_batches; ++w) {
      workers_.emplace_back([this] { work(); });
    }
  }
  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;
  ~Prefetcher() { stop(); }

  /// Batch `index`, which must be the one after the previous call's.
  /// Rethrows the exception that making it threw.
  Batch next(int64_t index) {
    if (workers_.empty()) {
      TORCHLET_CHECK(make_batch_,
                     "DataLoader: this epoch was stopped because its DataLoader was destroyed");
      return make_batch_(index);
    }
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return stopped_ || results_.count(index) > 0; });
    TORCHLET_CHECK(!stopped_,
                   "DataLoader: this epoch was stopped because its DataLoader was destroyed");
    Result result = std::move(results_.at(index));
    results_.erase(index);
    handed_out_ = index + 1;
    lock.unlock();
    room_.notify_all();
    if (result.error) std::rethrow_exception(result.error);
    return std::move(*result.batch);
  }

  /// Stops and joins the workers and releases `make_batch` (and what it
  /// holds); later calls to next() throw. Idempotent.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopped_ = true;
    }
    room_.notify_all();
    ready_.notify_all();
    for (std::thread& worker : workers_) worker.join();
    workers_.clear();
    results_.clear();
    make_batch_ = nullptr;
  }

 private:
  struct Result {
    std::optional<Batch> batch;
    std::exception_ptr error;
  };

  void work() {
    ThreadLocalStateGuard state_guard(caller_state_);
    for (;;) {
      int64_t index;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        room_.wait(lock, [&] {
          return stopped_ || claimed_ >= num_batches_ || claimed_ < handed_out_ + capacity_;
        });
        if (stopped_ || claimed_ >= num_batches_) return;
        index = claimed_++;
      }
      Result result;
      try {
        result.batch.emplace(make_batch_(index));
      } catch (...) {
        result.error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        results_.emplace(index, std::move(result));
      }
      ready_.notify_all();
    }
  }

  MakeBatch make_batch_;
  const int64_t num_batches_;
  const int64_t capacity_;
  const ThreadLocalState caller_state_;  // installed in every worker
  std::mutex mutex_;
  std::condition_variable room_;   // workers wait for room to prefetch
  std::condition_variable ready_;  // the consumer waits for its batch
  bool stopped_ = false;
  int64_t claimed_ = 0;
  int64_t handed_out_ = 0;
  std::map<int64_t, Result> results_;
  std::vector<std::thread> workers_;
};

}  // namespace torchlet::data::detail
