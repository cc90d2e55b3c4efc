#pragma once

#include <memory>
#include <optional>

#include "nn/module.h"

namespace torchlet::nn {

// Note [Cloning modules]
// ~~~~~~~~~~~~~~~~~~~~~~
// A module's members are handles (Parameters, child holders) that no base
// class can reach, so a deep copy needs the class's help. As in libtorch, a
// module that supports clone() derives from Cloneable<Derived> (the one line
// a module class adds) and registers its members in reset(), which its
// constructor calls. clone() copy-constructs the module (copying options and
// plain members), drops the copy's registrations, calls reset() to create
// fresh Parameters, buffers and children — assigning the copy's members —
// then copies the original's values (and gradients) into them and turns each
// child into a clone of the original's child. Parameters shared between two
// submodules are copied once per submodule. Containers derive from
// Cloneable too but have no members outside the registry, so they clone
// their registry directly (deep_copy_registry()).

/// The base of a module that can be deep-copied with clone(); see
/// Note [Cloning modules].
template <typename Derived>
class Cloneable : public Module {
 public:
  using Module::Module;

  /// (Re)creates the module's parameters, buffers and children; the
  /// constructor calls it, and clone() calls it on the copy.
  virtual void reset() = 0;

  std::shared_ptr<Module> clone(
      const std::optional<Device>& device = std::nullopt) const override {
    auto copy = std::make_shared<Derived>(static_cast<const Derived&>(*this));
    copy->clear_registrations();
    copy->reset();
    copy->copy_state_from(*this, device);
    return copy;
  }

 protected:
  void clone_from(const Module& source, const std::optional<Device>& device) override {
    auto copy = std::dynamic_pointer_cast<Derived>(source.clone(device));
    TORCHLET_INTERNAL_ASSERT(copy != nullptr, "clone: ", name(), " cannot take the state of a ",
                             source.name());
    static_cast<Derived&>(*this) = std::move(*copy);
  }
};

}  // namespace torchlet::nn
