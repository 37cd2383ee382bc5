// RandomStrategy: picks uniformly among all unexplored pairs, reproducibly from its seed. Every
// pair of every notified state sits in one vector; a pick draws an index, swaps that pair with the
// last and pops it, so a pick is O(1) and memory is one Pair per unexplored pair. The same seed
// and the same model give the same sequence of picks. Owns its pairs and its Rng; driven from one
// thread.
#pragma once

#include <cstdint>
#include <vector>

#include "prowl/core/rng.hpp"
#include "prowl/explore/strategy.hpp"

namespace prowl {

class RandomStrategy final : public Strategy {
 public:
  explicit RandomStrategy(std::uint64_t seed) : rng_(seed) {}

  std::string_view name() const override { return "random"; }
  void notify(const Graph& graph, StateId state, std::span<const ActionId> enabled) override;
  std::optional<Pair> pick(const Graph& graph) override;
  StrategyTraits traits() const override { return {.observes = false}; }

  // Pairs not yet picked.
  std::size_t pending() const { return pairs_.size(); }

 private:
  Rng rng_;
  std::vector<Pair> pairs_;
};

}  // namespace prowl
