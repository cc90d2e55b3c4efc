#pragma once

// Note [CUDA caching allocator]
// cudaMalloc and cudaFree synchronize the device and take tens of
// microseconds to milliseconds, so a training step that allocated its
// activations with them would spend more time allocating than computing.
// As PyTorch's CUDACachingAllocator does, device memory is taken from the
// device in segments and kept: a freed block goes back to a pool of its
// device and is handed out again to the next request of a size it fits.
//
// - Every request is rounded up to a multiple of 512 bytes. Requests of at
//   most 1 MiB come from the small pool, whose segments are 2 MiB; larger
//   ones from the large pool, whose segments are 20 MiB for requests under
//   10 MiB and the request rounded up to 2 MiB otherwise.
// - A request takes the smallest free block of its pool and stream that
//   fits. A block larger than asked for is split when what is left is
//   worth keeping (at least 512 bytes in the small pool, over 1 MiB in the
//   large one); a freed block merges with free neighbours of its segment.
// - A block goes back to the pool of the stream that allocated it, and is
//   reused only by requests on that stream: work queued there that still
//   reads it runs first. Work another stream queued on it is ordered
//   before that stream's later work by the events at torchlet's hand-offs
//   between threads (Note [Streams] in tensor/cuda/stream.h). A tensor
//   handed to another stream by hand (StreamGuard) is either ordered the
//   same way, with events, before it is freed, or marked with
//   Tensor::record_stream (torch.Tensor.record_stream): when its block is
//   freed, an event is recorded on every stream so marked, and the block
//   goes back to its pool only once all of them have passed. Pending
//   events are polled at the start of each request; emptying the cache and
//   the retry after running out of memory wait for them.
// - When the device has no memory left, every free whole segment is given
//   back and the request retried once; if it still fails the request
//   throws torchlet::Error "CUDA out of memory. Tried to allocate ..." with
//   PyTorch's figures, and the allocator stays usable.
//
// The device is behind DeviceMemory, so the pool logic runs and is tested
// on hosts without a GPU.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

namespace torchlet::cuda {

/// Where a CachingAllocator gets memory from: cudaMalloc and cudaFree on a
/// GPU, host memory of a fixed capacity in tests.
class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;
  /// `nbytes` of fresh memory, or null when the device has too little left
  /// (any other failure throws).
  virtual void* allocate(size_t nbytes) = 0;
  virtual void free(void* ptr) = 0;
  /// The device's free and total bytes, as cudaMemGetInfo reports them.
  virtual void info(size_t* free_bytes, size_t* total_bytes) = 0;
  /// An event recorded after the work queued so far on `stream` of GPU
  /// `device` (cudaEventRecord); the handle goes to the calls below.
  virtual void* record_event(int device, uint64_t stream) = 0;
  /// Whether the event's work has finished (cudaEventQuery).
  virtual bool event_done(void* event) = 0;
  /// Waits on the host until it has (cudaEventSynchronize).
  virtual void synchronize_event(void* event) = 0;
  virtual void destroy_event(void* event) = 0;
};

/// A stream of a device: 0 is the default stream.
using StreamId = uint64_t;

/// What an allocator holds, in bytes (torch.cuda.memory_stats' headline
/// figures).
struct MemoryStats {
  size_t allocated = 0;      // in blocks handed out (memory_allocated)
  size_t max_allocated = 0;  // peak of `allocated` since the last reset
  size_t reserved = 0;       // in segments taken from the device (memory_reserved)
  size_t max_reserved = 0;   // peak of `reserved` since the last reset
  uint64_t segments_allocated = 0;  // segments ever taken from the device
  uint64_t segments_freed = 0;      // segments ever given back
  uint64_t alloc_retries = 0;  // requests retried after giving back the cache
  uint64_t ooms = 0;           // requests that failed for want of memory
};

/// The caching allocator of one device (Note [CUDA caching allocator]).
/// Thread-safe.
class CachingAllocator {
 public:
  /// `device` is the index named in error messages.
  CachingAllocator(std::unique_ptr<DeviceMemory> memory, int device);
  /// Gives every segment back to the device, blocks still handed out
  /// included.
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  /// A block of at least `nbytes` (512-byte aligned within its segment)
  /// for use on `stream`; never null.
  void* allocate(size_t nbytes, StreamId stream = 0);
  /// Returns a block from allocate() to its pool; null is ignored. A block
  /// some other stream was recorded on (record_stream) goes back once the
  /// work queued there by now has finished.
  void free(void* ptr);
  /// Marks the block at `ptr` as used by `stream` of GPU `device` as well
  /// as its own (torch.Tensor.record_stream). A pointer this allocator did
  /// not hand out (memory wrapped from elsewhere) is left alone, as in
  /// PyTorch.
  void record_stream(void* ptr, int device, StreamId stream);
  /// Gives every free whole segment back to the device (torch.cuda.empty_cache).
  void empty_cache();
  MemoryStats stats() const;
  /// Restarts both peaks from the current figures.
  void reset_peak_stats();

  /// The size a request of `nbytes` is served with.
  static size_t round_size(size_t nbytes);
  /// The size of the segment taken from the device for a block of
  /// `rounded` bytes.
  static size_t segment_size(size_t rounded);

 private:
  struct Block {
    StreamId stream;
    size_t size;
    char* ptr;
    bool small;                // which pool it belongs to
    bool allocated = false;
    Block* prev = nullptr;     // neighbours within the same segment
    Block* next = nullptr;
    // Other streams that use it (record_stream), and the events recorded
    // on them when it was freed that have not passed yet.
    std::vector<std::pair<int, StreamId>> stream_uses;
    int pending_events = 0;
  };
  struct PendingEvent {
    void* event;
    Block* block;
  };
  struct BlockOrder {
    bool operator()(const Block* a, const Block* b) const;
  };
  using Pool = std::set<Block*, BlockOrder>;

  Pool& pool_of(bool small) { return small ? small_blocks_ : large_blocks_; }
  Block* take_from_pool(size_t size, StreamId stream, bool small);
  Block* new_segment(size_t size, StreamId stream, bool small);
  void release_free_segments();
  [[noreturn]] void throw_out_of_memory(size_t requested);
  void merge_into(Block* block, Block* neighbour);
  void return_to_pool(Block* block);
  void process_events();
  void synchronize_events();

  const std::unique_ptr<DeviceMemory> memory_;
  const int device_;
  mutable std::mutex mutex_;
  Pool small_blocks_;
  Pool large_blocks_;
  std::unordered_map<void*, Block*> allocated_;
  std::vector<PendingEvent> pending_;  // oldest first
  MemoryStats stats_;
};

}  // namespace torchlet::cuda
