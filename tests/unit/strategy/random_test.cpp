#include "prowl/strategy/random.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include <gtest/gtest.h>

#include "counters/counters.hpp"
#include "prowl/explore/explorer.hpp"
#include "unit/strategy/testkit.hpp"

namespace prowl {
namespace {

using testkit::add_state;
using testkit::pick_and_mark;

std::vector<testkit::TraceStep> counters_trace(std::uint64_t seed) {
  RandomStrategy random(seed);
  return testkit::trace_on_counters(random);
}

TEST(Random, SameSeedGivesTheSameTrace) {
  const std::vector<testkit::TraceStep> first = counters_trace(7);
  ASSERT_EQ(first.size(), 288u);
  EXPECT_EQ(counters_trace(7), first);
}

TEST(Random, DifferentSeedsGiveDifferentTraces) {
  std::vector<testkit::TraceStep> a = counters_trace(7);
  std::vector<testkit::TraceStep> b = counters_trace(8);
  ASSERT_EQ(a.size(), 288u);
  ASSERT_EQ(b.size(), 288u);
  EXPECT_NE(a, b);
  // Both are orders of the same 288 pairs.
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
  EXPECT_EQ(std::unique(a.begin(), a.end()), a.end());
}

TEST(Random, ExploresEveryStateAndTransitionOfCounters) {
  const auto model = examples::make_counters_model(3, 4);
  RandomStrategy random(1);
  auto report = explore(model, random);
  ASSERT_TRUE(report) << report.status().message();
  EXPECT_EQ(report->strategy, "random");
  EXPECT_EQ(report->termination, Termination::kExhausted);
  EXPECT_EQ(report->stats.states, 64u);
  EXPECT_EQ(report->stats.transitions, 288u);
  EXPECT_EQ(report->stats.steps, 288u);
  EXPECT_TRUE(report->findings.empty());
}

TEST(Random, PicksEveryPairExactlyOnceThenStops) {
  Graph graph(3);
  RandomStrategy random(3);
  const StateId s0 = add_state(graph, random, 0, kNoState, kNoAction, {0, 1, 2});
  const StateId s1 = add_state(graph, random, 1, s0, 0, {0, 2});
  std::set<std::pair<StateId, ActionId>> picked;
  for (int i = 0; i < 5; ++i) {
    const std::optional<Pair> p = pick_and_mark(graph, random);
    ASSERT_TRUE(p.has_value()) << "pick " << i;
    EXPECT_TRUE(picked.emplace(p->state, p->action).second) << "picked twice";
  }
  const std::set<std::pair<StateId, ActionId>> all = {{s0, 0}, {s0, 1}, {s0, 2}, {s1, 0}, {s1, 2}};
  EXPECT_EQ(picked, all);
  EXPECT_EQ(random.pick(graph), std::nullopt);
  EXPECT_EQ(random.pending(), 0u);
}

TEST(Random, SkipsAPairThatIsNoLongerUnexplored) {
  Graph graph(2);
  RandomStrategy random(5);
  const StateId s0 = add_state(graph, random, 0, kNoState, kNoAction, {0, 1});
  graph.mark_explored(s0, 0);
  const std::optional<Pair> p = pick_and_mark(graph, random);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(*p, (Pair{s0, 1}));
  EXPECT_EQ(random.pick(graph), std::nullopt);
}

}  // namespace
}  // namespace prowl
