#include "parallel/replicate.h"

#include <algorithm>
#include <cstdint>
#include <mutex>
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

/// One set of a module's kept replicas: one replica per device.
struct Replicas {
  Layout layout;
  Key key;
  std::vector<std::shared_ptr<nn::Module>> modules;        // one per device
  std::vector<std::vector<nn::Module*>> submodules;        // [device][module]
  std::vector<std::vector<Variable>> slots;                // [device][slot]
  bool checked_out = false;  // a call is building or re-binding it
  // The Broadcast node of the last re-bind that recorded one, and how many
  // references to it the set itself holds (its slots' grad_fn, and this).
  std::shared_ptr<autograd::Node> broadcast;
  long broadcast_refs = 0;

  /// Whether no call holds this set: none is re-binding it, nobody else
  /// holds its replicas (a call's result holds each root), and no graph
  /// recorded through its parameters is alive (each holds their
  /// Broadcast node), which backward would read while a re-bind wrote.
  bool free() const {
    if (checked_out) return false;
    for (const auto& m : modules) {
      if (m.use_count() > 1) return false;
    }
    return broadcast == nullptr || broadcast.use_count() <= broadcast_refs;
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

void build(Replicas& r, const nn::Module& module, const std::vector<Device>& devices,
           size_t slot_count) {
  NoGradGuard no_grad;
  // A clone that throws leaves the set half built: with no key it matches
  // nothing, so the next call builds it again.
  r.key = Key();
  r.modules.clear();
  r.submodules.clear();
  r.slots.clear();
  const std::vector<std::shared_ptr<nn::Module>> originals = module.modules();
  for (Device device : devices) {
    std::shared_ptr<nn::Module> replica = module.clone(device);
    replica->zero_grad(/*set_to_none=*/true);
    const std::vector<std::shared_ptr<nn::Module>> mine = replica->modules();
    std::vector<nn::Slot> slots = replica->slots();
    // clone() copies a submodule or parameter registered in two places
    // twice, so the replica's tree no longer lines up with the original's.
    TORCHLET_CHECK(mine.size() == originals.size() && slots.size() == slot_count,
                   "replicate: ", module.name(),
                   " registers a submodule, parameter or buffer in more than one place, which "
                   "its clone() does not keep shared (", originals.size(), " modules and ",
                   slot_count, " parameters and buffers, against ", mine.size(), " and ",
                   slots.size(), " in the clone); replicas of such a module are not supported");
    r.submodules.emplace_back();
    for (size_t i = 0; i < mine.size(); ++i) {
      mine[i]->share_hooks(*originals[i]);
      r.submodules.back().push_back(mine[i].get());
    }
    r.slots.emplace_back();
    for (nn::Slot& s : slots) r.slots.back().push_back(std::move(s.variable));
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
  std::vector<size_t> tracked, plain;
  variable_list tracked_vars;
  std::vector<Tensor> plain_data;
  for (size_t i = 0; i < slots.size(); ++i) {
    const Variable& v = slots[i];
    if (!detach && (!r.layout.is_buffer[i] || v.requires_grad())) {
      tracked.push_back(i);
      tracked_vars.push_back(v);
    } else {
      plain.push_back(i);
      plain_data.push_back(v.data());
    }
  }
  r.broadcast = nullptr;
  if (!tracked.empty()) {
    {
      const variable_list outs = Broadcast::apply(devices, tracked_vars);
      for (size_t d = 0; d < devices.size(); ++d) {
        for (size_t k = 0; k < tracked.size(); ++k) {
          r.slots[d][tracked[k]].rebind(outs[d * tracked.size() + k]);
        }
      }
      r.broadcast = outs[0].grad_fn();
    }
    r.broadcast_refs = r.broadcast.use_count();
  }
  if (!plain.empty()) {
    const std::vector<variable_list> outs = copies(plain_data, devices);
    for (size_t d = 0; d < devices.size(); ++d) {
      for (size_t k = 0; k < plain.size(); ++k) r.slots[d][plain[k]].rebind(outs[d][k]);
    }
  }
}

/// Gives every replica module the training flag of its original.
void mirror_training(Replicas& r, const std::vector<const nn::Module*>& originals) {
  for (const std::vector<nn::Module*>& mine : r.submodules) {
    for (size_t i = 0; i < mine.size(); ++i) {
      if (mine[i]->is_training() != originals[i]->is_training()) {
        mine[i]->train(originals[i]->is_training());
      }
    }
  }
}

}  // namespace

std::vector<std::shared_ptr<nn::Module>> replicate(const std::shared_ptr<nn::Module>& module,
                                                   const std::vector<Device>& devices,
                                                   bool detach) {
  TORCHLET_CHECK(module != nullptr, "replicate: the module is null");
  TORCHLET_CHECK(!devices.empty(), "replicate: Expected at least one device");
  for (Device device : devices) check_device_exists(device, "replicate");
  const Checkout r(module);
  const Layout& layout = layout_of(r->layout, *module);
  if (r->modules.empty() || !still_matches(r->key, layout, devices)) {
    const detail::ReceiverCopies::Pause pause;  // Note [Receivers copy]
    build(*r, *module, devices, layout.slots.size());
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
