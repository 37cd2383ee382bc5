#include "prowl/strategy/random.hpp"

#include <utility>

namespace prowl {

void RandomStrategy::notify(const Graph&, StateId state, std::span<const ActionId> enabled) {
  for (ActionId a : enabled) pairs_.push_back({state, a});
}

std::optional<Pair> RandomStrategy::pick(const Graph& graph) {
  while (!pairs_.empty()) {
    const auto i = static_cast<std::size_t>(rng_.below(pairs_.size()));
    const Pair p = pairs_[i];
    pairs_[i] = pairs_.back();
    pairs_.pop_back();
    // Only our own picks explore pairs, so this holds; the check keeps a stale pair from ever
    // reaching the explorer.
    if (graph.is_unexplored(p.state, p.action)) return p;
  }
  return std::nullopt;
}

}  // namespace prowl
