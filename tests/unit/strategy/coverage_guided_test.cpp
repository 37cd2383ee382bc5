#include "prowl/strategy/coverage_guided.hpp"

#include <gtest/gtest.h>

#include "counters/counters.hpp"
#include "prowl/explore/explorer.hpp"
#include "unit/strategy/testkit.hpp"

namespace prowl {
namespace {

using testkit::add_state;
using testkit::pick_and_mark;

TEST(CoverageGuided, PicksThePairOfTheLeastExecutedAction) {
  // The example of the strategy spec: counts {a1: 5, a2: 3, a3: 1, a4: 8} and unexplored pairs
  // (S1, a1), (S2, a2), (S3, a3): a3 ran least, so (S3, a3) comes first.
  Graph graph(5);
  CoverageGuided coverage;
  coverage.set_count(1, 5);
  coverage.set_count(2, 3);
  coverage.set_count(3, 1);
  coverage.set_count(4, 8);
  const StateId s0 = add_state(graph, coverage, 0, kNoState, kNoAction, {});
  const StateId s1 = add_state(graph, coverage, 1, s0, 0, {1});
  const StateId s2 = add_state(graph, coverage, 2, s0, 0, {2});
  const StateId s3 = add_state(graph, coverage, 3, s0, 0, {3});

  EXPECT_EQ(pick_and_mark(graph, coverage), (Pair{s3, 3}));
  coverage.observe(graph, {{s3, 3}, s0, false, false});
  EXPECT_EQ(coverage.count(3), 2u);
  // a3 has no pairs left; a2 (3) ran less than a1 (5).
  EXPECT_EQ(pick_and_mark(graph, coverage), (Pair{s2, 2}));
  coverage.observe(graph, {{s2, 2}, s0, false, false});
  EXPECT_EQ(pick_and_mark(graph, coverage), (Pair{s1, 1}));
  coverage.observe(graph, {{s1, 1}, s0, false, false});
  EXPECT_EQ(coverage.pick(graph), std::nullopt);
}

TEST(CoverageGuided, BreaksTiesByLowestActionThenOldestPair) {
  Graph graph(2);
  CoverageGuided coverage;
  const StateId s0 = add_state(graph, coverage, 0, kNoState, kNoAction, {0, 1});
  const StateId s1 = add_state(graph, coverage, 1, s0, 0, {0, 1});
  const StateId s2 = add_state(graph, coverage, 2, s0, 1, {1});
  // Each observed step raises its action's count, so the actions alternate while both have
  // pairs; within an action the states come in the order they were notified.
  const std::vector<Pair> expected = {{s0, 0}, {s0, 1}, {s1, 0}, {s1, 1}, {s2, 1}};
  for (const Pair& want : expected) {
    const std::optional<Pair> got = pick_and_mark(graph, coverage);
    ASSERT_EQ(got, want);
    coverage.observe(graph, {want, s0, false, false});
  }
  EXPECT_EQ(coverage.pick(graph), std::nullopt);
  EXPECT_EQ(coverage.count(0), 2u);
  EXPECT_EQ(coverage.count(1), 3u);
}

TEST(CoverageGuided, CountsEveryObservedStepWhetherOrNotItReachedAState) {
  Graph graph(3);
  CoverageGuided coverage;
  const StateId s0 = add_state(graph, coverage, 0, kNoState, kNoAction, {0, 1, 2});
  coverage.observe(graph, {{s0, 2}, kNoState, false, true});  // failed with an error
  coverage.observe(graph, {{s0, 2}, s0, false, false});
  coverage.observe(graph, {{s0, 1}, s0, false, false});
  EXPECT_EQ(coverage.count(0), 0u);
  EXPECT_EQ(coverage.count(1), 1u);
  EXPECT_EQ(coverage.count(2), 2u);
  EXPECT_EQ(pick_and_mark(graph, coverage), (Pair{s0, 0}));
  EXPECT_EQ(pick_and_mark(graph, coverage), (Pair{s0, 1}));
  EXPECT_EQ(pick_and_mark(graph, coverage), (Pair{s0, 2}));
}

TEST(CoverageGuided, RunsEveryActionOfCountersOnceBeforeAnyTwice) {
  // Counters' actions are inc_0, reset_0, inc_1, reset_1, inc_2, reset_2. From the initial state
  // only the incs are enabled; each inc opens a state where its reset is enabled, and the reset,
  // never run yet, goes next.
  const auto model = examples::make_counters_model(3, 4);
  CoverageGuided coverage;
  Options options;
  options.max_steps = 6;
  auto report = explore(model, coverage, options);
  ASSERT_TRUE(report) << report.status().message();
  ASSERT_EQ(report->coverage.size(), 6u);
  for (const ActionCoverage& c : report->coverage) EXPECT_EQ(c.executed, 1u) << c.name;
  EXPECT_EQ(report->stats.states, 4u);  // the initial state and one inc of each counter
}

TEST(CoverageGuided, ExploresEveryStateAndTransitionOfCounters) {
  const auto model = examples::make_counters_model(3, 4);
  CoverageGuided coverage;
  auto report = explore(model, coverage);
  ASSERT_TRUE(report) << report.status().message();
  EXPECT_EQ(report->strategy, "coverage");
  EXPECT_EQ(report->termination, Termination::kExhausted);
  EXPECT_EQ(report->stats.states, 64u);
  EXPECT_EQ(report->stats.transitions, 288u);
  // Every action is enabled in 48 of the 64 states, and ran in each of them.
  for (const ActionCoverage& c : report->coverage) EXPECT_EQ(c.executed, 48u) << c.name;
}

}  // namespace
}  // namespace prowl
