#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

namespace torchlet {

/// Base of objects owned through IntrusivePtr: the count lives in the object,
/// so a handle is one pointer and making one costs one allocation.
class RefCounted {
 public:
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;

  int32_t use_count() const { return refcount_.load(std::memory_order_relaxed); }

 protected:
  virtual ~RefCounted() = default;

 private:
  template <typename T>
  friend class IntrusivePtr;
  mutable std::atomic<int32_t> refcount_{0};
};

/// A shared owning pointer to a RefCounted object (c10::intrusive_ptr).
template <typename T>
class IntrusivePtr {
 public:
  IntrusivePtr() = default;
  explicit IntrusivePtr(T* p) : p_(p) { retain(); }
  IntrusivePtr(const IntrusivePtr& o) : p_(o.p_) { retain(); }
  IntrusivePtr(IntrusivePtr&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  IntrusivePtr& operator=(IntrusivePtr o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~IntrusivePtr() { release(); }

  template <typename... Args>
  static IntrusivePtr make(Args&&... args) {
    return IntrusivePtr(new T(std::forward<Args>(args)...));
  }

  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  friend bool operator==(const IntrusivePtr& a, const IntrusivePtr& b) { return a.p_ == b.p_; }
  friend bool operator!=(const IntrusivePtr& a, const IntrusivePtr& b) { return a.p_ != b.p_; }

 private:
  void retain() {
    if (p_) p_->refcount_.fetch_add(1, std::memory_order_relaxed);
  }
  void release() {
    if (p_ && p_->refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete p_;
  }
  T* p_ = nullptr;
};

}  // namespace torchlet
