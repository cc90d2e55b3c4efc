#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "tensor/device.h"
#include "tensor/intrusive_ptr.h"

namespace torchlet {

/// CPU memory from the per-thread cache of recycled blocks (storage.cc; a
/// block over 64 KiB from cpu:0's cache): for the small objects every
/// tensor op creates. Tensor data goes through Storage::allocate, which
/// keeps large blocks with their device.
void* cached_allocate(size_t nbytes);
void cached_deallocate(void* p, size_t nbytes);

/// A standard allocator over cached_allocate, for objects made as often as
/// tensors: `std::allocate_shared<T>(CachedAllocator<T>(), ...)` puts the
/// object and its control block in one recycled block. Alignment up to 64.
template <typename T>
struct CachedAllocator {
  using value_type = T;
  CachedAllocator() = default;
  template <typename U>
  CachedAllocator(const CachedAllocator<U>&) {}  // NOLINT: rebinding converts implicitly
  T* allocate(size_t n) { return static_cast<T*>(cached_allocate(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { cached_deallocate(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const CachedAllocator<U>&) const { return true; }
  template <typename U>
  bool operator!=(const CachedAllocator<U>&) const { return false; }
};

/// A refcounted block of device memory shared by every view of a tensor.
/// Holds the version counter all those views share: every in-place write
/// bumps it, so autograd can tell that a saved tensor was modified.
class Storage : public RefCounted {
 public:
  using Deleter = std::function<void(void*)>;

  /// Allocates `nbytes` on `device` (64-byte aligned on CPU).
  static IntrusivePtr<Storage> allocate(size_t nbytes, Device device);
  /// Wraps memory owned elsewhere; `deleter` (if any) runs when the last view dies.
  static IntrusivePtr<Storage> wrap(void* data, size_t nbytes, Device device, Deleter deleter);
  /// `nbytes` of page-locked CPU memory (cuda::host_allocate), which GPUs
  /// copy asynchronously.
  static IntrusivePtr<Storage> allocate_pinned(size_t nbytes);

  ~Storage() override;
  static void* operator new(size_t nbytes) { return cached_allocate(nbytes); }
  static void operator delete(void* p, size_t nbytes) { cached_deallocate(p, nbytes); }

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  bool is_pinned() const { return pinned_; }

  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

 private:
  Storage(void* data, size_t nbytes, Device device, Deleter deleter)
      : data_(data), nbytes_(nbytes), device_(device), deleter_(std::move(deleter)) {}

  void* data_;
  size_t nbytes_;
  Device device_;
  Deleter deleter_;
  bool cpu_owned_ = false;  // from the CPU allocator (see storage.cc)
  bool pinned_ = false;     // page-locked (allocate_pinned)
  std::atomic<uint32_t> version_{0};
};

}  // namespace torchlet
