#include "nn/hooks.h"

#include <cxxabi.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

#include "nn/module.h"
#include "tensor/error.h"

namespace torchlet::nn {
namespace detail {

struct HookList::State {
  std::mutex mutex;
  std::shared_ptr<const Entries> entries = std::make_shared<const Entries>();
  std::atomic<size_t> size{0};
  int next_id = 0;

  void remove(int id) {
    std::lock_guard<std::mutex> lock(mutex);
    auto updated = std::make_shared<Entries>();
    for (const auto& entry : *entries) {
      if (entry.first != id) updated->push_back(entry);
    }
    size = updated->size();
    entries = std::move(updated);
  }
};

HookList::HookList() : state_(std::make_shared<State>()) {}

HookList::HookList(const HookList& other) : HookList() {
  state_->entries = other.snapshot();
  state_->size = state_->entries->size();
  state_->next_id = static_cast<int>(state_->entries->size());
  if (!state_->entries->empty()) state_->next_id = state_->entries->back().first + 1;
}

HookList& HookList::operator=(const HookList& other) {
  if (this != &other) {
    HookList copy(other);
    state_ = std::move(copy.state_);
  }
  return *this;
}

HookList::~HookList() = default;

RemovableHandle HookList::add(ErasedHook hook) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  auto updated = std::make_shared<Entries>(*state_->entries);
  const int id = state_->next_id++;
  updated->emplace_back(id, std::move(hook));
  state_->size = updated->size();
  state_->entries = std::move(updated);
  return RemovableHandle(std::weak_ptr<void>(state_), id);
}

std::shared_ptr<const HookList::Entries> HookList::snapshot() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->entries;
}

bool HookList::empty() const { return state_->size == 0; }

namespace {

std::string demangle(const char* mangled) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && demangled != nullptr ? demangled : mangled;
  std::free(demangled);
  return name;
}

}  // namespace

void check_hook_fits(const Module& module, const ErasedHook& hook, std::type_index inputs,
                     std::type_index output, const char* kind) {
  TORCHLET_CHECK(hook.inputs == inputs, module.name(), ": a ", kind, " taking inputs ",
                 demangle(hook.inputs.name()), " does not fit a call with inputs ",
                 demangle(inputs.name()));
  TORCHLET_CHECK(hook.output == output, module.name(), ": a ", kind, " taking an output ",
                 demangle(hook.output.name()), " does not fit a forward returning ",
                 demangle(output.name()));
}

}  // namespace detail

void RemovableHandle::remove() {
  if (auto list = list_.lock()) {
    static_cast<detail::HookList::State*>(list.get())->remove(id_);
  }
}

}  // namespace torchlet::nn
