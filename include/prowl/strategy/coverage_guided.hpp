// CoverageGuided: runs the action that has been executed the fewest times so far. Every observed
// step counts its action once, whether or not it reached a state. Ties go to the lowest action id,
// and within one action the oldest pair goes first (FIFO), so a run is deterministic without a
// seed. Unexplored pairs wait in one FIFO bucket of states per action; the actions with a
// non-empty bucket sit in an ordered set keyed by (count, action). A pick is O(log A) for A
// actions; memory is one StateId per unexplored pair. Owns its buckets; driven from one thread.
#pragma once

#include <cstdint>
#include <deque>
#include <set>
#include <utility>
#include <vector>

#include "prowl/explore/strategy.hpp"

namespace prowl {

class CoverageGuided final : public Strategy {
 public:
  CoverageGuided() = default;

  std::string_view name() const override { return "coverage"; }
  void notify(const Graph& graph, StateId state, std::span<const ActionId> enabled) override;
  std::optional<Pair> pick(const Graph& graph) override;
  void observe(const Graph& graph, const StepResult& result) override;

  // How many times `action` has been executed, as counted from observe().
  std::uint64_t count(ActionId action) const {
    return action < counts_.size() ? counts_[action] : 0;
  }
  // Sets the executed count of `action`, as if it had run `count` times (tests, resumed runs).
  void set_count(ActionId action, std::uint64_t count);

 private:
  void grow(ActionId action);
  void recount(ActionId action, std::uint64_t count);

  std::vector<std::uint64_t> counts_;
  std::vector<std::deque<StateId>> buckets_;
  // (count, action) for every action whose bucket is not empty: begin() is the next to run.
  std::set<std::pair<std::uint64_t, ActionId>> ready_;
};

}  // namespace prowl
