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
#include "tensor/executor.h"
#include "tensor/spin_wait.h"
#include "tensor/thread_local_state.h"

namespace torchlet {
namespace {

std::atomic<int> num_threads_override{0};
// detail::pool_chunks_run(). Relaxed: a count, not a hand-off; the caller
// reads it after run() has synchronized with the workers through pending_.
std::atomic<int64_t> worker_chunks_run{0};
// detail::lent_chunks_run(), likewise.
std::atomic<int64_t> lent_chunks{0};
std::atomic<bool> lending_enabled{true};  // detail::set_lending_enabled
std::atomic<bool> replicas_help{true};     // detail::set_replicas_help
thread_local bool tls_in_parallel_region = false;
// Inside a detail::ReplicaScope (Note [Replicas that finish first help]).
thread_local bool tls_in_replica = false;

// Marks the thread as inside a parallel region for its lifetime.
class ParallelRegion {
 public:
  ParallelRegion() { tls_in_parallel_region = true; }
  ~ParallelRegion() { tls_in_parallel_region = false; }
  ParallelRegion(const ParallelRegion&) = delete;
  ParallelRegion& operator=(const ParallelRegion&) = delete;
};

// Note [Chunks do not depend on free threads]
// A loop over [begin, end) at grain g that a pool of T threads would split
// runs as min(T, ceil((end - begin) / g)) chunks with the bounds below,
// whoever runs them: the pool's workers, other devices' executors (Note
// [Idle devices lend their cores]), or the caller alone, in turn, when its
// device's pool is busy with another thread's loop (a DataLoader worker's
// collate beside the training step). Each chunk runs inside a parallel
// region in all three cases. Ops decide from in_parallel_region() and the
// thread count both how they split their work and which kernels run
// (single-threaded tiles inside a chunk, GEMMs that split otherwise), and
// a body that re-checks inside its chunk must see what the op saw when it
// chose to split: a busy pool that ran the whole range as one call outside
// a region once broke a convolution's backward that way. Reductions that
// keep a partial per chunk also give the same bits either way.
int chunk_count(int64_t begin, int64_t end, int64_t grain, int threads) {
  const int64_t max_chunks = (end - begin + grain - 1) / grain;
  return static_cast<int>(std::min<int64_t>(threads, max_chunks));
}

// Chunk `chunk`'s [first, second) of `chunks` over [begin, end).
std::pair<int64_t, int64_t> chunk_bounds(int64_t begin, int64_t end, int chunks, int chunk) {
  const int64_t n = end - begin;
  return {begin + n * chunk / chunks, begin + n * (chunk + 1) / chunks};
}

// The first exception any of a loop's chunks threw, kept until every chunk
// has finished (the others still run: they may write to the same output,
// which must outlive them) and then rethrown to the loop's caller. The
// pool, lent loops and a busy pool's loop run their chunks through one.
class FirstError {
 public:
  // Runs fn(b, e), keeping what it throws if nothing was kept before.
  void run(const std::function<void(int64_t, int64_t)>& fn, int64_t b, int64_t e) {
    try {
      fn(b, e);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu_);
      if (error_ == nullptr) error_ = std::current_exception();
    }
  }
  // Rethrows the kept exception, if any, and forgets it.
  void rethrow() {
    std::exception_ptr error;
    {
      std::lock_guard<std::mutex> lock(mu_);
      error = std::exchange(error_, nullptr);
    }
    if (error != nullptr) std::rethrow_exception(error);
  }

 private:
  std::mutex mu_;
  std::exception_ptr error_;
};

// A fixed set of workers that split one range at a time with the caller.
// Workers run their chunk with the caller's ThreadLocalState; the first
// exception a chunk throws is rethrown to the caller after all chunks
// finished (FirstError).
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
    const int chunks = chunk_count(begin, end, grain, size());
    {
      std::lock_guard<std::mutex> lock(mu_);
      fn_ = &fn;
      state_ = thread_local_state();
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
    lock.unlock();
    error_.rethrow();
  }

 private:
  void run_chunk(int chunk) {
    const auto [b, e] = chunk_bounds(begin_, end_, chunks_, chunk);
    if (b >= e) return;
    ParallelRegion region;
    error_.run(*fn_, b, e);
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
  FirstError error_;
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

// Note [Idle devices lend their cores]
// With one CPU device per core (DataParallel's default), each device's
// pool is its caller alone, so whatever the caller does while the other
// devices wait runs on one core: in a DataParallel step the optimizer's
// update, zeroing the gradients and accumulating them. For a model with
// large weights that is much of the step: the 784-512-512-10 MLP's SGD
// update reads and writes 8 MB, and on one device with two intra-op
// threads the same loops split in two.
//
// So a loop of at least kLendingMinRange elements that the calling thread
// would run alone, because its device's pool has one thread while other
// CPU devices exist and no set_num_threads() says otherwise, is split as
// a pool of one thread per core would split it, and its chunks are
// offered to the executors of the other CPU devices whose threads are
// polling for work at that moment (not sleeping, not running a task).
// Caller and helpers claim chunks from one counter, so a helper that
// starts late finds the chunks taken and returns, and the caller never
// waits for a helper to start, only for chunks a helper is running. A
// task for that device queued meanwhile waits behind at most one chunk.
// Only threads that are not themselves an executor lend: a replica or a
// device's backward already has its core, and the caller's own device's
// executor is never asked, so the threads running stay within the cores.
// The chunks are the same whether or not a helper took any: results do
// not depend on which threads were idle.
//
// Why only large loops: a chunk another core runs leaves its output in
// that core's cache, and the caller's next op reads it back one
// cross-core transfer per line. For a loop over a few hundred KB that
// costs about what the split saves; a loop over more than a core's L2
// streams from the shared cache or memory whichever core runs it. Lending
// every loop above kParallelGrain was measured before on AMD machines and
// made DataParallel's steps slower on busy hosts (LeNet-5 at batch 64 1.58
// to 1.77 ms). Measured on a 2-core Intel Xeon (model 207) with each mode
// taking turns every 16 steps in one process, the time of a DataParallel
// step over two devices against no lending: the MLP at batch 64 0.91-0.92
// lending every loop (four runs), 0.92-0.955 lending loops of 2^18
// elements or more (seven runs, BM_DataParallelMlpLendingTurns); LeNet-5
// at batch 64 0.97-0.99 and at 256 0.96-1.01 lending every loop (four
// runs; no loop of LeNet-5's reaches 2^18 elements, and with the
// threshold those runs read 0.98-1.01, the noise of the method).
struct LentLoop {
  const std::function<void(int64_t, int64_t)>* fn = nullptr;
  int64_t begin = 0;
  int64_t end = 0;
  int chunks = 0;
  ThreadLocalState state;
  std::atomic<int> next{0};
  std::atomic<int> left{0};
  std::mutex mu;
  std::condition_variable done;
  FirstError error;

  // A loop over [begin, end) in `chunks` chunks of `fn` that other threads
  // may claim, run with the calling thread's state.
  static std::shared_ptr<LentLoop> make(int64_t begin, int64_t end, int chunks,
                                        const std::function<void(int64_t, int64_t)>& fn) {
    auto loop = std::make_shared<LentLoop>();
    loop->fn = &fn;
    loop->begin = begin;
    loop->end = end;
    loop->chunks = chunks;
    loop->state = thread_local_state();
    loop->left.store(chunks, std::memory_order_relaxed);
    return loop;
  }

  // The caller, after its own run_chunks: waits for the chunks other
  // threads claimed, then rethrows the first exception of any chunk.
  void finish() {
    const auto finished = [this] { return left.load(std::memory_order_acquire) == 0; };
    if (!spin_until(finished)) {
      std::unique_lock<std::mutex> lock(mu);
      done.wait(lock, finished);
    }
    error.rethrow();
  }

  // Claims and runs chunks until none is left. `fn` is read only after a
  // chunk was claimed, while the caller still waits for it.
  void run_chunks(bool lent) {
    ParallelRegion region;
    while (true) {
      const int chunk = next.fetch_add(1, std::memory_order_acq_rel);
      if (chunk >= chunks) return;
      const auto [b, e] = chunk_bounds(begin, end, chunks, chunk);
      error.run(*fn, b, e);
      if (lent) lent_chunks.fetch_add(1, std::memory_order_relaxed);
      if (left.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        { std::lock_guard<std::mutex> lock(mu); }
        done.notify_all();
      }
    }
  }
};

// Whether loops on the calling thread split across idle devices' cores.
bool may_lend() {
  return lending_enabled.load(std::memory_order_relaxed) &&
         num_threads_override.load(std::memory_order_relaxed) == 0 && cpu_device_count() > 1 &&
         hardware_threads() > 1 && current_executor() == nullptr && current_device().is_cpu() &&
         get_num_threads() == 1;
}

// The threads of a pool of one thread per core of the CPU devices: what a
// one-core device's loop splits into for other devices' threads to help.
int thread_per_core_threads() { return std::min(hardware_threads(), cpu_device_count()); }

void run_lending(int64_t begin, int64_t end, int64_t grain,
                 const std::function<void(int64_t, int64_t)>& fn) {
  const int chunks = chunk_count(begin, end, grain, thread_per_core_threads());
  const std::shared_ptr<LentLoop> loop = LentLoop::make(begin, end, chunks, fn);
  try {
    detail::lend_to_idle_cpu_executors(current_device(), chunks - 1, [loop] {
      ThreadLocalStateGuard state(loop->state);
      loop->run_chunks(/*lent=*/true);
    });
  } catch (...) {  // NOLINT(bugprone-empty-catch): a task that could not be
                   // allocated; the caller runs the chunks no executor took,
                   // and waits below for any that some executor did take
  }
  loop->run_chunks(/*lent=*/false);
  loop->finish();
}

// A loop whose pool another thread holds: the chunks the pool would have
// run, one after another on the caller (Note [Chunks do not depend on
// free threads]), the first exception rethrown after all of them.
void run_chunks_in_turn(int64_t begin, int64_t end, int chunks,
                        const std::function<void(int64_t, int64_t)>& fn) {
  FirstError error;
  ParallelRegion region;
  for (int chunk = 0; chunk < chunks; ++chunk) {
    const auto [b, e] = chunk_bounds(begin, end, chunks, chunk);
    if (b >= e) continue;
    error.run(fn, b, e);
  }
  error.rethrow();
}

// Note [Replicas that finish first help]
// DataParallel's replicas take equal chunks of the batch, as PyTorch's
// scatter gives them, but on a shared machine the cores do not run at
// equal speeds from one millisecond to the next: in the LeNet example's
// epoch on two devices the replica that finished first waited for the
// other 6-19% of the time (forward and backward together), while the
// intra-op threads of one device, which claim GEMM panels as they go, lost
// little to the same noise. So the threads of a multi-device forward or
// backward (a detail::ReplicaScope: parallel_apply's tasks, a multi-device
// backward's nodes) split their loops as a pool of one thread per core
// would (detail::split_threads()), even where their device's pool is the
// thread alone, and post each split loop on a board while they run it.
// The owner claims the chunks in order from the loop's counter, so with no
// help it runs them all, one after another, as a busy pool's loop does. A
// replica that finished its part and waits for the others
// (detail::spin_helping_until: parallel_apply's caller, the engine's
// caller, an executor polling for its next task) claims chunks of a posted
// loop meanwhile and runs them with the loop's thread-local state. The
// chunks, and so the results, are the same whoever runs them; only loops
// posted inside a ReplicaScope are offered, so the serial part of a step
// (the optimizer, the loss) is left to lending's rule (Note [Idle devices
// lend their cores]), and a helper leaves a chunk's output in its own
// cache only at the end of a replica's pass, where the alternative is to
// idle.
//
// Splitting when nobody helps costs little: LeNet-5's step at batch 32 on
// one core, split as two threads would split it but run on one, took
// 1.004-1.012 of the unsplit step's time (medians of 40 turns, one
// process).
//
// Whether helping pays depends on the host (on a busy Zen 4 host it cost
// LeNet-5's step at batch 64 8-14%), so it can be turned off
// (detail::set_replicas_help), and each DataParallel step turns it on or
// off as its StepPolicy measured faster (Note [Receivers copy] in
// parallel/device_tasks.h). Off, a replica's loops still split into the
// same chunks, run in turn on its own thread without being posted, so the
// results keep their bits either way.
std::mutex board_mu;
std::vector<std::shared_ptr<LentLoop>>& board() {
  static auto* loops = new std::vector<std::shared_ptr<LentLoop>>();
  return *loops;
}
// board().size(), readable without board_mu by threads polling for work,
// and how many loops were ever posted (a helper that found nothing to
// claim polls again only once another is posted).
std::atomic<int> board_size{0};
std::atomic<uint64_t> board_version{0};

// Whether the calling thread's loops split for other replicas to help.
bool may_split_for_replicas() {
  return tls_in_replica && !tls_in_parallel_region &&
         lending_enabled.load(std::memory_order_relaxed) &&
         num_threads_override.load(std::memory_order_relaxed) == 0 &&
         current_device().is_cpu() && cpu_device_count() > 1 && hardware_threads() > 1 &&
         get_num_threads() == 1;
}

void run_helped(int64_t begin, int64_t end, int64_t grain,
                const std::function<void(int64_t, int64_t)>& fn) {
  const int chunks = chunk_count(begin, end, grain, thread_per_core_threads());
  if (!replicas_help.load(std::memory_order_relaxed)) {
    // The same chunks, unoffered (detail::set_replicas_help).
    run_chunks_in_turn(begin, end, chunks, fn);
    return;
  }
  const std::shared_ptr<LentLoop> loop = LentLoop::make(begin, end, chunks, fn);
  {
    std::lock_guard<std::mutex> lock(board_mu);
    board().push_back(loop);
    board_size.store(static_cast<int>(board().size()), std::memory_order_release);
    board_version.fetch_add(1, std::memory_order_release);
  }
  loop->run_chunks(/*lent=*/false);
  {
    std::lock_guard<std::mutex> lock(board_mu);
    auto& loops = board();
    loops.erase(std::find(loops.begin(), loops.end(), loop));
    board_size.store(static_cast<int>(loops.size()), std::memory_order_release);
  }
  loop->finish();
}

// Runs the unclaimed chunks of one posted loop; false if none was left.
bool help_a_replica() {
  if (board_size.load(std::memory_order_acquire) == 0) return false;
  std::shared_ptr<LentLoop> loop;
  {
    std::lock_guard<std::mutex> lock(board_mu);
    for (const auto& posted : board()) {
      if (posted->next.load(std::memory_order_relaxed) < posted->chunks) {
        loop = posted;
        break;
      }
    }
  }
  if (loop == nullptr) return false;
  ThreadLocalStateGuard state(loop->state);
  loop->run_chunks(/*lent=*/true);
  return true;
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

bool may_split(int64_t range) {
  return get_num_threads() > 1 || may_split_for_replicas() ||
         (range >= kLendingMinRange && may_lend());
}

bool splits_for_helpers_only() { return may_split_for_replicas(); }

int split_threads() {
  return may_split_for_replicas() ? thread_per_core_threads() : get_num_threads();
}

ReplicaScope::ReplicaScope() : outer_(tls_in_replica) { tls_in_replica = true; }
ReplicaScope::~ReplicaScope() { tls_in_replica = outer_; }

bool spin_helping_until(const std::function<bool()>& done, std::chrono::microseconds budget) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline = Clock::now() + budget;
  uint64_t tried = board_version.load(std::memory_order_acquire) - 1;  // none tried yet
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::microseconds>(deadline - Clock::now());
    const bool ready = left.count() > 0 && spin_until([&] {
      return done() || (board_size.load(std::memory_order_acquire) > 0 &&
                        board_version.load(std::memory_order_acquire) != tried);
    }, left);
    if (!ready || done()) return done();
    tried = board_version.load(std::memory_order_acquire);
    // A chunk run restarts the budget: the replica that posted it is still
    // running, and what the caller waits for comes after it. Another loop
    // may be posted already: look again at once.
    if (help_a_replica()) {
      deadline = Clock::now() + budget;
      tried -= 1;
    }
  }
}

int64_t lent_chunks_run() { return lent_chunks.load(std::memory_order_relaxed); }

void set_lending_enabled(bool enabled) { lending_enabled.store(enabled); }

void set_replicas_help(bool on) { replicas_help.store(on, std::memory_order_relaxed); }

bool replicas_help_enabled() { return replicas_help.load(std::memory_order_relaxed); }

void parallel_for_impl(int64_t begin, int64_t end, int64_t grain,
                       const std::function<void(int64_t, int64_t)>& fn) {
  grain = std::max<int64_t>(grain, 1);
  if (get_num_threads() == 1) {
    if (may_split_for_replicas()) {
      run_helped(begin, end, grain, fn);
    } else if (end - begin >= kLendingMinRange && may_lend()) {
      run_lending(begin, end, grain, fn);
    } else {
      fn(begin, end);
    }
    return;
  }
  const int threads = get_num_threads();
  std::shared_ptr<IntraOpPool> pool = current_pool(threads);
  std::unique_lock<std::mutex> busy(pool->busy(), std::try_to_lock);
  if (!busy.owns_lock()) {
    run_chunks_in_turn(begin, end, chunk_count(begin, end, grain, threads), fn);
    return;
  }
  pool->run(begin, end, grain, fn);
}

}  // namespace detail
}  // namespace torchlet
