#include "tensor/cuda/caching_allocator.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tensor/error.h"

namespace torchlet::cuda {
namespace {

constexpr size_t kMinBlockSize = 512;        // every size is a multiple of this
constexpr size_t kSmallSize = size_t{1} << 20;     // the largest small-pool request
constexpr size_t kSmallBuffer = size_t{2} << 20;   // a small-pool segment
constexpr size_t kLargeBuffer = size_t{20} << 20;  // a segment for 1-10 MiB requests
constexpr size_t kMinLargeAlloc = size_t{10} << 20;  // from here a segment fits its request
constexpr size_t kRoundLarge = size_t{2} << 20;      // ... rounded up to this

// PyTorch's figures in out-of-memory messages: bytes, KiB, MiB or GiB.
std::string format_size(size_t size) {
  char buffer[64];
  if (size <= 1024) {
    std::snprintf(buffer, sizeof buffer, "%zu bytes", size);
  } else if (size <= (size_t{1} << 20)) {
    std::snprintf(buffer, sizeof buffer, "%.2f KiB", static_cast<double>(size) / 1024.0);
  } else if (size <= (size_t{1} << 30)) {
    std::snprintf(buffer, sizeof buffer, "%.2f MiB", static_cast<double>(size) / 1048576.0);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.2f GiB", static_cast<double>(size) / 1073741824.0);
  }
  return buffer;
}

}  // namespace

bool CachingAllocator::BlockOrder::operator()(const Block* a, const Block* b) const {
  return std::tie(a->stream, a->size, a->ptr) < std::tie(b->stream, b->size, b->ptr);
}

CachingAllocator::CachingAllocator(std::unique_ptr<DeviceMemory> memory, int device)
    : memory_(std::move(memory)), device_(device) {}

CachingAllocator::~CachingAllocator() {
  // Every segment goes back, in use or not: nothing can be freed into this
  // allocator any more. (A GPU's allocators live as long as the process.)
  std::vector<Block*> blocks(small_blocks_.begin(), small_blocks_.end());
  blocks.insert(blocks.end(), large_blocks_.begin(), large_blocks_.end());
  for (const auto& [ptr, block] : allocated_) blocks.push_back(block);
  for (const PendingEvent& pending : pending_) {
    memory_->destroy_event(pending.event);
    // A block waiting for several events is listed once.
    if (--pending.block->pending_events == 0) blocks.push_back(pending.block);
  }
  for (Block* block : blocks) {
    if (block->prev == nullptr) memory_->free(block->ptr);
  }
  for (Block* block : blocks) delete block;
}

size_t CachingAllocator::round_size(size_t nbytes) {
  if (nbytes < kMinBlockSize) return kMinBlockSize;
  return (nbytes + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
}

size_t CachingAllocator::segment_size(size_t rounded) {
  if (rounded <= kSmallSize) return kSmallBuffer;
  if (rounded < kMinLargeAlloc) return kLargeBuffer;
  return (rounded + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
}

void* CachingAllocator::allocate(size_t nbytes, StreamId stream) {
  const size_t size = round_size(nbytes);
  const bool small = size <= kSmallSize;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!pending_.empty()) process_events();
  Block* block = take_from_pool(size, stream, small);
  if (block == nullptr) block = new_segment(size, stream, small);
  // Split off what is left when it is worth keeping as a block of its own.
  const size_t remaining = block->size - size;
  if (small ? remaining >= kMinBlockSize : remaining > kSmallSize) {
    auto* rest = new Block{stream, remaining, block->ptr + size, small};
    rest->prev = block;
    rest->next = block->next;
    if (rest->next != nullptr) rest->next->prev = rest;
    block->next = rest;
    block->size = size;
    pool_of(small).insert(rest);
  }
  block->allocated = true;
  allocated_.emplace(block->ptr, block);
  stats_.allocated += block->size;
  stats_.max_allocated = std::max(stats_.max_allocated, stats_.allocated);
  return block->ptr;
}

CachingAllocator::Block* CachingAllocator::take_from_pool(size_t size, StreamId stream, bool small) {
  Pool& pool = pool_of(small);
  Block key{stream, size, nullptr, small};
  const auto it = pool.lower_bound(&key);
  if (it == pool.end() || (*it)->stream != stream) return nullptr;
  Block* block = *it;
  pool.erase(it);
  return block;
}

CachingAllocator::Block* CachingAllocator::new_segment(size_t size, StreamId stream, bool small) {
  const size_t bytes = segment_size(size);
  void* ptr = memory_->allocate(bytes);
  if (ptr == nullptr) {
    // The cache may hold what the device lacks: give it back and retry.
    ++stats_.alloc_retries;
    synchronize_events();
    release_free_segments();
    ptr = memory_->allocate(bytes);
  }
  if (ptr == nullptr) throw_out_of_memory(bytes);
  ++stats_.segments_allocated;
  stats_.reserved += bytes;
  stats_.max_reserved = std::max(stats_.max_reserved, stats_.reserved);
  return new Block{stream, bytes, static_cast<char*>(ptr), small};
}

void CachingAllocator::throw_out_of_memory(size_t requested) {
  ++stats_.ooms;
  size_t free_bytes = 0, total_bytes = 0;
  memory_->info(&free_bytes, &total_bytes);
  detail::throw_error(detail::str_cat(
      "CUDA out of memory. Tried to allocate ", format_size(requested), " (GPU ", device_, "; ",
      format_size(total_bytes), " total capacity; ", format_size(stats_.allocated),
      " already allocated; ", format_size(free_bytes), " free; ", format_size(stats_.reserved),
      " reserved in total by torchlet)"));
}

void CachingAllocator::free(void* ptr) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = allocated_.find(ptr);
  TORCHLET_INTERNAL_ASSERT(it != allocated_.end(),
                           "CUDA caching allocator: freeing a pointer it did not hand out");
  Block* block = it->second;
  allocated_.erase(it);
  block->allocated = false;
  stats_.allocated -= block->size;
  if (block->stream_uses.empty()) {
    return_to_pool(block);
    return;
  }
  // Other streams may still be reading or writing it: it waits for them.
  for (const auto& [device, stream] : block->stream_uses) {
    pending_.push_back({memory_->record_event(device, stream), block});
    ++block->pending_events;
  }
  block->stream_uses.clear();
}

void CachingAllocator::record_stream(void* ptr, int device, StreamId stream) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = allocated_.find(ptr);
  if (it == allocated_.end()) return;
  Block* block = it->second;
  const std::pair<int, StreamId> use{device, stream};
  if ((device == device_ && stream == block->stream) ||
      std::find(block->stream_uses.begin(), block->stream_uses.end(), use) !=
          block->stream_uses.end()) {
    return;
  }
  block->stream_uses.push_back(use);
}

// A free block with no events pending goes back to its pool, merged with
// the free neighbours there.
void CachingAllocator::return_to_pool(Block* block) {
  Pool& pool = pool_of(block->small);
  for (Block* neighbour : {block->prev, block->next}) {
    if (neighbour != nullptr && !neighbour->allocated && neighbour->pending_events == 0) {
      pool.erase(neighbour);
      merge_into(block, neighbour);
    }
  }
  pool.insert(block);
}

// Returns the blocks whose events have all passed.
void CachingAllocator::process_events() {
  size_t kept = 0;
  for (const PendingEvent& pending : pending_) {
    if (!memory_->event_done(pending.event)) {
      pending_[kept++] = pending;
      continue;
    }
    memory_->destroy_event(pending.event);
    if (--pending.block->pending_events == 0) return_to_pool(pending.block);
  }
  pending_.resize(kept);
}

// Waits for every pending event, so that their blocks can go back.
void CachingAllocator::synchronize_events() {
  for (const PendingEvent& pending : pending_) {
    memory_->synchronize_event(pending.event);
    memory_->destroy_event(pending.event);
    if (--pending.block->pending_events == 0) return_to_pool(pending.block);
  }
  pending_.clear();
}

// Absorbs `neighbour`, a free block adjacent to `block` in its segment.
void CachingAllocator::merge_into(Block* block, Block* neighbour) {
  if (neighbour == block->prev) {
    block->ptr = neighbour->ptr;
    block->prev = neighbour->prev;
    if (block->prev != nullptr) block->prev->next = block;
  } else {
    block->next = neighbour->next;
    if (block->next != nullptr) block->next->prev = block;
  }
  block->size += neighbour->size;
  delete neighbour;
}

void CachingAllocator::release_free_segments() {
  // A free block with no neighbours is a whole segment nobody uses.
  for (Pool* pool : {&small_blocks_, &large_blocks_}) {
    std::vector<Block*> whole;
    for (Block* block : *pool) {
      if (block->prev == nullptr && block->next == nullptr) whole.push_back(block);
    }
    for (Block* block : whole) {
      pool->erase(block);
      memory_->free(block->ptr);
      stats_.reserved -= block->size;
      ++stats_.segments_freed;
      delete block;
    }
  }
}

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  synchronize_events();
  release_free_segments();
}

MemoryStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void CachingAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.max_allocated = stats_.allocated;
  stats_.max_reserved = stats_.reserved;
}

}  // namespace torchlet::cuda
