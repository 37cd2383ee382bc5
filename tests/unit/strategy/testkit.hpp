// Helpers for the strategy tests: a Strategy wrapper that records every pick (the trace of a run),
// and a way to build a Graph state by state without an Explorer.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "counters/counters.hpp"
#include "prowl/core/fingerprint.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/explore/graph.hpp"
#include "prowl/explore/strategy.hpp"

namespace prowl {

// Lets GoogleTest print pairs and traces in failure messages.
inline void PrintTo(const Pair& p, std::ostream* os) {
  *os << "(" << p.state << ", " << p.action << ")";
}

}  // namespace prowl

namespace prowl::testkit {

// Forwards everything to `inner` and keeps the pairs it picked, in order. Does not own `inner`.
class Recording final : public Strategy {
 public:
  explicit Recording(Strategy& inner) : inner_(inner) {}
  std::string_view name() const override { return inner_.name(); }
  void notify(const Graph& graph, StateId state, std::span<const ActionId> enabled) override {
    inner_.notify(graph, state, enabled);
  }
  std::optional<Pair> pick(const Graph& graph) override {
    std::optional<Pair> p = inner_.pick(graph);
    if (p) picks.push_back(*p);
    return p;
  }
  void observe(const Graph& graph, const StepResult& result) override {
    inner_.observe(graph, result);
  }
  // Only the lookahead: whole states would bypass pick(), and the picks would go unrecorded.
  StrategyTraits traits() const override { return {.lookahead = inner_.traits().lookahead}; }

  std::vector<Pair> picks;

 private:
  Strategy& inner_;
};

// Adds the state numbered `id`, reached from `parent` by `action`, with the given enabled
// actions, and tells the strategy about it as the explorer would. Its fingerprint is {fmix64(id
// + 1), id}: the graph's table places a fingerprint by the high bits of lo, which ids as they are
// would all share (so each add probed past every state before it: 200,000 states took 49 s).
inline StateId add_state(Graph& graph, Strategy& strategy, std::uint64_t id, StateId parent,
                         ActionId action, std::initializer_list<ActionId> enabled) {
  const auto [s, is_new] = graph.add(Fingerprint{detail::fmix64(id + 1), id}, parent, action);
  const std::vector<ActionId> actions(enabled);
  graph.set_enabled(s, actions);
  strategy.notify(graph, s, actions);
  return s;
}

// Picks as the explorer does: the pair must be unexplored, and is marked explored at once.
inline std::optional<Pair> pick_and_mark(Graph& graph, Strategy& strategy) {
  std::optional<Pair> p = strategy.pick(graph);
  if (!p) return p;
  if (graph.is_unexplored(p->state, p->action)) {
    graph.mark_explored(p->state, p->action);
  } else {
    ADD_FAILURE() << "picked (" << p->state << ", " << p->action << "), which is not unexplored";
  }
  return p;
}

// One step of a trace: the picked state (by fingerprint, which does not depend on discovery
// order) and the action.
using TraceStep = std::pair<std::string, ActionId>;

// The picks of a run of `strategy` over counters (K=3, N=4; 64 states, 288 pairs).
inline std::vector<TraceStep> trace_on_counters(Strategy& strategy, std::uint64_t max_steps = 0) {
  const auto model = examples::make_counters_model(3, 4);
  Recording recording(strategy);
  Options options;
  options.max_steps = max_steps;
  Explorer explorer(model, recording, options);
  auto report = explorer.run();
  EXPECT_TRUE(report) << report.status().message();
  std::vector<TraceStep> trace;
  for (const Pair& p : recording.picks) {
    trace.emplace_back(explorer.graph().fingerprint(p.state).hex(), p.action);
  }
  return trace;
}

}  // namespace prowl::testkit
