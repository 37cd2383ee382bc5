#include "prowl/strategy/bfs.hpp"

namespace prowl {

void Bfs::notify(const Graph&, StateId state, std::span<const ActionId> enabled) {
  if (!enabled.empty()) queue_.push_back(state);
}

std::optional<Pair> Bfs::pick(const Graph& graph) {
  while (!queue_.empty()) {
    const StateId s = queue_.front();
    const ActionId a = graph.next_unexplored(s, cursor_);
    if (a != kNoAction) {
      cursor_ = a + 1;
      return Pair{s, a};
    }
    queue_.pop_front();
    cursor_ = 0;
  }
  return std::nullopt;
}

std::optional<StateId> Bfs::pick_state(const Graph& graph) {
  while (!queue_.empty()) {
    const StateId s = queue_.front();
    queue_.pop_front();
    cursor_ = 0;
    if (graph.has_unexplored(s)) return s;
  }
  return std::nullopt;
}

}  // namespace prowl
