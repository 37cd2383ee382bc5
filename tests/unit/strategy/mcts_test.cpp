#include "prowl/strategy/mcts.hpp"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "counters/counters.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/explore/object_model.hpp"
#include "prowl/strategy/random.hpp"
#include "unit/strategy/testkit.hpp"

namespace prowl {
namespace {

using testkit::add_state;
using testkit::pick_and_mark;

// A vault with a planted deep bug: it opens after step_1 .. step_8 in this order, which breaks
// the invariant "stays_locked". A step out of order trips the alarm, which shows the wrong step
// and leaves the vault dead (nothing is enabled any more). Before the first step, a dial can be
// turned to any of `positions` positions (turn_0 ..); the steps only work with the dial at 0.
//
// The dial is the distraction: positions * (positions - 1) pairs among positions shallow states
// that lead nowhere new once each position has been seen. The lock is the opposite: every step
// taken on it reaches a state never seen before (the next stage, or an alarm showing a new wrong
// step). Random picks uniformly among all unexplored pairs, so it wades through most of the dial's
// pairs before it has taken the eight right steps. MCTS's new-state reward tells it that the
// lock's subtree keeps paying and the dial's branches do not, so it leaves the dial after a few
// visits per position (UCB1's logarithmic exploration) and walks down the lock.
struct Vault {
  std::uint8_t stage = 0;  // right steps taken
  std::uint8_t dial = 0;
  std::uint8_t alarm = 0;  // the wrong step that tripped the alarm, or 0
};

constexpr int kSteps = 8;

ObjectModel<Vault> make_vault_model(int positions) {
  ObjectModel<Vault> model("vault");
  for (int j = 0; j < positions; ++j) {
    model.action("turn_" + std::to_string(j))
        .when([j](const Vault& v) { return v.stage == 0 && v.alarm == 0 && v.dial != j; })
        .run([j](Vault& v) { v.dial = static_cast<std::uint8_t>(j); });
  }
  for (int k = 1; k <= kSteps; ++k) {
    model.action("step_" + std::to_string(k))
        .when([](const Vault& v) { return v.dial == 0 && v.alarm == 0 && v.stage < kSteps; })
        .run([k](Vault& v) {
          if (v.stage == k - 1) {
            ++v.stage;
          } else {
            v.alarm = static_cast<std::uint8_t>(k);
          }
        });
  }
  model.invariant("stays_locked").check([](const Vault& v) { return v.stage < kSteps; });
  return model;
}

std::uint64_t steps_to_open(const Model& model, Strategy& strategy) {
  Options options;
  options.stop_on_first = true;
  auto report = explore(model, strategy, options);
  EXPECT_TRUE(report) << report.status().message();
  if (!report) return 0;
  EXPECT_EQ(report->termination, Termination::kFirstFinding);
  EXPECT_EQ(report->findings.size(), 1u);
  return report->stats.steps;
}

TEST(Mcts, FindsADeepBugInFewerStepsThanRandom) {
  // With 24 dial positions: 552 pairs of dial distraction against 8 right steps. Measured over
  // seeds 1..10, MCTS opens the vault in 195..225 steps and Random in 608..616.
  const auto model = make_vault_model(24);
  std::uint64_t mcts_total = 0;
  std::uint64_t random_total = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    Mcts mcts(std::sqrt(2.0), 10.0, 1.0, seed);
    RandomStrategy random(seed);
    const std::uint64_t mcts_steps = steps_to_open(model, mcts);
    const std::uint64_t random_steps = steps_to_open(model, random);
    EXPECT_LT(mcts_steps, random_steps) << "seed " << seed;
    mcts_total += mcts_steps;
    random_total += random_steps;
  }
  EXPECT_LT(2 * mcts_total, random_total);
}

TEST(Mcts, OwesItsSpeedOnTheVaultToTheNewStateReward) {
  // Without a new-state reward MCTS has no signal before the bug itself and does no better than
  // Random (measured: 612 steps on average over seeds 1..10).
  const auto model = make_vault_model(24);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    Mcts rewarded(std::sqrt(2.0), 10.0, 1.0, seed);
    Mcts blind(std::sqrt(2.0), 10.0, 0.0, seed);
    EXPECT_LT(2 * steps_to_open(model, rewarded), steps_to_open(model, blind)) << "seed " << seed;
  }
}

TEST(Mcts, AddsTheViolationRewardToEveryNodeOnThePath) {
  Graph graph(2);
  Mcts mcts(1.0, /*violation_reward=*/10.0, /*new_state_reward=*/1.0, 7);
  const StateId s0 = add_state(graph, mcts, 0, kNoState, kNoAction, {0});
  ASSERT_EQ(pick_and_mark(graph, mcts), (Pair{s0, 0}));
  const StateId s1 = add_state(graph, mcts, 1, s0, 0, {1});
  mcts.observe(graph, {{s0, 0}, s1, true, false});
  EXPECT_EQ(mcts.reward(s0), 1.0);
  EXPECT_EQ(mcts.visits(s0), 1u);

  ASSERT_EQ(pick_and_mark(graph, mcts), (Pair{s1, 1}));
  const StateId s2 = add_state(graph, mcts, 2, s1, 1, {0});
  mcts.observe(graph, {{s1, 1}, s2, true, false});
  EXPECT_EQ(mcts.reward(s0), 2.0);
  EXPECT_EQ(mcts.reward(s1), 1.0);
  EXPECT_EQ(mcts.reward(s2), 0.0);

  // The path to the pick is s0 -> s1 -> s2; the step finds a violation and reaches the known s0.
  ASSERT_EQ(pick_and_mark(graph, mcts), (Pair{s2, 0}));
  mcts.observe(graph, {{s2, 0}, s0, false, true});
  EXPECT_EQ(mcts.reward(s0), 12.0);
  EXPECT_EQ(mcts.reward(s1), 11.0);
  EXPECT_EQ(mcts.reward(s2), 10.0);
  EXPECT_EQ(mcts.visits(s0), 3u);
  EXPECT_EQ(mcts.visits(s1), 2u);
  EXPECT_EQ(mcts.visits(s2), 1u);

  // Nothing is left: the whole path is exhausted, bottom up.
  EXPECT_TRUE(mcts.exhausted(s2));
  EXPECT_TRUE(mcts.exhausted(s1));
  EXPECT_TRUE(mcts.exhausted(s0));
  EXPECT_EQ(mcts.pick(graph), std::nullopt);
}

TEST(Mcts, FollowsTheChildWhoseStepFoundAViolation) {
  // The initial state has two actions, each reaching a child with two actions of its own. Both
  // children are visited once (the older first); only the younger one's step finds a violation.
  // With a violation reward UCB1 goes back to it; without one, the tie goes to the older child.
  for (const double violation_reward : {10.0, 0.0}) {
    Graph graph(2);
    Mcts mcts(std::sqrt(2.0), violation_reward, 1.0, 5);
    const StateId s0 = add_state(graph, mcts, 0, kNoState, kNoAction, {0, 1});
    const std::optional<Pair> first = pick_and_mark(graph, mcts);
    ASSERT_TRUE(first.has_value());
    const StateId older = add_state(graph, mcts, 1, s0, first->action, {0, 1});
    mcts.observe(graph, {*first, older, true, false});
    const std::optional<Pair> second = pick_and_mark(graph, mcts);
    ASSERT_TRUE(second.has_value());
    const StateId younger = add_state(graph, mcts, 2, s0, second->action, {0, 1});
    mcts.observe(graph, {*second, younger, true, false});

    const std::optional<Pair> third = pick_and_mark(graph, mcts);
    ASSERT_TRUE(third.has_value());
    EXPECT_EQ(third->state, older);  // unvisited children first, in discovery order
    mcts.observe(graph, {*third, s0, false, false});
    const std::optional<Pair> fourth = pick_and_mark(graph, mcts);
    ASSERT_TRUE(fourth.has_value());
    EXPECT_EQ(fourth->state, younger);
    mcts.observe(graph, {*fourth, s0, false, true});
    EXPECT_EQ(mcts.reward(younger), violation_reward);
    EXPECT_EQ(mcts.reward(older), 0.0);

    const std::optional<Pair> fifth = pick_and_mark(graph, mcts);
    ASSERT_TRUE(fifth.has_value());
    EXPECT_EQ(fifth->state, violation_reward > 0 ? younger : older)
        << "violation reward " << violation_reward;
  }
}

TEST(Mcts, FinishesWhenPicksGetNoFeedback) {
  // The explorer sends no observe() for a step the action skipped or a run limit refused. The
  // walk must still see that nothing is left below the initial state.
  Graph graph(3);
  Mcts mcts;
  const StateId s0 = add_state(graph, mcts, 0, kNoState, kNoAction, {0, 1});
  const std::optional<Pair> first = pick_and_mark(graph, mcts);
  ASSERT_TRUE(first.has_value());
  const StateId s1 = add_state(graph, mcts, 1, s0, first->action, {2});
  mcts.observe(graph, {*first, s1, true, false});
  const std::optional<Pair> second = pick_and_mark(graph, mcts);  // skipped: no feedback
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->state, s0);
  EXPECT_EQ(pick_and_mark(graph, mcts), (Pair{s1, 2}));  // refused: no feedback either
  EXPECT_EQ(mcts.pick(graph), std::nullopt);
  EXPECT_EQ(mcts.fallback_picks(), 0u);
}

TEST(Mcts, TakesPairsTheTreeCannotReachFromTheFallback) {
  Graph graph(2);
  Mcts mcts;
  const StateId s0 = add_state(graph, mcts, 0, kNoState, kNoAction, {0});
  // A state notified without a parent: no walk from the initial state leads to it.
  const StateId orphan = add_state(graph, mcts, 1, kNoState, kNoAction, {0, 1});
  ASSERT_EQ(pick_and_mark(graph, mcts), (Pair{s0, 0}));
  mcts.observe(graph, {{s0, 0}, s0, false, false});
  EXPECT_TRUE(mcts.exhausted(s0));
  EXPECT_EQ(mcts.remaining(), 2u);

  const std::optional<Pair> a = pick_and_mark(graph, mcts);
  const std::optional<Pair> b = pick_and_mark(graph, mcts);
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(a->state, orphan);
  EXPECT_EQ(b->state, orphan);
  EXPECT_NE(a->action, b->action);
  EXPECT_EQ(mcts.fallback_picks(), 2u);
  EXPECT_EQ(mcts.pick(graph), std::nullopt);
}

TEST(Mcts, ExploresEveryStateAndTransitionOfCountersThroughTheTree) {
  const auto model = examples::make_counters_model(3, 4);
  Mcts mcts(std::sqrt(2.0), 10.0, 1.0, 3);
  auto report = explore(model, mcts);
  ASSERT_TRUE(report) << report.status().message();
  EXPECT_EQ(report->strategy, "mcts");
  EXPECT_EQ(report->termination, Termination::kExhausted);
  EXPECT_EQ(report->stats.states, 64u);
  EXPECT_EQ(report->stats.transitions, 288u);
  EXPECT_EQ(mcts.fallback_picks(), 0u);  // the discovery tree reaches every state
  EXPECT_EQ(mcts.remaining(), 0u);
  EXPECT_TRUE(mcts.exhausted(0));
  // Every step passed through the initial state, and 63 of them found a new state.
  EXPECT_EQ(mcts.visits(0), 288u);
  EXPECT_EQ(mcts.reward(0), 63.0);
}

std::vector<testkit::TraceStep> counters_trace(std::uint64_t seed) {
  Mcts mcts(std::sqrt(2.0), 10.0, 1.0, seed);
  return testkit::trace_on_counters(mcts);
}

TEST(Mcts, SameSeedGivesTheSameTrace) {
  const std::vector<testkit::TraceStep> first = counters_trace(21);
  ASSERT_EQ(first.size(), 288u);
  EXPECT_EQ(counters_trace(21), first);
}

TEST(Mcts, DifferentSeedsGiveDifferentTraces) {
  const std::vector<testkit::TraceStep> a = counters_trace(21);
  const std::vector<testkit::TraceStep> b = counters_trace(22);
  ASSERT_EQ(a.size(), 288u);
  ASSERT_EQ(b.size(), 288u);
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace prowl
