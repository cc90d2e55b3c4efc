#include "tensor/storage.h"

#include <cstdlib>
#include <new>

#include "tensor/cuda/cuda_runtime.h"
#include "tensor/error.h"
#include "tensor/shape.h"

namespace torchlet {
namespace {

constexpr size_t kCpuAlignment = 64;

void* cpu_allocate(size_t nbytes) {
  const size_t rounded = (nbytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
  void* p = std::aligned_alloc(kCpuAlignment, rounded == 0 ? kCpuAlignment : rounded);
  TORCHLET_CHECK(p != nullptr, "CPU allocator: out of memory allocating ", nbytes, " bytes");
  return p;
}

}  // namespace

IntrusivePtr<Storage> Storage::allocate(size_t nbytes, Device device) {
  if (device.is_cpu()) {
    return IntrusivePtr<Storage>(new Storage(cpu_allocate(nbytes), nbytes, device, &std::free));
  }
  void* p = cuda::allocate(nbytes, device.index);
  const int index = device.index;
  return IntrusivePtr<Storage>(
      new Storage(p, nbytes, device, [index](void* q) { cuda::deallocate(q, index); }));
}

IntrusivePtr<Storage> Storage::wrap(void* data, size_t nbytes, Device device, Deleter deleter) {
  return IntrusivePtr<Storage>(new Storage(data, nbytes, device, std::move(deleter)));
}

Storage::~Storage() {
  if (deleter_) deleter_(data_);
}

}  // namespace torchlet
