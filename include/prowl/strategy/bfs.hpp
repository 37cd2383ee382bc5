// Bfs: breadth-first. States are expanded in the order they were discovered, all of a state's
// actions before the next state's, so every state is first reached by a shortest path and a
// state's siblings run back to back (one restore per transition at most). O(1) per pick.
#pragma once

#include <deque>

#include "prowl/explore/strategy.hpp"

namespace prowl {

class Bfs final : public Strategy {
 public:
  std::string_view name() const override { return "bfs"; }
  void notify(const Graph& graph, StateId state, std::span<const ActionId> enabled) override;
  std::optional<Pair> pick(const Graph& graph) override;
  // BFS picks do not depend on results: new states only join the back of the queue.
  StrategyTraits traits() const override {
    return {.observes = false, .lookahead = 64, .whole_states = true, .level_order = true};
  }
  std::optional<StateId> pick_state(const Graph& graph) override;

 private:
  std::deque<StateId> queue_;
  ActionId cursor_ = 0;  // the front state's actions below this were all picked
};

}  // namespace prowl
