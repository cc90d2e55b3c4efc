#include "nn/parameter_list.h"

#include <sstream>

#include "tensor/dtype.h"

namespace torchlet::nn {
namespace {

/// "3x4" (PyTorch's size_str).
std::string size_text(const Variable& p) {
  std::string out;
  for (int64_t d = 0; d < p.dim(); ++d) out += (d ? "x" : "") + std::to_string(p.size(d));
  return out;
}

std::string gpu_suffix(const Variable& p) {
  return p.device().is_cuda() ? " (GPU " + std::to_string(p.device().index) + ")" : "";
}

/// torch.typename: "torch.FloatTensor", "torch.cuda.HalfTensor", … (by a
/// switch over every DType, so a new dtype cannot read past a table).
std::string legacy_type_name(const Variable& p) {
  const std::string name = legacy_tensor_type_name(p.dtype());  // "torch.FloatTensor"
  const std::string prefix = "torch.";
  if (!p.device().is_cuda() || name.compare(0, prefix.size(), prefix) != 0) return name;
  return "torch.cuda." + name.substr(prefix.size());
}

/// PyTorch's extra_repr of the parameter containers: one line per entry.
template <typename Describe>
std::string describe_entries(const std::vector<Module::NamedVariable>& entries,
                             Describe describe) {
  std::string out;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i) out += "\n";
    out += "  (" + entries[i].first + "): Parameter containing: [" +
           describe(entries[i].second) + " of size " + size_text(entries[i].second) +
           gpu_suffix(entries[i].second) + "]";
  }
  return out;
}

}  // namespace

ParameterListImpl::ParameterListImpl(std::initializer_list<Variable> parameters) {
  for (const Variable& p : parameters) append(p);
}

std::shared_ptr<Module> ParameterListImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ParameterListImpl>(*this);
  copy->deep_copy_registry(device);
  return copy;
}

std::string ParameterListImpl::extra_repr() const {
  return describe_entries(registered_parameters(), [](const Variable& p) {
    return "torch." + std::string(dtype_name(p.dtype()));
  });
}

void ParameterListImpl::append(const Variable& parameter) {
  register_parameter(std::to_string(size()), parameter);
}

Parameter ParameterListImpl::operator[](int64_t index) const {
  const auto n = static_cast<int64_t>(size());
  TORCHLET_CHECK(index >= -n && index < n, "index ", index, " is out of range");
  return Parameter(registered_parameters()[static_cast<size_t>(index < 0 ? index + n : index)].second);
}

ParameterDictImpl::ParameterDictImpl(
    std::initializer_list<std::pair<std::string, Variable>> items) {
  for (const auto& [key, p] : items) insert(key, p);
}

std::shared_ptr<Module> ParameterDictImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ParameterDictImpl>(*this);
  copy->deep_copy_registry(device);
  return copy;
}

std::string ParameterDictImpl::extra_repr() const {
  return describe_entries(registered_parameters(), legacy_type_name);
}

void ParameterDictImpl::insert(const std::string& key, const Variable& parameter) {
  register_parameter(key, parameter);
}

Parameter ParameterDictImpl::operator[](const std::string& key) const {
  for (const auto& [name, p] : registered_parameters()) {
    if (name == key) return Parameter(p);
  }
  ::torchlet::detail::throw_error("ParameterDict: no parameter under the key '" + key + "'");
}

bool ParameterDictImpl::contains(const std::string& key) const {
  for (const auto& entry : registered_parameters()) {
    if (entry.first == key) return true;
  }
  return false;
}

std::vector<std::string> ParameterDictImpl::keys() const {
  std::vector<std::string> out;
  for (const auto& entry : registered_parameters()) out.push_back(entry.first);
  return out;
}

}  // namespace torchlet::nn
