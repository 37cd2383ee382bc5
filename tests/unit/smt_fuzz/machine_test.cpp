// The smt_fuzz machine: its configuration, and fuzz walks against Z3 in this process — the same
// seed gives the same trace, and every trace replays as it ran.
#ifdef PROWL_HAVE_SMT_FUZZ

#include <gtest/gtest.h>

#include "unit/smt_fuzz/smt_test_support.hpp"

namespace smt_fuzz::testing {
namespace {

using prowl::Rng;
using prowl::fsm::RunKind;
using prowl::fsm::RunResult;

constexpr int kWalks = 30;

std::uint64_t seed_of(int i) { return Rng::derive(1, static_cast<std::uint64_t>(i), 0); }

TEST(SmtMachine, ChecksAndDescribesItsStates) {
  SmtMachine m = make_machine();
  ASSERT_TRUE(m.check().is_ok()) << m.check().message();
  const std::string text = m.core().describe();
  EXPECT_EQ(text.rfind("machine smt_fuzz: 14 states, 21 actions, 81 transitions\n", 0), 0u) << text;
  for (const char* state :
       {"state new (initial)\n  100.00%  new_solver               -> opt\n", "state opt\n",
        "state set_logic\n", "state sorts\n", "state inputs\n", "state terms\n", "state assert\n",
        "state check_sat\n", "state decide_sat_unsat (decision)\n",
        "state sat (choice, of decide_sat_unsat", "state unsat (choice, of decide_sat_unsat",
        "state unknown (choice, of decide_sat_unsat", "state model\n", "state delete (final)"}) {
    EXPECT_NE(text.find(state), std::string::npos) << state;
  }
}

TEST(SmtMachine, TheSameSeedGivesTheSameWalks) {
  SmtMachine m = make_machine();
  ASSERT_TRUE(m.check().is_ok());
  std::vector<std::string> first;
  for (int i = 0; i < kWalks; ++i) first.push_back(walk_text(m.core(), seed_of(i)));
  for (int i = 0; i < kWalks; ++i) EXPECT_EQ(walk_text(m.core(), seed_of(i)), first[i]) << i;
  for (int i = 1; i < kWalks; ++i) EXPECT_NE(first[i], first[0]) << i;
  EXPECT_EQ(first[0].rfind("prowl-trace 1 smt_fuzz solver=z3 seed=", 0), 0u) << first[0];
}

TEST(SmtMachine, EveryWalkReplaysAsItRan) {
  SmtMachine m = make_machine();
  ASSERT_TRUE(m.check().is_ok());
  std::size_t steps = 0;
  for (int i = 0; i < kWalks; ++i) {
    RunResult walked;
    const std::string text = walk_text(m.core(), seed_of(i), &walked);
    EXPECT_EQ(walked.kind, RunKind::kOk) << walked.message << "\n" << text;
    auto trace = prowl::trace::parse_trace(text);
    ASSERT_TRUE(trace.is_ok()) << trace.status().message();
    const RunResult replayed = prowl::fsm::replay(m.core(), *trace, nullptr);
    EXPECT_EQ(replayed.kind, walked.kind) << replayed.message << "\n" << text;
    EXPECT_EQ(replayed.steps, trace->steps.size());
    steps += walked.steps;
  }
  // Walks end at delete or after 50 steps.
  EXPECT_GT(steps, 20u * kWalks);
  EXPECT_LE(steps, 50u * kWalks);
}

TEST(SmtMachine, WalksReachTheStatesAfterACheck) {
  SmtMachine m = make_machine();
  ASSERT_TRUE(m.check().is_ok());
  const prowl::fsm::MachineCore& core = m.core();
  prowl::fsm::Stats stats(core.states().size(), core.actions().size());
  for (int i = 0; i < kWalks; ++i) prowl::fsm::walk(core, {}, seed_of(i), {}, nullptr, &stats);
  for (const char* name : {"check_sat", "sat", "unsat", "model"}) {
    EXPECT_GT(stats.entered_count(*core.find_state(name)), 0u) << name;
  }
  for (const char* name : {"check_sat", "get_value", "push", "pop", "mk_term"}) {
    EXPECT_GT(stats.succeeded_count(*core.find_action(name)), 0u) << name;
  }
}

}  // namespace
}  // namespace smt_fuzz::testing

#endif  // PROWL_HAVE_SMT_FUZZ
