#include <map>

#include <gtest/gtest.h>

#include "prowl/fsm/machine.hpp"
#include "prowl/fsm/runner.hpp"

namespace prowl::fsm {
namespace {

struct Counter {
  int value = 0;
  std::vector<std::string> calls;
};
using M = Machine<Counter>;

// start -> end through one of three actions whose weights are given.
M three_way(Weight a, Weight b, Weight c) {
  M m("three");
  auto start = m.state("start");
  auto end = m.final_state("end");
  for (auto [name, w] : {std::pair{"a", a}, {"b", b}, {"c", c}}) {
    auto act = m.action(name, [name = std::string(name)](Counter& t, Handles&, Rng&, const Args&) {
      t.calls.push_back(name);
      return Outcome::ok();
    });
    m.transition(start, end, w, act);
  }
  return m;
}

std::map<std::string, int> frequencies(M& m, int runs) {
  EXPECT_TRUE(m.check());
  Stats stats(m.core().states().size(), m.core().actions().size());
  for (int i = 0; i < runs; ++i) walk(m.core(), {}, Rng::derive(7, i, 0), {}, nullptr, &stats);
  std::map<std::string, int> out;
  for (ActionIndex a = 0; a < m.core().actions().size(); ++a) {
    out[m.core().actions()[a].name] = static_cast<int>(stats.attempted_count(a));
  }
  return out;
}

// 20,000 walks with fixed seeds; each frequency within 1.5 percentage points of its probability
// (about 5 standard deviations for p = 0.5).
TEST(Walk, TakesTransitionsInProportionToTheirWeights) {
  M m = three_way(weight(1), weight(2), weight(7));
  auto f = frequencies(m, 20000);
  EXPECT_NEAR(f["a"] / 20000.0, 0.1, 0.015);
  EXPECT_NEAR(f["b"] / 20000.0, 0.2, 0.015);
  EXPECT_NEAR(f["c"] / 20000.0, 0.7, 0.015);
}

TEST(Walk, TakesMurxlaPrioritiesAsInverseWeights) {
  M m = three_way(priority(1), priority(2), priority(4));
  auto f = frequencies(m, 20000);
  EXPECT_NEAR(f["a"] / 20000.0, 4.0 / 7, 0.015);
  EXPECT_NEAR(f["b"] / 20000.0, 2.0 / 7, 0.015);
  EXPECT_NEAR(f["c"] / 20000.0, 1.0 / 7, 0.015);
}

TEST(Walk, NeverTakesADisabledTransition) {
  M m = three_way(weight(1), priority(0), weight(1));
  auto f = frequencies(m, 2000);
  EXPECT_EQ(f["b"], 0);
  EXPECT_EQ(f["a"] + f["c"], 2000);
}

// inc moves to "high" only when the counter is at least 3 (the state's precondition); "high"
// ends the run.
M guarded() {
  M m("guarded");
  auto low = m.state("low");
  auto high = m.final_state("high", [](const Counter& c) { return c.value >= 3; });
  auto inc = m.action("inc", [](Counter& c, Handles&, Rng&, const Args&) {
    ++c.value;
    c.calls.push_back("inc");
    return Outcome::ok();
  });
  auto leave = m.action("leave", [](Counter& c, Handles&, Rng&, const Args&) {
    c.calls.push_back("leave@" + std::to_string(c.value));
    return Outcome::ok();
  });
  m.transition(low, low, weight(1), inc);
  m.transition(low, high, weight(100), leave);
  return m;
}

TEST(Walk, EntersAStateOnlyWhenItsPreconditionHolds) {
  M m = guarded();
  ASSERT_TRUE(m.check());
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    std::ostringstream sink;
    Stats stats(2, 2);
    RunResult r = walk(m.core(), {}, seed, {}, nullptr, &stats);
    EXPECT_EQ(r.kind, RunKind::kOk);
    EXPECT_EQ(stats.attempted_count(0), 3u);  // inc three times, then leave: nothing else enabled
    EXPECT_EQ(stats.attempted_count(1), 1u);
    EXPECT_EQ(stats.entered_count(1), 1u);
  }
}

TEST(Walk, PicksAnotherTransitionWhenAnActionDeclines) {
  M m("decline");
  auto s = m.state("s");
  auto end = m.final_state("end");
  auto shy = m.action(
      "shy",
      [](Counter&, Handles&, Rng&) -> std::optional<std::vector<std::string>> {
        return std::nullopt;
      },
      [](Counter&, Handles&, Rng&, const Args&) { return Outcome::error("never runs"); });
  auto go = m.action("go", [](Counter&, Handles&, Rng&, const Args&) { return Outcome::ok(); });
  m.transition(s, end, weight(1000), shy);
  m.transition(s, end, weight(1), go);
  ASSERT_TRUE(m.check());
  Stats stats(2, 2);
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    EXPECT_EQ(walk(m.core(), {}, seed, {}, nullptr, &stats).kind, RunKind::kOk);
  }
  EXPECT_EQ(stats.attempted_count(0), 0u);
  EXPECT_EQ(stats.attempted_count(1), 20u);
  EXPECT_GE(stats.declined_count(0), 19u);
}

TEST(Walk, ReportsAStateWithNothingEnabledAsStuck) {
  M m("stuck");
  auto s = m.state("s");
  auto end = m.final_state("end", [](const Counter&) { return false; });
  m.transition(s, end, weight(1));
  ASSERT_TRUE(m.check());
  RunResult r = walk(m.core(), {}, 1, {}, nullptr, nullptr);
  EXPECT_EQ(r.kind, RunKind::kStuck);
  EXPECT_EQ(r.message, "no transition out of state 's' is enabled");
  EXPECT_EQ(r.signature(), "stuck: no transition out of state 's' is enabled");
}

TEST(Walk, StopsAtTheStepLimit) {
  M m("loop");
  auto s = m.state("s");
  auto end = m.final_state("end");
  auto tick = m.action("tick", [](Counter&, Handles&, Rng&, const Args&) { return Outcome::ok(); });
  m.transition(s, s, weight(1), tick);
  m.transition(s, end, priority(0));
  m.transition(s, end, weight(1e-12));
  ASSERT_TRUE(m.check());
  RunResult r = walk(m.core(), {}, 3, {7}, nullptr, nullptr);
  EXPECT_EQ(r.kind, RunKind::kOk);
  EXPECT_EQ(r.steps, 7u);
}

TEST(Walk, AnErrorOutcomeOrAnExceptionIsAFinding) {
  M m("fail");
  auto s = m.state("s");
  auto end = m.final_state("end");
  auto bad = m.action("bad", [](Counter&, Handles&, Rng&, const Args&) -> Outcome {
    throw std::runtime_error("boom at 0x1234");
  });
  m.transition(s, end, weight(1), bad);
  ASSERT_TRUE(m.check());
  RunResult r = walk(m.core(), {}, 1, {}, nullptr, nullptr);
  EXPECT_EQ(r.kind, RunKind::kFinding);
  EXPECT_EQ(r.action, "bad");
  EXPECT_EQ(r.message, "unexpected exception: boom at 0x1234");
  EXPECT_EQ(r.signature(), "finding in bad: unexpected exception: boom at 0x?");
}

}  // namespace
}  // namespace prowl::fsm
