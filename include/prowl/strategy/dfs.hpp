// Dfs: depth-first. The newest state with unexplored actions is expanded first, so the world
// only ever moves down one step or back up to an ancestor: with savepoints (stack systems) it
// never replays. Memory is the stack of open states. O(1) amortized per pick.
#pragma once

#include <vector>

#include "prowl/explore/strategy.hpp"

namespace prowl {

class Dfs final : public Strategy {
 public:
  std::string_view name() const override { return "dfs"; }
  void notify(const Graph& graph, StateId state, std::span<const ActionId> enabled) override;
  std::optional<Pair> pick(const Graph& graph) override;
  StrategyTraits traits() const override { return {.observes = false}; }

 private:
  std::vector<StateId> stack_;
};

}  // namespace prowl
