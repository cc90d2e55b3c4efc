#include "tensor/storage.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "tensor/cuda/cuda_runtime.h"
#include "tensor/error.h"
#include "tensor/shape.h"

namespace torchlet {
namespace {

// Note [CPU block caches]
// ~~~~~~~~~~~~~~~~~~~~~~~
// CPU memory is 64-byte aligned. Blocks of up to 64 KiB are recycled through
// a small cache per thread, in power-of-two size classes, so the many small
// tensors of a training step reuse memory instead of taking the system
// allocator's slow aligned path each time. Larger blocks (activations,
// im2col buffers) go through a cache per CPU device keyed by their size
// rounded to whole pages: a training step asks for the same sizes every
// iteration, and without the cache each of them is a fresh mmap whose pages
// the kernel faults in and zeroes again — with replicas on several CPU
// devices (whose worker threads allocate from their own malloc arenas and
// free into each other's) that was a thousand page faults a LeNet step.
// A block returns to the cache of the device its storage is on, whichever
// thread frees it, so each device's worker keeps reusing memory its own
// core has in cache. With one cache for the process, two replicas asking
// for the same sizes took each other's blocks every step, and every write
// to one fetched its lines from the other core: a DataParallel LeNet step
// on two devices took 2% longer, two unrelated models stepping at once 3%.
// The large caches hold at most kLargeCacheBytes together; past that
// blocks go back to the system. Sanitizer builds skip both kinds of cache
// so that every use after free is caught.
//
// Small blocks move between threads too: a replica's gradients, made on
// its device's thread, are freed by the thread that reduces them, and
// TensorImpls of views and chunks die on other threads than made them.
// Each step the freeing thread's bins overflowed into free() and the
// making thread's ran dry into aligned_alloc (about 90 of each in a LeNet
// step on two CPU devices). So a full bin hands half its blocks to a depot
// for its size class, shared by all threads, and an empty bin refills
// half a bin from it: one lock per kBlocksPerClass / 2 blocks. The depot
// holds at most kDepotBytes; past that blocks go back to the system.
constexpr size_t kCpuAlignment = 64;
constexpr int kSizeClasses = 11;  // 64 B, 128 B, ..., 64 KiB
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr size_t kBlocksPerClass = 0;
#else
constexpr size_t kBlocksPerClass = 32;
#endif

// The size class holding `nbytes`, or -1 when it is too large to cache.
int size_class(size_t nbytes) {
  if (nbytes <= kCpuAlignment) return 0;
  // ceil(log2(nbytes)) - log2(kCpuAlignment)
  const int c = 64 - __builtin_clzll(nbytes - 1) - 6;
  return c < kSizeClasses ? c : -1;
}
static_assert(kCpuAlignment == 64, "size_class assumes 64-byte classes at the bottom");

class BlockCache;
// This thread's cache once made, and null again while it is torn down. Both
// are trivially destructible and constant-initialized, so reading them is a
// plain thread-local load: the allocator's fast path has no guard to check.
thread_local BlockCache* tls_block_cache = nullptr;
thread_local bool block_cache_gone = false;

constexpr size_t kDepotBytes = size_t{32} << 20;
constexpr size_t kBatch = kBlocksPerClass / 2;

// Small blocks shared between threads' caches (Note [CPU block caches]).
class Depot {
 public:
  /// Moves up to kBatch blocks of class `c` to `out`; how many.
  size_t take(int c, void** out) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<void*>& blocks = blocks_[c];
    const size_t n = std::min(kBatch, blocks.size());
    std::copy(blocks.end() - static_cast<std::ptrdiff_t>(n), blocks.end(), out);
    blocks.resize(blocks.size() - n);
    bytes_ -= n * (kCpuAlignment << c);
    return n;
  }
  /// Takes the `n` blocks of class `c` at `in` if they fit.
  bool give(int c, void* const* in, size_t n) {
    const size_t bytes = n * (kCpuAlignment << c);
    std::lock_guard<std::mutex> lock(mutex_);
    if (bytes_ + bytes > kDepotBytes) return false;
    blocks_[c].insert(blocks_[c].end(), in, in + n);
    bytes_ += bytes;
    return true;
  }

 private:
  std::mutex mutex_;
  std::vector<void*> blocks_[kSizeClasses];
  size_t bytes_ = 0;
};

// Never destroyed: threads that end during static destruction still find it.
Depot& depot() {
  static auto* d = new Depot;
  return *d;
}

class BlockCache {
 public:
  ~BlockCache() {
    block_cache_gone = true;
    tls_block_cache = nullptr;
    for (Bin& bin : bins_) {
      for (size_t i = 0; i < bin.count; ++i) std::free(bin.blocks[i]);
    }
  }
  void* take(int c) {
    Bin& bin = bins_[c];
    return bin.count == 0 ? nullptr : bin.blocks[--bin.count];
  }
  bool give(int c, void* p) {
    Bin& bin = bins_[c];
    if (bin.count == kBlocksPerClass) return false;
    bin.blocks[bin.count++] = p;
    return true;
  }
  /// Refills the empty bin `c` from the depot, then takes a block from it.
  void* refill_and_take(int c) {
    Bin& bin = bins_[c];
    bin.count = depot().take(c, bin.blocks);
    return take(c);
  }
  /// Hands the upper half of the full bin `c` to the depot, then gives it
  /// `p`; false if the depot is full.
  bool spill_and_give(int c, void* p) {
    Bin& bin = bins_[c];
    if (!depot().give(c, bin.blocks + (bin.count - kBatch), kBatch)) return false;
    bin.count -= kBatch;
    return give(c, p);
  }

 private:
  struct Bin {
    void* blocks[kBlocksPerClass + 1];
    size_t count = 0;
  };
  Bin bins_[kSizeClasses];
};

constexpr size_t kPageBytes = 4096;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr size_t kLargeCacheBytes = 0;
#else
constexpr size_t kLargeCacheBytes = size_t{256} << 20;
#endif

// Blocks over 64 KiB, by page-rounded size (Note [CPU block caches]), one
// cache per CPU device; all of them together hold at most
// kLargeCacheBytes.
std::atomic<size_t> large_cached_bytes{0};

class LargeBlockCache {
 public:
  void* take(size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = free_.find(bytes);
    if (it == free_.end() || it->second.empty()) return nullptr;
    void* p = it->second.back();
    it->second.pop_back();
    large_cached_bytes.fetch_sub(bytes, std::memory_order_relaxed);
    return p;
  }
  bool give(size_t bytes, void* p) {
    if (large_cached_bytes.fetch_add(bytes, std::memory_order_relaxed) + bytes > kLargeCacheBytes) {
      large_cached_bytes.fetch_sub(bytes, std::memory_order_relaxed);
      return false;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    free_[bytes].push_back(p);
    return true;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<size_t, std::vector<void*>> free_;
};

constexpr int kLargeCaches = 64;

// Never destroyed: storages freed during static destruction still find it.
// Devices past the 64th share caches.
LargeBlockCache& large_cache(int device) {
  static auto* caches = new LargeBlockCache[kLargeCaches];
  return caches[static_cast<unsigned>(device) % kLargeCaches];
}

size_t large_block_bytes(size_t nbytes) { return (nbytes + kPageBytes - 1) / kPageBytes * kPageBytes; }

// Makes this thread's cache on its first allocation; null once the thread
// is tearing it down.
__attribute__((noinline)) BlockCache* make_local_cache() {
  if (block_cache_gone) return nullptr;
  thread_local BlockCache cache;
  tls_block_cache = &cache;
  return &cache;
}

// This thread's cache, or null once the thread is tearing it down.
inline BlockCache* local_cache() {
  if (kBlocksPerClass == 0) return nullptr;
  if (BlockCache* cache = tls_block_cache; __builtin_expect(cache != nullptr, 1)) return cache;
  return make_local_cache();
}

// The slow path of cpu_allocate_block: this thread's first allocation, an
// empty size class, a large block, or a sanitizer build. `c` is the size
// class, or -1.
__attribute__((noinline)) void* allocate_block_slow(size_t nbytes, int c, int device) {
  if (c >= 0) {
    if (BlockCache* cache = local_cache()) {
      if (void* p = cache->take(c)) return p;
      if (void* p = cache->refill_and_take(c)) return p;
    }
  } else if (kLargeCacheBytes > 0) {
    if (void* p = large_cache(device).take(large_block_bytes(nbytes))) return p;
  }
  // A size class's size, or whole pages (a multiple of the alignment, as
  // aligned_alloc requires).
  const size_t rounded = c >= 0 ? kCpuAlignment << c : large_block_bytes(nbytes);
  void* p = std::aligned_alloc(kCpuAlignment, rounded);
  TORCHLET_CHECK(p != nullptr, "CPU allocator: out of memory allocating ", nbytes, " bytes");
  return p;
}

__attribute__((noinline)) void deallocate_block_slow(void* p, size_t nbytes, int c, int device) {
  if (c >= 0) {
    if (BlockCache* cache = local_cache();
        cache != nullptr && (cache->give(c, p) || cache->spill_and_give(c, p))) {
      return;
    }
  } else if (kLargeCacheBytes > 0 && large_cache(device).give(large_block_bytes(nbytes), p)) {
    return;
  }
  std::free(p);
}

// A training step takes and returns dozens of small blocks: the fast path
// is a thread-local load and a pop (or push), with the rest out of line.
inline void* cpu_allocate_block(size_t nbytes, int device) {
  const int c = size_class(nbytes);
  if (BlockCache* cache = tls_block_cache; __builtin_expect(cache != nullptr && c >= 0, 1)) {
    if (void* p = cache->take(c)) return p;
  }
  return allocate_block_slow(nbytes, c, device);
}

inline void cpu_deallocate_block(void* p, size_t nbytes, int device) {
  const int c = size_class(nbytes);
  if (BlockCache* cache = tls_block_cache; __builtin_expect(cache != nullptr && c >= 0, 1)) {
    if (cache->give(c, p)) return;
  }
  deallocate_block_slow(p, nbytes, c, device);
}

}  // namespace

// Small blocks (TensorImpl's): the per-thread cache; device 0's large cache
// past it.
void* cached_allocate(size_t nbytes) { return cpu_allocate_block(nbytes, 0); }
void cached_deallocate(void* p, size_t nbytes) { cpu_deallocate_block(p, nbytes, 0); }

IntrusivePtr<Storage> Storage::allocate(size_t nbytes, Device device) {
  if (device.is_cpu()) {
    auto storage = IntrusivePtr<Storage>(new Storage(cpu_allocate_block(nbytes, device.index), nbytes, device, nullptr));
    storage->cpu_owned_ = true;
    return storage;
  }
  void* p = cuda::allocate(nbytes, device.index);
  const int index = device.index;
  return IntrusivePtr<Storage>(
      new Storage(p, nbytes, device, [index](void* q) { cuda::deallocate(q, index); }));
}

IntrusivePtr<Storage> Storage::allocate_pinned(size_t nbytes) {
  auto storage = IntrusivePtr<Storage>(new Storage(cuda::host_allocate(nbytes), nbytes,
                                                   Device(kCPU, 0), cuda::host_deallocate));
  storage->pinned_ = true;
  return storage;
}

IntrusivePtr<Storage> Storage::wrap(void* data, size_t nbytes, Device device, Deleter deleter) {
  return IntrusivePtr<Storage>(new Storage(data, nbytes, device, std::move(deleter)));
}

Storage::~Storage() {
  if (cpu_owned_) {
    cpu_deallocate_block(data_, nbytes_, device_.index);
  } else if (deleter_) {
    deleter_(data_);
  }
}

}  // namespace torchlet
