#include "parallel/replicate.h"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "autograd/grad_mode.h"
#include "parallel/comm.h"
#include "parallel/device_tasks.h"
#include "parallel/functions.h"

namespace torchlet::parallel {
namespace {

/// What a set of replicas was built for (Note [Kept replicas]).
struct SlotKey {
  const VariableImpl* impl = nullptr;
  SizeVec sizes;
  DType dtype = kFloat32;
  Device device;
  bool is_buffer = false;

  bool operator==(const SlotKey& o) const {
    return impl == o.impl && sizes == o.sizes && dtype == o.dtype && device == o.device &&
           is_buffer == o.is_buffer;
  }
};

struct Key {
  std::vector<Device> devices;
  std::vector<const nn::Module*> modules;
  std::vector<SlotKey> slots;

  bool operator==(const Key& o) const {
    return devices == o.devices && modules == o.modules && slots == o.slots;
  }
};

/// What replicate() reads of a module on every call: its module tree
/// (modules() order) and its slots (slots() order), kept while
/// nn::Module::registry_generation() is unchanged, so that a call walks no
/// tree and builds no names (Note [Kept replicas]).
struct Layout {
  bool valid = false;
  uint64_t generation = 0;
  std::vector<const nn::Module*> modules;
  std::vector<Variable> slots;
  std::vector<bool> is_buffer;
};

/// A module or a parameter or buffer of a replica, and the index of what
/// it stands for among the original's modules or slots (its Layout).
/// Sharing in the original may map several of a replica's onto one index
/// (Note [Shared modules and parameters in replicas]).
template <typename T>
struct Counterpart {
  T mine;
  size_t index;
};

// Note [Reading a holder count]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A set is free once the last call that used it has dropped its replicas
// and its graph, and the next call then re-binds the replicas' parameters,
// which the last call's forward and backward read, maybe on other threads.
// Those reads happen before each holder drops its reference (a releasing
// decrement of the count), but shared_ptr::use_count() is a relaxed load:
// seeing the count fall would not order the re-bind after the reads, and
// ThreadSanitizer reported exactly that race between two threads calling
// one DataParallel. Copying the pointer increments the count with an
// acquire-release read-modify-write, which synchronizes with every earlier
// decrement, so free() reads each count through a copy (and counts the
// copy's own reference).

/// One set of a module's kept replicas: one replica per device.
struct Replicas {
  Layout layout;
  Key key;
  std::vector<std::shared_ptr<nn::Module>> modules;                       // one per device
  std::vector<std::vector<Counterpart<nn::Module*>>> submodules;          // [device]
  std::vector<std::vector<Counterpart<Variable>>> slots;                  // [device]
  bool checked_out = false;  // a call is building or re-binding it
  // The Broadcast node of the last re-bind that recorded one, and how many
  // references to it the set itself holds (its slots' grad_fn, and this).
  std::shared_ptr<autograd::Node> broadcast;
  long broadcast_refs = 0;

  /// Whether no call holds this set: none is re-binding it, nobody else
  /// holds its replicas (a call's result holds each root), and no graph
  /// recorded through its parameters is alive (each holds their
  /// Broadcast node), which backward would read while a re-bind wrote.
  ///
  /// Each count is read through a copy of its pointer (Note [Reading a
  /// holder count]), whose increment is an acquiring read of the count.
  bool free() const {
    if (checked_out) return false;
    for (const auto& m : modules) {
      const std::shared_ptr<nn::Module> probe = m;
      if (probe.use_count() > 2) return false;
    }
    if (broadcast == nullptr) return true;
    const std::shared_ptr<autograd::Node> probe = broadcast;
    return probe.use_count() <= broadcast_refs + 1;
  }
};

/// Every set of one module object's kept replicas (Note [Kept replicas]):
/// one while calls do not overlap, more when they do.
struct ReplicaSets {
  std::mutex mutex;
  std::vector<std::shared_ptr<Replicas>> sets;
};

/// `module`'s layout, read again if any module's registrations changed
/// since it was.
const Layout& layout_of(Layout& layout, const nn::Module& module) {
  // Read before walking: a change made during the walk shows next time.
  const uint64_t generation = nn::Module::registry_generation();
  if (layout.valid && layout.generation == generation) return layout;
  layout.modules.clear();
  for (const auto& m : module.modules()) layout.modules.push_back(m.get());
  layout.slots.clear();
  layout.is_buffer.clear();
  for (nn::Slot& s : module.slots()) {
    layout.slots.push_back(std::move(s.variable));
    layout.is_buffer.push_back(s.is_buffer);
  }
  layout.generation = generation;
  layout.valid = true;
  return layout;
}

SlotKey slot_key(const Variable& v, bool is_buffer) {
  const Tensor& data = v.data();
  return SlotKey{v.impl(), SizeVec(data.sizes().begin(), data.sizes().end()), data.dtype(),
                 data.device(), is_buffer};
}

Key key_of(const Layout& layout, const std::vector<Device>& devices) {
  Key key;
  key.devices = devices;
  key.modules = layout.modules;
  key.slots.reserve(layout.slots.size());
  for (size_t i = 0; i < layout.slots.size(); ++i) {
    key.slots.push_back(slot_key(layout.slots[i], layout.is_buffer[i]));
  }
  return key;
}

/// Whether `key` (what the replicas were built for) still describes
/// `layout` on `devices`; compares without building a key.
bool still_matches(const Key& key, const Layout& layout, const std::vector<Device>& devices) {
  if (key.devices != devices || key.modules != layout.modules ||
      key.slots.size() != layout.slots.size()) {
    return false;
  }
  for (size_t i = 0; i < layout.slots.size(); ++i) {
    const SlotKey& k = key.slots[i];
    const Variable& v = layout.slots[i];
    const Tensor& data = v.data();
    if (k.impl != v.impl() || k.is_buffer != layout.is_buffer[i] || k.dtype != data.dtype() ||
        k.device != data.device() || !std::equal(k.sizes.begin(), k.sizes.end(),
                                                 data.sizes().begin(), data.sizes().end())) {
      return false;
    }
  }
  return true;
}

std::mutex kept_mutex;  // guards every module's kept_replicas()

/// The kept replica sets of `module` (created empty on first use), which
/// the module object holds and destroys with itself.
std::shared_ptr<ReplicaSets> sets_of(const std::shared_ptr<nn::Module>& module) {
  std::lock_guard<std::mutex> lock(kept_mutex);
  std::shared_ptr<void>& kept = module->kept_replicas();
  if (kept == nullptr) kept = std::make_shared<ReplicaSets>();
  return std::static_pointer_cast<ReplicaSets>(kept);
}

/// A set of `module`'s replicas that no call holds (a new, empty one if
/// every set is held), checked out to this call until destroyed: neither
/// another call nor check_module_device touches it meanwhile.
class Checkout {
 public:
  explicit Checkout(const std::shared_ptr<nn::Module>& module) : sets_(sets_of(module)) {
    std::lock_guard<std::mutex> lock(sets_->mutex);
    for (const std::shared_ptr<Replicas>& r : sets_->sets) {
      if (r->free()) {
        set_ = r;
        break;
      }
    }
    if (set_ == nullptr) set_ = sets_->sets.emplace_back(std::make_shared<Replicas>());
    set_->checked_out = true;
  }
  ~Checkout() {
    std::lock_guard<std::mutex> lock(sets_->mutex);
    set_->checked_out = false;
  }
  Checkout(const Checkout&) = delete;
  Checkout& operator=(const Checkout&) = delete;

  Replicas& operator*() const { return *set_; }
  Replicas* operator->() const { return set_.get(); }

  /// The set's replicas, for the caller to hold; copied while the set is
  /// still checked out, so no other call can take it between the two.
  std::vector<std::shared_ptr<nn::Module>> modules() const { return set_->modules; }

 private:
  std::shared_ptr<ReplicaSets> sets_;
  std::shared_ptr<Replicas> set_;
};

// Note [Shared modules and parameters in replicas]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A module may register one submodule in several places (Sequential(lin,
// Tanh(), lin)) or one parameter under several names (tied weights).
// PyTorch's replicate keeps that sharing in each replica. clone() does not
// (Note [Cloning modules]): it copies a shared submodule or parameter once
// per registration, and the members of the modules using it point at those
// copies. replicate() therefore pairs the clone's registrations with the
// original's one by one, walking both trees without removing duplicates
// (same names, same order), and binds every copy of a shared parameter or
// buffer to the one broadcast output of the original: both read the same
// data, in-place updates through either reach it, and their gradients meet
// in the broadcast's backward. Every copy of a shared submodule shares the
// original's hooks and mirrors its training flag. What differs from
// PyTorch is only what a replica lists: its parameters() counts each copy.

/// The index of each distinct pointer in `items`, in order.
template <typename T>
std::unordered_map<const T*, size_t> indices_of(const std::vector<const T*>& items) {
  std::unordered_map<const T*, size_t> out;
  for (size_t i = 0; i < items.size(); ++i) out.emplace(items[i], i);
  return out;
}

nn::Module* item_of(const std::shared_ptr<nn::Module>& module) { return module.get(); }
const Variable& item_of(const Variable& variable) { return variable; }
const void* identity(const nn::Module* module) { return module; }
const void* identity(const Variable& variable) { return variable.impl(); }

/// Every registration of `module`'s tree, duplicates kept: its modules,
/// then its parameters and buffers (parameters first, as slots() lists).
struct Registrations {
  explicit Registrations(const nn::Module& module)
      : modules(module.named_modules("", /*remove_duplicate=*/false)),
        slots(module.named_parameters(/*recurse=*/true, /*remove_duplicate=*/false)),
        parameter_count(slots.size()) {
    for (auto& named : module.named_buffers(/*recurse=*/true, /*remove_duplicate=*/false)) {
      slots.push_back(std::move(named));
    }
  }
  std::vector<nn::Module::NamedModule> modules;
  std::vector<nn::Module::NamedVariable> slots;
  size_t parameter_count;
};

/// Pairs each of the clone's distinct items with the index of the
/// original's item registered under the same name (Note [Shared modules
/// and parameters in replicas]); `index_of(k)` gives the index of the
/// original's k-th registration. Refuses a clone that shares an item the
/// original does not.
template <typename Mine, typename Named, typename IndexOf>
std::vector<Counterpart<Mine>> pair_up(const nn::Module& module, const std::vector<Named>& mine,
                                       const std::vector<Named>& originals, IndexOf index_of,
                                       const char* what) {
  std::vector<Counterpart<Mine>> out;
  std::unordered_map<const void*, size_t> first;  // item -> its registration in `mine`
  for (size_t k = 0; k < mine.size(); ++k) {
    const size_t index = index_of(k);
    Mine item = item_of(mine[k].second);
    const auto [it, inserted] = first.emplace(identity(item), k);
    if (inserted) {
      out.push_back(Counterpart<Mine>{std::move(item), index});
      continue;
    }
    TORCHLET_CHECK(index_of(it->second) == index, "replicate: the clone of ", module.name(),
                   " shares one ", what, " between '", mine[it->second].first, "' and '",
                   mine[k].first, "', which the original does not");
  }
  return out;
}

void build(Replicas& r, const nn::Module& module, const std::vector<Device>& devices) {
  NoGradGuard no_grad;
  // Replicas never hold gradients, and another call's backward may be
  // accumulating into the original's while this one builds: do not read them.
  const nn::detail::CloneWithoutGradients without_gradients;
  // A clone that throws leaves the set half built: with no key it matches
  // nothing, so the next call builds it again.
  r.key = Key();
  r.modules.clear();
  r.submodules.clear();
  r.slots.clear();
  const Layout& layout = r.layout;
  const Registrations originals(module);
  const std::unordered_map<const nn::Module*, size_t> module_index = indices_of(layout.modules);
  std::unordered_map<const VariableImpl*, size_t> parameter_index, buffer_index;
  for (size_t i = 0; i < layout.slots.size(); ++i) {
    (layout.is_buffer[i] ? buffer_index : parameter_index).emplace(layout.slots[i].impl(), i);
  }
  for (Device device : devices) {
    std::shared_ptr<nn::Module> replica = module.clone(device);
    replica->zero_grad(/*set_to_none=*/true);
    const Registrations mine(*replica);
    const auto names_match = [](const auto& a, const auto& b) {
      return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                        [](const auto& x, const auto& y) { return x.first == y.first; });
    };
    TORCHLET_CHECK(names_match(mine.modules, originals.modules) &&
                       names_match(mine.slots, originals.slots) &&
                       mine.parameter_count == originals.parameter_count,
                   "replicate: the clone of ", module.name(),
                   " does not register the submodules, parameters and buffers the original "
                   "does (", originals.modules.size(), " modules and ", originals.slots.size(),
                   " parameters and buffers, against ", mine.modules.size(), " and ",
                   mine.slots.size(), " in the clone); replicas of such a module are not "
                   "supported");
    r.submodules.push_back(pair_up<nn::Module*>(
        module, mine.modules, originals.modules,
        [&](size_t k) { return module_index.at(originals.modules[k].second.get()); },
        "submodule"));
    for (const Counterpart<nn::Module*>& m : r.submodules.back()) {
      m.mine->share_hooks(*layout.modules[m.index]);
    }
    r.slots.push_back(pair_up<Variable>(
        module, mine.slots, originals.slots,
        [&](size_t k) {
          const auto& index = k < originals.parameter_count ? parameter_index : buffer_index;
          return index.at(originals.slots[k].second.impl());
        },
        "parameter or buffer"));
    r.modules.push_back(std::move(replica));
  }
}

/// Each device's copies of `tensors` as Variables (plain leaves).
std::vector<variable_list> copies(const std::vector<Tensor>& tensors,
                                  const std::vector<Device>& devices) {
  std::vector<variable_list> out;
  for (std::vector<Tensor>& on_device : comm::broadcast_coalesced(tensors, devices)) {
    out.emplace_back();
    for (Tensor& t : on_device) out.back().emplace_back(std::move(t));
  }
  return out;
}

/// Re-binds every replica's slots to the broadcast of the layout's slots.
void rebind(Replicas& r, const std::vector<Device>& devices, bool detach) {
  const std::vector<Variable>& slots = r.layout.slots;
  // Where each slot's copies come from: a Broadcast output (tracked) or a
  // plain copy, and its position among those.
  std::vector<bool> is_tracked(slots.size());
  std::vector<size_t> position(slots.size());
  variable_list tracked_vars;
  std::vector<Tensor> plain_data;
  for (size_t i = 0; i < slots.size(); ++i) {
    const Variable& v = slots[i];
    is_tracked[i] = !detach && (!r.layout.is_buffer[i] || v.requires_grad());
    if (is_tracked[i]) {
      position[i] = tracked_vars.size();
      tracked_vars.push_back(v);
    } else {
      position[i] = plain_data.size();
      plain_data.push_back(v.data());
    }
  }
  r.broadcast = nullptr;
  if (!tracked_vars.empty()) {
    {
      const variable_list outs = Broadcast::apply(devices, tracked_vars);
      for (size_t d = 0; d < devices.size(); ++d) {
        for (const Counterpart<Variable>& slot : r.slots[d]) {
          if (!is_tracked[slot.index]) continue;
          slot.mine.rebind(outs[d * tracked_vars.size() + position[slot.index]]);
        }
      }
      r.broadcast = outs[0].grad_fn();
    }
    r.broadcast_refs = r.broadcast.use_count();
  }
  if (!plain_data.empty()) {
    const std::vector<variable_list> outs = copies(plain_data, devices);
    for (size_t d = 0; d < devices.size(); ++d) {
      for (const Counterpart<Variable>& slot : r.slots[d]) {
        if (!is_tracked[slot.index]) slot.mine.rebind(outs[d][position[slot.index]]);
      }
    }
  }
}

/// Gives every replica module the training flag of its original.
void mirror_training(Replicas& r, const std::vector<const nn::Module*>& originals) {
  // Pre-order, so a module's train(), which sets its descendants too, is
  // corrected by theirs after it.
  for (const std::vector<Counterpart<nn::Module*>>& mine : r.submodules) {
    for (const Counterpart<nn::Module*>& m : mine) {
      const bool training = originals[m.index]->is_training();
      if (m.mine->is_training() != training) m.mine->train(training);
    }
  }
}

}  // namespace

std::vector<std::shared_ptr<nn::Module>> replicate(const std::shared_ptr<nn::Module>& module,
                                                   const std::vector<Device>& devices,
                                                   bool detach) {
  TORCHLET_CHECK(module != nullptr, "replicate: the module is null");
  if (devices.empty()) return {};  // replicate.py: `if not devices: return []`
  for (Device device : devices) check_device_exists(device, "replicate");
  const Checkout r(module);
  const Layout& layout = layout_of(r->layout, *module);
  if (r->modules.empty() || !still_matches(r->key, layout, devices)) {
    const detail::ReceiverCopies::Pause pause;  // Note [Receivers copy]
    build(*r, *module, devices);
    r->key = key_of(layout, devices);
  }
  rebind(*r, devices, detach);
  mirror_training(*r, layout.modules);
  return r.modules();
}

void drop_replicas(const std::shared_ptr<nn::Module>& module) {
  TORCHLET_CHECK(module != nullptr, "drop_replicas: the module is null");
  std::lock_guard<std::mutex> lock(kept_mutex);
  module->kept_replicas() = nullptr;
}

namespace detail {

void check_module_device(const std::shared_ptr<nn::Module>& module, Device device) {
  const Checkout r(module);
  for (const Variable& slot : layout_of(r->layout, *module).slots) {
    TORCHLET_CHECK(slot.device() == device,
                   "module must have its parameters and buffers on device ", device,
                   " (device_ids[0]) but found one of them on device: ", slot.device());
  }
}

}  // namespace detail

}  // namespace torchlet::parallel
