// The CUDA caching allocator's pools on host memory: every behaviour of
// Note [CUDA caching allocator] that does not need a GPU.
#include "tensor/cuda/caching_allocator.h"

#include <cstdlib>
#include <deque>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/error.h"
#include "tensor/test_util.h"

namespace torchlet::cuda {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

/// Host memory standing in for a device of `capacity` bytes; counts calls.
class FakeDeviceMemory : public DeviceMemory {
 public:
  /// An event: recorded on (device, stream); the test says when it passes.
  struct Event {
    int device;
    StreamId stream;
    bool done = false;
    bool synchronized = false;
    bool destroyed = false;
  };
  struct Counters {
    size_t in_use = 0;
    int allocations = 0;
    int frees = 0;
    int failures = 0;
    std::deque<Event> events;  // every event recorded, oldest first
  };
  FakeDeviceMemory(size_t capacity, Counters* counters) : capacity_(capacity), c_(counters) {}
  void* allocate(size_t nbytes) override {
    if (c_->in_use + nbytes > capacity_) {
      ++c_->failures;
      return nullptr;
    }
    c_->in_use += nbytes;
    ++c_->allocations;
    sizes_.push_back({std::malloc(nbytes), nbytes});
    return sizes_.back().first;
  }
  void free(void* ptr) override {
    for (auto it = sizes_.begin(); it != sizes_.end(); ++it) {
      if (it->first == ptr) {
        c_->in_use -= it->second;
        ++c_->frees;
        std::free(ptr);
        sizes_.erase(it);
        return;
      }
    }
    ADD_FAILURE() << "freed a pointer the fake device did not hand out";
  }
  void info(size_t* free_bytes, size_t* total_bytes) override {
    *free_bytes = capacity_ - c_->in_use;
    *total_bytes = capacity_;
  }
  void* record_event(int device, uint64_t stream) override {
    c_->events.push_back({device, stream});
    return &c_->events.back();
  }
  bool event_done(void* event) override { return live(event)->done; }
  void synchronize_event(void* event) override {
    live(event)->synchronized = true;
    live(event)->done = true;
  }
  void destroy_event(void* event) override { live(event)->destroyed = true; }

 private:
  static Event* live(void* event) {
    auto* e = static_cast<Event*>(event);
    EXPECT_FALSE(e->destroyed) << "an event used after it was destroyed";
    return e;
  }
  size_t capacity_;
  Counters* c_;
  std::vector<std::pair<void*, size_t>> sizes_;
};

class CachingAllocatorTest : public ::testing::Test {
 protected:
  CachingAllocator& make(size_t capacity = 1024 * kMiB) {
    allocator_ = std::make_unique<CachingAllocator>(
        std::make_unique<FakeDeviceMemory>(capacity, &device_), 3);
    return *allocator_;
  }
  FakeDeviceMemory::Counters device_;
  std::unique_ptr<CachingAllocator> allocator_;
};

TEST_F(CachingAllocatorTest, RoundsRequestsToMultiplesOf512Bytes) {
  EXPECT_EQ(CachingAllocator::round_size(0), 512u);
  EXPECT_EQ(CachingAllocator::round_size(1), 512u);
  EXPECT_EQ(CachingAllocator::round_size(512), 512u);
  EXPECT_EQ(CachingAllocator::round_size(513), 1024u);
}

TEST_F(CachingAllocatorTest, SizesSegmentsByPool) {
  EXPECT_EQ(CachingAllocator::segment_size(512), 2 * kMiB);
  EXPECT_EQ(CachingAllocator::segment_size(kMiB), 2 * kMiB);
  EXPECT_EQ(CachingAllocator::segment_size(kMiB + 512), 20 * kMiB);
  EXPECT_EQ(CachingAllocator::segment_size(10 * kMiB), 10 * kMiB);
  EXPECT_EQ(CachingAllocator::segment_size(11 * kMiB + 512), 12 * kMiB);
}

TEST_F(CachingAllocatorTest, SmallRequestsShareOneSegment) {
  CachingAllocator& a = make();
  char* p = static_cast<char*>(a.allocate(1000));
  char* q = static_cast<char*>(a.allocate(1000));
  EXPECT_EQ(device_.allocations, 1);
  EXPECT_EQ(q - p, 1024);  // q was split off the rest of p's segment
  EXPECT_EQ(a.stats().allocated, 2048u);
  EXPECT_EQ(a.stats().reserved, 2 * kMiB);
}

TEST_F(CachingAllocatorTest, AFreedBlockIsReusedWithoutTheDevice) {
  CachingAllocator& a = make();
  void* p = a.allocate(4 * kMiB);
  a.free(p);
  void* q = a.allocate(4 * kMiB);
  EXPECT_EQ(q, p);
  EXPECT_EQ(device_.allocations, 1);
  EXPECT_EQ(device_.frees, 0);
}

TEST_F(CachingAllocatorTest, TakesTheSmallestFreeBlockThatFits) {
  CachingAllocator& a = make();
  void* big = a.allocate(3 * kMiB);
  void* fence1 = a.allocate(3 * kMiB);  // keeps the freed blocks apart
  void* small = a.allocate(2 * kMiB);
  void* fence2 = a.allocate(3 * kMiB);
  a.free(big);
  a.free(small);
  EXPECT_EQ(a.allocate(2 * kMiB), small);
  a.free(fence1);
  a.free(fence2);
}

TEST_F(CachingAllocatorTest, AdjacentFreeBlocksMergeIntoOne) {
  CachingAllocator& a = make();
  char* p = static_cast<char*>(a.allocate(2 * kMiB));
  char* q = static_cast<char*>(a.allocate(2 * kMiB));
  char* r = static_cast<char*>(a.allocate(2 * kMiB));
  ASSERT_EQ(q, p + 2 * kMiB);
  ASSERT_EQ(r, q + 2 * kMiB);
  a.free(p);
  a.free(r);
  a.free(q);  // joins both neighbours
  EXPECT_EQ(a.allocate(6 * kMiB), p);
  EXPECT_EQ(device_.allocations, 1);
}

TEST_F(CachingAllocatorTest, LargePoolKeepsARemainderOnlyAboveOneMiB) {
  CachingAllocator& a = make();
  // A 10 MiB request gets a 10 MiB segment: no remainder at all.
  a.allocate(10 * kMiB);
  // A 19.5 MiB request from a 20 MiB segment leaves 0.5 MiB: not split.
  void* p = a.allocate(19 * kMiB + 512 * 1024);
  EXPECT_EQ(a.stats().allocated, 30 * kMiB);
  a.free(p);
}

TEST_F(CachingAllocatorTest, BlocksFreedOnOneStreamServeOnlyThatStream) {
  CachingAllocator& a = make();
  void* p = a.allocate(4 * kMiB, /*stream=*/1);
  a.free(p);
  void* q = a.allocate(4 * kMiB, /*stream=*/2);
  EXPECT_NE(q, p);
  EXPECT_EQ(device_.allocations, 2);
  EXPECT_EQ(a.allocate(4 * kMiB, /*stream=*/1), p);
}

TEST_F(CachingAllocatorTest, ABlockRecordedOnAnotherStreamReturnsOnceItsEventPasses) {
  CachingAllocator& a = make();
  void* p = a.allocate(4 * kMiB, /*stream=*/1);
  a.record_stream(p, /*device=*/3, /*stream=*/2);
  a.free(p);
  ASSERT_EQ(device_.events.size(), 1u);
  EXPECT_EQ(device_.events[0].device, 3);
  EXPECT_EQ(device_.events[0].stream, 2u);
  EXPECT_EQ(a.stats().allocated, 0u);  // no longer held by a tensor
  void* q = a.allocate(4 * kMiB, /*stream=*/1);
  EXPECT_NE(q, p);  // stream 2 may still use p
  device_.events[0].done = true;
  EXPECT_EQ(a.allocate(4 * kMiB, /*stream=*/1), p);
  EXPECT_TRUE(device_.events[0].destroyed);
  EXPECT_FALSE(device_.events[0].synchronized);  // polled, never waited for
}

TEST_F(CachingAllocatorTest, ABlockWaitsForEveryStreamRecordedOnIt) {
  CachingAllocator& a = make();
  void* p = a.allocate(1000);
  a.record_stream(p, 3, 5);
  a.record_stream(p, 3, 6);
  a.record_stream(p, 3, 5);  // once per stream
  a.free(p);
  ASSERT_EQ(device_.events.size(), 2u);
  device_.events[1].done = true;
  EXPECT_NE(a.allocate(1000), p);
  device_.events[0].done = true;
  EXPECT_EQ(a.allocate(1000), p);
}

TEST_F(CachingAllocatorTest, RecordingTheBlocksOwnStreamOrAForeignPointerDoesNothing) {
  CachingAllocator& a = make();
  void* p = a.allocate(4 * kMiB, /*stream=*/1);
  a.record_stream(p, 3, 1);
  int local = 0;
  a.record_stream(&local, 3, 2);  // memory it did not hand out: left alone
  a.free(p);
  EXPECT_TRUE(device_.events.empty());
  EXPECT_EQ(a.allocate(4 * kMiB, /*stream=*/1), p);
}

TEST_F(CachingAllocatorTest, APendingBlockDoesNotMergeWithItsNeighboursUntilItsEventPasses) {
  CachingAllocator& a = make();
  char* first = static_cast<char*>(a.allocate(512 * 1024));
  char* second = static_cast<char*>(a.allocate(512 * 1024));
  a.record_stream(first, 3, 2);
  a.free(first);
  a.free(second);  // merges with the rest of the segment, not with `first`
  void* probe = a.allocate(1000);
  EXPECT_EQ(probe, second);  // a block merged with `first` would start there
  a.free(probe);
  device_.events[0].done = true;
  a.empty_cache();  // `first` merges on its way back: the segment is whole
  EXPECT_EQ(a.stats().reserved, 0u);
}

TEST_F(CachingAllocatorTest, EmptyCacheWaitsForPendingEventsAndGivesTheirSegmentsBack) {
  CachingAllocator& a = make();
  void* p = a.allocate(12 * kMiB);
  a.record_stream(p, 3, 2);
  a.free(p);
  a.empty_cache();
  ASSERT_EQ(device_.events.size(), 1u);
  EXPECT_TRUE(device_.events[0].synchronized);
  EXPECT_TRUE(device_.events[0].destroyed);
  EXPECT_EQ(a.stats().reserved, 0u);
  EXPECT_EQ(device_.in_use, 0u);
}

TEST_F(CachingAllocatorTest, RetryAfterAFullDeviceWaitsForPendingEvents) {
  CachingAllocator& a = make(40 * kMiB);
  void* p = a.allocate(30 * kMiB);
  a.record_stream(p, 3, 2);
  a.free(p);
  EXPECT_NE(a.allocate(20 * kMiB), nullptr);
  EXPECT_TRUE(device_.events[0].synchronized);
  EXPECT_EQ(a.stats().reserved, 20 * kMiB);
}

TEST_F(CachingAllocatorTest, DestructionGivesBackSegmentsWithEventsPending) {
  CachingAllocator& a = make();
  void* p = a.allocate(1000);
  a.record_stream(p, 3, 2);
  a.record_stream(p, 3, 4);
  a.free(p);
  allocator_.reset();
  EXPECT_EQ(device_.in_use, 0u);
  EXPECT_TRUE(device_.events[0].destroyed);
  EXPECT_TRUE(device_.events[1].destroyed);
}

TEST_F(CachingAllocatorTest, TracksAllocatedReservedAndTheirPeaks) {
  CachingAllocator& a = make();
  void* p = a.allocate(3 * kMiB);
  void* q = a.allocate(5 * kMiB);
  a.free(p);
  MemoryStats s = a.stats();
  EXPECT_EQ(s.allocated, 5 * kMiB);
  EXPECT_EQ(s.max_allocated, 8 * kMiB);
  EXPECT_EQ(s.reserved, 20 * kMiB);  // one 20 MiB segment holds both
  a.reset_peak_stats();
  EXPECT_EQ(a.stats().max_allocated, 5 * kMiB);
  a.free(q);
  EXPECT_EQ(a.stats().allocated, 0u);
}

TEST_F(CachingAllocatorTest, EmptyCacheReturnsOnlyWholeFreeSegments) {
  CachingAllocator& a = make();
  void* kept = a.allocate(1000);   // a small segment, partly in use
  void* freed = a.allocate(12 * kMiB);
  a.free(freed);
  a.empty_cache();
  EXPECT_EQ(device_.frees, 1);
  EXPECT_EQ(a.stats().reserved, 2 * kMiB);
  EXPECT_EQ(a.stats().segments_freed, 1u);
  a.free(kept);
  a.empty_cache();
  EXPECT_EQ(a.stats().reserved, 0u);
  EXPECT_EQ(device_.in_use, 0u);
}

TEST_F(CachingAllocatorTest, GivesTheCacheBackAndRetriesWhenTheDeviceIsFull) {
  CachingAllocator& a = make(40 * kMiB);
  a.free(a.allocate(30 * kMiB, /*stream=*/1));  // cached: 30 of the device's 40 MiB
  // Another stream cannot take the cached block; the device has room for
  // this only once the 30 MiB go back.
  void* p = a.allocate(20 * kMiB, /*stream=*/2);
  EXPECT_NE(p, nullptr);
  EXPECT_EQ(device_.failures, 1);
  EXPECT_EQ(a.stats().alloc_retries, 1u);
  EXPECT_EQ(a.stats().reserved, 20 * kMiB);
}

TEST_F(CachingAllocatorTest, OutOfMemoryNamesTheRequestAndTheFigures) {
  CachingAllocator& a = make(40 * kMiB);
  a.allocate(30 * kMiB);
  EXPECT_THROW_MSG(a.allocate(16 * kMiB),
                   "CUDA out of memory. Tried to allocate 16.00 MiB (GPU 3; 40.00 MiB total "
                   "capacity; 30.00 MiB already allocated; 10.00 MiB free; 30.00 MiB reserved in "
                   "total by torchlet)");
  EXPECT_EQ(a.stats().ooms, 1u);
}

TEST_F(CachingAllocatorTest, StaysUsableAfterOutOfMemory) {
  CachingAllocator& a = make(40 * kMiB);
  void* p = a.allocate(30 * kMiB);
  EXPECT_THROW(a.allocate(16 * kMiB), Error);
  a.free(p);
  EXPECT_NE(a.allocate(16 * kMiB), nullptr);
  EXPECT_EQ(a.stats().allocated, 16 * kMiB);
}

TEST_F(CachingAllocatorTest, GivesEverySegmentBackWhenDestroyed) {
  CachingAllocator& a = make();
  a.allocate(1000);
  a.free(a.allocate(12 * kMiB));       // a cached segment
  a.allocate(3 * kMiB, /*stream=*/1);  // a segment in use
  ASSERT_EQ(device_.allocations, 3);
  allocator_.reset();
  EXPECT_EQ(device_.frees, 3);
  EXPECT_EQ(device_.in_use, 0u);
}

TEST_F(CachingAllocatorTest, FreeingAForeignPointerIsAnError) {
  CachingAllocator& a = make();
  int local = 0;
  EXPECT_THROW_MSG(a.free(&local), "freeing a pointer it did not hand out");
}

TEST_F(CachingAllocatorTest, ConcurrentAllocationsAndFreesKeepTheBooksStraight) {
  CachingAllocator& a = make();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&a, t] {
      for (int i = 0; i < 500; ++i) {
        void* p = a.allocate(static_cast<size_t>(512 * (1 + (i + t) % 7)));
        void* q = a.allocate(static_cast<size_t>(kMiB + 4096 * (i % 5)));
        a.free(p);
        a.free(q);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(a.stats().allocated, 0u);
  a.empty_cache();
  EXPECT_EQ(a.stats().reserved, 0u);
  EXPECT_EQ(device_.in_use, 0u);
}

}  // namespace
}  // namespace torchlet::cuda
