#include "lru/lru.hpp"

#include <cstdint>

namespace examples {

void Lru::put(int key, int value) {
  if (auto it = where_.find(key); it != where_.end()) items_.erase(it->second);
  items_.emplace_front(key, value);
  where_[key] = items_.begin();
  if (items_.size() > capacity_ + (late_ ? 1 : 0)) {
    where_.erase(items_.back().first);
    items_.pop_back();
  }
}

int Lru::get(int key) {
  auto it = where_.find(key);
  if (it == where_.end()) return -1;
  items_.splice(items_.begin(), items_, it->second);
  return it->second->second;
}

void Lru::erase(int key) {
  if (auto it = where_.find(key); it != where_.end()) {
    items_.erase(it->second);
    where_.erase(it);
  }
}

std::vector<int> Lru::keys() const {
  std::vector<int> out;
  for (const auto& [key, value] : items_) out.push_back(key);
  return out;
}

bool Lru::consistent() const {
  if (where_.size() != items_.size()) return false;
  for (auto it = items_.begin(); it != items_.end(); ++it) {
    auto w = where_.find(it->first);
    if (w == where_.end() || w->second != it) return false;
  }
  return true;
}

void prowl_observe(const Lru& lru, prowl::Hasher& hasher) {
  hasher.add(static_cast<std::uint64_t>(lru.items().size()));
  for (const auto& [key, value] : lru.items()) {
    hasher.add(static_cast<std::uint64_t>(key));
    hasher.add(static_cast<std::uint64_t>(value));
  }
}

prowl::FactoryModel<Lru> make_lru_model(bool evict_late) {
  prowl::FactoryModel<Lru> model("lru", [evict_late] { return Lru(2, evict_late); });
  model.action("put")
      .param("key", prowl::range(0, 3))
      .param("value", prowl::range(0, 1))
      .run([](Lru& c, int key, int value) { c.put(key, value); });
  model.action("get").param("key", prowl::range(0, 3)).run([](Lru& c, int key) { c.get(key); });
  model.action("erase")
      .param("key", prowl::from_state([](const Lru& c) { return c.keys(); }, /*places=*/3))
      .run([](Lru& c, int key) { c.erase(key); });
  model.invariant("within_capacity").check([](const Lru& c) { return c.items().size() <= 2; });
  model.invariant("map_matches_list").check([](const Lru& c) { return c.consistent(); });
  return model;
}

}  // namespace examples
