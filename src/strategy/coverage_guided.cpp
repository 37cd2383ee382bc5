#include "prowl/strategy/coverage_guided.hpp"

#include "prowl/core/status.hpp"

namespace prowl {

void CoverageGuided::grow(ActionId action) {
  PROWL_CHECK(action != kNoAction, "CoverageGuided: kNoAction is not an action");
  if (action >= counts_.size()) {
    counts_.resize(action + 1, 0);
    buckets_.resize(action + 1);
  }
}

void CoverageGuided::notify(const Graph&, StateId state, std::span<const ActionId> enabled) {
  for (ActionId a : enabled) {
    grow(a);
    if (buckets_[a].empty()) ready_.emplace(counts_[a], a);
    buckets_[a].push_back(state);
  }
}

std::optional<Pair> CoverageGuided::pick(const Graph& graph) {
  while (!ready_.empty()) {
    const ActionId a = ready_.begin()->second;
    std::deque<StateId>& bucket = buckets_[a];
    const StateId s = bucket.front();
    bucket.pop_front();
    if (bucket.empty()) ready_.erase(ready_.begin());
    // Only our own picks explore pairs; the check keeps a stale pair from reaching the explorer.
    if (graph.is_unexplored(s, a)) return Pair{s, a};
  }
  return std::nullopt;
}

void CoverageGuided::recount(ActionId action, std::uint64_t count) {
  grow(action);
  if (!buckets_[action].empty()) {
    ready_.erase({counts_[action], action});
    ready_.emplace(count, action);
  }
  counts_[action] = count;
}

void CoverageGuided::observe(const Graph&, const StepResult& result) {
  grow(result.pair.action);
  recount(result.pair.action, counts_[result.pair.action] + 1);
}

void CoverageGuided::set_count(ActionId action, std::uint64_t count) { recount(action, count); }

}  // namespace prowl
