#include "prowl/fsm/machine.hpp"

#include <gtest/gtest.h>

namespace prowl::fsm {
namespace {

struct Nothing {};
using M = Machine<Nothing>;

Outcome ok(Nothing&, Handles&, Rng&, const Args&) { return Outcome::ok(); }

std::string errors_of(M& m) {
  Status s = m.check();
  EXPECT_FALSE(s);
  return s.message();
}

TEST(MachineCheck, AcceptsAWellFormedMachine) {
  M m("ok");
  auto a = m.state("a");
  auto d = m.decision("d");
  auto yes = m.choice("yes", d);
  auto no = m.choice("no", d, {}, true);
  auto end = m.final_state("end");
  auto go = m.action("go", ok);
  m.transition(a, d, weight(1), go);
  m.transition(d, yes, weight(1));
  m.transition(d, no, weight(1));
  m.transition(yes, end, weight(1));
  EXPECT_TRUE(m.check());
  EXPECT_TRUE(m.check());  // idempotent
}

TEST(MachineCheck, ReportsUnreachableStates) {
  M m("m");
  auto a = m.state("a");
  auto end = m.final_state("end");
  auto lost = m.state("lost");
  m.transition(a, end, weight(1));
  m.transition(lost, end, weight(1));
  EXPECT_EQ(
      errors_of(m),
      "machine 'm' is misconfigured:\n  - state 'lost' is unreachable from the initial state 'a'");
}

TEST(MachineCheck, ReportsANonFinalStateWithNoWayOut) {
  M m("m");
  auto a = m.state("a");
  auto end = m.final_state("end");
  auto sink = m.state("sink");
  m.transition(a, end, weight(1));
  m.transition(a, sink, weight(1));
  EXPECT_EQ(errors_of(m),
            "machine 'm' is misconfigured:\n  - state 'sink' is not final and has no way out");
}

TEST(MachineCheck, ADisabledTransitionIsNoWayOut) {
  M m("m");
  auto a = m.state("a");
  auto end = m.final_state("end");
  m.transition(a, end, priority(0));
  EXPECT_EQ(errors_of(m),
            "machine 'm' is misconfigured:\n"
            "  - state 'a' is not final and has no way out\n"
            "  - state 'end' is unreachable from the initial state 'a'");
}

TEST(MachineCheck, ReportsACycleWithNoWayToAFinalState) {
  M m("m");
  auto a = m.state("a");
  auto end = m.final_state("end");
  auto x = m.state("x");
  auto y = m.state("y");
  m.transition(a, end, weight(1));
  m.transition(a, x, weight(1));
  m.transition(x, y, weight(1));
  m.transition(y, x, weight(1));
  EXPECT_EQ(errors_of(m),
            "machine 'm' is misconfigured:\n"
            "  - no final state can be reached from state 'x' (a cycle with no way out)\n"
            "  - no final state can be reached from state 'y' (a cycle with no way out)");
}

TEST(MachineCheck, ReportsAMachineWithoutAFinalState) {
  M m("m");
  auto a = m.state("a");
  m.transition(a, a, weight(1));
  EXPECT_EQ(errors_of(m),
            "machine 'm' is misconfigured:\n  - no final state (a run must be able to end)");
}

TEST(MachineCheck, EnforcesTheDecisionAndChoiceRules) {
  M m("m");
  auto a = m.state("a");
  auto d = m.decision("d");
  auto c = m.choice("c", d);
  auto end = m.final_state("end");
  auto go = m.action("go", ok);
  m.transition(a, d, weight(1));
  m.transition(d, c, weight(1), go);  // a decision carries no action
  m.transition(d, end, weight(1));    // and leads only to its choices
  m.transition(a, c, weight(1));      // a choice is entered only from its decision
  m.transition(c, end, weight(1));
  EXPECT_EQ(errors_of(m),
            "machine 'm' is misconfigured:\n"
            "  - decision state 'd' has an action (go); it may only branch to its choices\n"
            "  - decision state 'd' leads to 'end', which is not one of its choices\n"
            "  - choice state 'c' is entered from 'a'; only its decision state may lead to it");
}

TEST(MachineCheck, ReportsADecisionWithoutChoicesAndAChoiceOfANonDecision) {
  M m("m");
  auto a = m.state("a");
  auto d = m.decision("d");
  auto c = m.choice("c", a);
  auto end = m.final_state("end");
  m.transition(a, d, weight(1));
  m.transition(a, c, weight(1));
  m.transition(c, end, weight(1));
  m.transition(a, end, weight(1));
  EXPECT_EQ(errors_of(m),
            "machine 'm' is misconfigured:\n"
            "  - decision state 'd' has no choice states\n"
            "  - choice state 'c' names 'a' as its decision, which is not a decision state\n"
            "  - state 'd' is not final and has no way out");
}

TEST(MachineCheck, ReportsDuplicateNamesAndBadWeights) {
  M m("m");
  auto a = m.state("a");
  auto end = m.final_state("a");
  m.action("go", ok);
  m.action("go", ok);
  m.transition(a, end, weight(-1));
  m.transition(a, end, weight(1));
  EXPECT_EQ(errors_of(m),
            "machine 'm' is misconfigured:\n"
            "  - two states are named 'a'\n"
            "  - two actions are named 'go'\n"
            "  - transition 'a' -> 'a': weight -1 (a weight is finite and >= 0)");
}

TEST(MachineCheck, ReportsTransitionsToMissingStates) {
  M m("m");
  auto a = m.state("a");
  m.transition(a, 7, weight(1));
  EXPECT_EQ(errors_of(m), "machine 'm': transition 'a' -> #7: no such state");
}

// Nothing is reached from an initial state that does not exist: that one error, and no look
// into the states from it (which read past the end of the machine's states).
TEST(MachineCheck, ReportsAMissingInitialStateAlone) {
  M m("m");
  auto a = m.state("a");
  auto b = m.final_state("b");
  m.transition(a, b, weight(1));
  m.initial(9);
  EXPECT_EQ(errors_of(m), "machine 'm' is misconfigured:\n  - initial state #9 does not exist");
}

TEST(MachineCheck, ReportsAnEmptyMachine) {
  M m("m");
  EXPECT_EQ(errors_of(m), "machine 'm': no states");
}

TEST(Machine, AddsActionsToAllStatesButDecisionsFinalsAndExclusions) {
  M m("m");
  auto a = m.state("a");
  auto b = m.state("b");
  auto skipped = m.state("skipped");
  auto d = m.decision("d");
  auto c = m.choice("c", d);
  auto end = m.final_state("end");
  m.skip_for_all(skipped);
  auto go = m.action("go", ok);
  auto hop = m.action("hop", ok);
  m.transition(a, d, weight(1));
  m.transition(d, c, weight(1));
  m.transition(c, b, weight(1));
  m.transition(b, skipped, weight(1));
  m.transition(skipped, end, weight(1));
  m.add_to_all(go, weight(2), {b});
  m.add_from_to_all(a, hop, priority(4));
  ASSERT_TRUE(m.check()) << m.check().message();
  std::vector<std::string> added;
  for (const auto& t : m.core().transitions()) {
    if (t.action == kNoAction) continue;
    added.push_back(m.core().states()[t.from].name + " -" + m.core().actions()[t.action].name +
                    "-> " + m.core().states()[t.next].name + " w=" + std::to_string(t.weight));
  }
  EXPECT_EQ(added, (std::vector<std::string>{"a -go-> a w=2.000000", "a -hop-> b w=0.250000",
                                             "c -go-> c w=2.000000"}));
}

TEST(Machine, PrintsEveryStateWithItsTransitionProbabilities) {
  M m("demo");
  auto a = m.state("a");
  auto d = m.decision("d");
  auto yes = m.choice("yes", d, [](const Nothing&) { return true; });
  auto end = m.final_state("end");
  auto go = m.action("go", ok);
  m.transition(a, a, weight(3), go);
  m.transition(a, d, weight(1));
  m.transition(d, yes, weight(1));
  m.transition(yes, end, weight(1));
  ASSERT_TRUE(m.check());
  EXPECT_EQ(m.core().describe(),
            "machine demo: 4 states, 1 actions, 4 transitions\n"
            "\nstate a (initial)\n"
            "   75.00%  go                       -> a\n"
            "   25.00%  (no action)              -> d\n"
            "\nstate d (decision)\n"
            "  100.00%  (no action)              -> yes  [when enabled]\n"
            "\nstate yes (choice, of d, has a precondition)\n"
            "  100.00%  (no action)              -> end\n"
            "\nstate end (final)\n");
}

TEST(Weight, PriorityIsTheInverseOfTheWeight) {
  EXPECT_EQ(priority(1).value, 1.0);
  EXPECT_EQ(priority(4).value, 0.25);
  EXPECT_EQ(priority(0).value, 0.0);
  EXPECT_EQ(weight(2.5).value, 2.5);
}

}  // namespace
}  // namespace prowl::fsm
