#include "prowl/strategy/dfs.hpp"

namespace prowl {

void Dfs::notify(const Graph&, StateId state, std::span<const ActionId> enabled) {
  if (!enabled.empty()) stack_.push_back(state);
}

std::optional<Pair> Dfs::pick(const Graph& graph) {
  while (!stack_.empty()) {
    const StateId s = stack_.back();
    const ActionId a = graph.next_unexplored(s);
    if (a != kNoAction) return Pair{s, a};
    stack_.pop_back();
  }
  return std::nullopt;
}

}  // namespace prowl
