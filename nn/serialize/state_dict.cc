#include "nn/serialize/state_dict.h"

namespace torchlet {

StateDict::StateDict(std::initializer_list<Item> items) {
  for (const Item& item : items) insert(item.first, item.second);
}

void StateDict::insert(std::string name, Tensor value) {
  TORCHLET_CHECK(index_.count(name) == 0, "StateDict: duplicate key \"", name, "\"");
  index_.emplace(name, items_.size());
  items_.emplace_back(std::move(name), std::move(value));
}

Tensor& StateDict::operator[](const std::string& name) {
  auto it = index_.find(name);
  if (it != index_.end()) return items_[it->second].second;
  index_.emplace(name, items_.size());
  items_.emplace_back(name, Tensor());
  return items_.back().second;
}

const Tensor& StateDict::at(const std::string& name) const {
  const Tensor* t = find(name);
  TORCHLET_CHECK(t != nullptr, "StateDict: no key \"", name, "\"");
  return *t;
}

const Tensor* StateDict::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &items_[it->second].second;
}

bool StateDict::erase(const std::string& name) {
  auto it = index_.find(name);
  if (it == index_.end()) return false;
  items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(it->second));
  index_.clear();
  for (size_t i = 0; i < items_.size(); ++i) index_.emplace(items_[i].first, i);
  return true;
}

std::vector<std::string> StateDict::keys() const {
  std::vector<std::string> out;
  out.reserve(items_.size());
  for (const Item& item : items_) out.push_back(item.first);
  return out;
}

}  // namespace torchlet
