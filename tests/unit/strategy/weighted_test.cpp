#include "prowl/strategy/weighted.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <gtest/gtest.h>

#include "counters/counters.hpp"
#include "prowl/explore/explorer.hpp"
#include "unit/strategy/testkit.hpp"

namespace prowl {
namespace {

using testkit::add_state;
using testkit::pick_and_mark;

// Counters' actions inc_0, reset_0, inc_1, reset_1, inc_2, reset_2, unevenly weighted.
std::vector<testkit::TraceStep> counters_trace(std::uint64_t seed) {
  Weighted weighted({1, 2, 3, 4, 5, 6}, seed);
  return testkit::trace_on_counters(weighted);
}

TEST(Weighted, SameSeedGivesTheSameTrace) {
  const std::vector<testkit::TraceStep> first = counters_trace(11);
  ASSERT_EQ(first.size(), 288u);
  EXPECT_EQ(counters_trace(11), first);
}

TEST(Weighted, DifferentSeedsGiveDifferentTraces) {
  std::vector<testkit::TraceStep> a = counters_trace(11);
  std::vector<testkit::TraceStep> b = counters_trace(12);
  ASSERT_EQ(a.size(), 288u);
  ASSERT_EQ(b.size(), 288u);
  EXPECT_NE(a, b);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);  // the same 288 pairs, in another order
}

TEST(Weighted, PicksActionsInProportionToTheirWeights) {
  // 200,000 states with all three actions enabled; weights 1, 3 and 6, so each pick should take
  // action a with probability w_a / 10 = 0.1, 0.3, 0.6.
  constexpr std::uint64_t kStates = 200'000;
  constexpr int kPicks = 10'000;
  const std::array<double, 3> weights = {1, 3, 6};
  Graph graph(3);
  Weighted weighted({weights.begin(), weights.end()}, 42);
  for (std::uint64_t i = 0; i < kStates; ++i) {
    add_state(graph, weighted, i, i == 0 ? kNoState : 0, i == 0 ? kNoAction : 0, {0, 1, 2});
  }
  std::array<int, 3> picked{};
  for (int i = 0; i < kPicks; ++i) {
    const std::optional<Pair> p = pick_and_mark(graph, weighted);
    ASSERT_TRUE(p.has_value());
    ++picked[p->action];
  }
  // Tolerance: the share of action a among N = 10,000 independent draws has standard deviation
  // sqrt(p(1-p)/N) <= 0.0049; we allow 4 of them. Picks also drain the buckets, which moves the
  // probabilities: after N picks at most 6,000 of 200,000 pairs of an action are gone, shifting a
  // share by less than 0.005 at the end of the run (0.0025 on average). Hence
  // tolerance_a = 4 * sqrt(p(1-p)/N) + 0.005, from 0.017 (p = 0.1) to 0.025 (p = 0.6). The seed is
  // fixed, so the test is deterministic; the bound shows the seed is not a lucky one.
  for (int a = 0; a < 3; ++a) {
    const double p = weights[a] / 10.0;
    const double share = static_cast<double>(picked[a]) / kPicks;
    const double tolerance = 4 * std::sqrt(p * (1 - p) / kPicks) + 0.005;
    EXPECT_NEAR(share, p, tolerance) << "action " << a;
  }
}

TEST(Weighted, NeverPicksAnActionThatHasNoPairs) {
  Graph graph(3);
  Weighted weighted({1, 1000, 1}, 3);
  const StateId s0 = add_state(graph, weighted, 0, kNoState, kNoAction, {0, 2});
  const StateId s1 = add_state(graph, weighted, 1, s0, 0, {0});
  int picks = 0;
  while (const std::optional<Pair> p = pick_and_mark(graph, weighted)) {
    EXPECT_NE(p->action, 1u);
    ++picks;
  }
  EXPECT_EQ(picks, 3);
  EXPECT_FALSE(graph.has_unexplored(s0));
  EXPECT_FALSE(graph.has_unexplored(s1));
}

TEST(Weighted, ExploresEveryStateAndTransitionOfCounters) {
  const auto model = examples::make_counters_model(3, 4);
  Weighted weighted({1, 2, 3, 4, 5, 6}, 1);
  auto report = explore(model, weighted);
  ASSERT_TRUE(report) << report.status().message();
  EXPECT_EQ(report->strategy, "weighted");
  EXPECT_EQ(report->termination, Termination::kExhausted);
  EXPECT_EQ(report->stats.states, 64u);
  EXPECT_EQ(report->stats.transitions, 288u);
}

TEST(Weighted, RejectsANonPositiveWeightAsAProgrammingError) {
  EXPECT_THROW(Weighted({1, 0}, 1), LogicError);
  EXPECT_THROW(Weighted({1, -2}, 1), LogicError);
}

}  // namespace
}  // namespace prowl
