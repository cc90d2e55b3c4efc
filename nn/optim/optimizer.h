#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "autograd/variable.h"
#include "nn/serialize/state_dict.h"
#include "tensor/scalar.h"

namespace torchlet::optim {

/// One optimization option as PyTorch's param_group dict holds it: None, a
/// bool, a number that remembers whether it was written as an integer or a
/// float (so `0` prints as `0` and `0.9` as `0.9`), a pair of such numbers
/// (Adam's betas, Rprop's step_sizes: `(1e-06, 50)`) or a string (LBFGS's
/// line_search_fn).
class OptionValue {
 public:
  enum class Kind : int8_t { kNone, kBool, kNumber, kPair, kString };

  /// None.
  OptionValue() = default;
  OptionValue(std::nullopt_t) {}  // NOLINT(runtime/explicit)
  OptionValue(bool value) : kind_(Kind::kBool), flag_(value) {}  // NOLINT(runtime/explicit)
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, bool>, int> = 0>
  OptionValue(T value) : kind_(Kind::kNumber), number_(value) {}  // NOLINT(runtime/explicit)
  OptionValue(Scalar value);  // NOLINT(runtime/explicit)
  /// A pair; each element keeps its kind (integer, float or bool), as in a
  /// Python tuple.
  OptionValue(std::pair<Scalar, Scalar> value)  // NOLINT(runtime/explicit)
      : kind_(Kind::kPair), pair_(value) {}
  template <typename A, typename B,
            std::enable_if_t<std::is_arithmetic_v<A> && std::is_arithmetic_v<B>, int> = 0>
  OptionValue(const std::pair<A, B>& value)  // NOLINT(runtime/explicit)
      : OptionValue(std::pair<Scalar, Scalar>(value.first, value.second)) {}
  /// A string. A string literal becomes a string too, never a bool; a null
  /// `const char*` throws `torchlet::Error`.
  OptionValue(std::string value)  // NOLINT(runtime/explicit)
      : kind_(Kind::kString), string_(std::move(value)) {}
  OptionValue(const char* value);  // NOLINT(runtime/explicit)
  OptionValue(std::nullptr_t) = delete;

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::kNone; }
  /// The value; each throws `torchlet::Error` when the kind differs.
  bool to_bool() const;
  double to_double() const;
  Scalar number() const;
  std::pair<double, double> to_pair() const;
  /// The pair with each element's kind.
  std::pair<Scalar, Scalar> scalar_pair() const;
  /// The string itself (str() prints the same text).
  const std::string& to_string() const;

  /// As Python's str() prints the value: None, True, 0, 0.9, 1e-05,
  /// (0.9, 0.999), strong_wolfe.
  std::string str() const;
  bool operator==(const OptionValue& other) const;
  bool operator!=(const OptionValue& other) const { return !(*this == other); }

 private:
  Kind kind_ = Kind::kNone;
  bool flag_ = false;
  Scalar number_;
  std::pair<Scalar, Scalar> pair_;
  std::string string_;
};

/// Options by name, in sorted order (the order PyTorch prints them).
using Options = std::map<std::string, OptionValue>;

/// Parameters optimized with one set of options (PyTorch's param_group
/// dict). Options not given take the optimizer's defaults when the group is
/// added.
struct ParamGroup {
  explicit ParamGroup(std::vector<Variable> params, Options options = {})
      : params(std::move(params)), options(std::move(options)) {}

  std::vector<Variable> params;
  Options options;

  /// The learning rate (options["lr"]).
  double lr() const { return number("lr"); }
  void set_lr(double lr) { options["lr"] = lr; }
  /// A numeric option; throws `torchlet::Error` naming it if absent or not a number.
  double number(const std::string& name) const;
  /// A bool option; throws like number().
  bool flag(const std::string& name) const;
  /// A pair option (betas); throws like number().
  std::pair<double, double> pair(const std::string& name) const;

  /// Where read() puts one option: a number, a bool or a pair.
  class Field {
   public:
    Field(std::string_view name, double* out) : name_(name), number_(out) {}
    Field(std::string_view name, bool* out) : name_(name), flag_(out) {}
    Field(std::string_view name, std::pair<double, double>* out) : name_(name), pair_(out) {}

   private:
    friend struct ParamGroup;
    void set(const OptionValue& value) const;
    std::string_view name_;
    double* number_ = nullptr;
    bool* flag_ = nullptr;
    std::pair<double, double>* pair_ = nullptr;
  };
  /// Reads every option in `fields` in one walk over the map (an optimizer
  /// reads its group's options each step; lookups by name cost more than a
  /// small model's update). Throws like number() for a missing one.
  void read(std::initializer_list<Field> fields) const;
};

/// Base of the optimizers (torch.optim.Optimizer): parameter groups with
/// per-group options, per-parameter state, step(), zero_grad(), a state_dict
/// for checkpoints, and PyTorch's printed form.
class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  /// Adds a group; its missing options take defaults(). Throws if it is
  /// empty, shares a parameter with another group, holds a non-leaf or a
  /// non-floating-point Variable, or has an invalid option. A Variable that
  /// does not require grad (a frozen layer's) is accepted, as in PyTorch:
  /// step() skips it until it has a gradient.
  void add_param_group(ParamGroup group);
  /// Clears every parameter's gradient: undefined with `set_to_none`,
  /// otherwise zeroed in place (and detached). The default follows PyTorch
  /// 2.0 (true), not 1.13 (false).
  void zero_grad(bool set_to_none = true);
  /// One update of every parameter with a defined gradient; the others
  /// (frozen ones among them) are left as they are. Runs without
  /// recording a graph; parameters are written in place (their version is
  /// bumped).
  void step();
  /// Calls `closure` (with grad mode on) to recompute the loss, then
  /// step(); returns the closure's loss. An optimizer that reevaluates the
  /// loss itself (LBFGS) overrides it, so calling it through an Optimizer&
  /// runs that optimizer's algorithm.
  virtual Variable step(const std::function<Variable()>& closure);

  std::vector<ParamGroup>& param_groups() { return param_groups_; }
  const std::vector<ParamGroup>& param_groups() const { return param_groups_; }
  const Options& defaults() const { return defaults_; }
  /// The class name: "SGD", "Adam", ...
  const std::string& name() const { return name_; }

  /// The state of every parameter that has one and every group's options;
  /// see Note [Optimizer state_dict].
  StateDict state_dict() const;
  /// Replaces state and options with `state_dict`'s; all or nothing: on
  /// error nothing changed.
  void load_state_dict(const StateDict& state_dict);

  /// PyTorch's repr: "SGD (\nParameter Group 0\n    dampening: 0\n...)".
  std::string repr() const;

 protected:
  /// One parameter's state: its step count and named buffers.
  struct ParamState {
    int64_t step = 0;
    std::vector<std::pair<std::string, Tensor>> buffers;
    /// The buffer called `name`, or null.
    Tensor* find(const std::string& name);
    /// The buffer called `name`, created as zeros like `like` if absent.
    Tensor& get_or_zeros(const std::string& name, const Tensor& like);
  };

  /// `step_dtype`: the dtype of the saved step count (PyTorch's: float32
  /// for Adam, int64 for RMSprop), or none if the optimizer keeps no count.
  Optimizer(std::string name, Options defaults, std::optional<DType> step_dtype);
  /// Adds the groups (throws PyTorch's error if there are none).
  void init_groups(std::vector<ParamGroup> groups);

  /// Throws PyTorch's error for an invalid option value.
  virtual void check_options(const Options& options) const = 0;
  /// The names of the state buffers the optimizer keeps.
  virtual std::vector<std::string> buffer_names() const = 0;
  /// Reads `group`'s options before step() updates its parameters: once a
  /// group, rather than once a parameter in update(). Does nothing by default.
  virtual void begin_group(const ParamGroup& group);
  /// Updates one parameter (its data) from its gradient; begin_group() has
  /// read the options of `group`, its group, just before.
  virtual void update(const ParamGroup& group, const Tensor& param, const Tensor& grad,
                      ParamState& state) = 0;
  /// State made when a parameter joins (Adagrad's accumulator); none by default.
  virtual void init_state(const ParamGroup& group, const Variable& param, ParamState& state);

  // Hooks of an optimizer whose state does not fit Note [Optimizer
  // state_dict]'s buffers of the parameter's shape.

  /// Whether the buffer `name` holds one number (a 0-dim tensor: NAdam's
  /// mu_product, ASGD's eta and mu) rather than the parameter's shape;
  /// false by default.
  virtual bool is_scalar_buffer(const std::string& name) const;
  /// Whether the optimizer keeps its state itself rather than per
  /// parameter (LBFGS: one state for all parameters); then save_state and
  /// prepare_load_state replace the saving and loading of the state. False
  /// by default.
  virtual bool keeps_own_state() const;
  /// The saved state: by parameter index, each entry's name (without the
  /// "state.<index>." prefix) and value.
  using SavedState = std::map<int64_t, std::vector<std::pair<std::string, Tensor>>>;
  /// Adds the "state.<index>.<name>" entries to `out` (keeps_own_state()).
  virtual void save_state(StateDict& out) const;
  /// Checks `state` and returns what installs it; throws, changing
  /// nothing, if it is invalid (keeps_own_state()).
  virtual std::function<void()> prepare_load_state(const SavedState& state);

 private:
  std::string name_;
  Options defaults_;
  std::optional<DType> step_dtype_;
  std::vector<ParamGroup> param_groups_;
  std::unordered_map<const VariableImpl*, ParamState> state_;
};

std::ostream& operator<<(std::ostream& out, const Optimizer& optimizer);

}  // namespace torchlet::optim
