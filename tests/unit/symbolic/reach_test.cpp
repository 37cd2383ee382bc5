#include "prowl/symbolic/reach.hpp"

#include <gtest/gtest.h>

#include <csignal>

#include "counter2.hpp"
#include "prowl/core/interrupt.hpp"
#include "prowl/symbolic/image.hpp"
#include "prowl/symbolic/region.hpp"
#include "symbolic/cubes.hpp"

namespace prowl::sym {
namespace {

using testing::Counter2;

class ReachModes : public ::testing::TestWithParam<ImageMode> {};

TEST_P(ReachModes, Counter2ReachesItsFixpointAtDepth8With15States) {
  z3::context c;
  Counter2 m(c);
  ReachOptions options;
  options.image = GetParam();
  const ReachResult r = reach(m.ts, options);
  EXPECT_EQ(r.status, ReachStatus::kFixpoint);
  EXPECT_EQ(r.depth, 8u);
  EXPECT_EQ(r.iterations, 9u);
  EXPECT_EQ(r.frontiers.size(), 9u);
  EXPECT_EQ(count_states(m.ts, r.region(), {}, 100), 15u);
  const z3::expr box = 0 <= m.x && m.x <= 4 && 0 <= m.y && m.y <= 2;
  EXPECT_EQ(equivalent(m.ts, r.region(), {box}), Answer::kYes);
}

TEST_P(ReachModes, StepFixedToOneGives12StatesAtDepth11) {
  z3::context c;
  TransitionSystem ts(c, "counter2_p1");
  const z3::expr x = ts.var("x", c.int_sort()), y = ts.var("y", c.int_sort());
  ts.init(x == 0 && y == 0);
  ts.transition("inc").guard(x < 3).update(x, x + 1);
  ts.transition("carry").guard(x >= 3 && y < 2).update(x, c.int_val(0)).update(y, y + 1);
  ReachOptions options;
  options.image = GetParam();
  const ReachResult r = reach(ts, options);
  EXPECT_EQ(r.status, ReachStatus::kFixpoint);
  EXPECT_EQ(r.depth, 11u);
  EXPECT_EQ(r.iterations, 12u);
  EXPECT_EQ(count_states(ts, r.region(), {}, 100), 12u);
}

TEST_P(ReachModes, UnboundedCounterStopsAtTheDepthCap) {
  z3::context c;
  Counter2 m(c, /*bounded_y=*/false);
  ReachOptions options;
  options.image = GetParam();
  options.max_depth = 12;
  const ReachResult r = reach(m.ts, options);
  EXPECT_EQ(r.status, ReachStatus::kInterrupted);
  EXPECT_EQ(r.depth, 12u);
  EXPECT_NE(r.reason.find("depth cap 12"), std::string::npos) << r.reason;
}

INSTANTIATE_TEST_SUITE_P(EveryMode, ReachModes,
                         ::testing::Values(ImageMode::kQe2, ImageMode::kQe, ImageMode::kQeRec,
                                           ImageMode::kQeLight, ImageMode::kPsyco),
                         [](const auto& info) {
                           std::string name(to_string(info.param));
                           for (char& ch : name) ch = ch == '-' ? '_' : ch;
                           return name;
                         });

TEST(Reach, PsycoRegionIsEquivalentToQe2s) {
  z3::context c;
  Counter2 m(c);
  ReachOptions psyco;
  psyco.image = ImageMode::kPsyco;
  const ReachResult a = reach(m.ts, psyco);
  const ReachResult b = reach(m.ts);
  EXPECT_EQ(a.depth, b.depth);
  EXPECT_EQ(equivalent(m.ts, a.region(), b.region()), Answer::kYes);
}

TEST(Reach, BrokenInvariantGivesTheShortestCounterexample) {
  z3::context c;
  Counter2 m(c);
  m.ts.invariant("x_below_4", m.x < 4);
  m.ts.invariant("y_bounded", m.y <= 2);
  const ReachResult r = reach(m.ts);
  EXPECT_EQ(r.status, ReachStatus::kViolated);
  ASSERT_EQ(r.checks.size(), 2u);
  EXPECT_EQ(r.checks[0].verdict, Verdict::kViolated);
  EXPECT_EQ(r.checks[0].depth, 2u);  // inc p=2 to x=2, inc p=2 to x=4
  const Counterexample& cex = *r.checks[0].counterexample;
  EXPECT_EQ(cex.finding, "invariant:x_below_4");
  EXPECT_EQ(format_state(m.ts, cex.initial), "x=0 y=0");
  ASSERT_EQ(cex.steps.size(), 2u);
  EXPECT_EQ(format_state(m.ts, cex.steps[1].after), "x=4 y=0");
  EXPECT_EQ(cex.steps[1].transition, "inc");
  ASSERT_EQ(cex.steps[1].inputs.size(), 1u);
  EXPECT_EQ(format_value(cex.steps[1].inputs[0].second), "2");
  // The search stops only when nothing is left to prove: y_bounded is proved at the fixpoint.
  EXPECT_EQ(r.checks[1].verdict, Verdict::kProved);
}

TEST(Reach, ErrorPathCountsItsOwnStep) {
  z3::context c;
  Counter2 m(c);
  m.ts.transition("overflow").guard(m.y == 1 && m.x == 0).error();
  const ReachResult r = reach(m.ts);
  ASSERT_EQ(r.checks.size(), 1u);
  EXPECT_EQ(r.checks[0].finding, "error:overflow");
  EXPECT_EQ(r.checks[0].verdict, Verdict::kViolated);
  // x to 3 in 2 steps (1+2 or 2+1), carry: 3 steps to y=1 x=0, then the error path.
  EXPECT_EQ(r.checks[0].depth, 4u);
  EXPECT_EQ(r.checks[0].counterexample->steps.back().transition, "overflow");
}

// Two order slots: a status each (0 empty, 1 created, 2 paid), the price an input up to 1000.
TEST(Reach, CubesStayAtOneControlLocationEach) {
  z3::context c;
  TransitionSystem ts(c, "two_slots");
  const z3::expr bal = ts.var("bal", c.int_sort());
  const z3::expr p = ts.input("price", c.int_sort());
  std::vector<z3::expr> st, amt;
  for (int i = 0; i < 2; ++i) {
    st.push_back(ts.var("st" + std::to_string(i), c.int_sort()));
    amt.push_back(ts.var("amt" + std::to_string(i), c.int_sort()));
  }
  ts.init(bal == 0 && st[0] == 0 && st[1] == 0 && amt[0] == 0 && amt[1] == 0);
  for (int i = 0; i < 2; ++i) {
    ts.transition("create_" + std::to_string(i))
        .guard(st[i] == 0 && 1 <= p && p <= 1000)
        .update(st[i], c.int_val(1))
        .update(amt[i], p);
    ts.transition("pay_" + std::to_string(i))
        .guard(st[i] == 1)
        .update(st[i], c.int_val(2))
        .update(bal, bal + amt[i]);
  }
  ts.invariant("paid", bal == z3::ite(st[0] == 2, amt[0], c.int_val(0)) +
                                  z3::ite(st[1] == 2, amt[1], c.int_val(0)));
  const ReachResult r = reach(ts);
  EXPECT_EQ(r.status, ReachStatus::kFixpoint);
  EXPECT_EQ(r.depth, 4u);
  EXPECT_EQ(r.checks[0].verdict, Verdict::kProved);
  // One cube per pair of statuses: 1 at depth 0, 2, 3 (1-1, 2-0, 0-2), 2, 1.
  std::vector<std::size_t> sizes;
  for (const auto& frontier : r.frontiers) sizes.push_back(frontier.size());
  EXPECT_EQ(sizes, (std::vector<std::size_t>{1, 2, 3, 2, 1}));
  for (const auto& frontier : r.frontiers) {
    for (const z3::expr& cube : frontier) {
      z3::solver solver(c);
      solver.add(cube);
      ASSERT_EQ(solver.check(), z3::sat);
      const z3::model model = solver.get_model();
      solver.add(st[0] != model.eval(st[0]) || st[1] != model.eval(st[1]));
      EXPECT_EQ(solver.check(), z3::unsat) << cube;
    }
  }
}

TEST(Reach, AnInterruptBeforeTheSearchStopsItWithItsSignalAndOpenChecks) {
  z3::context c;
  Counter2 m(c);
  m.ts.invariant("x_bounded", m.x <= 4);
  m.ts.invariant("y_bounded", m.y <= 2);
  clear_interrupts();
  request_interrupt(SIGINT);
  const ReachResult r = reach(m.ts);
  clear_interrupts();
  EXPECT_EQ(r.status, ReachStatus::kInterrupted);
  EXPECT_EQ(r.signal, SIGINT);
  EXPECT_EQ(r.reason, "interrupted by SIGINT");
  ASSERT_EQ(r.checks.size(), 2u);
  for (const Check& check : r.checks) EXPECT_EQ(check.verdict, Verdict::kOpen) << check.finding;
}

TEST(Reach, NonlinearInputEndsUnknownInPsycoMode) {
  z3::context c;
  TransitionSystem ts(c, "nl");
  const z3::expr x = ts.var("x", c.int_sort()), y = ts.var("y", c.int_sort());
  const z3::expr p = ts.input("p", c.int_sort());
  ts.init(x == 2 && y == 0);
  ts.transition("mul").guard(p > 0).update(y, z3::mod(p * p, 5));
  ReachOptions options;
  options.image = ImageMode::kPsyco;
  const ReachResult r = reach(ts, options);
  EXPECT_EQ(r.status, ReachStatus::kUnknown);
  EXPECT_NE(r.reason.find("could not decide"), std::string::npos) << r.reason;
}

TEST(Psyco, ApplyRenameAndDifferenceOnHandBuiltRegions) {
  z3::context c;
  Counter2 m(c);
  Psyco psyco(m.ts);
  const Transition& inc = m.ts.transitions()[0];
  const Transition& carry = m.ts.transitions()[1];
  const z3::expr init = m.x == 0 && m.y == 0;
  // carry's guard cannot hold at x = 0: no successor.
  EXPECT_FALSE(psyco.apply(carry, init).has_value());
  std::optional<z3::expr> stepped = psyco.apply(inc, init);
  ASSERT_TRUE(stepped.has_value());
  const z3::expr next = psyco.rename(*stepped);
  // The history is kept in fresh names; the state variables now mean the new state.
  EXPECT_NE(next.to_string().find("uVarReplacement_"), std::string::npos);
  EXPECT_EQ(count_states(m.ts, {next}, {}, 10), 2u);  // x in {1, 2}, y = 0
  EXPECT_EQ(equivalent(m.ts, {next}, {(m.x == 1 || m.x == 2) && m.y == 0}), Answer::kYes);
  // post applies every path to every state.
  EXPECT_EQ(psyco.post({init}).size(), 1u);
  // difference keeps a state partly outside Reach whole, and drops one inside it.
  std::string reason;
  auto kept = psyco.difference({next, init}, {init, m.x == 1 && m.y == 0}, reason);
  ASSERT_TRUE(kept.has_value());
  ASSERT_EQ(kept->size(), 1u);
  EXPECT_TRUE(z3::eq((*kept)[0], next));
}

TEST(CubeFrontier, StepOfInitIsTheStatesOneStepAway) {
  z3::context c;
  Counter2 m(c);
  CubeFrontier frontier(m.ts, ImageMode::kQe2);
  const std::vector<z3::expr> init = to_cubes(m.ts.initial());
  frontier.add_to_reach(init);
  const std::optional<std::vector<z3::expr>> next = frontier.step(init);
  ASSERT_TRUE(next.has_value());
  for (const z3::expr& cube : *next) EXPECT_EQ(aux_constants(m.ts, cube).size(), 0u) << cube;
  EXPECT_EQ(equivalent(m.ts, *next, {(m.x == 1 || m.x == 2) && m.y == 0}), Answer::kYes);
  EXPECT_EQ(equivalent(m.ts, *next, {m.x == 1 && m.y == 0}), Answer::kNo);
}

TEST(CubeFrontier, StepDropsWhatReachHoldsAndIsEmptyAtTheFixpoint) {
  z3::context c;
  Counter2 m(c);
  CubeFrontier frontier(m.ts, ImageMode::kQe2);
  // Reach already holds the whole box: x in {1, 2}, one step from x = 0, is not new.
  frontier.add_to_reach({0 <= m.x && m.x <= 4 && 0 <= m.y && m.y <= 2});
  const std::optional<std::vector<z3::expr>> next = frontier.step({m.x == 0 && m.y == 0});
  ASSERT_TRUE(next.has_value());
  EXPECT_TRUE(next->empty());
  // From x = 3, y = 2 nothing is enabled (carry needs y < 2, inc needs x < 3).
  CubeFrontier fresh(m.ts, ImageMode::kQe2);
  const std::optional<std::vector<z3::expr>> none = fresh.step({m.x == 3 && m.y == 2});
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->empty());
}

TEST(Region, CountsStatesOutsideAnotherRegion) {
  z3::context c;
  Counter2 m(c);
  const z3::expr box = 0 <= m.x && m.x <= 4 && 0 <= m.y && m.y <= 2;
  EXPECT_EQ(count_states(m.ts, {box}, {m.y == 0}, 100), 10u);
  EXPECT_EQ(count_states(m.ts, {box}, {}, 14), std::nullopt);  // over the limit
}

}  // namespace
}  // namespace prowl::sym
