#include "nn/optim/optimizer.h"

#include <cmath>
#include <ostream>
#include <set>
#include <unordered_set>

#include "autograd/grad_mode.h"
#include "nn/repr.h"
#include "tensor/error.h"
#include "tensor/factories.h"

namespace torchlet::optim {

// ---- OptionValue -------------------------------------------------------------

OptionValue::OptionValue(Scalar value) {
  if (value.is_bool()) {
    kind_ = Kind::kBool;
    flag_ = value.to<bool>();
  } else {
    kind_ = Kind::kNumber;
    number_ = value;
  }
}

OptionValue::OptionValue(const char* value) : kind_(Kind::kString) {
  TORCHLET_CHECK(value != nullptr, "optimizer option: a null string");
  string_ = value;
}

namespace {

const char* kind_name(OptionValue::Kind kind) {
  switch (kind) {
    case OptionValue::Kind::kNone: return "None";
    case OptionValue::Kind::kBool: return "a bool";
    case OptionValue::Kind::kNumber: return "a number";
    case OptionValue::Kind::kPair: return "a pair";
    case OptionValue::Kind::kString: return "a string";
  }
  return "?";
}

void check_kind(OptionValue::Kind actual, OptionValue::Kind expected) {
  TORCHLET_CHECK(actual == expected, "optimizer option: expected ", kind_name(expected), ", got ",
                 kind_name(actual));
}

// As Python's repr() prints a number: 0, 0.9, 1e-05, True.
std::string number_str(const Scalar& value) {
  if (value.is_bool()) return value.to<bool>() ? "True" : "False";
  if (value.is_integral()) return std::to_string(value.to<int64_t>());
  return nn::detail::float_repr(value.to_double());
}

// Same kind and value (an integer is not equal to the float of its value:
// they print differently).
bool same_number(const Scalar& a, const Scalar& b) {
  if (a.kind() != b.kind()) return false;
  return a.is_floating_point() ? a.to_double() == b.to_double()
                               : a.to<int64_t>() == b.to<int64_t>();
}

}  // namespace

bool OptionValue::to_bool() const {
  check_kind(kind_, Kind::kBool);
  return flag_;
}

double OptionValue::to_double() const {
  check_kind(kind_, Kind::kNumber);
  return number_.to_double();
}

Scalar OptionValue::number() const {
  check_kind(kind_, Kind::kNumber);
  return number_;
}

std::pair<double, double> OptionValue::to_pair() const {
  check_kind(kind_, Kind::kPair);
  return {pair_.first.to_double(), pair_.second.to_double()};
}

std::pair<Scalar, Scalar> OptionValue::scalar_pair() const {
  check_kind(kind_, Kind::kPair);
  return pair_;
}

const std::string& OptionValue::to_string() const {
  check_kind(kind_, Kind::kString);
  return string_;
}

std::string OptionValue::str() const {
  switch (kind_) {
    case Kind::kNone: return "None";
    case Kind::kBool: return flag_ ? "True" : "False";
    case Kind::kNumber: return number_str(number_);
    case Kind::kPair: return "(" + number_str(pair_.first) + ", " + number_str(pair_.second) + ")";
    case Kind::kString: return string_;
  }
  return "?";
}

bool OptionValue::operator==(const OptionValue& other) const {
  if (kind_ != other.kind_) return false;
  switch (kind_) {
    case Kind::kNone: return true;
    case Kind::kBool: return flag_ == other.flag_;
    case Kind::kNumber: return same_number(number_, other.number_);
    case Kind::kPair:
      return same_number(pair_.first, other.pair_.first) &&
             same_number(pair_.second, other.pair_.second);
    case Kind::kString: return string_ == other.string_;
  }
  return false;
}

// ---- ParamGroup ----------------------------------------------------------------

namespace {

const OptionValue& find_option(const Options& options, const std::string& name) {
  const auto it = options.find(name);
  TORCHLET_CHECK(it != options.end(), "parameter group has no option '", name, "'");
  return it->second;
}

}  // namespace

double ParamGroup::number(const std::string& name) const {
  return find_option(options, name).to_double();
}

bool ParamGroup::flag(const std::string& name) const {
  return find_option(options, name).to_bool();
}

std::pair<double, double> ParamGroup::pair(const std::string& name) const {
  return find_option(options, name).to_pair();
}

void ParamGroup::Field::set(const OptionValue& value) const {
  if (number_ != nullptr) *number_ = value.to_double();
  if (flag_ != nullptr) *flag_ = value.to_bool();
  if (pair_ != nullptr) *pair_ = value.to_pair();
}

void ParamGroup::read(std::initializer_list<Field> fields) const {
  TORCHLET_INTERNAL_ASSERT(fields.size() <= 64, "ParamGroup::read: too many fields");
  uint64_t found = 0;
  for (const auto& [name, value] : options) {
    const std::string_view key = name;
    uint64_t bit = 1;
    for (const Field& field : fields) {
      // Lengths and first letters tell most names apart without a memcmp.
      if ((found & bit) == 0 && field.name_.size() == key.size() && !key.empty() &&
          field.name_[0] == key[0] && field.name_ == key) {
        field.set(value);
        found |= bit;
        break;
      }
      bit <<= 1;
    }
  }
  uint64_t bit = 1;
  for (const Field& field : fields) {
    if ((found & bit) == 0) find_option(options, std::string(field.name_));  // throws naming it
    bit <<= 1;
  }
}

// ---- Optimizer -------------------------------------------------------------------

Tensor* Optimizer::ParamState::find(const std::string& name) {
  for (auto& [key, value] : buffers) {
    if (key == name) return &value;
  }
  return nullptr;
}

Tensor& Optimizer::ParamState::get_or_zeros(const std::string& name, const Tensor& like) {
  if (Tensor* existing = find(name)) return *existing;
  buffers.emplace_back(name, zeros_like(like));
  return buffers.back().second;
}

Optimizer::Optimizer(std::string name, Options defaults, std::optional<DType> step_dtype)
    : name_(std::move(name)), defaults_(std::move(defaults)), step_dtype_(step_dtype) {}

void Optimizer::init_groups(std::vector<ParamGroup> groups) {
  check_options(defaults_);
  TORCHLET_CHECK(!groups.empty(), "optimizer got an empty parameter list");
  for (ParamGroup& group : groups) add_param_group(std::move(group));
}

void Optimizer::init_state(const ParamGroup&, const Variable&, ParamState&) {}

bool Optimizer::is_scalar_buffer(const std::string&) const { return false; }

bool Optimizer::keeps_own_state() const { return false; }

void Optimizer::save_state(StateDict&) const {}

std::function<void()> Optimizer::prepare_load_state(const SavedState&) {
  return [] {};
}

void Optimizer::add_param_group(ParamGroup group) {
  TORCHLET_CHECK(!group.params.empty(), name_, ": a parameter group holds no parameters");
  for (const auto& [key, value] : group.options) {
    TORCHLET_CHECK(key != "params" && defaults_.count(key) != 0, name_,
                   ": unknown optimization option '", key, "'");
  }
  for (const auto& [key, value] : defaults_) group.options.emplace(key, value);
  check_options(group.options);
  std::unordered_set<const VariableImpl*> seen;
  for (const Variable& param : group.params) {
    TORCHLET_CHECK(param.defined(), name_, ": optimizer can only optimize defined Variables");
    // A Variable that does not require grad (a frozen layer's) is accepted,
    // as in PyTorch; step() skips it while it has no gradient.
    TORCHLET_CHECK(param.is_leaf(), "can't optimize a non-leaf Tensor");
    TORCHLET_CHECK(param.is_floating_point(), name_,
                   ": optimizer can only optimize floating-point Variables, got dtype ",
                   param.dtype());
    TORCHLET_CHECK(seen.insert(param.impl()).second,
                   "optimizer contains a parameter group with duplicate parameters");
    for (const ParamGroup& other : param_groups_) {
      for (const Variable& p : other.params) {
        TORCHLET_CHECK(!p.is_same(param), "some parameters appear in more than one parameter group");
      }
    }
  }
  // A parameter has state once init_state or its first update made some
  // (PyTorch's state_dict lists no others).
  for (const Variable& param : group.params) {
    ParamState state;
    init_state(group, param, state);
    if (state.step != 0 || !state.buffers.empty()) state_[param.impl()] = std::move(state);
  }
  param_groups_.push_back(std::move(group));
}

void Optimizer::zero_grad(bool set_to_none) {
  for (const ParamGroup& group : param_groups_) {
    for (const Variable& param : group.params) {
      Variable grad = param.grad();
      if (!grad.defined()) continue;
      if (set_to_none) {
        param.set_grad(Variable());
      } else {
        grad.detach_();
        Tensor values = grad.data();
        values.zero_();
      }
    }
  }
}

void Optimizer::begin_group(const ParamGroup&) {}

void Optimizer::step() {
  NoGradGuard no_grad;
  for (const ParamGroup& group : param_groups_) {
    begin_group(group);
    for (const Variable& param : group.params) {
      const Variable grad = param.grad();
      if (!grad.defined()) continue;
      update(group, param.data(), grad.data(), state_[param.impl()]);
    }
  }
}

Variable Optimizer::step(const std::function<Variable()>& closure) {
  Variable loss;
  {
    EnableGradGuard enable_grad;
    loss = closure();
  }
  step();
  return loss;
}

std::string Optimizer::repr() const {
  std::string out = name_ + " (";
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    out += "\nParameter Group " + std::to_string(g) + "\n";
    for (const auto& [key, value] : param_groups_[g].options) {
      out += "    " + key + ": " + value.str() + "\n";
    }
  }
  return out + ")";
}

std::ostream& operator<<(std::ostream& out, const Optimizer& optimizer) {
  return out << optimizer.repr();
}

}  // namespace torchlet::optim
