// Optimizer::state_dict and load_state_dict.

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "nn/optim/optimizer.h"
#include "tensor/error.h"
#include "tensor/factories.h"
#include "tensor/shape.h"

namespace torchlet::optim {

// Note [Optimizer state_dict]
// PyTorch's optimizer state_dict is {"state": {index: {name: value}},
// "param_groups": [{option: value, "params": [index, ...]}]}, a parameter's
// index counting through every group in order. Flattened into a StateDict
// (names to tensors), so it is saved in the same safetensors file as the
// model, it becomes:
//   state.<index>.step            0-dim step count (float32 as PyTorch's
//                                 Adam/AdamW/Adagrad keep it, int64 for RMSprop)
//   state.<index>.<buffer>        the buffer (momentum_buffer, exp_avg, ...)
//   param_groups.<g>.params       int64 [n]: the group's parameter indices
//   param_groups.<g>.<option>     0-dim float64 (a float), int64 (an integer)
//                                 or bool; float64 [0] for None; uint8 [n]
//                                 for a string (its bytes: LBFGS's
//                                 line_search_fn)
//   param_groups.<g>.<option>.0   a pair (betas, step_sizes) as its two
//   param_groups.<g>.<option>.1   elements, each a 0-dim number as above, so
//                                 (1e-06, 50) keeps its integer
// Only parameters that have state appear under state. The snapshot owns its
// tensors. Loading maps saved indices to this optimizer's parameters by
// position, as PyTorch does, converts buffers to the parameter's dtype and
// device, and checks every key, shape and option before changing anything.
// A group's options are replaced by the saved ones, which must include every
// option of the optimizer and may add others (a scheduler's initial_lr).
// A pair saved as one float64 [2] tensor (two floats) also loads. An
// optimizer may keep some buffers as 0-dim tensors (NAdam's mu_product;
// Optimizer::is_scalar_buffer), or keep and save its state itself (LBFGS;
// Optimizer::keeps_own_state).

namespace {

constexpr const char* kStatePrefix = "state.";
constexpr const char* kGroupsPrefix = "param_groups.";

Tensor number_tensor(const Scalar& number) {
  if (number.is_bool()) return scalar_tensor(number.to<bool>());
  return scalar_tensor(number, number.is_integral() ? kInt64 : kFloat64);
}

// Adds `value` under `key` (a pair under key.0 and key.1).
void insert_option(StateDict& out, const std::string& key, const OptionValue& value) {
  switch (value.kind()) {
    case OptionValue::Kind::kNone: out.insert(key, empty({0}, kFloat64)); return;
    case OptionValue::Kind::kBool: out.insert(key, scalar_tensor(value.to_bool())); return;
    case OptionValue::Kind::kNumber: out.insert(key, number_tensor(value.number())); return;
    case OptionValue::Kind::kPair: {
      const auto [first, second] = value.scalar_pair();
      out.insert(key + ".0", number_tensor(first));
      out.insert(key + ".1", number_tensor(second));
      return;
    }
    case OptionValue::Kind::kString: {
      const std::string& text = value.to_string();
      out.insert(key, from_vector(std::vector<uint8_t>(text.begin(), text.end())));
      return;
    }
  }
}

OptionValue option_from_tensor(const std::string& key, const Tensor& t) {
  TORCHLET_CHECK(t.defined(), "load_state_dict: '", key, "' is undefined");
  if (t.dim() == 0 && t.dtype() == kBool) return OptionValue(t.item<bool>());
  if (t.dim() == 0 && t.dtype() == kInt64) return OptionValue(t.item<int64_t>());
  if (t.dim() == 0 && t.dtype() == kFloat64) return OptionValue(t.item<double>());
  if (t.dim() == 1 && t.dtype() == kUInt8) {
    const std::vector<uint8_t> bytes = t.to_vector<uint8_t>();
    return OptionValue(std::string(bytes.begin(), bytes.end()));
  }
  if (t.dim() == 1 && t.dtype() == kFloat64 && t.numel() == 2) {
    const std::vector<double> v = t.to_vector<double>();
    return OptionValue(std::make_pair(v[0], v[1]));
  }
  TORCHLET_CHECK(t.dim() == 1 && t.dtype() == kFloat64 && t.numel() == 0,
                 "load_state_dict: option '", key,
                 "' must be a 0-dim bool, int64 or float64 tensor, a float64 [0] None, a uint8 "
                 "[n] string or a float64 [2] pair, got dtype ",
                 t.dtype(), " and shape ", shape_str(t.sizes()));
  return OptionValue();
}

// One element of a pair saved as <option>.0 and <option>.1.
Scalar pair_element_from_tensor(const std::string& key, const Tensor& t) {
  TORCHLET_CHECK(t.defined(), "load_state_dict: '", key, "' is undefined");
  TORCHLET_CHECK(t.dim() == 0 && (t.dtype() == kBool || t.dtype() == kInt64 || t.dtype() == kFloat64),
                 "load_state_dict: pair element '", key,
                 "' must be a 0-dim bool, int64 or float64 tensor, got dtype ", t.dtype(),
                 " and shape ", shape_str(t.sizes()));
  if (t.dtype() == kBool) return t.item<bool>();
  if (t.dtype() == kInt64) return t.item<int64_t>();
  return t.item<double>();
}

// Splits "<index>.<name>" (after a prefix); false if malformed.
bool split_index(const std::string& rest, int64_t* index, std::string* name) {
  const size_t dot = rest.find('.');
  if (dot == 0 || dot == std::string::npos || dot > 9 || dot + 1 == rest.size()) return false;
  for (size_t i = 0; i < dot; ++i) {
    if (rest[i] < '0' || rest[i] > '9') return false;
  }
  *index = std::stoll(rest.substr(0, dot));
  *name = rest.substr(dot + 1);
  return true;
}

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

}  // namespace

StateDict Optimizer::state_dict() const {
  StateDict out;
  if (keeps_own_state()) save_state(out);
  int64_t index = 0;
  for (const ParamGroup& group : param_groups_) {
    for (const Variable& param : group.params) {
      const auto it = state_.find(param.impl());
      if (it != state_.end()) {
        const std::string prefix = kStatePrefix + std::to_string(index) + ".";
        if (step_dtype_) out.insert(prefix + "step", scalar_tensor(it->second.step, *step_dtype_));
        for (const auto& [name, buffer] : it->second.buffers) out.insert(prefix + name, buffer.clone());
      }
      ++index;
    }
  }
  index = 0;
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    const std::string prefix = kGroupsPrefix + std::to_string(g) + ".";
    std::vector<int64_t> indices;
    for (size_t i = 0; i < param_groups_[g].params.size(); ++i) indices.push_back(index++);
    out.insert(prefix + "params", from_vector(indices));
    for (const auto& [name, value] : param_groups_[g].options) {
      insert_option(out, prefix + name, value);
    }
  }
  return out;
}

void Optimizer::load_state_dict(const StateDict& state_dict) {
  // Group options and sizes; the elements of pairs by group and option.
  std::map<int64_t, Options> saved_options;
  std::map<int64_t, std::map<std::string, std::pair<Tensor, Tensor>>> saved_pairs;
  std::map<int64_t, int64_t> saved_sizes;
  std::map<int64_t, std::vector<std::pair<std::string, Tensor>>> saved_state;
  for (const auto& [key, value] : state_dict) {
    int64_t index = 0;
    std::string name;
    if (starts_with(key, kGroupsPrefix) &&
        split_index(key.substr(std::string(kGroupsPrefix).size()), &index, &name)) {
      if (name == "params") {
        TORCHLET_CHECK(value.defined() && value.dim() == 1 && value.dtype() == kInt64,
                       "load_state_dict: '", key, "' must be an int64 [n] tensor");
        saved_sizes[index] = value.numel();
      } else if (const size_t dot = name.find('.'); dot != std::string::npos) {
        const std::string element = name.substr(dot + 1);
        TORCHLET_CHECK(element == "0" || element == "1", "load_state_dict: unexpected key '", key,
                       "' in ", name_, "'s state dict");
        auto& halves = saved_pairs[index][name.substr(0, dot)];
        (element == "0" ? halves.first : halves.second) = value;
        if (!value.defined()) option_from_tensor(key, value);  // throws naming it
      } else {
        saved_options[index][name] = option_from_tensor(key, value);
      }
    } else if (starts_with(key, kStatePrefix) &&
               split_index(key.substr(std::string(kStatePrefix).size()), &index, &name)) {
      saved_state[index].emplace_back(name, value);
    } else {
      TORCHLET_CHECK(false, "load_state_dict: unexpected key '", key, "' in ", name_,
                     "'s state dict");
    }
  }
  for (const auto& [index, pairs] : saved_pairs) {
    for (const auto& [name, halves] : pairs) {
      const std::string key = kGroupsPrefix + std::to_string(index) + "." + name;
      TORCHLET_CHECK(saved_options[index].count(name) == 0, "load_state_dict: unexpected key '",
                     key, halves.first.defined() ? ".0" : ".1", "' in ", name_,
                     "'s state dict (it also holds '", key, "')");
      TORCHLET_CHECK(halves.first.defined() && halves.second.defined(),
                     "load_state_dict: missing key '", key, halves.first.defined() ? ".1" : ".0",
                     "'");
      saved_options[index][name] =
          std::make_pair(pair_element_from_tensor(key + ".0", halves.first),
                         pair_element_from_tensor(key + ".1", halves.second));
    }
  }
  const int64_t num_groups = static_cast<int64_t>(param_groups_.size());
  TORCHLET_CHECK(static_cast<int64_t>(saved_sizes.size()) == num_groups &&
                     (saved_sizes.empty() || saved_sizes.rbegin()->first == num_groups - 1),
                 "loaded state dict has a different number of parameter groups");
  std::vector<Variable> params;
  std::vector<Options> new_options;
  for (int64_t g = 0; g < num_groups; ++g) {
    const ParamGroup& group = param_groups_[g];
    TORCHLET_CHECK(saved_sizes[g] == static_cast<int64_t>(group.params.size()),
                   "loaded state dict contains a parameter group that doesn't match the size of "
                   "optimizer's group");
    Options options = saved_options[g];
    for (const auto& [name, value] : defaults_) {
      TORCHLET_CHECK(options.count(name) != 0, "load_state_dict: missing key 'param_groups.", g,
                     ".", name, "'");
    }
    check_options(options);
    new_options.push_back(std::move(options));
    params.insert(params.end(), group.params.begin(), group.params.end());
  }
  if (keeps_own_state()) {
    const std::function<void()> install = prepare_load_state(saved_state);
    for (int64_t g = 0; g < num_groups; ++g) param_groups_[g].options = std::move(new_options[g]);
    install();
    return;
  }
  const std::vector<std::string> known = buffer_names();
  std::unordered_map<const VariableImpl*, ParamState> new_state;
  for (const auto& [index, entries] : saved_state) {
    TORCHLET_CHECK(index < static_cast<int64_t>(params.size()), "load_state_dict: state for parameter ",
                   index, ", but the optimizer has ", params.size(), " parameters");
    const Tensor& param = params[index].data();
    ParamState state;
    for (const auto& [name, value] : entries) {
      const std::string key = kStatePrefix + std::to_string(index) + "." + name;
      TORCHLET_CHECK(value.defined(), "load_state_dict: '", key, "' is undefined");
      if (name == "step" && step_dtype_) {
        TORCHLET_CHECK(value.numel() == 1, "load_state_dict: '", key,
                       "' must hold one number, got shape ", shape_str(value.sizes()));
        const double step = value.item<double>();
        TORCHLET_CHECK(step >= 0 && step == std::floor(step) && step < 9.0e15, "load_state_dict: '",
                       key, "' must be a whole number of steps, got ", step);
        state.step = static_cast<int64_t>(step);
        continue;
      }
      TORCHLET_CHECK(std::find(known.begin(), known.end(), name) != known.end(),
                     "load_state_dict: unexpected key '", key, "' in ", name_, "'s state dict");
      if (is_scalar_buffer(name)) {
        TORCHLET_CHECK(value.dim() == 0, "load_state_dict: '", key,
                       "' must hold one number (a 0-dim tensor), got shape ",
                       shape_str(value.sizes()));
      } else {
        TORCHLET_CHECK(value.sizes() == param.sizes(), "load_state_dict: '", key, "' has shape ",
                       shape_str(value.sizes()), ", but the parameter has shape ",
                       shape_str(param.sizes()));
      }
      Tensor buffer = value.to(param.device(), param.dtype());
      buffer = buffer.shares_storage(value) ? buffer.clone() : buffer.contiguous();
      state.buffers.emplace_back(name, buffer);
    }
    new_state[params[index].impl()] = std::move(state);
  }
  for (int64_t g = 0; g < num_groups; ++g) param_groups_[g].options = std::move(new_options[g]);
  state_ = std::move(new_state);
}

}  // namespace torchlet::optim
