#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "nn/module_holder.h"

namespace torchlet::parallel {

// Note [Kept replicas]
// ~~~~~~~~~~~~~~~~~~~~
// PyTorch's replicate() builds new module objects on every call. torchlet
// builds each device's replica once, with clone(device), and keeps it (a
// set per module, for its latest device list, held by the module object
// itself: destroying the module frees its replicas and their copies).
// Each call then only re-binds every registered slot of every replica
// (Note [Registered slots]) to fresh broadcast outputs with
// Variable::rebind(), mirrors each submodule's training flag, and returns
// the kept replicas: one broadcast_coalesced of the parameters and buffers,
// no constructor or initializer run, and no walk of the module tree:
// the tree and its slots are read again only when some module's
// registrations changed (nn::Module::registry_generation()). The replicas
// are rebuilt when the module's structure, devices, or any slot's identity,
// shape, dtype or device changed since they were built (a set_data() with a
// new shape, a new submodule, to()). Building them draws from the random
// generator, as clone() does.
//
// What a replica's slot is bound to:
// - parameters and buffers that require grad: outputs of Broadcast, so the
//   replica's parameters are non-leaves whose gradients are reduce-added
//   (coalesced) into the original's grad() by backward; under NoGradGuard
//   (`detach`) plain copies instead;
// - other buffers: plain copies.
// On devices[0] the outputs share storage with the original's tensors, so
// in-place updates there (BatchNorm's running statistics) are kept; those on
// other replicas are lost, as in PyTorch. Replicas share nothing with one
// another; within a replica, what the module registers in several places
// (a submodule used twice, a tied weight) is bound to one copy (Note
// [Shared modules and parameters in replicas] in replicate.cc). Each replica's modules share their hook lists with the
// original's (Module::share_hooks), so a hook runs once per replica.
//
// Unlike PyTorch's, which copies each module's attributes on every call,
// a kept replica's members other than its registered parameters, buffers
// and children (a plain `double temperature`, a Dropout's options) are
// those the module had when the replica was built: clone() copied them.
// Keep a value that changes during training in a buffer (re-bound every
// call), or call drop_replicas(module) after changing it, so that the next
// call builds the replicas anew.
//
// The replicas a call returns are the caller's while it holds them, and
// while a graph recorded through their parameters is alive (backward reads
// them): a call made meanwhile, from this thread or another, gets another
// set (built once, then kept as well) rather than re-binding one in use,
// so several threads may run one DataParallel, or replicate() one module,
// at once. A training loop, whose step drops its output and loss before
// the next forward, re-binds one set every step; one that keeps the last
// step's loss alive through the next forward alternates between two. A set
// counts as held while someone holds its root replica modules, so keep the
// roots, not only a submodule, of replicas you use across calls.

/// Replicas of `module` on `devices` (PyTorch's replicate): kept across
/// calls and re-bound to the module's current parameters and buffers on
/// each call (Note [Kept replicas]). With `detach`, the replicas are not
/// connected to the original by autograd. No devices give no replicas.
std::vector<std::shared_ptr<nn::Module>> replicate(const std::shared_ptr<nn::Module>& module,
                                                   const std::vector<Device>& devices,
                                                   bool detach = false);

/// Forgets `module`'s kept replicas: the next replicate() (DataParallel's
/// next forward) builds them anew from the module as it is then, plain
/// members included (Note [Kept replicas]). Calls in flight keep the
/// replicas they hold.
void drop_replicas(const std::shared_ptr<nn::Module>& module);

/// replicate() of a module of class M, returning its replicas as M.
template <typename M>
std::vector<std::shared_ptr<M>> replicate(const std::shared_ptr<M>& module,
                                          const std::vector<Device>& devices,
                                          bool detach = false) {
  std::vector<std::shared_ptr<M>> out;
  for (auto& replica : replicate(std::static_pointer_cast<nn::Module>(module), devices, detach)) {
    auto typed = std::dynamic_pointer_cast<M>(replica);
    TORCHLET_CHECK(typed != nullptr, "replicate: clone() of ", module->name(),
                   " returned a module of another class");
    out.push_back(std::move(typed));
  }
  return out;
}

/// replicate() of a holder's module.
template <typename M>
std::vector<std::shared_ptr<M>> replicate(const nn::ModuleHolder<M>& module,
                                          const std::vector<Device>& devices,
                                          bool detach = false) {
  return replicate(module.ptr(), devices, detach);
}

/// drop_replicas() of a holder's module.
template <typename M>
void drop_replicas(const nn::ModuleHolder<M>& module) {
  drop_replicas(module.ptr());
}

}  // namespace torchlet::parallel
