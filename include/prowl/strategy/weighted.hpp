// Weighted: picks an unexplored pair with probability proportional to the weight of its action.
// Unexplored pairs wait in one bucket of states per action. A pick first draws an action with
// probability w_a * |bucket_a| / sum_b w_b * |bucket_b| from a sum tree over the actions, then a
// state uniformly from that action's bucket (swap with the last and pop). A pick is O(log A) for A
// actions; memory is one StateId per unexplored pair. The same seed and model give the same picks.
// Each internal node of the sum tree is recomputed from its two children rather than adjusted by
// differences, so floating-point error never accumulates over a long run. Owns its buckets and its
// Rng; driven from one thread.
#pragma once

#include <cstdint>
#include <vector>

#include "prowl/core/rng.hpp"
#include "prowl/explore/strategy.hpp"

namespace prowl {

class Weighted final : public Strategy {
 public:
  // One weight per action id. REQUIRES: every weight is finite and > 0.
  Weighted(std::vector<double> weights, std::uint64_t seed);

  std::string_view name() const override { return "weighted"; }
  void notify(const Graph& graph, StateId state, std::span<const ActionId> enabled) override;
  std::optional<Pair> pick(const Graph& graph) override;
  StrategyTraits traits() const override { return {.observes = false}; }

  const std::vector<double>& weights() const { return weights_; }

 private:
  void update(ActionId action);

  std::vector<double> weights_;
  Rng rng_;
  std::vector<std::vector<StateId>> buckets_;
  std::size_t leaves_;        // a power of two >= the number of actions
  std::vector<double> tree_;  // tree_[1] is the total; leaf of action a at leaves_ + a
};

}  // namespace prowl
