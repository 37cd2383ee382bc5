// The LRU example (README, "Actions with parameters" and "Objects that cannot be copied"): a
// textbook LRU cache — a std::list, most recent first, and a map of iterators into it — whose
// compiler-made copy is shallow, explored by prowl without copying it (FactoryModel), with its
// keys and values as parameters, and the keys it holds as the state gives them. `evict_late` seeds
// a bug: eviction waits for one entry too many.
#pragma once

#include <cstddef>
#include <list>
#include <unordered_map>
#include <utility>
#include <vector>

#include "prowl/explore/object_model.hpp"

namespace examples {

class Lru {
 public:
  Lru(std::size_t capacity, bool evict_late) : capacity_(capacity), late_(evict_late) {}
  void put(int key, int value);
  int get(int key);  // -1 when absent
  void erase(int key);
  // The keys held, most recent first.
  std::vector<int> keys() const;
  const std::list<std::pair<int, int>>& items() const { return items_; }
  // The map and the list hold the same keys, each map entry pointing at its key's list entry.
  bool consistent() const;

 private:
  std::size_t capacity_;
  bool late_;
  std::list<std::pair<int, int>> items_;
  std::unordered_map<int, std::list<std::pair<int, int>>::iterator> where_;
};

void prowl_observe(const Lru& lru, prowl::Hasher& hasher);

// Capacity 2, keys 0..3, values 0..1: put(key, value), get(key), erase(key) of a key held
// (from_state); invariants within_capacity and map_matches_list.
prowl::FactoryModel<Lru> make_lru_model(bool evict_late = false);

}  // namespace examples
